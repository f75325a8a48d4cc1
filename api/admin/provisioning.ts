import { generateKey, type KeyKind } from '../../platform/keys';
import { newId } from '../../platform/ids';
import type { Mongo } from '../../platform/mongo';
import type { SandboxBehavior } from '../../platform/records';
import { apiKeyData } from '../../data/api-keys';
import { connectorData } from '../../data/connectors';
import { tenantData } from '../../data/tenants';

// Tenant and key issuance, shared by the admin API and `npm run dev`'s demo tenant.

/** `keys` when their ids had to be known before, for their audit rows (the admin API's create). */
export async function createTenant(
  mongo: Mongo,
  pepper: string,
  input: { name: string; region: string; id?: string; payout_timeout_seconds?: number },
  keys = { secret: generateKey('secret', input.region, pepper), publishable: generateKey('publishable', input.region, pepper) },
) {
  // The data layer gives it its number (the integer `tenant_id` of the older interface).
  const tenant = await tenantData(mongo).insert({
    _id: input.id ?? newId('ten', input.region),
    name: input.name,
    region: input.region,
    ...(input.payout_timeout_seconds !== undefined ? { payout_timeout_seconds: input.payout_timeout_seconds } : {}),
    created_at: new Date(),
  });
  const secret = await issueKey(mongo, pepper, tenant._id, input.region, 'secret', [], keys.secret);
  const publishable = await issueKey(mongo, pepper, tenant._id, input.region, 'publishable', [], keys.publishable);
  return { tenant, secretKey: secret.key, publishableKey: publishable.key };
}

/** Stores a key (`generated` when its id had to be known before, for its audit row) and answers it once. */
export async function issueKey(mongo: Mongo, pepper: string, tenantId: string, region: string, kind: KeyKind, claims: string[], generated = generateKey(kind, region, pepper)) {
  const { key, lookupId, hash } = generated;
  await apiKeyData(mongo).insert({ _id: lookupId, tenant_id: tenantId, region, kind, hash, claims, created_at: new Date(), revoked_at: null });
  return { key, id: lookupId };
}

export async function createConnector(
  mongo: Mongo,
  tenantId: string,
  region: string,
  input: { gateway: string; live: boolean; payment_methods: string[]; payouts: boolean; sandbox_behavior?: SandboxBehavior },
) {
  const id = newId('con', region);
  const { sandbox_behavior, ...rest } = input;
  await connectorData(mongo).insert({ _id: id, tenant_id: tenantId, ...rest, ...(sandbox_behavior ? { sandbox_behavior } : {}), created_at: new Date() });
  return id;
}
