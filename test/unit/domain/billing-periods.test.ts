import { addIntervals, addMonths, clockAdvanceLimit, DAY_MS, intervalProblem, periodAt, periodContaining, utcDate, type Interval } from '../../../domain/billing/periods';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('monthly renewals keep the anchor day, clamped to the month', () => {
  const jan31 = at('2026-01-31T10:15:30.250Z');

  test('31 January -> 28 February -> 31 March -> 30 April, at the anchor time of day', () => {
    expect([1, 2, 3].map((n) => iso(addIntervals(jan31, 'month', 1, n)))).toEqual([
      '2026-02-28T10:15:30.250Z',
      '2026-03-31T10:15:30.250Z',
      '2026-04-30T10:15:30.250Z',
    ]);
  });

  test('in a leap year February ends on the 29th', () => {
    expect(iso(addIntervals(at('2028-01-31T00:00:00Z'), 'month', 1, 1))).toBe('2028-02-29T00:00:00.000Z');
  });

  test('twelve renewals over a year from 31 January 2026 never drift from the 31st', () => {
    const starts = Array.from({ length: 13 }, (_, n) => iso(addIntervals(jan31, 'month', 1, n)).slice(0, 10));
    expect(starts).toEqual([
      '2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31',
      '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2026-12-31', '2027-01-31',
    ]);
  });

  test('n = 0 is the anchor itself', () => {
    expect(addIntervals(jan31, 'month', 1, 0)).toBe(jan31);
  });

  test('quarterly (interval_count 3) from 30 November clamps to 28 February, then returns to the 30th', () => {
    const nov30 = at('2025-11-30T00:00:00Z');
    expect([1, 2, 3].map((n) => iso(addIntervals(nov30, 'month', 3, n)).slice(0, 10))).toEqual(['2026-02-28', '2026-05-30', '2026-08-30']);
  });

  test('an anchor before 1970 works the same', () => {
    expect(iso(addIntervals(at('1969-12-31T23:00:00Z'), 'month', 1, 2))).toBe('1970-02-28T23:00:00.000Z');
  });
});

describe('yearly renewals', () => {
  const leapDay = at('2024-02-29T12:00:00Z');

  test('anchored on 29 February: 28 February in common years, 29 February in leap years', () => {
    expect([1, 2, 3, 4, 8].map((n) => iso(addIntervals(leapDay, 'year', 1, n)).slice(0, 10))).toEqual([
      '2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29', '2032-02-29',
    ]);
  });

  test('2100 is not a leap year, 2400 is', () => {
    expect(iso(addIntervals(leapDay, 'year', 1, 76)).slice(0, 10)).toBe('2100-02-28');
    expect(iso(addIntervals(leapDay, 'year', 4, 94)).slice(0, 10)).toBe('2400-02-29');
  });

  test('every two years (interval_count 2)', () => {
    expect(iso(addIntervals(at('2026-07-15T00:00:00Z'), 'year', 2, 3))).toBe('2032-07-15T00:00:00.000Z');
  });
});

describe('days and weeks are fixed lengths of time', () => {
  const anchor = at('2026-03-01T08:00:00Z');

  test('every 2 weeks: the third renewal is 6 weeks on', () => {
    expect(addIntervals(anchor, 'week', 2, 3)).toBe(anchor + 42 * DAY_MS);
    expect(iso(addIntervals(anchor, 'week', 2, 3))).toBe('2026-04-12T08:00:00.000Z');
  });

  test('every 3 days: the tenth renewal is 30 days on', () => {
    expect(addIntervals(anchor, 'day', 3, 10)).toBe(anchor + 30 * DAY_MS);
  });

  test('DAY_MS is 86 400 000', () => expect(DAY_MS).toBe(86_400_000));
});

describe('periodAt', () => {
  test('is [start of n, start of n + 1)', () => {
    expect(periodAt(at('2026-01-31T00:00:00Z'), 'month', 1, 1)).toEqual({
      index: 1,
      start: at('2026-02-28T00:00:00Z'),
      end: at('2026-03-31T00:00:00Z'),
    });
  });
});

