import { addIntervals, periodContaining, DAY_MS } from '../../domain/billing/periods';
import { composeInvoice, discountApplies } from '../../domain/billing/compose-invoice';
import { prorationLines, type PricedItem } from '../../domain/billing/proration';
import { isEndedSubscription, type InvoiceSnapshot, type LineSnapshot, type SubscriptionSnapshot } from '../../domain/billing/snapshots';
import { formatMoney } from '../../domain/money';
import type { BilledDiscount, OpenInvoice, SubscriptionChange, SubscriptionInput } from './messages';
import { incompleteExpiresAt, startingSubscription } from './messages';

// The subscription's books as plain code: what is due next, what an invoice holds, what a charge's outcome
// does to the subscription and its invoice. The workflow (workflow.ts) supplies time, ids and the I/O.

/** What is due next, at `at` (Unix ms). */
export type Due =
  | { kind: 'expire_incomplete'; at: number }
  | { kind: 'trial_end'; at: number }
  | { kind: 'period_end'; at: number }
  | { kind: 'retry'; at: number; invoice: string }
  | { kind: 'resume'; at: number };

/** Makes the ids of new invoices and lines: the workflow's seeded uuid4. */
export type IdMaker = (prefix: 'in' | 'il') => string;

export class SubscriptionBook {
  sub: SubscriptionSnapshot;
  open: OpenInvoice[];
  pendingProrations: LineSnapshot[];
  discountUsedOnce: boolean;
  invoiceCount: number;
  /**
   * The latest invoice made to be paid: paid while unpaid, it makes the subscription active again. Not one voided
   * when made (a change while paused), which is the latest invoice all the same but could never be paid.
   */
  private latestToPay: string | null;
  private readonly discountTerms: BilledDiscount | null;

  constructor(private readonly input: SubscriptionInput) {
    this.discountTerms = input.discount;
    const c = input.carried;
    if (c) {
      this.sub = c.sub;
      this.open = c.open;
      this.pendingProrations = c.pendingProrations;
      this.discountUsedOnce = c.discountUsedOnce;
      this.invoiceCount = c.invoiceCount;
      this.latestToPay = c.latestToPay !== undefined ? c.latestToPay : c.sub.latestInvoice;
      return;
    }
    this.sub = startingSubscription(input);
    this.open = [];
    this.pendingProrations = [];
    this.discountUsedOnce = false;
    this.invoiceCount = 0;
    this.latestToPay = null;
  }

  ended(): boolean {
    return isEndedSubscription(this.sub.status);
  }

  /** The earliest thing due, or null when nothing is (ended). */
  nextDue(): Due | null {
    const s = this.sub;
    if (this.ended()) return null;
    if (s.status === 'incomplete') return { kind: 'expire_incomplete', at: incompleteExpiresAt(s) };
    const dues: Due[] = [];
    if (s.status === 'trialing') dues.push({ kind: 'trial_end', at: s.trialEnd! });
    else dues.push({ kind: 'period_end', at: s.currentPeriodEnd });
    if (s.pauseCollection?.resumesAt != null) dues.push({ kind: 'resume', at: s.pauseCollection.resumesAt });
    for (const o of this.open) if (o.invoice.nextPaymentAttempt !== null) dues.push({ kind: 'retry', at: o.invoice.nextPaymentAttempt, invoice: o.invoice.id });
    // Earliest first; at one instant a retry goes before the renewal that follows it (its invoice is older).
    const rank = { expire_incomplete: 0, resume: 1, retry: 2, trial_end: 3, period_end: 4 } as const;
    dues.sort((a, b) => a.at - b.at || rank[a.kind] - rank[b.kind]);
    return dues[0]!;
  }

  // ---- invoices ------------------------------------------------------------------------------------------

  private discountFor(periodStart: number): BilledDiscount | null {
    const d = this.discountTerms;
    if (!d || !this.sub.discount) return null;
    return discountApplies(d, periodStart, this.discountUsedOnce) ? d : null;
  }

  /**
   * The discount leaves the subscription once it no longer applies, as Stripe's: a `once` coupon with the invoice
   * that used it, a `repeating` one at the first period (or invoice) starting at or after its end. Always with
   * another change of the view (the latest invoice, the period, the trial's end), so no event is sent for it alone.
   */
  private dropSpentDiscount(periodStart: number): void {
    const d = this.discountTerms;
    if (d && this.sub.discount && !discountApplies(d, periodStart, this.discountUsedOnce)) this.sub.discount = null;
  }

  /** The lines of the period that starts at `start`: one per item, at its full period price. */
  periodLines(start: number, end: number, newId: IdMaker, trial = false): LineSnapshot[] {
    return this.sub.items.map((i) => ({
      line: newId('il'),
      description: trial ? `Trial period for ${i.description}` : i.description,
      amount: trial ? 0 : i.periodAmount,
      quantity: i.quantity,
      plan: i.plan,
      proration: false,
      period: { start, end },
      discountAmount: 0,
      taxAmounts: [],
    }));
  }

