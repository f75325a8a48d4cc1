import { randomUUID } from 'node:crypto';
import type { Mongo } from '../platform/mongo';
import type { RefundRecord } from '../platform/records';
import type { PageListSpec, PageQuery as PageNumberQuery } from '../domain/page-query';
import { subStatusOfRecord } from '../domain/older-refund-views';
import { idempotencyScope } from './idempotency';
import { definedOnly, paginate, type Page, type PageQuery } from './list';
import { pageList } from './page-list';
import { sequencesFor } from './sequences';
import { paymentIntentData } from './payment-intents';
import { connectorData } from './connectors';

export interface RefundFilter {
  payment_intent?: string;
  status?: RefundRecord['status'];
  currency?: string;
}

/** The sequence of refunds' integer ids (the older interface's `refund_id`). */
export const REFUND_SEQUENCE = 'refunds';

/** What `GET /refunds` (older interface) filters and sorts by: public name -> stored field and type. */
export const OLDER_REFUND_LIST: PageListSpec = {
  filterable: {
    id: { type: 'integer' },
    uuid: { type: 'string' },
    currency: { type: 'string' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    status: { type: 'string' },
    sub_status: { type: 'string' },
    amount: { type: 'integer' },
    checkout_intent_idempotency_key: { type: 'string', column: 'idempotency_key' },
    checkout_intent_secret: { type: 'integer', column: 'payment_intent_secret' },
    gateway: { type: 'string' },
    gateway_transaction_id: { type: 'string' },
    gateway_transaction_human_readable: { type: 'string', column: 'gateway_transaction_id' },
  },
  sortable: { id: 'id', amount: 'amount' },
  defaultSort: ['id', 'DESC'],
};

/**
 * Refunds in MongoDB, every read scoped by tenant. Written by the payment's and the refund's workflows
 * (data/workflow-records.ts, versioned).
 */
export function refundData(mongo: Mongo) {
  const c = mongo.c.refunds;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    ofPaymentIntent: (tenantId: string, paymentIntent: string) => c.find({ tenant_id: tenantId, payment_intent: paymentIntent }).toArray(),
    list: (tenantId: string, filter: RefundFilter, page: PageQuery): Promise<Page<RefundRecord>> => paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
    /** The older interface's page-numbered list. */
    listOlder: (tenantId: string, q: PageNumberQuery, path: string) => pageList(c, { tenant_id: tenantId }, q, path, OLDER_REFUND_LIST),
    /** The record with its older ids, given now if it has none yet (see ensureRefundOlderIds). */
    withOlderIds: async (r: RefundRecord): Promise<RefundRecord> => (r.id !== undefined ? r : giveOlderIds(mongo, r)),
  };
}

/**
 * What a refund from before the older interface lacks: its integer id and UUID, and what its row shows of
 * the refunded payment (read from the intent and its connector), and a sub-status from what the record says.
 */
async function olderFieldsOf(mongo: Mongo, r: RefundRecord): Promise<Partial<RefundRecord>> {
  const intent = await paymentIntentData(mongo).find(r.tenant_id, r.payment_intent);
  const connectorId = r.connector ?? intent?.connector_used ?? null;
  const connector = connectorId ? await connectorData(mongo).find(r.tenant_id, connectorId) : null;
  return {
    id: await sequencesFor(mongo).next(REFUND_SEQUENCE),
    uuid: randomUUID(),
    connector: connectorId,
    gateway: r.gateway ?? connector?.gateway ?? null,
    transaction_id: intent?.transaction_id ?? null,
    payment_intent_uuid: intent?.uuid ?? null,
    payment_intent_secret: intent?.payment_intent_secret ?? null,
    ...(r.sub_status === undefined ? { sub_status: subStatusOfRecord(r) } : {}),
    ...(r.succeeded_at === undefined ? { succeeded_at: r.status === 'success' ? r.updated_at : null } : {}),
  };
}

/** Gives one refund its older fields (only while it has no id) and answers the record as it now reads. */
async function giveOlderIds(mongo: Mongo, r: RefundRecord): Promise<RefundRecord> {
  const c = mongo.c.refunds;
  await c.updateOne({ _id: r._id, id: { $exists: false } }, { $set: await olderFieldsOf(mongo, r) });
  return (await c.findOne({ _id: r._id, tenant_id: r.tenant_id })) ?? r;
}

/**
 * Gives the refunds from before the older interface their integer ids and older fields (oldest first);
 * returns how many it gave. Idempotent: a write applies only while the refund has no id. The API alone runs
 * this, before it listens, after the payment intents got theirs (ensureOlderIds), whose ids it copies.
 */
export async function ensureRefundOlderIds(mongo: Mongo): Promise<number> {
  const c = mongo.c.refunds;
  const missing = await c.find({ id: { $exists: false } }).sort({ created_at: 1, _id: 1 }).toArray();
  let given = 0;
  for (const r of missing) {
    const res = await c.updateOne({ _id: r._id, id: { $exists: false } }, { $set: await olderFieldsOf(mongo, r) });
    given += res.modifiedCount;
  }
  return given;
}
