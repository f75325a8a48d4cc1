// An invoice's figures from its lines, its discount and the customer's credit balance. Everything is exact
// integer arithmetic: percentages are scaled to integers and products are BigInt, so no figure depends on
// how a double happens to round.
import { divRoundHalfUpBig, scaledInteger, toSafeNumber } from './rounding';

export interface TaxRateInput {
  id: string;
  percentage: number; // up to 4 decimals, e.g. 8.875
  inclusive: boolean;
}
export interface DiscountInput {
  percentOff: number | null; // may have 2 decimals (e.g. 12.5)
  amountOff: number | null;
}
export interface DraftLine {
  key: string;
  amount: number;
  taxRates: TaxRateInput[];
  discountable: boolean;
}
export interface ComputedLine {
  key: string;
  amount: number;
  discountAmount: number;
  taxAmounts: { taxRate: string; amount: number; inclusive: boolean }[];
}
export interface ComputedInvoice {
  lines: ComputedLine[];
  subtotal: number; // Σ line amounts (inclusive tax is inside these amounts, as Stripe)
  discount: number; // Σ line discounts
  tax: number; // Σ every tax amount (inclusive and exclusive)
  total: number; // subtotal − discount + exclusive tax
  appliedBalance: number; // credit used: min(creditAvailable, max(0, total))
  amountDue: number; // total − appliedBalance, never below 0
  creditGenerated: number; // when total < 0: −total (goes to the customer's credit balance), else 0
}

const PERCENT_OFF_DECIMALS = 2;
const TAX_DECIMALS = 4;
/** 100 % at each scale: percentOff 12.5 is 1250 / 10 000, a tax rate of 8.875 is 88 750 / 1 000 000. */
const HUNDRED_PERCENT_OFF = 100n * 10n ** BigInt(PERCENT_OFF_DECIMALS);
const HUNDRED_PERCENT_TAX = 100n * 10n ** BigInt(TAX_DECIMALS);

function requireSafeInteger(x: number, what: string): void {
  if (!Number.isSafeInteger(x)) throw new RangeError(`${what} must be a safe integer, got ${x}`);
}

/** The whole discount on `base` (the positive discountable amount). */
function discountOn(base: bigint, discount: DiscountInput | null): bigint {
  if (discount === null || base === 0n) return 0n;
  const { percentOff, amountOff } = discount;
  if (percentOff !== null && amountOff !== null) throw new RangeError('a discount has either percentOff or amountOff, not both');
  if (percentOff !== null) {
    const p = scaledInteger(percentOff, PERCENT_OFF_DECIMALS, 'percentOff');
    if (p < 0n || p > HUNDRED_PERCENT_OFF) throw new RangeError(`percentOff must be between 0 and 100, got ${percentOff}`);
    return divRoundHalfUpBig(base * p, HUNDRED_PERCENT_OFF);
  }
  if (amountOff !== null) {
    requireSafeInteger(amountOff, 'amountOff');
    if (amountOff < 0) throw new RangeError(`amountOff must not be negative, got ${amountOff}`);
    const off = BigInt(amountOff);
    return off < base ? off : base;
  }
  return 0n;
}

/**
 * Splits `total` (0 <= total <= Σ weights) over `weights` (all > 0) in proportion, by the largest-remainder
 * method: each gets the floor of its exact share, and the units left over go one each to the largest
 * remainders, ties to the earlier one. A share never exceeds its weight: floor(total × w / Σ) = w only when
 * total = Σ, and then no remainder is left to hand out.
 */
export function allocateLargestRemainder(total: bigint, weights: bigint[]): bigint[] {
  const sum = weights.reduce((a, w) => a + w, 0n);
  if (sum === 0n) return weights.map(() => 0n);
  const shares = weights.map((w) => (total * w) / sum);
  const remainders = weights.map((w, i) => ({ i, r: (total * w) % sum }));
  let left = total - shares.reduce((a, s) => a + s, 0n);
  // Stable order: larger remainder first, then the earlier index.
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0n) break;
    shares[i] += 1n;
    left -= 1n;
  }
  return shares;
}

function scaledPercentage(rate: TaxRateInput): bigint {
  const p = scaledInteger(rate.percentage, TAX_DECIMALS, `tax rate ${rate.id} percentage`);
  if (p < 0n || p > HUNDRED_PERCENT_TAX) throw new RangeError(`tax rate ${rate.id} percentage must be between 0 and 100, got ${rate.percentage}`);
  return p;
}