  /**
   * A finalized invoice `id` of `lines` (prorations waiting for the next invoice are added to a cycle
   * invoice), its discount, taxes and the customer credit used. `credit` is what the customer's balance offers.
   */
  invoice(
    reason: InvoiceSnapshot['billingReason'],
    lines: LineSnapshot[],
    period: { start: number; end: number },
    at: number,
    id: string,
    credit = 0,
  ): InvoiceSnapshot {
    const all = reason === 'subscription_cycle' ? [...lines, ...this.pendingProrations] : lines;
    const discount = this.discountFor(period.start);
    const s = this.sub;
    return composeInvoice({
      id,
      head: { tenantId: s.tenantId, region: s.region, customer: s.customer, subscription: s.id, currency: s.currency, testClock: s.testClock },
      reason,
      lines: all,
      period,
      at,
      taxRates: this.input.taxRates,
      discount: discount ? { percentOff: discount.percentOff, amountOff: discount.amountOff } : null,
      credit,
    });
  }

  /**
   * An invoice made: prorations it carried are spent, a `once` coupon is used, it is the latest. `toPay: false`: one
   * voided as it is made, which the subscription's return from unpaid does not wait for.
   */
  took(inv: InvoiceSnapshot, toPay = true): void {
    if (inv.billingReason === 'subscription_cycle') this.pendingProrations = [];
    if (inv.discount > 0) this.discountUsedOnce = true;
    this.dropSpentDiscount(inv.periodStart);
    this.sub.latestInvoice = inv.id;
    if (toPay) this.latestToPay = inv.id;
    this.invoiceCount += 1;
    if (inv.status === 'open') this.open.push({ invoice: inv, firstFailureAt: null });
  }

  openInvoice(id: string): OpenInvoice | undefined {
    return this.open.find((o) => o.invoice.id === id);
  }

  openByIntent(paymentIntent: string): OpenInvoice | undefined {
    return this.open.find((o) => o.invoice.paymentIntent === paymentIntent);
  }

  /** Paid: the invoice leaves the open list; a first or overdue invoice paid makes the subscription active. */
  paid(o: OpenInvoice, at: number): void {
    const inv = o.invoice;
    inv.status = 'paid';
    inv.amountPaid = inv.amountDue;
    inv.amountRemaining = 0;
    inv.nextPaymentAttempt = null;
    inv.paidAt = at;
    this.open = this.open.filter((x) => x !== o);
    const s = this.sub;
    // Past due: active again once nothing overdue is left. Unpaid: the status follows the latest invoice, as
    // Stripe's does (the exhausted one stays open, no longer attempted, for the merchant to collect or void).
    const settled = s.status === 'unpaid' ? inv.id === this.latestToPay : !this.open.some((x) => x.invoice.billingReason !== 'subscription_create');
    if ((s.status === 'incomplete' || s.status === 'past_due' || s.status === 'unpaid') && settled) s.status = s.pauseCollection ? 'paused' : 'active';
  }

  /**
   * An attempt failed: the next attempt per the dunning days (counted from the first failure), or none left.
   * Answers whether attempts are exhausted.
   */
  failed(o: OpenInvoice, code: string, at: number, noRetry = false, asked = false): { exhausted: boolean } {
    const inv = o.invoice;
    inv.lastFailure = code;
    if (o.firstFailureAt === null) o.firstFailureAt = at;
    // An attempt the merchant asked for that failed is not one of the schedule's: the retry due stands, and the
    // schedule counts only its own (Stripe's manual attempts do not shorten dunning).
    if (asked) {
      o.askedFailures = (o.askedFailures ?? 0) + 1;
      if (inv.nextPaymentAttempt !== null) return { exhausted: false };
    }
    // Unpaid: nothing is attempted by the schedule any more (a payment the merchant asks for still is).
    if (noRetry) {
      inv.nextPaymentAttempt = null;
      return { exhausted: false };
    }
    // The first invoice of an incomplete subscription is not dunned: the customer is present to fix it.
    if (inv.billingReason === 'subscription_create' && this.sub.status === 'incomplete') {
      inv.nextPaymentAttempt = null;
      return { exhausted: false };
    }
    const retriesDone = inv.attemptCount - 1 - (o.askedFailures ?? 0);
    const days = this.input.dunning.retryDays;
    if (retriesDone < days.length) {
      inv.nextPaymentAttempt = o.firstFailureAt + days[retriesDone]! * DAY_MS;
      if (this.sub.status === 'active' || this.sub.status === 'trialing') this.sub.status = 'past_due';
      return { exhausted: false };
    }
    inv.nextPaymentAttempt = null;
    return { exhausted: true };
  }

