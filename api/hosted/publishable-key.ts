import { hashesEqual, hashKey, parseKey } from '../../platform/keys';
import type { Mongo } from '../../platform/mongo';

/**
 * Does `key` authorize showing and paying an intent of `tenantId` in `region` (the embedded form)? The
 * same checks as API authentication, answered as a yes/no: the embedded form shows one "not found" page
 * for every failure, so a wrong key reveals nothing about the intent.
 */
export async function publishableKeyAllows(
  mongo: Mongo,
  pepper: string,
  key: string,
  intent: { tenantId: string; region: string },
  hostRegion: string,
): Promise<boolean> {
  const parsed = parseKey(key);
  if (!parsed || parsed.kind !== 'publishable' || parsed.region !== intent.region || parsed.region !== hostRegion) return false;
  const record = await mongo.c.apiKeys.findOne({ _id: parsed.lookupId });
  return (
    record !== null &&
    hashesEqual(record.hash, hashKey(key, pepper)) &&
    record.kind === 'publishable' &&
    !record.revoked_at &&
    record.region === intent.region &&
    record.tenant_id === intent.tenantId
  );
}