/**
 * Each tax of a line on `taxable`, in the order of `rates`. Exclusive: taxable × p / 100. Inclusive: the net is
 * taken out once, with all the inclusive rates together (taxable × 100 / (100 + Σp)), and the tax inside the
 * amount (taxable − net) is split over them in proportion to their percentages, largest remainder first; each
 * taken out on its own would imply a different net (two 10 % rates in 12,000: 1,091 each, not 1,000).
 */
function taxesOn(taxable: bigint, rates: TaxRateInput[]): bigint[] {
  const ps = rates.map(scaledPercentage);
  const inclusive = ps.filter((_, i) => rates[i]!.inclusive);
  const inclusiveSum = inclusive.reduce((a, p) => a + p, 0n);
  const inside = taxable - divRoundHalfUpBig(taxable * HUNDRED_PERCENT_TAX, HUNDRED_PERCENT_TAX + inclusiveSum);
  // Split by magnitude: a credit line's taxes are the negatives of a charge's.
  const split = allocateLargestRemainder(inside < 0n ? -inside : inside, inclusive).map((t) => (inside < 0n ? -t : t));
  let next = 0;
  return rates.map((rate, i) => (rate.inclusive ? split[next++]! : divRoundHalfUpBig(taxable * ps[i]!, HUNDRED_PERCENT_TAX)));
}

/**
 * The invoice's figures, exact to the minor unit:
 * - discount base = max(0, Σ amounts of the discountable lines), negative ones (proration credits) included; percent:
 *   round half up of base × percentOff / 100; amount_off: min(amountOff, base). The discount is allocated to the
 *   discountable lines with amount > 0 in proportion to their amounts by the largest-remainder method (ties: the
 *   earlier line), so Σ line discounts = discount and no line's discount exceeds its amount.
 * - tax per line and rate on taxable = amount − discountAmount: exclusive: round half away from zero of taxable × p / 100;
 *   inclusive: taxable − round half away from zero of taxable × 100 / (100 + Σp of the line's inclusive rates) (the part
 *   of the amount that is tax), split over those rates in proportion to p by the largest-remainder method. With several
 *   rates on one line each is computed on the same taxable amount (no compounding). Use exact integer arithmetic
 *   (percentages scaled to integers, BigInt).
 */
export function computeInvoice(lines: DraftLine[], discount: DiscountInput | null, creditAvailable: number): ComputedInvoice {
  for (const line of lines) requireSafeInteger(line.amount, `line ${line.key} amount`);
  requireSafeInteger(creditAvailable, 'creditAvailable');
  if (creditAvailable < 0) throw new RangeError(`creditAvailable must not be negative, got ${creditAvailable}`);

  const eligible = lines.map((line) => line.discountable && line.amount > 0);
  const weights = lines.filter((_, i) => eligible[i]).map((line) => BigInt(line.amount));
  // As Stripe: the discount applies to the net of the discountable lines (credits for unused time lower it),
  // never more than that net, and is spread over the positive lines (whose sum is at least the net).
  const net = lines.filter((line) => line.discountable).reduce((a, line) => a + BigInt(line.amount), 0n);
  const base = net > 0n ? net : 0n;
  const shares = allocateLargestRemainder(discountOn(base, discount), weights);

  let subtotal = 0n;
  let discountTotal = 0n;
  let tax = 0n;
  let exclusiveTax = 0n;
  let next = 0;
  const computed: ComputedLine[] = lines.map((line, i) => {
    const amount = BigInt(line.amount);
    const discountAmount = eligible[i] ? shares[next++] : 0n;
    const taxable = amount - discountAmount;
    const taxes = taxesOn(taxable, line.taxRates);
    const taxAmounts = line.taxRates.map((rate, k) => {
      const t = taxes[k]!;
      tax += t;
      if (!rate.inclusive) exclusiveTax += t;
      return { taxRate: rate.id, amount: toSafeNumber(t), inclusive: rate.inclusive };
    });
    subtotal += amount;
    discountTotal += discountAmount;
    return { key: line.key, amount: line.amount, discountAmount: toSafeNumber(discountAmount), taxAmounts };
  });

  const total = subtotal - discountTotal + exclusiveTax;
  const credit = BigInt(creditAvailable);
  const owed = total > 0n ? total : 0n;
  const appliedBalance = credit < owed ? credit : owed;
  const amountDue = total - appliedBalance > 0n ? total - appliedBalance : 0n;
  return {
    lines: computed,
    subtotal: toSafeNumber(subtotal),
    discount: toSafeNumber(discountTotal),
    tax: toSafeNumber(tax),
    total: toSafeNumber(total),
    appliedBalance: toSafeNumber(appliedBalance),
    amountDue: toSafeNumber(amountDue),
    creditGenerated: toSafeNumber(total < 0n ? -total : 0n),
  };
}
