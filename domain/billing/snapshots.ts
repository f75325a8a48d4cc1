import type { SubscriptionStatus, InvoiceStatus } from '../../platform/billing-records';

// Subscriptions and invoices as the subscription workflow holds them (times in Unix ms), and their one
// public shape (times in Unix seconds, as Stripe Billing shows them). The API builds the same views from the
// records, so an event's `data` and a retrieve never differ. Pure: workflow code imports this file.

export interface LineSnapshot {
  line: string; // il_...
  description: string;
  amount: number;
  quantity: number;
  plan: string | null;
  proration: boolean;
  period: { start: number; end: number };
  discountAmount: number;
  taxAmounts: { taxRate: string; amount: number; inclusive: boolean }[];
}

export interface InvoiceSnapshot {
  id: string; // in_...
  tenantId: string;
  region: string;
  customer: string;
  subscription: string | null;
  status: InvoiceStatus;
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual';
  currency: string;
  lines: LineSnapshot[];
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
  appliedBalance: number;
  amountDue: number;
  amountPaid: number;
  amountRemaining: number;
  attemptCount: number;
  nextPaymentAttempt: number | null;
  paymentIntent: string | null;
  lastFailure: string | null;
  periodStart: number;
  periodEnd: number;
  testClock: string | null;
  created: number;
  finalizedAt: number | null;
  paidAt: number | null;
  voidedAt: number | null;
}

export interface SubscriptionSnapshot {
  id: string; // sub_...
  tenantId: string;
  region: string;
  customer: string;
  status: SubscriptionStatus;
  currency: string;
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
  items: { item: string; plan: string; quantity: number; periodAmount: number; description: string }[];
  defaultPaymentMethod: string;
  defaultTaxRates: string[];
  discount: { coupon: string; promotionCode: string | null; start: number; end: number | null } | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: number | null;
  endedAt: number | null;
  pauseCollection: { behavior: 'void'; resumesAt: number | null } | null;
  billingCycleAnchor: number;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  trialStart: number | null;
  trialEnd: number | null;
  latestInvoice: string | null;
  testClock: string | null;
  metadata: Record<string, string>;
  created: number;
}

/** The statuses of a subscription that has ended for good (its workflow has closed): canceled, or never paid in time. */
export const ENDED_SUBSCRIPTION_STATUSES = ['canceled', 'incomplete_expired'] as const satisfies readonly SubscriptionStatus[];
export const isEndedSubscription = (status: SubscriptionStatus): boolean => (ENDED_SUBSCRIPTION_STATUSES as readonly SubscriptionStatus[]).includes(status);

/** An instant (a Date, or Unix ms) in Unix seconds: how every billing object shows its times. */
/** Why an invoice is neither paid nor voided on request: the workflow's refusal and the API's say the same. */
export const invoiceNotActionable = (status: string): string => `This invoice is ${status}: only an open or uncollectible invoice can be paid or voided`;

export const unixSeconds = (at: Date | number): number => Math.floor((typeof at === 'number' ? at : at.getTime()) / 1000);
const sec = unixSeconds;
const secOrNull = (ms: number | null): number | null => (ms === null ? null : sec(ms));

export function subscriptionView(s: SubscriptionSnapshot) {
  return {
    subscription: s.id,
    object: 'subscription' as const,
    customer: s.customer,
    status: s.status,
    currency: s.currency,
    items: s.items.map((i) => ({ item: i.item, plan: i.plan, quantity: i.quantity })),
    default_payment_method: s.defaultPaymentMethod,
    default_tax_rates: s.defaultTaxRates,
    discount: s.discount
      ? { coupon: s.discount.coupon, promotion_code: s.discount.promotionCode, start: sec(s.discount.start), end: secOrNull(s.discount.end) }
      : null,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    canceled_at: secOrNull(s.canceledAt),
    ended_at: secOrNull(s.endedAt),
    pause_collection: s.pauseCollection ? { behavior: s.pauseCollection.behavior, resumes_at: secOrNull(s.pauseCollection.resumesAt) } : null,
    billing_cycle_anchor: sec(s.billingCycleAnchor),
    current_period_start: sec(s.currentPeriodStart),
    current_period_end: sec(s.currentPeriodEnd),
    trial_start: secOrNull(s.trialStart),
    trial_end: secOrNull(s.trialEnd),
    latest_invoice: s.latestInvoice,
    test_clock: s.testClock,
    metadata: s.metadata,
    created: sec(s.created),
  };
}

export type SubscriptionView = ReturnType<typeof subscriptionView>;

export function invoiceView(i: InvoiceSnapshot) {
  return {
    invoice: i.id,
    object: 'invoice' as const,
    customer: i.customer,
    subscription: i.subscription,
    status: i.status,
    billing_reason: i.billingReason,
    currency: i.currency,
    lines: i.lines.map((l) => ({
      line: l.line,
      description: l.description,
      amount: l.amount,
      quantity: l.quantity,
      plan: l.plan,
      proration: l.proration,
      period: { start: sec(l.period.start), end: sec(l.period.end) },
      discount_amount: l.discountAmount,
      tax_amounts: l.taxAmounts.map((t) => ({ tax_rate: t.taxRate, amount: t.amount, inclusive: t.inclusive })),
    })),
    subtotal: i.subtotal,
    discount: i.discount,
    tax: i.tax,
    total: i.total,
    applied_balance: i.appliedBalance,
    amount_due: i.amountDue,
    amount_paid: i.amountPaid,
    amount_remaining: i.amountRemaining,
    attempt_count: i.attemptCount,
    next_payment_attempt: secOrNull(i.nextPaymentAttempt),
    payment_intent: i.paymentIntent,
    last_payment_error: i.lastFailure ? { code: i.lastFailure } : null,
    period_start: sec(i.periodStart),
    period_end: sec(i.periodEnd),
    test_clock: i.testClock,
    created: sec(i.created),
    finalized_at: secOrNull(i.finalizedAt),
    paid_at: secOrNull(i.paidAt),
    voided_at: secOrNull(i.voidedAt),
  };
}

export type InvoiceView = ReturnType<typeof invoiceView>;
