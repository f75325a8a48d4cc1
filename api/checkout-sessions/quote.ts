import { addIntervals, addMonths, DAY_MS } from '../../domain/billing/periods';
import { computeInvoice, type DiscountInput } from '../../domain/billing/invoice-math';
import { minorUnitDigits } from '../../domain/money';
import { taxRateInputOf } from '../../data/tax-rates';
import type { CheckoutSessionRecord, CouponRecord, PlanRecord, TaxRateRecord } from '../../platform/billing-records';

/** A checkout session's figures, in minor units of its currency. */
export type CheckoutQuote = NonNullable<CheckoutSessionRecord['quote']>;

// What a checkout session charges and shows, worked out once at create with the arithmetic the subscription's
// workflow uses (domain/billing/invoice-math.ts computeInvoice, as workflows/subscription/state.ts applies it),
// so the intent the page pays is exactly the first invoice the subscription then records as paid by it.
// Pure: the service reads the plans, tax rates and coupon; this decides from them.

export interface QuoteInput {
  currency: string;
  interval: PlanRecord['interval'];
  intervalCount: number;
  /** Each line as priceItems priced it (api/subscriptions/service.ts), with its plan. */
  items: { plan: PlanRecord; quantity: number; periodAmount: number; description: string }[];
  taxRates: Pick<TaxRateRecord, '_id' | 'display_name' | 'percentage' | 'inclusive'>[];
  coupon: Pick<CouponRecord, 'name' | 'percent_off' | 'amount_off' | 'duration' | 'duration_in_months'> | null;
  trialDays: number;
  /** Unix ms the subscription would start at now (the customer's test clock time, if any). */
  startAt: number;
}

/** The card check charged when nothing is due today (a trial, a 100 % coupon): one major unit, refunded at completion. */
export function verificationAmount(currency: string): number {
  return 10 ** minorUnitDigits(currency);
}

/** Does the coupon reduce an invoice whose period starts at `periodStart` (the workflow's discountFor)? */
function discountFor(coupon: QuoteInput['coupon'], startAt: number, periodStart: number, onceUsed: boolean): DiscountInput | null {
  if (!coupon) return null;
  const terms = { percentOff: coupon.percent_off, amountOff: coupon.amount_off };
  if (coupon.duration === 'once') return onceUsed ? null : terms;
  if (coupon.duration === 'repeating') return periodStart < addMonths(startAt, coupon.duration_in_months ?? 0) ? terms : null;
  return terms;
}

function figures(input: QuoteInput, zero: boolean, discount: DiscountInput | null) {
  const lines = input.items.map((i, n) => ({
    key: String(n),
    amount: zero ? 0 : i.periodAmount,
    taxRates: input.taxRates.map(taxRateInputOf),
    discountable: true,
  }));
  const f = computeInvoice(lines, discount, 0);
  return { subtotal: f.subtotal, discount: f.discount, tax: f.tax, total: f.total };
}

export function quoteCheckout(input: QuoteInput): CheckoutQuote {
  const trial = input.trialDays > 0;
  // The first invoice: the trial's (every line 0), or the first period at full price with the discount.
  const first = figures(input, trial, trial ? null : discountFor(input.coupon, input.startAt, input.startAt, false));
  // The next one: the first charge at the trial's end, else the second period. A `once` coupon is spent by the
  // first invoice that it reduced (a trial's zero invoice does not spend it).
  const nextStart = trial ? input.startAt + input.trialDays * DAY_MS : addIntervals(input.startAt, input.interval, input.intervalCount, 1);
  const renewal = figures(input, false, discountFor(input.coupon, input.startAt, nextStart, first.discount > 0));
  const charge = first.total > 0 ? { amount: first.total, verification: false } : { amount: verificationAmount(input.currency), verification: true };
  return {
    items: input.items.map((i) => ({
      plan: i.plan._id,
      quantity: i.quantity,
      description: i.description,
      name: i.plan.nickname ?? i.plan._id,
      unit_amount: i.plan.billing_scheme === 'per_unit' ? i.plan.amount : null,
      amount: i.periodAmount,
    })),
    interval: input.interval,
    interval_count: input.intervalCount,
    trial_days: input.trialDays,
    first,
    renewal,
    coupon: input.coupon
      ? {
          name: input.coupon.name ?? '',
          percent_off: input.coupon.percent_off,
          amount_off: input.coupon.amount_off,
          duration: input.coupon.duration,
          duration_in_months: input.coupon.duration_in_months,
        }
      : null,
    tax_rates: input.taxRates.map((t) => ({ id: t._id, display_name: t.display_name, percentage: t.percentage, inclusive: t.inclusive })),
    charge,
  };
}
