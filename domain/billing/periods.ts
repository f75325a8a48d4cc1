// Billing periods of a subscription, as Stripe Billing places them. Calendar arithmetic is done on integers
// (days since the epoch <-> proleptic Gregorian date, H. Hinnant's algorithms) rather than through Date, so
// it is the same in the workflow sandbox, on the worker and in the API, for any year.

export type Interval = 'day' | 'week' | 'month' | 'year';

export const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const INTERVALS: readonly Interval[] = ['day', 'week', 'month', 'year'];

interface Civil {
  y: number;
  m: number; // 1..12
  d: number; // 1..31
}

function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (m + 9) % 12; // March = 0, so the leap day is the last day of the "year"
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function civilFromDays(z0: number): Civil {
  const z = z0 + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return { y, m, d };
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeap(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

function splitInstant(ms: number): { day: number; timeOfDay: number } {
  const day = Math.floor(ms / DAY_MS);
  return { day, timeOfDay: ms - day * DAY_MS };
}

function requireInteger(x: number, what: string, min: number): void {
  if (!Number.isSafeInteger(x) || x < min) throw new RangeError(`${what} must be an integer >= ${min}, got ${x}`);
}

function requireInterval(interval: Interval, intervalCount: number): void {
  if (!INTERVALS.includes(interval)) throw new RangeError(`unknown interval ${String(interval)}`);
  requireInteger(intervalCount, 'intervalCount', 1);
}

/** Adding whole calendar months to an instant with the same clamp (for coupon `duration_in_months`). */
export function addMonths(fromMs: number, months: number): number {
  requireInteger(fromMs, 'fromMs', Number.MIN_SAFE_INTEGER);
  requireInteger(months, 'months', Number.MIN_SAFE_INTEGER);
  const { day, timeOfDay } = splitInstant(fromMs);
  const { y, m, d } = civilFromDays(day);
  const monthIndex = y * 12 + (m - 1) + months;
  const ty = Math.floor(monthIndex / 12);
  const tm = monthIndex - ty * 12 + 1;
  const td = Math.min(d, daysInMonth(ty, tm));
  return daysFromCivil(ty, tm, td) * DAY_MS + timeOfDay;
}

function fixedLengthMs(interval: Interval): number | null {
  if (interval === 'day') return DAY_MS;
  if (interval === 'week') return WEEK_MS;
  return null;
}

function monthsPerInterval(interval: Interval): number {
  return interval === 'year' ? 12 : 1;
}

/**
 * The instant `n` intervals after `anchorMs` (Unix ms, UTC), n >= 0. Days and weeks add 86 400 000 / 604 800 000 ms
 * times count. Months and years keep the anchor's day of month and its time of day, clamped to the last day of the
 * target month: anchored on 31 January, renewals fall on 28 (29 in a leap year) February, 31 March, 30 April, 31 May...
 * Always computed from the anchor, never chained from the previous period (so a clamp never drifts). A yearly plan
 * anchored on 29 February renews on 28 February in other years and 29 February in leap years.
 */
export function addIntervals(anchorMs: number, interval: Interval, intervalCount: number, n: number): number {
  requireInteger(anchorMs, 'anchorMs', Number.MIN_SAFE_INTEGER);
  requireInterval(interval, intervalCount);
  requireInteger(n, 'n', 0);
  const fixed = fixedLengthMs(interval);
  if (fixed !== null) {
    const at = anchorMs + fixed * intervalCount * n;
    if (!Number.isSafeInteger(at)) throw new RangeError(`period ${n} is beyond the safe integer range`);
    return at;
  }
  return addMonths(anchorMs, monthsPerInterval(interval) * intervalCount * n);
}

/**
 * The furthest a test clock at `fromMs` may advance in one step (Stripe's rule): two intervals of its shortest
 * subscription not ended, or two years when none lives on it. It bounds the work one advance can ask for (a
 * monthly subscription moved a century ahead would run 1,200 renewals before the clock is ready).
 */
export function clockAdvanceLimit(fromMs: number, subscriptions: readonly { interval: Interval; intervalCount: number }[]): number {
  if (subscriptions.length === 0) return addIntervals(fromMs, 'year', 1, 2);
  return Math.min(...subscriptions.map((s) => addIntervals(fromMs, s.interval, s.intervalCount, 2)));
}

/** The billing period with index `n` (0 = the first): [addIntervals(anchor, .., n), addIntervals(anchor, .., n + 1)). */
export function periodAt(anchorMs: number, interval: Interval, intervalCount: number, n: number): { index: number; start: number; end: number } {
  return {
    index: n,
    start: addIntervals(anchorMs, interval, intervalCount, n),
    end: addIntervals(anchorMs, interval, intervalCount, n + 1),
  };
}

/**
 * The period that contains `atMs` (start <= at < end) for at >= anchor. The index is computed (elapsed time over
 * the period length, or elapsed calendar months over the months per period) and then nudged by at most a step or
 * two: the day-of-month clamp and the time of day can put `at` just before the estimated period's start.
 */
export function periodContaining(anchorMs: number, interval: Interval, intervalCount: number, atMs: number): { index: number; start: number; end: number } {
  requireInteger(anchorMs, 'anchorMs', Number.MIN_SAFE_INTEGER);
  requireInterval(interval, intervalCount);
  requireInteger(atMs, 'atMs', Number.MIN_SAFE_INTEGER);
  if (atMs < anchorMs) throw new RangeError(`atMs ${atMs} is before the anchor ${anchorMs}`);
  const fixed = fixedLengthMs(interval);
  let index: number;
  if (fixed !== null) {
    index = Math.floor((atMs - anchorMs) / (fixed * intervalCount));
  } else {
    const a = civilFromDays(splitInstant(anchorMs).day);
    const t = civilFromDays(splitInstant(atMs).day);
    const elapsedMonths = (t.y - a.y) * 12 + (t.m - a.m);
    index = Math.floor(elapsedMonths / (monthsPerInterval(interval) * intervalCount));
  }
  index = Math.max(0, index);
  while (index > 0 && addIntervals(anchorMs, interval, intervalCount, index) > atMs) index -= 1;
  while (addIntervals(anchorMs, interval, intervalCount, index + 1) <= atMs) index += 1;
  return periodAt(anchorMs, interval, intervalCount, index);
}

/** YYYY-MM-DD of an instant in UTC (the dates in proration line descriptions). */
export function utcDate(ms: number): string {
  const { y, m, d } = civilFromDays(splitInstant(ms).day);
  const year = y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0');
  return `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * Validation helper for the plan create endpoint: null when fine, else a message. Stripe caps a billing
 * interval at one year (365 days, 52 weeks, 12 months or 1 year).
 */
export function intervalProblem(interval: Interval, intervalCount: number): string | null {
  if (!INTERVALS.includes(interval)) return `interval must be one of ${INTERVALS.join(', ')}`;
  if (!Number.isSafeInteger(intervalCount) || intervalCount < 1) return 'interval_count must be a positive integer';
  const max = { day: 365, week: 52, month: 12, year: 1 }[interval];
  if (intervalCount > max) return `interval_count for interval ${interval} must be at most ${max} (one year)`;
  return null;
}
