import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { addIntervals, type Interval } from '../../domain/billing/periods';
import type { TaxRateInput } from '../../domain/billing/invoice-math';
import type { SubscriptionSnapshot, InvoiceSnapshot } from '../../domain/billing/snapshots';
import type { EndpointRef } from '../events';

// One workflow per subscription (id = the `sub_` id). It owns the subscription's lifecycle and its
// invoices: trial, renewals on exact, month-end-aware period ends, each invoice's charge through the
// merchant-initiated charge path, dunning, prorations, pause and resume, cancellation.

export const SUBSCRIPTION_WORKFLOW = 'subscriptionWorkflow';

/** An item as the workflow bills it: the plan's price for the item's quantity, frozen when it was set. */
export interface BilledItem {
  item: string; // si_...
  plan: string;
  quantity: number;
  /** One period's price of this quantity (domain/billing/pricing.ts priceOf). */
  periodAmount: number;
  /** `2 × Gold (monthly)`: the invoice line's words. */
  description: string;
}

/** The coupon's discount as the workflow applies it. */
export interface BilledDiscount {
  coupon: string;
  promotionCode: string | null;
  percentOff: number | null;
  amountOff: number | null;
  duration: 'once' | 'repeating' | 'forever';
  /** Unix ms: from when, and (repeating) until when invoices get it. */
  start: number;
  end: number | null;
}

/** How a failed invoice is retried: waits after the first failure, then what becomes of the subscription. */
export interface DunningPolicy {
  /** Days after the first failed attempt at which the invoice is attempted again (default [1, 3, 7]: 3 more attempts over 7 days). */
  retryDays: number[];
  /** When every attempt failed: `cancel` the subscription (the invoice becomes uncollectible) or leave it `unpaid`. */
  whenExhausted: 'cancel' | 'unpaid';
}

export const DEFAULT_DUNNING: DunningPolicy = { retryDays: [1, 3, 7], whenExhausted: 'cancel' };

/** How long an incomplete subscription waits for its first invoice to be paid (Stripe: 23 hours). */
export const INCOMPLETE_WINDOW_MS = 23 * 3600 * 1000;

/** When an incomplete subscription expires unless its first invoice is paid (Unix ms). */
export const incompleteExpiresAt = (s: { created: number }): number => s.created + INCOMPLETE_WINDOW_MS;

export interface SubscriptionInput {
  id: string;
  tenantId: string;
  region: string;
  customer: string;
  currency: string;
  interval: Interval;
  intervalCount: number;
  items: BilledItem[];
  paymentMethod: string;
  taxRates: TaxRateInput[];
  discount: BilledDiscount | null;
  /** Unix ms: when it starts (the clock's time on a test clock). */
  startAt: number;
  /** Unix ms, or null for no trial. */
  trialEnd: number | null;
  cancelAtPeriodEnd: boolean;
  /** The test clock the customer lives on, with its time when the subscription was created. */
  clock: { id: string; frozenTime: number } | null;
  metadata: Record<string, string>;
  webhooks: EndpointRef[];
  webhookTaskQueue: string;
  dunning: DunningPolicy;
  /** The first invoice was paid on a hosted checkout page by this intent: it is not charged again. */
  firstPaidBy?: string;
  createdAt: number;
  carried?: SubscriptionCarried;
}

/** What a run hands to the next (continue-as-new). */
export interface SubscriptionCarried {
  sub: SubscriptionSnapshot;
  open: OpenInvoice[];
  pendingProrations: InvoiceSnapshot['lines'];
  discountUsedOnce: boolean;
  clockNow: number | null;
  versions: Record<string, number>;
  invoiceCount: number;
  /** A clock advance not yet answered, and intent outcomes not yet applied, when the run handed over. */
  clockToAnswer?: boolean;
  outcomes?: { paymentIntent: string; status: 'success' | 'canceled' }[];
  /** The view (JSON) the last subscription event carried: an update that leaves it as it was sends none. */
  sentView?: string;
  /** The latest invoice made to be paid (absent from older runs: their `latestInvoice` was always that one). */
  latestToPay?: string | null;
}

/** An invoice still being collected. */
export interface OpenInvoice {
  invoice: InvoiceSnapshot;
  /** Unix ms of the first failed attempt, from which the retry days count. */
  firstFailureAt: number | null;
  /** Failed attempts the merchant asked for (POST /invoices/{id}/pay): not the schedule's, so they use none of it. */
  askedFailures?: number;
}

