import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { InvoiceSnapshot, SubscriptionSnapshot } from '../domain/billing/snapshots';
import type { InvoiceRecord, InvoiceStatus, SubscriptionRecord, SubscriptionStatus } from '../platform/billing-records';
import { definedOnly, paginate, type Page, type PageQuery } from './list';
import { oneSaveAtATime, saveVersioned, versionZeroRecords } from './versioned-writes';

// Subscriptions and invoices in MongoDB, every read scoped by tenant. The API inserts a subscription (its
// idempotency guard); from then on its workflow is the only writer of it and of its invoices (activities/billing.ts).

/**
 * What a create with an idempotency key asked for, kept on its record as sent: what decides who is charged, for
 * what and with which card. A repeat with the key must ask the same (the snapshot cannot tell: its items, card
 * and discount change after the create). Records made before it was kept have none.
 */
export interface SubscriptionCreateRequest {
  customer: string;
  items: { plan: string; quantity: number }[];
  coupon: string | null;
  promotion_code: string | null;
  default_payment_method: string;
  default_tax_rates: string[];
  trial_period_days: number | null;
}

export type KeyedSubscriptionRecord = SubscriptionRecord & { create_request?: SubscriptionCreateRequest };

export function subscriptionData(mongo: Mongo) {
  const c = mongo.c.subscriptions;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyKey: (tenantId: string, key: string): Promise<KeyedSubscriptionRecord | null> => c.findOne({ tenant_id: tenantId, idempotency_key: key }),
    /** Throws the driver's duplicate-key error when the idempotency scope is taken. */
    insert: async (record: KeyedSubscriptionRecord) => void (await c.insertOne(record)),
    /** A create's take-back when its start failed, and the stranded-records sweep's page and put-back. */
    ...versionZeroRecords(c),
    list: (tenantId: string, filter: { customer?: string; status?: SubscriptionStatus }, page: PageQuery): Promise<Page<SubscriptionRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
    /** A customer's subscriptions that have not ended, newest first (the billing portal). */
    ofCustomer: (tenantId: string, customer: string) => c.find({ tenant_id: tenantId, customer }).sort({ created_at: -1, _id: -1 }).limit(50).toArray(),
  };
}

export function invoiceData(mongo: Mongo) {
  const c = mongo.c.invoices;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    list: (tenantId: string, filter: { customer?: string; subscription?: string; status?: InvoiceStatus }, page: PageQuery): Promise<Page<InvoiceRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
    ofCustomer: (tenantId: string, customer: string, limit = 24) => c.find({ tenant_id: tenantId, customer }).sort({ created_at: -1, _id: -1 }).limit(limit).toArray(),
    /**
     * Claims acting on an uncollectible invoice as read at `version` (a unique insert, the one step FerretDB makes
     * atomic); false when a request took that version already: the invoice may have moved since, so read it again.
     */
    claimAction: async (tenantId: string, id: string, version: number): Promise<boolean> => {
      try {
        await mongo.c.invoiceActions.insertOne({ _id: `${id}@${version}`, tenant_id: tenantId, taken_at: new Date() });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
  };
}

/** The subscription workflow's writes (activities/billing.ts), each applied only over an older version. */
export function subscriptionRecords(mongo: Mongo) {
  return {
    saveSubscription: async (id: string, version: number, snapshot: SubscriptionSnapshot): Promise<void> => {
      await saveVersioned(mongo.c.subscriptions, id, version, { status: snapshot.status, snapshot, updated_at: new Date() });
    },
    /** Inserts the invoice at its first write; a write below the stored version finds it (duplicate key) and is stale. */
    saveInvoice: async (version: number, s: InvoiceSnapshot): Promise<void> => {
      try {
        await oneSaveAtATime(mongo.c.invoices.collectionName, s.id, () =>
          mongo.c.invoices.updateOne(
            { _id: s.id, version: { $lt: version } },
            {
              $set: { version, status: s.status, payment_intent: s.paymentIntent, snapshot: s, updated_at: new Date() },
              $setOnInsert: { tenant_id: s.tenantId, customer: s.customer, subscription: s.subscription, created_at: new Date(s.created) },
            },
            { upsert: true },
          ),
        );
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
  };
}
