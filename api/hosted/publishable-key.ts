import { DomainError } from '../../domain/errors';
import type { Mongo } from '../../platform/mongo';
import { verifyApiKey } from '../http/auth';

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
  try {
    const record = await verifyApiKey(key, hostRegion, { mongo, config: { KEY_HASH_SECRET: pepper } });
    return record.kind === 'publishable' && record.region === intent.region && record.tenant_id === intent.tenantId;
  } catch (err) {
    if (err instanceof DomainError) return false;
    throw err;
  }
}
