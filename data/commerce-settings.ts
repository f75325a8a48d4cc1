import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { CommerceSettingsRecord } from '../platform/records';

/** A tenant's commerce settings (tax, shipping, return webhooks): one record per tenant, `_id` the tenant id. */
export function commerceSettingsData(mongo: Mongo) {
  const c = mongo.c.commerceSettings;
  return {
    /** null: the tenant never set them (no tax, no shipping, no webhooks). */
    find: (tenantId: string) => c.findOne({ _id: tenantId }),
    /** Replaces the tenant's settings whole. Two concurrent first writes: the one that loses the insert replaces. */
    put: async (record: CommerceSettingsRecord): Promise<void> => {
      const { _id, ...fields } = record;
      try {
        await c.replaceOne({ _id }, fields, { upsert: true });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        await c.replaceOne({ _id }, fields);
      }
    },
  };
}
