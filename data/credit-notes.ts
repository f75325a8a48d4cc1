import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { CreditNoteRecord, CustomerBalanceRecord } from '../platform/billing-records';
import { definedOnly, paginate, type Page, type PageQuery } from './list';
import { saveVersioned } from './versioned-writes';

// Credit notes (written once by the API after the intent's workflow admitted their amount) and customers'
// credit balances (written only by each balance's workflow, versioned).

export function creditNoteData(mongo: Mongo) {
  const c = mongo.c.creditNotes;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyScope: (scope: string) => c.findOne({ idempotency_scope: scope }),
    /** Inserting twice (a retry, or a concurrent request with the same idempotency key) keeps the first. */
    insert: async (record: CreditNoteRecord): Promise<void> => {
      try {
        await c.insertOne(record);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    list: (tenantId: string, filter: { invoice?: string; customer?: string }, page: PageQuery): Promise<Page<CreditNoteRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
    /** Credit notes of an intent's invoice that went to the customer's balance (they hold part of its refundable balance). */
    creditedToBalanceOf: (tenantId: string, paymentIntent: string) =>
      c.find({ tenant_id: tenantId, payment_intent: paymentIntent, refund: null }, { projection: { _id: 1, amount: 1 } }).toArray(),
    ofInvoice: (tenantId: string, invoice: string) => c.find({ tenant_id: tenantId, invoice }).toArray(),
  };
}

export const balanceId = (customer: string, currency: string) => `${customer}:${currency}`;

export function customerBalanceData(mongo: Mongo) {
  const c = mongo.c.customerBalances;
  return {
    find: (tenantId: string, customer: string, currency: string) => c.findOne({ _id: balanceId(customer, currency), tenant_id: tenantId }),
    ofCustomer: (tenantId: string, customer: string) => c.find({ tenant_id: tenantId, customer }).sort({ currency: 1 }).toArray(),
    /** The balance workflow's write: inserted at its first, then applied only over an older version. */
    save: async (b: Omit<CustomerBalanceRecord, 'updated_at'>): Promise<void> => {
      const updated_at = new Date();
      const applied = await saveVersioned(c, b._id, b.version, { credit: b.credit, updated_at });
      if (applied === 'applied') return;
      try {
        await c.insertOne({ ...b, updated_at });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
  };
}