describe('periodContaining', () => {
  const jan31 = at('2026-01-31T10:00:00Z');

  test('the anchor is in period 0', () => {
    expect(periodContaining(jan31, 'month', 1, jan31)).toEqual(periodAt(jan31, 'month', 1, 0));
  });

  test('the end of a period belongs to the next one; a millisecond before it does not', () => {
    const feb28 = at('2026-02-28T10:00:00Z');
    expect(periodContaining(jan31, 'month', 1, feb28 - 1).index).toBe(0);
    expect(periodContaining(jan31, 'month', 1, feb28)).toEqual({ index: 1, start: feb28, end: at('2026-03-31T10:00:00Z') });
  });

  test('a day of the month before the anchor day, in a later month, is still in the earlier period', () => {
    // 30 March is after the 28 February renewal and before the 31 March one.
    expect(periodContaining(jan31, 'month', 1, at('2026-03-30T23:00:00Z')).index).toBe(1);
    // Same calendar day as a renewal but earlier in the day.
    expect(periodContaining(jan31, 'month', 1, at('2026-03-31T09:59:59.999Z')).index).toBe(1);
  });

  test('ten years of daily periods are computed, not walked', () => {
    const anchor = at('2026-01-01T00:00:00Z');
    const p = periodContaining(anchor, 'day', 1, anchor + 3650 * DAY_MS + 5 * 3_600_000);
    expect(p).toEqual({ index: 3650, start: anchor + 3650 * DAY_MS, end: anchor + 3651 * DAY_MS });
  });

  test('weekly with interval_count at the boundaries', () => {
    const anchor = at('2026-03-02T00:00:00Z');
    const twoWeeks = 14 * DAY_MS;
    expect(periodContaining(anchor, 'week', 2, anchor + twoWeeks * 5 - 1).index).toBe(4);
    expect(periodContaining(anchor, 'week', 2, anchor + twoWeeks * 5).index).toBe(5);
  });

  test('yearly from 29 February: 28 February 2025 at the anchor time starts period 1', () => {
    const anchor = at('2024-02-29T12:00:00Z');
    expect(periodContaining(anchor, 'year', 1, at('2025-02-28T11:59:59.999Z')).index).toBe(0);
    expect(periodContaining(anchor, 'year', 1, at('2025-02-28T12:00:00Z')).index).toBe(1);
    expect(periodContaining(anchor, 'year', 1, at('2028-02-29T11:00:00Z')).index).toBe(3);
  });

  test('agrees with walking the periods one by one, for many anchors and instants', () => {
    let seed = 12345;
    const next = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    const cases: [Interval, number][] = [['month', 1], ['month', 3], ['month', 12], ['year', 1], ['day', 7], ['week', 2]];
    for (const [interval, count] of cases) {
      for (let k = 0; k < 40; k += 1) {
        const anchor = at('2020-01-01T00:00:00Z') + (next() % (3 * 365)) * DAY_MS + (next() % DAY_MS);
        const when = anchor + (next() % (6 * 365)) * DAY_MS + (next() % DAY_MS);
        let n = 0;
        while (addIntervals(anchor, interval, count, n + 1) <= when) n += 1;
        expect(periodContaining(anchor, interval, count, when).index).toBe(n);
      }
    }
  });

  test('an instant before the anchor is refused', () => {
    expect(() => periodContaining(1000, 'day', 1, 999)).toThrow(RangeError);
  });
});

describe('addMonths (coupon duration_in_months)', () => {
  test('clamps like renewals', () => {
    expect(iso(addMonths(at('2026-08-31T06:00:00Z'), 6))).toBe('2027-02-28T06:00:00.000Z');
    expect(iso(addMonths(at('2026-12-15T00:00:00Z'), 1))).toBe('2027-01-15T00:00:00.000Z');
  });
  test('whole years of months land on the same day', () => {
    expect(iso(addMonths(at('2026-05-31T00:00:00Z'), 24))).toBe('2028-05-31T00:00:00.000Z');
  });
  test('negative months go back with the same clamp', () => {
    expect(iso(addMonths(at('2026-03-31T00:00:00Z'), -1))).toBe('2026-02-28T00:00:00.000Z');
  });
});

test('utcDate is the UTC calendar day, matching Date for every day from 1900 to 2100', () => {
  expect(utcDate(at('2026-04-11T23:59:59.999Z'))).toBe('2026-04-11');
  for (let day = -25_567; day <= 47_482; day += 1) {
    const ms = day * DAY_MS + 43_200_000;
    if (utcDate(ms) !== iso(ms).slice(0, 10)) throw new Error(`utcDate disagrees with Date on ${iso(ms)}`);
  }
});

test('invalid arguments are refused, not guessed at', () => {
  expect(() => addIntervals(0, 'month', 0, 1)).toThrow(RangeError);
  expect(() => addIntervals(0, 'month', 1, -1)).toThrow(RangeError);
  expect(() => addIntervals(0.5, 'day', 1, 1)).toThrow(RangeError);
  expect(() => addIntervals(0, 'fortnight' as never, 1, 1)).toThrow(RangeError);
});

test('intervalProblem caps an interval at one year, as Stripe does', () => {
  expect(intervalProblem('month', 12)).toBeNull();
  expect(intervalProblem('week', 52)).toBeNull();
  expect(intervalProblem('month', 13)).toMatch(/at most 12/);
  expect(intervalProblem('day', 0)).toMatch(/positive integer/);
});

test("a test clock advances at most two intervals of its shortest subscription, two years without one (Stripe's bound)", () => {
  const jan31 = at('2026-01-31T09:00:00Z');
  expect(iso(clockAdvanceLimit(jan31, []))).toBe('2028-01-31T09:00:00.000Z');
  expect(iso(clockAdvanceLimit(jan31, [{ interval: 'month', intervalCount: 1 }]))).toBe('2026-03-31T09:00:00.000Z');
  expect(iso(clockAdvanceLimit(jan31, [{ interval: 'year', intervalCount: 1 }, { interval: 'week', intervalCount: 3 }, { interval: 'month', intervalCount: 1 }]))).toBe('2026-03-14T09:00:00.000Z');
  expect(iso(clockAdvanceLimit(jan31, [{ interval: 'day', intervalCount: 1 }]))).toBe('2026-02-02T09:00:00.000Z');
});
