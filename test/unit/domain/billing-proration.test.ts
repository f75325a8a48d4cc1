import { DAY_MS } from '../../../domain/billing/periods';
import { prorate, prorationLines, type PricedItem } from '../../../domain/billing/proration';

const at = (iso: string): number => Date.parse(iso);
// April 2026: 30 days.
const april = { start: at('2026-04-01T00:00:00Z'), end: at('2026-05-01T00:00:00Z') };
const day = (n: number): number => april.start + n * DAY_MS;

describe('prorate', () => {
  test('1000 over a 30-day period from day 10: 20/30 of it, 666.67 rounded to 667', () => {
    expect(prorate(1000, april, day(10))).toBe(667);
  });
  test('an exact share stays exact: 21/30 of 1000 is 700', () => {
    expect(prorate(1000, april, day(9))).toBe(700);
  });
  test('a negative amount rounds away from zero the same way', () => {
    expect(prorate(-1000, april, day(10))).toBe(-667);
  });
  test('exactly half a minor unit rounds away from zero', () => {
    const twoDays = { start: april.start, end: day(2) };
    expect(prorate(3, twoDays, day(1))).toBe(2); // 1.5
    expect(prorate(-3, twoDays, day(1))).toBe(-2); // -1.5
    expect(prorate(1001, april, day(15))).toBe(501); // 500.5
    expect(prorate(1, april, day(15))).toBe(1); // 0.5
  });
  test('just under half rounds down', () => {
    expect(prorate(1, april, day(15) + 1000)).toBe(0); // a second less than half of 1
  });
  test('from the start or before, the whole amount; from the end or after, nothing', () => {
    expect(prorate(1000, april, april.start)).toBe(1000);
    expect(prorate(1000, april, april.start - DAY_MS)).toBe(1000);
    expect(prorate(1000, april, april.end)).toBe(0);
    expect(prorate(1000, april, april.end + DAY_MS)).toBe(0);
  });
  test('milliseconds are truncated to seconds, so sub-second jitter does not change the figure', () => {
    const jittered = { start: april.start + 400, end: april.end + 900 };
    expect(prorate(1000, jittered, day(10) + 999)).toBe(667);
    // Within the first second of the period it is still the whole amount.
    expect(prorate(1000, april, april.start + 999)).toBe(1000);
  });
  test('large amounts are exact (amount × seconds is far past 2^53)', () => {
    expect(prorate(99_999_999_999, april, day(10))).toBe(66_666_666_666);
    expect(prorate(99_999_999_998, april, day(10))).toBe(66_666_666_665); // 66 666 666 665.33
  });
  test('an empty or reversed period is refused', () => {
    expect(() => prorate(1000, { start: april.end, end: april.start }, day(3))).toThrow(RangeError);
  });
});

describe('prorationLines', () => {
  const changeAt = at('2026-04-11T15:30:00Z'); // 19 days 8.5 hours left of 30 days
  const remaining = { start: changeAt, end: april.end };
  const basic: PricedItem = { key: 'si_1', plan: 'basic', quantity: 1, periodAmount: 1000, description: '1 × Basic' };
  const seats: PricedItem = { key: 'si_2', plan: 'seats', quantity: 5, periodAmount: 2500, description: '5 × Seats' };
  const support: PricedItem = { key: 'si_3', plan: 'support', quantity: 1, periodAmount: 300, description: 'Support' };

  test('an upgrade: a credit for the unused time on the old plan, a charge for the remaining time on the new one', () => {
    const pro: PricedItem = { key: 'si_1', plan: 'pro', quantity: 1, periodAmount: 3000, description: '1 × Pro' };
    expect(prorationLines([basic], [pro], april, changeAt)).toEqual([
      // 1000 × 1 672 200 s / 2 592 000 s = 645.14
      { key: 'si_1', plan: 'basic', quantity: 1, amount: -645, description: 'Unused time on 1 × Basic after 2026-04-11', period: remaining },
      // 3000 × 1 672 200 / 2 592 000 = 1935.42
      { key: 'si_1', plan: 'pro', quantity: 1, amount: 1935, description: 'Remaining time on 1 × Pro after 2026-04-11', period: remaining },
    ]);
  });

  test('a quantity change credits the old quantity and charges the new one', () => {
    const sevenSeats: PricedItem = { ...seats, quantity: 7, periodAmount: 3500, description: '7 × Seats' };
    expect(prorationLines([seats], [sevenSeats], april, day(10))).toEqual([
      { key: 'si_2', plan: 'seats', quantity: 5, amount: -1667, description: 'Unused time on 5 × Seats after 2026-04-11', period: { start: day(10), end: april.end } },
      { key: 'si_2', plan: 'seats', quantity: 7, amount: 2333, description: 'Remaining time on 7 × Seats after 2026-04-11', period: { start: day(10), end: april.end } },
    ]);
  });

  test('a removed item is credited only', () => {
    expect(prorationLines([basic, support], [basic], april, day(10))).toEqual([
      { key: 'si_3', plan: 'support', quantity: 1, amount: -200, description: 'Unused time on Support after 2026-04-11', period: { start: day(10), end: april.end } },
    ]);
  });

  test('an added item is charged only', () => {
    expect(prorationLines([basic], [basic, support], april, day(10))).toEqual([
      { key: 'si_3', plan: 'support', quantity: 1, amount: 200, description: 'Remaining time on Support after 2026-04-11', period: { start: day(10), end: april.end } },
    ]);
  });

  test('unchanged items give no lines, even when their description or order changes', () => {
    expect(prorationLines([basic, seats], [{ ...seats, description: 'Seats (renamed)' }, basic], april, day(10))).toEqual([]);
  });

  test('several changes at once: each old item credit then its replacement, then new items', () => {
    const lines = prorationLines(
      [basic, seats, support],
      [{ ...basic, plan: 'pro', periodAmount: 3000, description: '1 × Pro' }, support, { ...seats, key: 'si_4' }],
      april,
      day(10),
    );
    expect(lines.map((l) => [l.key, l.amount, l.description])).toEqual([
      ['si_1', -667, 'Unused time on 1 × Basic after 2026-04-11'],
      ['si_1', 2000, 'Remaining time on 1 × Pro after 2026-04-11'],
      ['si_2', -1667, 'Unused time on 5 × Seats after 2026-04-11'],
      ['si_4', 1667, 'Remaining time on 5 × Seats after 2026-04-11'],
    ]);
  });

  test('a change at the start of the period prorates the whole amounts; a free plan credits 0, not -0', () => {
    const free: PricedItem = { key: 'si_1', plan: 'free', quantity: 1, periodAmount: 0, description: 'Free' };
    const lines = prorationLines([free], [basic], april, april.start);
    expect(lines.map((l) => l.amount)).toEqual([0, 1000]);
    expect(Object.is(lines[0].amount, 0)).toBe(true);
  });

  test('duplicate keys are refused', () => {
    expect(() => prorationLines([basic, basic], [], april, day(10))).toThrow(/duplicate item key si_1/);
  });
});
