import { computeInvoice, type DiscountInput, type DraftLine, type TaxRateInput } from './invoice-math';
import type { InvoiceSnapshot, LineSnapshot } from './snapshots';

// An invoice of a subscription put together from its lines: the figures of invoice-math.ts on each line and in
// total. The subscription workflow makes its invoices with it; the preview shows the next one with it.

/**
 * Whether a coupon's discount applies to the invoice of the period starting at `periodStart`: `once` to the first
 * invoice that had a discount, `repeating` to periods that start before its end, `forever` always.
 */
export function discountApplies(d: { duration: 'once' | 'repeating' | 'forever'; end: number | null }, periodStart: number, usedOnce: boolean): boolean {
  if (d.duration === 'once') return !usedOnce;
  if (d.duration === 'repeating') return d.end !== null && periodStart < d.end;
  return true;
}

/** A subscription's invoice lines as invoice-math.ts takes them: each taxed at the subscription's rates, each discountable. */
function draftLines(lines: readonly Pick<LineSnapshot, 'line' | 'amount'>[], taxRates: TaxRateInput[]): DraftLine[] {
  return lines.map((l) => ({ key: l.line, amount: l.amount, taxRates, discountable: true }));
}

/**
 * The total of an invoice of `lines` (exclusive tax on top, inclusive tax inside) before any discount: what it comes
 * to once a coupon has ended, so the most it can ask of one payment.
 */
export function undiscountedTotal(lines: readonly Pick<LineSnapshot, 'line' | 'amount'>[], taxRates: TaxRateInput[]): number {
  return computeInvoice(draftLines(lines, taxRates), null, 0).total;
}

export interface InvoiceHead {
  tenantId: string;
  region: string;
  customer: string;
  subscription: string;
  currency: string;
  testClock: string | null;
}

export function composeInvoice(p: {
  id: string;
  head: InvoiceHead;
  reason: InvoiceSnapshot['billingReason'];
  lines: LineSnapshot[];
  period: { start: number; end: number };
  at: number;
  taxRates: TaxRateInput[];
  discount: DiscountInput | null;
  /** What the customer's credit balance offers: used first. */
  credit: number;
}): InvoiceSnapshot {
  const figures = computeInvoice(draftLines(p.lines, p.taxRates), p.discount, p.credit);
  const byKey = new Map(figures.lines.map((l) => [l.key, l]));
  return {
    id: p.id,
    ...p.head,
    status: 'open',
    billingReason: p.reason,
    lines: p.lines.map((l) => ({ ...l, discountAmount: byKey.get(l.line)!.discountAmount, taxAmounts: byKey.get(l.line)!.taxAmounts })),
    subtotal: figures.subtotal,
    discount: figures.discount,
    tax: figures.tax,
    total: figures.total,
    appliedBalance: figures.appliedBalance,
    amountDue: figures.amountDue,
    amountPaid: 0,
    amountRemaining: figures.amountDue,
    attemptCount: 0,
    nextPaymentAttempt: null,
    paymentIntent: null,
    lastFailure: null,
    periodStart: p.period.start,
    periodEnd: p.period.end,
    created: p.at,
    finalizedAt: p.at,
    paidAt: null,
    voidedAt: null,
  };
}
