import { discountApplies } from './compose-invoice';
import { computeInvoice, type DiscountInput, type TaxRateInput } from './invoice-math';

// What a subscription's customer pays per period, as its invoices will say: the items at their period price, the
// discount while it applies, the taxes. A coupon that ends (`once`, `repeating`) makes two prices: the one while
// it lasts and the one after. The hosted pages state both (a checkout session before it starts, the portal for
// a running subscription) with the arithmetic the subscription's workflow invoices with (compose-invoice.ts).

export interface RecurringPriceInput {
  /** Each item's price for a period (quantity included). */
  amounts: number[];
  taxRates: TaxRateInput[];
  discount: (DiscountInput & { duration: 'once' | 'repeating' | 'forever'; end: number | null }) | null;
  /** Whether a `once` coupon has reduced an invoice already. */
  usedOnce: boolean;
  /** Unix ms the first period priced starts at (the next renewal, or the first charge after a trial). */
  firstStart: number;
  /** The start of the period after the one starting at `t`. */
  nextStart: (t: number) => number;
}

export interface RecurringPrice {
  /** Total (tax included) of the period starting at `firstStart`. */
  total: number;
  /** When a discount in `total` ends: the total of the periods after it, from the first one it no longer reduces. */
  later: { total: number; from: number } | null;
}

const totalOf = (p: RecurringPriceInput, discount: DiscountInput | null) =>
  computeInvoice(
    p.amounts.map((amount, n) => ({ key: String(n), amount, taxRates: p.taxRates, discountable: true })),
    discount,
    0,
  ).total;

export function recurringPrice(p: RecurringPriceInput): RecurringPrice {
  const full = totalOf(p, null);
  const d = p.discount;
  if (!d || !discountApplies(d, p.firstStart, p.usedOnce)) return { total: full, later: null };
  const total = totalOf(p, { percentOff: d.percentOff, amountOff: d.amountOff });
  if (d.duration === 'forever' || total === full) return { total, later: null };
  // `once`: the next period is at full price; `repeating`: the first period starting at or after its end.
  let from = p.nextStart(p.firstStart);
  for (let n = 0; n < 10_000 && discountApplies(d, from, true); n++) from = p.nextStart(from);
  return { total, later: { total: full, from } };
}
