import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { CreditNoteRecord, CustomerBalanceRecord } from '../platform/billing-records';
import { definedOnly, paginate, type Page, type PageQuery } from './list';
import { insertOnce, saveVersioned } from './versioned-writes';

// Credit notes (written by the API: pending before the intent's workflow admits their amount, issued after)
// and customers' credit balances (written only by each balance's workflow, versioned).

/** A pending note is the API's claim on its key, not a credit note yet: no reader but the create sees it. */
const ISSUED = { status: { $ne: 'pending' as const } };

export function creditNoteData(mongo: Mongo) {
  const c = mongo.c.creditNotes;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId, ...ISSUED }),
    /** The note (pending or issued) that holds this idempotency scope. */
    byIdempotencyScope: (scope: string) => c.findOne({ idempotency_scope: scope }),
    /**
     * Writes a pending note and answers the note that holds its scope: this one, or the one a concurrent
     * request with the same idempotency key wrote first.
     */
    claim: async (pending: CreditNoteRecord): Promise<CreditNoteRecord> => {
      try {
        await c.insertOne(pending);
        return pending;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      const first = await c.findOne({ idempotency_scope: pending.idempotency_scope });
      if (!first) throw new Error(`credit note scope ${pending.idempotency_scope}: duplicate on insert, but no note holds it`);
      return first;
    },
    /**
     * A pending note's amount was admitted: it is issued (once; an issued note is left as it is). Answers the
     * issued note, or null when it was given back meanwhile (a concurrent same request was refused).
     */
    issue: async (id: string, admitted: Pick<CreditNoteRecord, 'refund' | 'credit_to_balance'>): Promise<CreditNoteRecord | null> => {
      await c.updateOne({ _id: id, status: 'pending' }, { $set: { ...admitted, status: 'issued' } });
      return c.findOne({ _id: id, status: 'issued' });
    },
    /** A pending note whose amount was refused gives its key back. */
    release: async (id: string): Promise<void> => {
      await c.deleteOne({ _id: id, status: 'pending' });
    },
    list: (tenantId: string, filter: { invoice?: string; customer?: string }, page: PageQuery): Promise<Page<CreditNoteRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter), ...ISSUED }, page),
    /** Credit notes of an intent's invoice that went to the customer's balance (they hold part of its refundable balance). */
    creditedToBalanceOf: (tenantId: string, paymentIntent: string) =>
      c.find({ tenant_id: tenantId, payment_intent: paymentIntent, refund: null, ...ISSUED }, { projection: { _id: 1, amount: 1 } }).toArray(),
    ofInvoice: (tenantId: string, invoice: string) => c.find({ tenant_id: tenantId, invoice, ...ISSUED }).toArray(),
  };
}

/**
 * The credit an issued note adds to its customer's balance, keyed by the note (added once however often it is
 * asked: by the create, its retry, or the intent that admitted it); null for a note refunded to the card.
 */
export function creditOfNote(note: CreditNoteRecord): { tenantId: string; customer: string; currency: string; key: string; amount: number } | null {
  return note.credit_to_balance > 0 ? { tenantId: note.tenant_id, customer: note.customer, currency: note.currency, key: note._id, amount: note.credit_to_balance } : null;
}

export const balanceId = (customer: string, currency: string) => `${customer}:${currency}`;

export function customerBalanceData(mongo: Mongo) {
  const c = mongo.c.customerBalances;
  const changes = mongo.c.balanceChanges;
  const changeId = (customer: string, currency: string, key: string) => `${balanceId(customer, currency)}:${key}`;
  return {
    /** What a change with this key added or drew, when the balance applied it; null when it never did. */
    change: async (tenantId: string, customer: string, currency: string, key: string): Promise<number | null> =>
      (await changes.findOne({ _id: changeId(customer, currency, key), tenant_id: tenantId }))?.amount ?? null,
    /** A change applied, kept by its key (a repeated write changes nothing). */
    keepChange: (tenantId: string, customer: string, currency: string, key: string, amount: number): Promise<void> =>
      insertOnce(changes, { _id: changeId(customer, currency, key), tenant_id: tenantId, amount, at: new Date() }),
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
