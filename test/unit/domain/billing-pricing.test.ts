import { priceOf, tierProblem, type PlanPrice } from '../../../domain/billing/pricing';

const perUnit = (amount: number): PlanPrice => ({ amount, billing_scheme: 'per_unit', tiers_mode: null, tiers: null });
// Units 1-5 at 10.00, 6-10 at 8.00 (+5.00 flat), 11 and above at 5.00 (+10.00 flat).
const tiers = [
  { up_to: 5, unit_amount: 1000, flat_amount: 0 },
  { up_to: 10, unit_amount: 800, flat_amount: 500 },
  { up_to: null, unit_amount: 500, flat_amount: 1000 },
];
const graduated: PlanPrice = { amount: 0, billing_scheme: 'tiered', tiers_mode: 'graduated', tiers };
const volume: PlanPrice = { amount: 0, billing_scheme: 'tiered', tiers_mode: 'volume', tiers };

describe('per unit', () => {
  test('amount × quantity', () => expect(priceOf(perUnit(1500), 3)).toBe(4500));
  test('quantity 0 costs nothing', () => expect(priceOf(perUnit(1500), 0)).toBe(0));
  test('a product past 2^53 would not be exact, so it is refused; one just under is exact', () => {
    expect(priceOf(perUnit(99_999_999_999), 90_000)).toBe(8_999_999_999_910_000);
    expect(() => priceOf(perUnit(99_999_999_999), 100_000)).toThrow(RangeError);
  });
});

describe('graduated tiers: each tier prices the units that fall in it', () => {
  test.each([
    [0, 0],
    [3, 3000], // 3 × 10.00
    [5, 5000], // the whole first tier; up_to is inclusive
    [6, 6300], // 5 × 10.00 + 1 × 8.00 + 5.00 flat
    [10, 9500], // 5 × 10.00 + 5 × 8.00 + 5.00 flat
    [12, 11_500], // ... + 2 × 5.00 + 10.00 flat
  ])('%i units cost %i', (quantity, price) => expect(priceOf(graduated, quantity)).toBe(price));
});

describe('volume tiers: the tier that holds the total quantity prices every unit', () => {
  test.each([
    [0, 0],
    [5, 5000], // 5 × 10.00
    [6, 5300], // 6 × 8.00 + 5.00 flat
    [10, 8500], // 10 × 8.00 + 5.00 flat
    [12, 7000], // 12 × 5.00 + 10.00 flat
  ])('%i units cost %i', (quantity, price) => expect(priceOf(volume, quantity)).toBe(price));
});

test('a single open-ended tier is a per-unit price with a flat fee', () => {
  const plan: PlanPrice = { amount: 0, billing_scheme: 'tiered', tiers_mode: 'graduated', tiers: [{ up_to: null, unit_amount: 200, flat_amount: 1000 }] };
  expect(priceOf(plan, 4)).toBe(1800);
});

test('a fractional or negative quantity is refused', () => {
  expect(() => priceOf(perUnit(100), 1.5)).toThrow(RangeError);
  expect(() => priceOf(perUnit(100), -1)).toThrow(RangeError);
});

test('an invalid plan is refused rather than priced', () => {
  expect(() => priceOf({ ...graduated, tiers: [tiers[1], tiers[0], tiers[2]] }, 3)).toThrow(/greater than/);
});

describe('tierProblem', () => {
  test('valid plans have none', () => {
    expect(tierProblem(perUnit(1500))).toBeNull();
    expect(tierProblem(graduated)).toBeNull();
    expect(tierProblem(volume)).toBeNull();
  });
  test.each<[string, PlanPrice, RegExp]>([
    ['negative amount', perUnit(-1), /amount must be a non-negative integer/],
    ['fractional amount', perUnit(10.5), /amount must be a non-negative integer/],
    ['tiers on a per-unit plan', { ...perUnit(100), tiers }, /only allowed with billing_scheme tiered/],
    ['tiers_mode on a per-unit plan', { ...perUnit(100), tiers_mode: 'volume' }, /tiers_mode is only allowed/],
    ['tiered without tiers', { ...graduated, tiers: null }, /tiers are required/],
    ['tiered with no tiers', { ...graduated, tiers: [] }, /tiers are required/],
    ['tiered without a mode', { ...graduated, tiers_mode: null }, /tiers_mode must be graduated or volume/],
    ['not ascending', { ...graduated, tiers: [tiers[0], { ...tiers[1], up_to: 5 }, tiers[2]] }, /tiers\[1\]\.up_to must be greater/],
    ['last tier bounded', { ...graduated, tiers: [tiers[0], tiers[1]] }, /last tier must have up_to null/],
    ['open tier in the middle', { ...graduated, tiers: [tiers[0], tiers[2], tiers[2]] }, /only the last tier may have up_to null/],
    ['up_to zero', { ...graduated, tiers: [{ ...tiers[0], up_to: 0 }, tiers[2]] }, /up_to must be a positive integer/],
    ['negative unit amount', { ...graduated, tiers: [tiers[0], { ...tiers[1], unit_amount: -5 }, tiers[2]] }, /tiers\[1\]\.unit_amount/],
    ['fractional flat amount', { ...graduated, tiers: [tiers[0], tiers[1], { ...tiers[2], flat_amount: 0.5 }] }, /tiers\[2\]\.flat_amount/],
  ])('%s', (_name, plan, message) => expect(tierProblem(plan)).toMatch(message));
});