export interface ItemChange {
  plan: string;
  quantity: number;
  /** The item it replaces (`si_`), or none for an added item. */
  item?: string;
  periodAmount: number;
  description: string;
}

/** POST /v202607/subscriptions/{id}: what changed (the API resolved plans and prices). */
export interface SubscriptionChange {
  items?: ItemChange[];
  /** `create_prorations` (default): prorations go on the next invoice; `always_invoice`: invoiced and charged now; `none`. */
  prorationBehavior?: 'create_prorations' | 'always_invoice' | 'none';
  cancelAtPeriodEnd?: boolean;
  /** null resumes collection. */
  pauseCollection?: { behavior: 'void'; resumesAt: number | null } | null;
  paymentMethod?: string;
  metadata?: Record<string, string>;
  /** Unix ms of the change when the caller fixed it (a preview shown to the customer); else the workflow's now. */
  prorationDate?: number;
}

export interface SubscriptionAnswer {
  ok: true;
  subscription: SubscriptionSnapshot;
  invoice: InvoiceSnapshot | null;
}

/** Refusals are thrown by validators (ApplicationFailure types: subscription_canceled, invoice_not_open ...) and become 409s. */
/** Answers once the subscription's first step is done (its first invoice charged, or its trial begun): the create's answer. */
export const startedUpdate = defineUpdate<SubscriptionAnswer, []>('started');
export const changeSubscriptionUpdate = defineUpdate<SubscriptionAnswer, [SubscriptionChange]>('change');
export const cancelSubscriptionUpdate = defineUpdate<SubscriptionAnswer, [{ invoiceNow?: boolean }]>('cancel');
/**
 * Pay or void an invoice (POST /v202607/invoices/{id}/pay, /void): an open one, or an uncollectible one (dunning ran
 * out and canceled the subscription), as Stripe allows. The run no longer holds an uncollectible invoice: the API
 * sends its record, and the run that takes it (the subscription's, or one started for it once that has closed) pays
 * or voids it from there; its charge is keyed by the invoice and attempt, so the same attempt is never made twice.
 */
export interface InvoiceAction {
  invoice: string;
  uncollectible?: { snapshot: InvoiceSnapshot; version: number };
}
export const payInvoiceUpdate = defineUpdate<SubscriptionAnswer, [InvoiceAction]>('payInvoice');
export const voidInvoiceUpdate = defineUpdate<SubscriptionAnswer, [InvoiceAction]>('voidInvoice');
export const subscriptionStateQuery = defineQuery<{
  subscription: SubscriptionSnapshot;
  open: OpenInvoice[];
  pendingProrations: InvoiceSnapshot['lines'];
  clockNow: number | null;
  /** A `once` coupon has been used by an invoice. */
  discountUsedOnce: boolean;
}>('state');
/** The intent of an invoice ended later than its charge answered (3DS completed, an asynchronous charge): the payment intent's `owner` signal. */
export { intentOutcomeSignal } from '../checkout/messages';

/**
 * The subscription as its workflow starts it: what the API's record says until the workflow's first write, and
 * the workflow's own first state. A trial's end anchors the billing cycle, as Stripe does; without one the start.
 */
export function startingSubscription(input: SubscriptionInput): SubscriptionSnapshot {
  const start = input.startAt;
  const trialing = input.trialEnd !== null && input.trialEnd > start;
  const anchor = trialing ? input.trialEnd! : start;
  return {
    id: input.id,
    tenantId: input.tenantId,
    region: input.region,
    customer: input.customer,
    status: trialing ? 'trialing' : 'incomplete',
    currency: input.currency,
    interval: input.interval,
    intervalCount: input.intervalCount,
    items: input.items.map((i) => ({ ...i })),
    defaultPaymentMethod: input.paymentMethod,
    defaultTaxRates: input.taxRates.map((t) => t.id),
    discount: input.discount ? { coupon: input.discount.coupon, promotionCode: input.discount.promotionCode, start: input.discount.start, end: input.discount.end } : null,
    cancelAtPeriodEnd: input.cancelAtPeriodEnd,
    canceledAt: input.cancelAtPeriodEnd ? start : null,
    endedAt: null,
    pauseCollection: null,
    billingCycleAnchor: anchor,
    currentPeriodStart: start,
    currentPeriodEnd: trialing ? anchor : addIntervals(anchor, input.interval, input.intervalCount, 1),
    trialStart: trialing ? start : null,
    trialEnd: trialing ? input.trialEnd : null,
    latestInvoice: null,
    testClock: input.clock?.id ?? null,
    metadata: input.metadata,
    created: input.createdAt,
  };
}
