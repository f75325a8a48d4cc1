// Prorations when a subscription's items change mid-period, as Stripe Billing makes them: the unused time of
// what was billed comes back as a credit, the remaining time of what replaces it is charged.
import { utcDate } from './periods';
import { divRoundHalfUpBig, toSafeNumber } from './rounding';

const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * The share of `amount` (one period's price, may be negative) for the time from `fromMs` to the period's end:
 * round half away from zero of amount × (end − from) / (end − start), exact to the minor unit (BigInt). from <= start
 * gives the whole amount, from >= end gives 0. Time is measured in whole seconds (ms are truncated to seconds first) so
 * the figure does not depend on sub-second jitter.
 */
export function prorate(amount: number, period: { start: number; end: number }, fromMs: number): number {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`amount must be a safe integer, got ${amount}`);
  for (const [what, ms] of [['period.start', period.start], ['period.end', period.end], ['fromMs', fromMs]] as const)
    if (!Number.isSafeInteger(ms)) throw new RangeError(`${what} must be an integer instant in ms, got ${ms}`);
  if (period.end <= period.start) throw new RangeError(`period must end after it starts (${period.start} .. ${period.end})`);
  // Floor rather than trunc so an instant before 1970 also falls in the second that contains it.
  const start = seconds(period.start);
  const end = seconds(period.end);
  const from = seconds(fromMs);
  if (from <= start) return amount;
  if (from >= end) return 0;
  return toSafeNumber(divRoundHalfUpBig(BigInt(amount) * BigInt(end - from), BigInt(end - start)));
}

export interface PricedItem {
  key: string;
  plan: string;
  quantity: number;
  periodAmount: number;
  description: string;
}
export interface ProrationLine {
  key: string;
  plan: string;
  quantity: number;
  amount: number;
  description: string;
  period: { start: number; end: number };
}

function byKey(items: PricedItem[], which: string): Map<string, PricedItem> {
  const map = new Map<string, PricedItem>();
  for (const item of items) {
    if (map.has(item.key)) throw new RangeError(`duplicate item key ${item.key} in ${which}`);
    map.set(item.key, item);
  }
  return map;
}

/**
 * Stripe's prorations for an items change at `atMs` inside `period`: for every old item whose plan or quantity changed
 * (or that was removed) a credit line (negative: −prorate(old periodAmount)) "Unused time on <description> after <date>",
 * and for every new or changed item a debit line (+prorate(new periodAmount)) "Remaining time on <description> after <date>";
 * unchanged items give no lines. Items are matched by `key`. Lines' period is { start: atMs, end: period.end }.
 * Dates in descriptions: YYYY-MM-DD in UTC.
 *
 * Order: the items of `before` in their order, each credit followed by its own replacement's debit (so an
 * upgrade reads as a pair), then the debits of keys new in `after`, in their order. A changed item whose
 * prorated amount is 0 still gets its line, as Stripe shows one.
 */
export function prorationLines(before: PricedItem[], after: PricedItem[], period: { start: number; end: number }, atMs: number): ProrationLine[] {
  const old = byKey(before, 'before');
  const next = byKey(after, 'after');
  const date = utcDate(atMs);
  const linePeriod = { start: atMs, end: period.end };
  const credit = (item: PricedItem): ProrationLine => {
    const share = prorate(item.periodAmount, period, atMs);
    return {
      key: item.key,
      plan: item.plan,
      quantity: item.quantity,
      amount: share === 0 ? 0 : -share, // never -0
      description: `Unused time on ${item.description} after ${date}`,
      period: { ...linePeriod },
    };
  };
  const debit = (item: PricedItem): ProrationLine => ({
    key: item.key,
    plan: item.plan,
    quantity: item.quantity,
    amount: prorate(item.periodAmount, period, atMs),
    description: `Remaining time on ${item.description} after ${date}`,
    period: { ...linePeriod },
  });

  const lines: ProrationLine[] = [];
  for (const was of before) {
    const now = next.get(was.key);
    if (now && now.plan === was.plan && now.quantity === was.quantity) continue;
    lines.push(credit(was));
    if (now) lines.push(debit(now));
  }
  for (const now of after) if (!old.has(now.key)) lines.push(debit(now));
  return lines;
}
