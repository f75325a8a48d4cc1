// Shapes of the recurring-billing documents (v202607): plans, tax rates, coupons, promotion codes,
// subscriptions, invoices, credit notes, customer credit balances, test clocks and the two hosted sessions.
// Like every record: `_id` is the public typed id, `tenant_id` scopes it, and a workflow-owned record
// carries a `version` so a late write never wins. Times are Dates here; the API shows Unix seconds.

export type PlanInterval = 'day' | 'week' | 'month' | 'year';

/** A tier of a tiered plan: units up to `up_to` (null: the rest) cost `unit_amount` each plus `flat_amount`. */
export interface PlanTier {
  up_to: number | null;
  unit_amount: number;
  flat_amount: number;
}

export interface PlanRecord {
  _id: string; // plan_...
  tenant_id: string;
  /** Per unit and period (per_unit); 0 for tiered plans, whose tiers price the quantity. */
  amount: number;
  currency: string; // upper case, as every amount of the API
  interval: PlanInterval;
  interval_count: number;
  trial_period_days: number | null;
  nickname: string | null;
  billing_scheme: 'per_unit' | 'tiered';
  /** `graduated`: each tier prices its own units; `volume`: the tier the quantity falls in prices all units. */
  tiers_mode: 'graduated' | 'volume' | null;
  tiers: PlanTier[] | null;
  /** Archived plans (false) keep their subscriptions but take no new ones. */
  active: boolean;
  metadata: Record<string, string>;
  idempotency_scope: string;
  created_at: Date;
  updated_at: Date;
}

export interface TaxRateRecord {
  _id: string; // txr_...
  tenant_id: string;
  /** A percentage with up to 4 decimals, e.g. 19 or 8.875. */
  percentage: number;
  inclusive: boolean;
  display_name: string;
  jurisdiction: string | null;
  description: string | null;
  active: boolean;
  idempotency_scope: string;
  created_at: Date;
}

export type CouponDuration = 'once' | 'repeating' | 'forever';

/**
 * A coupon redemption its owner gave back (a subscription that never started): so a give-back that comes again
 * after the owner closed, and remembers nothing, gives back nothing. Removed when the subscription is counted again.
 */
export interface CouponReleaseRecord {
  _id: string; // `${coupon}:${subscription}`
  tenant_id: string;
  released_at: Date;
  /** False once the subscription was counted again; absent on marks written before it was kept (given back). */
  given_back?: boolean;
  /** The owner's write that set it: a later write of an older one (a late activity attempt) changes nothing. */
  version?: number;
}

export interface CouponRecord {
  _id: string; // coupon_...
  tenant_id: string;
  name: string | null;
  percent_off: number | null;
  amount_off: number | null;
  currency: string | null;
  duration: CouponDuration;
  duration_in_months: number | null;
  max_redemptions: number | null;
  redeem_by: Date | null;
  /** Written only by the coupon's redemption workflow (workflows/coupon-redemptions). */
  times_redeemed: number;
  metadata: Record<string, string>;
  /** Deleted: unknown to new redemptions and lists; subscriptions that have it keep their discount. */
  deleted_at: Date | null;
  idempotency_scope: string;
  created_at: Date;
  version: number;
}

export interface PromotionCodeRecord {
  _id: string; // promo_...
  tenant_id: string;
  coupon: string;
  /** As the merchant wrote it; matched case-insensitively. */
  code: string;
  /** `<tenant>:<code in lower case>`: unique, so a code names one promotion code per tenant. */
  code_scope: string;
  max_redemptions: number | null;
  expires_at: Date | null;
  active: boolean;
  /** Written only by the coupon's redemption workflow. */
  times_redeemed: number;
  metadata: Record<string, string>;
  created_at: Date;
  version: number;
}

import type { InvoiceSnapshot, SubscriptionSnapshot } from '../domain/billing/snapshots';

export type SubscriptionStatus = 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'unpaid' | 'paused' | 'canceled';

/**
 * A subscription (`sub_...`): the API inserts it (the idempotency guard) and starts its workflow, which from then
 * on is its only writer. `snapshot` is the subscription as the workflow holds it (domain/billing/snapshots.ts);
 * the top-level fields are what lists filter and sort on.
 */