  /** Every attempt failed: cancel (the invoice uncollectible) or leave the subscription unpaid, per the policy. */
  exhausted(o: OpenInvoice, at: number): 'canceled' | 'unpaid' {
    if (this.input.dunning.whenExhausted === 'unpaid') {
      this.sub.status = 'unpaid';
      return 'unpaid';
    }
    o.invoice.status = 'uncollectible';
    o.invoice.nextPaymentAttempt = null;
    this.open = this.open.filter((x) => x !== o);
    this.cancel(at);
    return 'canceled';
  }

  /** Voided: it leaves the open list; the first invoice of an incomplete subscription voided expires it. */
  void(o: OpenInvoice, at: number): void {
    o.invoice.status = 'void';
    o.invoice.voidedAt = at;
    o.invoice.nextPaymentAttempt = null;
    o.invoice.amountRemaining = 0;
    this.open = this.open.filter((x) => x !== o);
    const s = this.sub;
    if (s.status === 'incomplete' && o.invoice.billingReason === 'subscription_create') this.expireIncomplete(at);
    // The last overdue invoice voided: nothing is owed any more.
    else if (s.status === 'past_due' && !this.open.some((x) => x.invoice.billingReason !== 'subscription_create')) s.status = s.pauseCollection ? 'paused' : 'active';
  }

  // ---- lifecycle ----------------------------------------------------------------------------------------

  expireIncomplete(at: number): void {
    this.sub.status = 'incomplete_expired';
    this.sub.endedAt = at;
  }

  /** The trial is over: the first paid period begins at the anchor (the trial's end). */
  endTrial(): void {
    const s = this.sub;
    s.status = 'active';
    s.currentPeriodStart = s.billingCycleAnchor;
    s.currentPeriodEnd = addIntervals(s.billingCycleAnchor, s.interval, s.intervalCount, 1);
    this.dropSpentDiscount(s.currentPeriodStart);
  }

  /** The next period, computed from the anchor so a month-end clamp never drifts. */
  roll(): void {
    const s = this.sub;
    const p = periodContaining(s.billingCycleAnchor, s.interval, s.intervalCount, s.currentPeriodEnd);
    s.currentPeriodStart = p.start;
    s.currentPeriodEnd = p.end;
    // Paused, no invoice is made: the period's start alone ends a repeating coupon.
    this.dropSpentDiscount(p.start);
  }

  cancel(at: number): void {
    const s = this.sub;
    s.status = 'canceled';
    s.canceledAt = s.canceledAt ?? at;
    s.endedAt = at;
    for (const o of this.open) o.invoice.nextPaymentAttempt = null;
  }

  /**
   * The subscription has ended: nothing is collected any more, so its open invoices are settled by the workflow
   * (their intents canceled, each invoice voided, or paid if its intent was paid meanwhile). Answers them.
   */
  openAtEnd(): OpenInvoice[] {
    return this.ended() ? [...this.open] : [];
  }

  /**
   * Applies an items change at `at`: answers the proration lines (credits for unused time on what changed,
   * charges for the remaining time on the new items), none during a trial or with `none`.
   */
  changeItems(c: SubscriptionChange, at: number, newItemId: () => string): LineSnapshot[] {
    const s = this.sub;
    const before: PricedItem[] = s.items.map((i) => ({ key: i.item, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description }));
    const next = c.items!.map((i) => ({ item: i.item ?? newItemId(), plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description }));
    const after: PricedItem[] = next.map((i) => ({ key: i.item, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description }));
    s.items = next;
    if (s.status === 'trialing' || c.prorationBehavior === 'none') return [];
    const period = { start: s.currentPeriodStart, end: s.currentPeriodEnd };
    return prorationLines(before, after, period, at).map((l) => ({
      line: '',
      description: l.description,
      amount: l.amount,
      quantity: l.quantity,
      plan: l.plan,
      proration: true,
      period: l.period,
      discountAmount: 0,
      taxAmounts: [],
    }));
  }

  carry(clockNow: number | null, versions: Record<string, number>) {
    return {
      sub: this.sub,
      open: this.open,
      pendingProrations: this.pendingProrations,
      discountUsedOnce: this.discountUsedOnce,
      clockNow,
      versions,
      invoiceCount: this.invoiceCount,
      latestToPay: this.latestToPay,
    };
  }

  /** The workflow's summary line in the Temporal UI. */
  summary(): string {
    const s = this.sub;
    const amount = s.items.reduce((n, i) => n + i.periodAmount, 0);
    const every = `${s.intervalCount === 1 ? '' : `${s.intervalCount} `}${s.interval}${s.intervalCount === 1 ? '' : 's'}`;
    const open = this.open.length ? `, ${this.open.length} open invoice${this.open.length === 1 ? '' : 's'}` : '';
    return `Subscription ${s.id}: **${s.status}**, ${formatMoney(amount, s.currency)} every ${every} for ${s.customer}; period ends ${new Date(s.currentPeriodEnd).toISOString()}${open}`;
  }
}
