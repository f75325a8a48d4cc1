import { refundData } from '../../data/refunds';
import { customerData } from '../../data/customers';
import { invalidRequest, notFound } from '../../domain/errors';
import type { CreditNoteRecord, InvoiceRecord } from '../../platform/billing-records';
import { unixSeconds } from '../../domain/billing/snapshots';
import { newId } from '../../platform/ids';
import { idempotencyScope } from '../../data/idempotency';
import { creditNoteData, creditOfNote, customerBalanceData } from '../../data/credit-notes';
import { invoiceData } from '../../data/subscriptions';
import { testClockData } from '../../data/test-clocks';
import { admitOnIntent } from '../refunds/service';
import { DEFAULT_REFUND_SLA_SECONDS, serviceRefundKey } from '../../domain/refund';
import { getPaymentIntent } from '../payment-intents/service';
import type { AppDeps, AuthContext } from '../deps';
import { addCustomerCredit } from './balance';
import type { CreditNoteCreateBody } from './schemas';

/** How a note's refund stands (null without one): a refund the gateway refused, or canceled at its SLA, returned nothing. */
export type CreditNoteRefundStatus = 'pending' | 'success' | 'canceled' | null;

/** How each note's refund stands, read from the refund's record (`pending` until the refund's record exists). */
async function refundStatusesOf(deps: AppDeps, tenantId: string, notes: readonly CreditNoteRecord[]): Promise<CreditNoteRefundStatus[]> {
  const refunds = refundData(deps.mongo);
  return Promise.all(notes.map(async (n) => (n.refund ? ((await refunds.find(tenantId, n.refund))?.status ?? 'pending') : null)));
}

/** Notes as the API shows them, each with how its refund stands. */
export async function creditNoteViews(deps: AppDeps, tenantId: string, notes: CreditNoteRecord[]) {
  const statuses = await refundStatusesOf(deps, tenantId, notes);
  return notes.map((n, i) => creditNoteView(n, statuses[i] ?? null));
}

/** The credit note as retrieve answers it (times in Unix seconds, as the other billing objects). */
export function creditNoteView(c: CreditNoteRecord, refundStatus: CreditNoteRefundStatus) {
  return {
    credit_note: c._id,
    object: 'credit_note' as const,
    invoice: c.invoice,
    payment_intent: c.payment_intent,
    customer: c.customer,
    subscription: c.subscription,
    status: c.status,
    currency: c.currency,
    amount: c.amount,
    lines: c.lines,
    reason: c.reason,
    memo: c.memo,
    refund: c.refund,
    refund_status: c.refund ? refundStatus : null,
    credit_to_balance: c.credit_to_balance,
    created: unixSeconds(c.created_at),
  };
}

/**
 * What the invoice's issued notes have credited of each of its lines, as Stripe tracks it per line. A note whose
 * refund was refused or canceled returned nothing, so its lines are creditable again (refund_status `canceled`).
 */
async function creditedByLine(deps: AppDeps, inv: InvoiceRecord): Promise<Map<string, number>> {
  const notes = (await creditNoteData(deps.mongo).ofInvoice(inv.tenant_id, inv._id)).filter((n) => n.lines.length > 0);
  const statuses = await refundStatusesOf(deps, inv.tenant_id, notes);
  const credited = new Map<string, number>();
  notes.forEach((n, i) => {
    if (statuses[i] === 'canceled') return;
    for (const l of n.lines) credited.set(l.invoice_line, (credited.get(l.invoice_line) ?? 0) + l.amount);
  });
  return credited;
}

/**
 * What the credit note takes: `amount`, or the sum of its `lines`, each within what is left of its invoice line
 * (`credited`: what earlier notes took of each). Concurrent notes of one line are not held to it together: the
 * invoice's payment, which every note draws on, is.
 */
