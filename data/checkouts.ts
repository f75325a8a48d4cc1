import type { Mongo } from '../platform/mongo';
import { isDuplicateKeyError } from '../platform/mongo';
import type { CheckoutRecord, OrderRecord, ReturnRecord } from '../platform/records';
import { idempotencyScope } from './idempotency';

// Checkouts, their orders and their returns: created by the API (checkouts) or by the workflows that own
// them (orders, returns), then written only by those workflows, each write versioned. Reads scoped by tenant.

export function checkoutData(mongo: Mongo) {
  const c = mongo.c.checkouts;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** The cart's open (or paid) checkout, if it has one. */
    openOfCart: (tenantId: string, cartId: string) => c.findOne({ open_scope: cartId, tenant_id: tenantId }),
    /** Throws the driver's duplicate-key error when the cart has an open checkout already. */
    insert: async (record: CheckoutRecord) => void (await c.insertOne(record)),
    /** The workflow's write: applied only over an older version. A checkout that ended unpaid frees its cart. */
    save: async (id: string, version: number, set: Pick<CheckoutRecord, 'status' | 'payment_intent' | 'order_id'>) => {
      const ended = set.status === 'changed' || set.status === 'abandoned' || set.status === 'canceled';
      await c.updateOne({ _id: id, version: { $lt: version } }, { $set: { ...set, ...(ended ? { open_scope: id } : {}), version, updated_at: new Date() } });
    },
  };
}

export function orderData(mongo: Mongo) {
  const c = mongo.c.orders;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** Once per checkout (unique checkout_id): a retried insert finds the order there. */
    insertOnce: async (record: OrderRecord) => {
      try {
        await c.insertOne(record);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    /** A paid checkout's cart is kept (retention deletes only carts never converted). */
    markCartConverted: async (tenantId: string, cartId: string) =>
      void (await mongo.c.carts.updateOne({ _id: cartId, tenant_id: tenantId }, { $set: { status: 'converted', updated_at: new Date() } })),
  };
}

export function returnData(mongo: Mongo) {
  const c = mongo.c.returns;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    ofOrder: (tenantId: string, orderId: string) => c.find({ tenant_id: tenantId, order_id: orderId }).toArray(),
    /**
     * Inserts a return; a retried insert finds its own record. Another return holding the idempotency key
     * answers that return's id (else null).
     */
    insert: async (record: ReturnRecord): Promise<string | null> => {
      try {
        await c.insertOne(record);
        return null;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const holder = await c.findOne({ idempotency_scope: record.idempotency_scope });
        return holder && holder._id !== record._id ? holder._id : null;
      }
    },
    save: async (id: string, version: number, set: Pick<ReturnRecord, 'status' | 'refund'>) =>
      void (await c.updateOne({ _id: id, version: { $lt: version } }, { $set: { ...set, version, updated_at: new Date() } })),
    /** For the page-numbered list reader (data/page-list.ts), which scopes every page by tenant. */
    collection: () => c,
  };
}
