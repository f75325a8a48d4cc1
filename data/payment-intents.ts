import { randomUUID } from 'node:crypto';
import type { Mongo } from '../platform/mongo';
import type { PaymentIntentRecord } from '../platform/records';
import type { FilterClause, PageListSpec, PageQuery } from '../domain/page-query';
import { idempotencyScope } from './idempotency';
import { definedOnly, paginate, type Page, type PageQuery as CursorQuery } from './list';
import { currenciesInAnyCase, pageList, UUID_RE, uuidsInAnyCase } from './page-list';
import { sequencesFor } from './sequences';
import { versionZeroRecords } from './versioned-writes';

export interface PaymentIntentFilter {
  status?: PaymentIntentRecord['status'];
  customer?: string;
  currency?: string;
}

/** The sequences of the older interface's integers: an intent's `payment_intent_secret` and its `transaction_id`. */
const INTENT_SECRET_SEQUENCE = 'payment_intents';
const TRANSACTION_SEQUENCE = 'transactions';

/** The three ids of an intent, as the older interface takes them: `pi_...`, its UUID, or its integer secret. */
function intentRefFilter(ref: string): Record<string, unknown> | null {
  if (/^pi_/.test(ref)) return { _id: ref };
  if (UUID_RE.test(ref)) return { uuid: ref.toLowerCase() };
  if (/^[1-9]\d{0,14}$/.test(ref)) return { payment_intent_secret: Number(ref) };
  return null;
}

/**
 * `payment_intent` names an intent by its UUID (any case, as retrieve takes it: uuidsInAnyCase) or by the `pi_`
 * id a v202606 create answers: a clause whose values are all `pi_` ids matches on those.
 */
function byEitherIntentId(c: FilterClause): FilterClause {
  if (c.property !== 'payment_intent' || !['$eq', '$in'].includes(c.op)) return c;
  return c.values.every((v) => typeof v === 'string' && v.startsWith('pi_')) ? { ...c, column: '_id' } : c;
}

/** What `GET /payment-intents` (older interface) filters and sorts by: public name -> stored field and type. */
export const OLDER_INTENT_LIST: PageListSpec = {
  filterable: {
    payment_intent: { type: 'string', column: 'uuid' },
    payment_intent_secret: { type: 'integer' },
    currency: { type: 'string' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
    status: { type: 'string' },
    sub_status: { type: 'string' },
    amount: { type: 'integer' },
    checkout_intent: { type: 'string' },
    checkout_intent_idempotency_key: { type: 'string', column: 'idempotency_key' },
    idempotency_key: { type: 'string' },
    gateway: { type: 'string' },
    gateway_transaction_id: { type: 'string', column: 'gateway_charge_id' },
    gateway_transaction_human_readable: { type: 'string', column: 'gateway_charge_id' },
  },
  sortable: { payment_intent_secret: 'payment_intent_secret', amount_paid_by_customer: 'amount_paid', amount: 'amount' },
  defaultSort: ['payment_intent_secret', 'DESC'],
};

/**
 * Payment intents in MongoDB, every read scoped by tenant. The API inserts the record (its idempotency
 * guard) and may take back one that never started; after that only the intent's workflow writes it
 * (data/workflow-records.ts, versioned).
 */
export function paymentIntentData(mongo: Mongo) {
  const c = mongo.c.paymentIntents;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** By any of its three ids (`pi_...`, UUID, integer secret); null for anything else. */
    findByRef: async (tenantId: string, ref: string) => {
      const by = intentRefFilter(ref);
      return by ? c.findOne({ ...by, tenant_id: tenantId }) : null;
    },
    /** By `pi_...` or UUID, for credentials that are not the tenant's secret key (no integer: it can be guessed). */
    findByUnguessableRef: async (ref: string) => {
      const by = intentRefFilter(ref);
      return by && !('payment_intent_secret' in by) ? c.findOne(by) : null;
    },
    /** The intent whose payment has this older `transaction_id`. */
    byTransactionId: (tenantId: string, transactionId: number) => c.findOne({ tenant_id: tenantId, transaction_id: transactionId }),
    /** The intent one of whose merchant-initiated charges is this `ti_...` transaction. */
    byMitTransaction: (tenantId: string, transaction: string) => c.findOne({ tenant_id: tenantId, 'transactions.transaction': transaction }),
    /** The tenant that owns an intent, for credentials bound to the intent itself (its client secret). */
    tenantOf: async (id: string) => (await c.findOne({ _id: id }, { projection: { tenant_id: 1 } }))?.tenant_id ?? null,
    /** For the hosted page, which is reached by the intent's id and its client secret. */
    findForHostedPage: (id: string) => c.findOne({ _id: id }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    /** Throws the driver's duplicate-key error when another create holds the same idempotency scope. */
    insert: async (record: PaymentIntentRecord) => void (await c.insertOne(record)),
    /** Records at version 0: the create's take-back (a retry starts clean), and the stranded-records sweep's page and put-back. */
    ...versionZeroRecords(c),
    /** Before its workflow takes the record over: the customer a concurrent create settled on. */
    setCustomerBeforeStart: async (id: string, customer: string, contact: NonNullable<PaymentIntentRecord['contact']>) =>
      void (await c.updateOne({ _id: id, version: 0 }, { $set: { customer, contact } })),
    list: (tenantId: string, filter: PaymentIntentFilter, page: CursorQuery): Promise<Page<PaymentIntentRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
    /** The other intents of a checkout intent still pending (at most 100: a checkout has a handful). */
    pendingSiblings: (tenantId: string, checkoutIntent: string, except: string) =>
      c.find({ tenant_id: tenantId, checkout_intent: checkoutIntent, status: 'pending', _id: { $ne: except } }, { projection: { _id: 1 } }).limit(100).toArray(),
    /** The older interface's page-numbered list. */
    listOlder: (tenantId: string, q: PageQuery, path: string) =>
      pageList(c, { tenant_id: tenantId }, uuidsInAnyCase(currenciesInAnyCase({ ...q, filters: q.filters.map(byEitherIntentId) }, ['currency']), ['payment_intent', 'checkout_intent']), path, OLDER_INTENT_LIST),
  };
}

/** The older interface's ids of a new intent: its UUID, integer secret and (reserved) transaction id. */
export async function newOlderIds(mongo: Mongo): Promise<Required<Pick<PaymentIntentRecord, 'uuid' | 'payment_intent_secret' | 'transaction_id'>>> {
  const sequences = sequencesFor(mongo);
  return {
    uuid: randomUUID(),
    payment_intent_secret: await sequences.next(INTENT_SECRET_SEQUENCE),
    transaction_id: await sequences.next(TRANSACTION_SEQUENCE),
  };
}

/**
 * Gives the intents from before the older interface their ids (oldest first); returns how many it gave.
 * Idempotent: a write applies only while the intent has none. The API alone runs this, before it listens.
 */
export async function ensureOlderIds(mongo: Mongo): Promise<number> {
  const c = mongo.c.paymentIntents;
  const missing = await c.find({ payment_intent_secret: { $exists: false } }, { projection: { _id: 1 } }).sort({ created_at: 1, _id: 1 }).toArray();
  let given = 0;
  for (const { _id } of missing) {
    const res = await c.updateOne({ _id, payment_intent_secret: { $exists: false } }, { $set: await newOlderIds(mongo) });
    given += res.modifiedCount;
  }
  return given;
}
