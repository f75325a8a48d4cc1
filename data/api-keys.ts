import type { Mongo } from '../platform/mongo';
import type { ApiKeyRecord } from '../platform/records';

/** API keys, stored hashed; looked up by the id embedded in the key itself (which names its tenant). */
export function apiKeyData(mongo: Mongo) {
  const c = mongo.c.apiKeys;
  return {
    byLookupId: (lookupId: string) => c.findOne({ _id: lookupId }),
    ofTenant: (tenantId: string) => c.find({ tenant_id: tenantId }).toArray(),
    insert: async (key: ApiKeyRecord) => void (await c.insertOne(key)),
    /** Revokes a live key of the tenant; one revoked already keeps its first `revoked_at` (a repeat changes nothing). */
    revoke: async (tenantId: string, id: string): Promise<'revoked' | 'already' | 'missing'> => {
      if ((await c.updateOne({ _id: id, tenant_id: tenantId, revoked_at: null }, { $set: { revoked_at: new Date() } })).matchedCount > 0) return 'revoked';
      return (await c.findOne({ _id: id, tenant_id: tenantId })) ? 'already' : 'missing';
    },
  };
}
