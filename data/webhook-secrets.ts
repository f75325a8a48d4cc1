import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { WebhookSecretsRecord } from '../platform/records';

/** The secrets of a resource's webhook endpoints, kept out of workflow history (referenced by secretRef). */
export function webhookSecretData(mongo: Mongo) {
  const c = mongo.c.webhookSecrets;
  return {
    /** Writing the same record again changes nothing. */
    insert: async (record: WebhookSecretsRecord) => {
      try {
        await c.insertOne({ ...record });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    remove: async (id: string) => void (await c.deleteOne({ _id: id })),
    /** Whether this tenant's record `id` is stored. */
    stored: async (tenantId: string, id: string): Promise<boolean> => (await c.findOne({ _id: id, tenant_id: tenantId }, { projection: { _id: 1 } })) !== null,
    /** Endpoint `index`'s secret in record `id` of this tenant, or null (no such record, index or secret). */
    secretOf: async (tenantId: string, id: string, index: number): Promise<string | null> => {
      const record = await c.findOne({ _id: id, tenant_id: tenantId });
      return record?.secrets[index] ?? null;
    },
  };
}
