import type { Mongo } from '../platform/mongo';
import type { PaymentFormRecord } from '../platform/records';

/** A tenant's payment forms; at most one is the default (the newest, should two ever be). */
export function paymentFormData(mongo: Mongo) {
  const c = mongo.c.paymentForms;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    ofTenant: (tenantId: string) => c.find({ tenant_id: tenantId }).toArray(),
    liveDefault: async (tenantId: string) => (await c.find({ tenant_id: tenantId, default: true, live: true }).sort({ created_at: -1 }).limit(1).toArray())[0] ?? null,
    /** Inserts a form; a new default first takes the flag off the others. */
    insert: async (form: PaymentFormRecord) => {
      if (form.default) await c.updateMany({ tenant_id: form.tenant_id }, { $set: { default: false } });
      await c.insertOne(form);
    },
  };
}
