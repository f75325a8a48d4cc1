import type { Mongo } from '../platform/mongo';
import type { CheckoutRecord, OrderRecord, ReturnRecord } from '../platform/records';
import { idempotencyScope } from './idempotency';
import { insertOnce, insertOrHolder, oneSaveAtATime, saveVersioned, versionZeroRecords } from './versioned-writes';

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
    /** Records at version 0: the create's take-back (the cart can be checked out again), and the stranded-records sweep's page and put-back. */
    ...versionZeroRecords(c),
    /** The workflow's write: applied only over an older version. A checkout that ended unpaid frees its cart. */
    save: async (id: string, version: number, set: Pick<CheckoutRecord, 'status' | 'payment_intent' | 'order_id'>) => {
      const ended = set.status === 'changed' || set.status === 'abandoned' || set.status === 'canceled';
      await saveVersioned(c, id, version, { ...set, ...(ended ? { open_scope: id } : {}), updated_at: new Date() });
    },
  };
}

export function orderData(mongo: Mongo) {
  const c = mongo.c.orders;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** Orders of one tenant by id (a page of returns names at most 100). */
    findMany: (tenantId: string, ids: string[]) => (ids.length ? c.find({ _id: { $in: ids }, tenant_id: tenantId }).toArray() : Promise.resolve([])),
    /** Once per checkout (unique checkout_id): a retried insert finds the order there. */
    insertOnce: (record: OrderRecord) => insertOnce(c, record),
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
    insert: (record: ReturnRecord): Promise<string | null> => insertOrHolder(c, record),
    save: (id: string, version: number, set: Pick<ReturnRecord, 'status' | 'refund'>) => saveVersioned(c, id, version, { ...set, updated_at: new Date() }),
    /**
     * Why a received return's refund was refused, kept before its workflow is told (and writes refund_failed): the
     * workflow's writes set only their own fields, so this stays. Only while it has no refund.
     */
    recordRefundRefusal: (tenantId: string, id: string, refusal: NonNullable<ReturnRecord['refund_refusal']>) =>
      oneSaveAtATime(c.collectionName, id, async () => {
        await c.updateOne({ _id: id, tenant_id: tenantId, refund: null }, { $set: { refund_refusal: refusal } });
      }),
    /** For the page-numbered list reader (data/page-list.ts), which scopes every page by tenant. */
    collection: () => c,
  };
}