function amountOf(inv: InvoiceRecord, body: CreditNoteCreateBody, credited: ReadonlyMap<string, number>): { amount: number; lines: CreditNoteRecord['lines'] } {
  if (!body.lines) return { amount: body.amount!, lines: [] };
  const byId = new Map(inv.snapshot.lines.map((l) => [l.line, l]));
  body.lines.forEach((l, n) => {
    const line = byId.get(l.invoice_line);
    if (!line) throw invalidRequest('resource_missing', `No such line of invoice ${inv._id}: '${l.invoice_line}'`, `lines[${n}][invoice_line]`);
    const lineTotal = line.amount - line.discountAmount + line.taxAmounts.filter((t) => !t.inclusive).reduce((s, t) => s + t.amount, 0);
    const before = credited.get(l.invoice_line) ?? 0;
    if (l.amount > lineTotal - before)
      throw invalidRequest(
        'credit_note_amount_too_large',
        before > 0 ? `Line '${l.invoice_line}' came to ${lineTotal}, of which earlier credit notes took ${before}: at most ${Math.max(0, lineTotal - before)} is left` : `Line '${l.invoice_line}' came to ${lineTotal}`,
        `lines[${n}][amount]`,
      );
  });
  const amount = body.lines.reduce((s, l) => s + l.amount, 0);
  if (body.amount !== undefined && body.amount !== amount) throw invalidRequest('parameter_invalid', `amount (${body.amount}) differs from the sum of lines (${amount})`, 'amount');
  return { amount, lines: body.lines.map((l) => ({ invoice_line: l.invoice_line, amount: l.amount })) };
}

/** Whether `body` asks for exactly what `note` was made from: a key names one credit note, with one amount and destination. */
function sameRequest(note: CreditNoteRecord, body: CreditNoteCreateBody): boolean {
  const lines = body.lines?.map((l) => ({ invoice_line: l.invoice_line, amount: l.amount })) ?? [];
  const amount = body.lines ? lines.reduce((s, l) => s + l.amount, 0) : body.amount;
  return (
    note.invoice === body.invoice &&
    note.amount === amount &&
    (body.amount === undefined || body.amount === amount) &&
    JSON.stringify(note.lines) === JSON.stringify(lines) &&
    (note.refund_requested ?? note.refund !== null) === (body.refund ?? false) &&
    note.reason === (body.reason ?? null) &&
    note.memo === (body.memo ?? null)
  );
}

const keyInUse = () =>
  invalidRequest('idempotency_key_in_use', 'This idempotency_key was used for a credit note with other parameters: use a new key for a new credit note', 'idempotency_key');

/** An issued note asked for again: credited now if the first request could not (once per note, by its id). */
async function answerIssued(deps: AppDeps, note: CreditNoteRecord) {
  const credit = creditOfNote(note);
  if (credit) await addCustomerCredit(deps, credit);
  return { status: 200, body: (await creditNoteViews(deps, note.tenant_id, [note]))[0]! };
}

/**
 * POST /v202607/credit-notes against a paid invoice. Its amount is admitted by the workflow of the invoice's
 * payment intent, from the one balance refunds draw on too: with `refund: true` the admission is a refund (the
 * refund workflow returns the money to the card); otherwise the amount is spent from that balance at once and
 * added to the customer's credit balance, which the next invoices use first.
 *
 * The note is written `pending` before its admission, holding the idempotency key and the request. The
 * intent's workflow issues the note it admits and adds its credit (patch `credit-note-issued-by-intent`), so an
 * admitted note is finished though this request dies; the request does both too (each is done once), which
 * is all a worker on older code does. A retry with the key answers that note (its admission, keyed by the
 * note's id, is answered again rather than made twice), and the key with other parameters is refused. Keyed by the note's id, an admission's key is no
 * refund's: a merchant's refund key cannot be known before the note it would collide with exists.
 */