export interface SubscriptionRecord {
  _id: string; // sub_...
  tenant_id: string;
  region: string;
  customer: string;
  status: SubscriptionStatus;
  /** The clock (`clock_...`) of the customer: every billing time of this subscription follows it. */
  test_clock: string | null;
  snapshot: SubscriptionSnapshot;
  /** Endpoints without their secrets (webhook_secrets), as for payment intents. */
  webhooks: { url: string; events: string[]; secretRef?: string }[];
  idempotency_key: string | null;
  idempotency_scope: string;
  created_at: Date;
  updated_at: Date;
  version: number;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';

/** An invoice (`in_...`), written only by its subscription's workflow; `snapshot` is the whole invoice. */
export interface InvoiceRecord {
  _id: string; // in_...
  tenant_id: string;
  customer: string;
  subscription: string | null;
  status: InvoiceStatus;
  payment_intent: string | null;
  snapshot: InvoiceSnapshot;
  created_at: Date;
  updated_at: Date;
  version: number;
}

export interface CreditNoteRecord {
  _id: string; // cn_...
  tenant_id: string;
  invoice: string;
  /** The intent that paid the invoice: credit notes and its refunds draw on its one refundable balance. */
  payment_intent: string;
  customer: string;
  subscription: string | null;
  currency: string;
  amount: number;
  lines: { invoice_line: string; amount: number }[];
  reason: 'duplicate' | 'fraudulent' | 'order_change' | 'product_unsatisfactory' | null;
  memo: string | null;
  /** The refund (`re_...`) that returned the money, or null when it went to the customer's credit balance. */
  refund: string | null;
  credit_to_balance: number;
  /**
   * `pending` from before its amount is asked of the intent's workflow until it is issued: it claims the
   * idempotency key and keeps the request, so a retry is compared with it and finishes it. Never listed,
   * never credited (`refund` null, `credit_to_balance` 0 until issued).
   */
  status: 'pending' | 'issued';
  /** What was asked (`refund: true`); absent from notes written before it, where `refund` says it. */
  refund_requested?: boolean;
  idempotency_scope: string;
  created_at: Date;
}

/** A customer's credit balance in one currency: written only by its balance workflow (workflows/customer-balance). */
export interface CustomerBalanceRecord {
  _id: string; // `<customer>:<currency>`
  tenant_id: string;
  customer: string;
  currency: string;
  /** Credit the next invoices use first, in minor units (>= 0). */
  credit: number;
  version: number;
  updated_at: Date;
}

export interface TestClockRecord {
  _id: string; // clock_...
  tenant_id: string;
  name: string | null;
  frozen_time: Date;
  status: 'ready' | 'advancing';
  created_at: Date;
  version: number;
}

export interface CheckoutSessionRecord {
  _id: string; // cs_...
  tenant_id: string;
  region: string;
  mode: 'subscription';
  customer: string;
  items: { plan: string; quantity: number }[];
  trial_period_days: number | null;
  coupon: string | null;
  promotion_code: string | null;
  default_tax_rates: string[];
  metadata: Record<string, string>;
  webhooks: { url: string; events: string[]; secretRef?: string }[];
  success_url: string;
  cancel_url: string;
  status: 'open' | 'complete' | 'expired';
  /** The intent the page's card form pays (the first invoice's amount; a card check of one major unit, refunded, when nothing is due today). */
  payment_intent: string | null;
  subscription: string | null;
  expires_at: Date;
  idempotency_scope: string;
  created_at: Date;
  version: number;
  /** The merchant's key of the create (`idempotency_scope` is it scoped to the tenant). */
  idempotency_key?: string | null;
  currency?: string;
  /**
   * What the page shows and the intent charges, worked out at create (api/checkout-sessions/quote.ts): the first
   * invoice's figures (0 with a trial), the renewal's, and `charge`: the intent's amount, which is the first
   * invoice's total, or a card check of one major unit refunded at completion when that total is 0.
   */
  quote?: {
    items: { plan: string; quantity: number; description: string; name: string; unit_amount: number | null; amount: number }[];
    interval: PlanInterval;
    interval_count: number;
    trial_days: number;
    first: { subtotal: number; discount: number; tax: number; total: number };
    renewal: { subtotal: number; discount: number; tax: number; total: number };
    /** Display words of the discount. */
    coupon: { name: string; percent_off: number | null; amount_off: number | null; duration: CouponDuration; duration_in_months: number | null } | null;
    tax_rates: { id: string; display_name: string; percentage: number; inclusive: boolean }[];
    charge: { amount: number; verification: boolean };
  };
  /** The page's language when the URL asks for none (`locale` at create). */
  locale?: string | null;
  /** Why a paid session could not start its subscription; its payment was then refunded (`refund`). */
  completion_error?: { code: string; message: string } | null;
  /** The refund of the session's intent: the card check once complete, or the whole payment after a completion_error. */
  refund?: string | null;
  completed_at?: Date | null;
}

export interface PortalSessionRecord {
  _id: string; // bps_...
  tenant_id: string;
  region: string;
  customer: string;
  return_url: string | null;
  expires_at: Date;
  created_at: Date;
  /** The plans the customer may switch to; null: every active plan that bills like the subscription. */
  plans?: string[] | null;
  /** The page's language when the URL asks for none (`locale` at create). */
  locale?: string | null;
}
