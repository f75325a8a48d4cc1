import { invalidRequest, notFound } from '../../domain/errors';
import type { CreditNoteRecord, InvoiceRecord } from '../../platform/billing-records';
import { unixSeconds } from '../../domain/billing/snapshots';
import { newId } from '../../platform/ids';
import { idempotencyScope } from '../../data/idempotency';
import { creditNoteData, customerBalanceData } from '../../data/credit-notes';
import { invoiceData } from '../../data/subscriptions';
import { admitOnIntent } from '../refunds/service';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import { getPaymentIntent } from '../payment-intents/service';
import type { AppDeps, AuthContext } from '../deps';
import { addCustomerCredit } from './balance';
import type { CreditNoteCreateBody } from './schemas';

/** The credit note as retrieve answers it (times in Unix seconds, as the other billing objects). */
export function creditNoteView(c: CreditNoteRecord) {
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
    credit_to_balance: c.credit_to_balance,
    created: unixSeconds(c.created_at),
  };
}

/** What the credit note takes: `amount`, or the sum of its `lines`, each within its invoice line. */
function amountOf(inv: InvoiceRecord, body: CreditNoteCreateBody): { amount: number; lines: CreditNoteRecord['lines'] } {
  if (!body.lines) return { amount: body.amount!, lines: [] };
  const byId = new Map(inv.snapshot.lines.map((l) => [l.line, l]));
  body.lines.forEach((l, n) => {
    const line = byId.get(l.invoice_line);
    if (!line) throw invalidRequest('resource_missing', `No such line of invoice ${inv._id}: '${l.invoice_line}'`, `lines[${n}][invoice_line]`);
    const lineTotal = line.amount - line.discountAmount + line.taxAmounts.filter((t) => !t.inclusive).reduce((s, t) => s + t.amount, 0);
    if (l.amount > lineTotal) throw invalidRequest('credit_note_amount_too_large', `Line '${l.invoice_line}' came to ${lineTotal}`, `lines[${n}][amount]`);
  });
  const amount = body.lines.reduce((s, l) => s + l.amount, 0);
  if (body.amount !== undefined && body.amount !== amount) throw invalidRequest('parameter_invalid', `amount (${body.amount}) differs from the sum of lines (${amount})`, 'amount');
  return { amount, lines: body.lines.map((l) => ({ invoice_line: l.invoice_line, amount: l.amount })) };
}

/**
 * POST /v202607/credit-notes against a paid invoice. Its amount is admitted by the workflow of the invoice's
 * payment intent, from the one balance refunds draw on too: with `refund: true` the admission is a refund (the
 * refund workflow returns the money to the card); otherwise the amount is spent from that balance at once and
 * added to the customer's credit balance, which the next invoices use first.
 */
export async function createCreditNote(deps: AppDeps, auth: AuthContext, body: CreditNoteCreateBody): Promise<{ status: number; body: ReturnType<typeof creditNoteView> }> {
  const notes = creditNoteData(deps.mongo);
  const id = newId('cn', auth.region);
  const scope = idempotencyScope(auth.tenantId, body.idempotency_key, id);
  if (body.idempotency_key) {
    const existing = await notes.byIdempotencyScope(scope);
    if (existing) {
      // A retry after the balance could not be credited: credited now (once per credit note, by its key).
      if (existing.credit_to_balance > 0)
        await addCustomerCredit(deps, { tenantId: auth.tenantId, customer: existing.customer, currency: existing.currency, key: existing._id, amount: existing.credit_to_balance });
      return { status: 200, body: creditNoteView(existing) };
    }
  }
  const inv = await invoiceData(deps.mongo).find(auth.tenantId, body.invoice);
  if (!inv) throw invalidRequest('resource_missing', `No such invoice: '${body.invoice}'`, 'invoice');
  if (inv.status !== 'paid') throw invalidRequest('invoice_not_paid', `This invoice is ${inv.status}: only a paid invoice can be credited`, 'invoice');
  if (!inv.payment_intent || inv.snapshot.amountPaid === 0)
    throw invalidRequest('invoice_not_paid', 'Nothing of this invoice was paid by card (it was paid from credit, or was free): there is nothing to credit', 'invoice');
  const { amount, lines } = amountOf(inv, body);
  const intent = await getPaymentIntent(deps, auth.tenantId, inv.payment_intent);
  const refund = body.refund ?? false;
  // One admission per credit note: keyed by the merchant's key when there is one, so a retry is admitted once.
  const admissionKey = `credit_note:${body.idempotency_key ?? id}`;
  const admission = await admitOnIntent(deps, intent, [
    { amount, currency: inv.snapshot.currency, idempotencyKey: admissionKey, webhooks: [], slaSeconds: DEFAULT_REFUND_SLA_SECONDS, ...(refund ? {} : { creditNote: id }) },
  ]);
  if (!admission.ok) {
    if (admission.code === 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT')
      throw invalidRequest('credit_note_amount_too_large', `${admission.message}: credit notes and refunds of an invoice draw on one balance`, 'amount');
    throw invalidRequest(admission.code, admission.message, 'invoice');
  }
  // A repeated admission answers the first one's id: a refund's (re_) or the first credit note's (cn_).
  const cnId = refund ? id : admission.refund;
  const record: CreditNoteRecord = {
    _id: cnId,
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
    refund: refund ? admission.refund : null,
    credit_to_balance: refund ? 0 : amount,
    status: 'issued',
    idempotency_scope: scope,
    created_at: new Date(),
  };
  await notes.insert(record);
  if (!refund) await addCustomerCredit(deps, { tenantId: auth.tenantId, customer: inv.customer, currency: inv.snapshot.currency, key: cnId, amount });
  const stored = (await notes.byIdempotencyScope(scope)) ?? record;
  return { status: admission.created ? 201 : 200, body: creditNoteView(stored) };
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
