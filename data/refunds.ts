import { randomUUID } from 'node:crypto';
import type { Mongo } from '../platform/mongo';
import type { RefundRecord } from '../platform/records';
import type { PageListSpec, PageQuery as PageNumberQuery } from '../domain/page-query';
import { OLDER_REFUND_SUB_STATUSES, subStatusOfRecord, type OlderRefundFacts } from '../domain/older-refund-progress';
import { idempotencyScope } from './idempotency';
import { definedOnly, paginate, type Page, type PageQuery } from './list';
import { currenciesInAnyCase, pageList, uuidsInAnyCase } from './page-list';
import { sequencesFor } from './sequences';
import { paymentIntentData } from './payment-intents';
import { connectorData } from './connectors';

export interface RefundFilter {
  payment_intent?: string;
  status?: RefundRecord['status'];
  currency?: string;
}

/** The sequence of refunds' integer ids (the older interface's `refund_id`). */
const REFUND_SEQUENCE = 'refunds';

/** What `GET /refunds` (older interface) filters and sorts by: public name -> stored field, type and meaning. */
export const OLDER_REFUND_LIST: PageListSpec = {
  filterable: {
    id: { type: 'integer', description: 'The integer refund id; `$eq:<id>` fetches one refund.' },
    uuid: { type: 'string', description: "The refund's UUID." },
    currency: { type: 'string', description: '3-letter ISO code, upper case.' },
    created_at: { type: 'date', description: 'When the refund was admitted.' },
    updated_at: { type: 'date', description: 'When the refund last changed.' },
    status: { type: 'string', description: 'Base status: pending, success or canceled.' },
    sub_status: { type: 'string', description: `Sub-status: ${OLDER_REFUND_SUB_STATUSES.join(', ')}.` },
    amount: { type: 'integer', description: 'Cents.' },
    checkout_intent_idempotency_key: { type: 'string', column: 'idempotency_key', description: 'The idempotency key the refund was created with (either interface).' },
    checkout_intent_secret: { type: 'integer', column: 'payment_intent_secret', description: "The refunded payment intent's integer payment_intent_secret." },
    gateway: { type: 'string', description: 'The gateway that took the refunded payment.' },
    gateway_transaction_id: { type: 'string', description: "The gateway's reference of the refund (set once it executed)." },
    gateway_transaction_human_readable: { type: 'string', column: 'gateway_transaction_id', description: 'The same gateway reference as gateway_transaction_id.' },
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
    /** The tenant of a refund, for operators (admin API), who name objects without a tenant. */
    tenantOf: async (id: string) => (await c.findOne({ _id: id }, { projection: { tenant_id: 1 } }))?.tenant_id ?? null,
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    ofPaymentIntent: (tenantId: string, paymentIntent: string) => c.find({ tenant_id: tenantId, payment_intent: paymentIntent }).toArray(),
    list: (tenantId: string, filter: RefundFilter, page: PageQuery): Promise<Page<RefundRecord>> => paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
    /** The older interface's page-numbered list. */
    listOlder: (tenantId: string, q: PageNumberQuery, path: string) => pageList(c, { tenant_id: tenantId }, uuidsInAnyCase(currenciesInAnyCase(q, ['currency']), ['uuid']), path, OLDER_REFUND_LIST),
    /** The record with its older ids, given now if it has none yet (see ensureRefundOlderIds). */
    withOlderIds: async (r: RefundRecord): Promise<RefundRecord> => (r.id !== undefined ? r : giveOlderIds(mongo, r)),
  };
}

/** The older interface's fields a refund's record holds from its insert on, beside its sub-status. */
export type OlderRefundFields = Required<Pick<RefundRecord, 'id' | 'uuid' | 'gateway' | 'transaction_id' | 'payment_intent_uuid' | 'payment_intent_secret'>>;

/**
 * A refund's integer id and UUID, and what its row shows of the refunded payment: the intent's older ids
 * and the gateway of the connector that took it (`connector`, else the intent's connector_used). Given
 * once: when the record is inserted (activities/store.ts createRefundRecord), or by the backfill to a
 * refund from before the older interface (ensureRefundOlderIds).
 */
export async function olderRefundFields(mongo: Mongo, tenantId: string, paymentIntent: string, connector?: string): Promise<OlderRefundFields> {
  const intentRead = paymentIntentData(mongo).find(tenantId, paymentIntent);
  const connectorId = connector ?? (await intentRead)?.connector_used ?? null;
  const [intent, found] = await Promise.all([intentRead, connectorId ? connectorData(mongo).find(tenantId, connectorId) : null]);
  return {
    id: await sequencesFor(mongo).next(REFUND_SEQUENCE),
    uuid: randomUUID(),
    gateway: found?.gateway ?? null,
    transaction_id: intent?.transaction_id ?? null,
    payment_intent_uuid: intent?.uuid ?? null,
    payment_intent_secret: intent?.payment_intent_secret ?? null,
  };
}

/** What a refund's row shows that its workflow does not own (the record must have its older ids). */
export function olderRefundFactsOf(r: RefundRecord): OlderRefundFacts {
  return { id: r.id!, uuid: r.uuid!, gateway: r.gateway ?? null, transaction_id: r.transaction_id ?? null, payment_intent: r.payment_intent_uuid ?? null };
}

/**
 * Gives a refund from before the older interface its older fields and a sub-status from what its record
 * says, only while it has no id (a refund given them once keeps them): whether this call gave them.
 */
async function giveOlderFields(mongo: Mongo, r: RefundRecord): Promise<boolean> {
  const fields = { ...(await olderRefundFields(mongo, r.tenant_id, r.payment_intent)), sub_status: subStatusOfRecord(r) };
  const res = await mongo.c.refunds.updateOne({ _id: r._id, id: { $exists: false } }, { $set: fields });
  return res.modifiedCount === 1;
}

/** Gives one refund its older fields (only while it has no id) and answers the record as it now reads. */
async function giveOlderIds(mongo: Mongo, r: RefundRecord): Promise<RefundRecord> {
  await giveOlderFields(mongo, r);
  return (await mongo.c.refunds.findOne({ _id: r._id, tenant_id: r.tenant_id })) ?? r;
}

/**
 * Gives the refunds from before the older interface their integer ids and older fields (oldest first);
 * returns how many it gave. Idempotent: a write applies only while the refund has no id. The API alone runs
 * this, before it listens, after the payment intents got theirs (ensureOlderIds), whose ids it copies.
 */
export async function ensureRefundOlderIds(mongo: Mongo): Promise<number> {
  const missing = await mongo.c.refunds.find({ id: { $exists: false } }).sort({ created_at: 1, _id: 1 }).toArray();
  let given = 0;
  for (const r of missing) if (await giveOlderFields(mongo, r)) given += 1;
  return given;
}
