import type { Mongo } from '../platform/mongo';
import type { PaymentIntentRecord } from '../platform/records';
import { idempotencyScope } from './idempotency';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

export interface PaymentIntentFilter {
  status?: PaymentIntentRecord['status'];
  customer?: string;
  currency?: string;
}

/**
 * Payment intents in MongoDB, every read scoped by tenant. The API inserts the record (its idempotency
 * guard) and may take back one that never started; after that only the intent's workflow writes it
 * (data/workflow-records.ts, versioned).
 */
export function paymentIntentData(mongo: Mongo) {
  const c = mongo.c.paymentIntents;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** The tenant that owns an intent, for credentials bound to the intent itself (its client secret). */
    tenantOf: async (id: string) => (await c.findOne({ _id: id }, { projection: { tenant_id: 1 } }))?.tenant_id ?? null,
    /** For the hosted page, which is reached by the intent's id and its client secret. */
    findForHostedPage: (id: string) => c.findOne({ _id: id }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    /** Throws the driver's duplicate-key error when another create holds the same idempotency scope. */
    insert: async (record: PaymentIntentRecord) => void (await c.insertOne(record)),
    /** Takes back a record its workflow never took over (version 0), so a retry starts clean. */
    takeBack: async (id: string) => void (await c.deleteOne({ _id: id, version: 0 })),
    /** Before its workflow takes the record over: the customer a concurrent create settled on. */
    setCustomerBeforeStart: async (id: string, customer: string) => void (await c.updateOne({ _id: id, version: 0 }, { $set: { customer } })),
    list: (tenantId: string, filter: PaymentIntentFilter, page: PageQuery): Promise<Page<PaymentIntentRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
  };
}