export async function createCreditNote(deps: AppDeps, auth: AuthContext, body: CreditNoteCreateBody): Promise<{ status: number; body: ReturnType<typeof creditNoteView> }> {
  const notes = creditNoteData(deps.mongo);
  const id = newId('cn', auth.region);
  const scope = idempotencyScope(auth.tenantId, body.idempotency_key, id);
  /** A note this key made already (before, or by a concurrent request): the same request joins it, an issued one is answered. */
  const joined = async (note: CreditNoteRecord) => {
    if (!sameRequest(note, body)) throw keyInUse();
    return note.status === 'issued' ? answerIssued(deps, note) : null;
  };
  const known = body.idempotency_key ? await notes.byIdempotencyScope(scope) : null;
  const answered = known && (await joined(known));
  if (answered) return answered;
  const inv = await invoiceData(deps.mongo).find(auth.tenantId, body.invoice);
  if (!inv) throw invalidRequest('resource_missing', `No such invoice: '${body.invoice}'`, 'invoice');
  if (inv.status !== 'paid') throw invalidRequest('invoice_not_paid', `This invoice is ${inv.status}: only a paid invoice can be credited`, 'invoice');
  if (!inv.payment_intent || inv.snapshot.amountPaid === 0)
    throw invalidRequest('invoice_not_paid', 'Nothing of this invoice was paid by card (it was paid from credit, or was free): there is nothing to credit', 'invoice');
  const { amount, lines } = amountOf(inv, body, body.lines ? await creditedByLine(deps, inv) : new Map());
  const intent = await getPaymentIntent(deps, auth.tenantId, inv.payment_intent);
  const refund = body.refund ?? false;
  // A deleted customer's credit balance can be neither spent (no new subscription) nor read: money credited to it
  // would leave the payment for nowhere. Refunding it to the card is still the merchant's to do.
  if (!refund && !known && (await customerData(deps.mongo).isDeleted(auth.tenantId, inv.customer)))
    throw invalidRequest('customer_deleted', "This invoice's customer was deleted: its credit balance can no longer be used. Credit with refund: true to return the money to the card", 'refund');
  const note =
    known ??
    (await notes.claim({
      _id: id,
      tenant_id: auth.tenantId,
      invoice: inv._id,
      payment_intent: inv.payment_intent,
      customer: inv.customer,
      subscription: inv.subscription,
      currency: inv.snapshot.currency,
      amount,
      lines,
      reason: body.reason ?? null,
      memo: body.memo ?? null,
      refund: null,
      credit_to_balance: 0,
      status: 'pending',
      refund_requested: refund,
      idempotency_scope: scope,
      created_at: await createdAt(deps, inv),
    }));
  // A concurrent request with the same key claimed it first.
  const concurrent = note !== known && note._id !== id && (await joined(note));
  if (concurrent) return concurrent;
  const admission = await admitOnIntent(deps, intent, [
    { amount, currency: inv.snapshot.currency, idempotencyKey: serviceRefundKey.ofCreditNote(note._id), webhooks: [], slaSeconds: DEFAULT_REFUND_SLA_SECONDS, ...(refund ? {} : { creditNote: note._id }) },
  ]);
  if (!admission.ok) {
    await notes.release(note._id);
    if (admission.code === 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT') throw tooLarge(amount, inv, admission.message);
    throw invalidRequest(admission.code, admission.message, 'invoice');
  }
  // The key is the note's own: answered again, it names this note's reservation (or, to the card, a refund).
  if (refund ? !admission.refund.startsWith('re_') : admission.refund !== note._id)
    throw new Error(`credit note ${note._id}: its admission answered ${admission.refund}`);
  const issued = await notes.issue(note._id, { refund: refund ? admission.refund : null, credit_to_balance: refund ? 0 : amount });
  if (!issued) throw new Error(`credit note ${note._id}: admitted, but given back by a concurrent request; nothing credited`);
  const credit = creditOfNote(issued);
  if (credit) await addCustomerCredit(deps, credit);
  return { status: admission.created ? 201 : 200, body: (await creditNoteViews(deps, issued.tenant_id, [issued]))[0]! };
}

/**
 * When a note is made: the test clock's time when the invoice's customer lives on one (as every other billing time
 * of such a customer, and as Stripe stamps test-clock objects), else now.
 */
async function createdAt(deps: AppDeps, inv: InvoiceRecord): Promise<Date> {
  const clock = inv.snapshot.testClock ? await testClockData(deps.mongo).find(inv.tenant_id, inv.snapshot.testClock) : null;
  return clock ? new Date(clock.frozen_time.getTime()) : new Date();
}

/**
 * The note's amount is more than is left to credit on its invoice: what it paid less its earlier credit notes and
 * the refunds of its payment (one balance, the intent's). Said in the note's terms, whether it is a refund or a
 * credit to the customer's balance; the intent's refusal names what is left.
 */
function tooLarge(amount: number, inv: InvoiceRecord, refusal: string) {
  const left = /refundable balance (-?\d+)/.exec(refusal)?.[1];
  const what = left === undefined ? 'what is left to credit' : `the ${Number(left)} left to credit`;
  return invalidRequest(
    'credit_note_amount_too_large',
    `Credit note amount ${amount} exceeds ${what} on invoice ${inv._id}: the ${inv.snapshot.amountPaid} it paid, less its earlier credit notes and the refunds of its payment`,
    'amount',
  );
}

export async function getCreditNote(deps: AppDeps, tenantId: string, id: string): Promise<CreditNoteRecord> {
  const c = await creditNoteData(deps.mongo).find(tenantId, id);
  if (!c) throw notFound('credit_note', id, 'credit_note');
  return c;
}

/** A customer's credit balances, one per currency. */
export async function creditBalanceOf(deps: AppDeps, tenantId: string, customer: string) {
  const balances = await customerBalanceData(deps.mongo).ofCustomer(tenantId, customer);
  return { customer, object: 'credit_balance' as const, balances: balances.map((b) => ({ currency: b.currency, credit: b.credit })) };
}
