import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { WebhookSecretsRecord } from '../platform/records';

/** How a workflow names endpoint `index`'s secret in a webhook_secrets record: `<webhook_secrets _id>#<index>`. */
export const secretRef = (secretsId: string, index: number): string => `${secretsId}#${index}`;

/** The record and index a secretRef names; null for anything else. */
export function parseSecretRef(ref: string): { id: string; index: number } | null {
  const m = /^([^#]+)#(\d{1,4})$/.exec(ref);
  return m ? { id: m[1]!, index: Number(m[2]) } : null;
}

/** The webhook_secrets record a secretRef names (the ref itself when it is not one). */
export const secretsRecordOf = (ref: string): string => parseSecretRef(ref)?.id ?? ref;

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
