import { allocateLargestRemainder, computeInvoice, type DraftLine, type TaxRateInput } from '../../../domain/billing/invoice-math';
import { divRoundHalfUp } from '../../../domain/billing/rounding';

const line = (key: string, amount: number, taxRates: TaxRateInput[] = [], discountable = true): DraftLine => ({ key, amount, taxRates, discountable });
const vat20: TaxRateInput = { id: 'txr_vat20', percentage: 20, inclusive: true };
const nyc: TaxRateInput = { id: 'txr_nyc', percentage: 8.875, inclusive: false };
const five: TaxRateInput = { id: 'txr_5', percentage: 5, inclusive: false };

describe('divRoundHalfUp', () => {
  test.each([
    [7, 2, 4],
    [-7, 2, -4],
    [5, 3, 2],
    [-5, 3, -2],
    [4, 3, 1],
    [1, 2, 1],
    [-1, 2, -1],
    [1, 3, 0],
    [0, 5, 0],
  ])('%i / %i is %i', (n, d, q) => expect(divRoundHalfUp(n, d)).toBe(q));
  test('BigInt numerators past 2^53 divide exactly', () => {
    expect(divRoundHalfUp(2n ** 60n + 1n, 2n ** 10n)).toBe(2 ** 50 + 0);
    expect(divRoundHalfUp(2n ** 60n + 2n ** 9n, 2n ** 10n)).toBe(2 ** 50 + 1);
  });
  test('a denominator of 0 or a result past 2^53 is refused', () => {
    expect(() => divRoundHalfUp(1, 0)).toThrow(RangeError);
    expect(() => divRoundHalfUp(2n ** 60n, 1)).toThrow(RangeError);
    expect(() => divRoundHalfUp(0.5, 1)).toThrow(RangeError);
  });
});

describe('discounts', () => {
  test('a percent discount is allocated by largest remainder: 10% of 333 + 333 + 334 is 33 + 33 + 34', () => {
    const inv = computeInvoice([line('a', 333), line('b', 333), line('c', 334)], { percentOff: 10, amountOff: null }, 0);
    expect(inv.lines.map((l) => l.discountAmount)).toEqual([33, 33, 34]);
    expect(inv).toMatchObject({ subtotal: 1000, discount: 100, total: 900, amountDue: 900 });
  });

  test('the percent of the base rounds half up: 10% of 1005 is 101; 12.5% of 1004 is 126', () => {
    expect(computeInvoice([line('a', 1005)], { percentOff: 10, amountOff: null }, 0).discount).toBe(101);
    expect(computeInvoice([line('a', 1004)], { percentOff: 12.5, amountOff: null }, 0).discount).toBe(126);
    expect(computeInvoice([line('a', 1000)], { percentOff: 12.5, amountOff: null }, 0).discount).toBe(125);
  });

  test('an amount off is split in proportion: 1000 over 1000 + 2000 is 333 + 667', () => {
    const inv = computeInvoice([line('a', 1000), line('b', 2000)], { percentOff: null, amountOff: 1000 }, 0);
    expect(inv.lines.map((l) => l.discountAmount)).toEqual([333, 667]);
    expect(inv).toMatchObject({ discount: 1000, total: 2000 });
  });

  test('equal remainders go to the earlier line: 100 over three lines of 100 is 34 + 33 + 33', () => {
    const inv = computeInvoice([line('a', 100), line('b', 100), line('c', 100)], { percentOff: null, amountOff: 100 }, 0);
    expect(inv.lines.map((l) => l.discountAmount)).toEqual([34, 33, 33]);
  });

  test('an amount off larger than the base is capped at it; no line is discounted below zero', () => {
    const inv = computeInvoice([line('a', 700), line('b', 500)], { percentOff: null, amountOff: 5000 }, 0);
    expect(inv.lines.map((l) => l.discountAmount)).toEqual([700, 500]);
    expect(inv).toMatchObject({ discount: 1200, total: 0, amountDue: 0, creditGenerated: 0 });
  });

  test('the discount base is the net of the discountable lines (credits lower it); only positive lines carry it', () => {
    const inv = computeInvoice([line('a', 1000), line('credit', -200), line('fee', 500, [], false)], { percentOff: 50, amountOff: null }, 0);
    expect(inv.lines.map((l) => l.discountAmount)).toEqual([400, 0, 0]);
    expect(inv).toMatchObject({ subtotal: 1300, discount: 400, total: 900 });
  });

  test('a discount never exceeds the net: a downgrade credit does not turn a coupon into customer credit', () => {
    // 50% forever after a downgrade from 2000 to 1000: the renewal 1000, unused −1000, remaining +500.
    const half = computeInvoice([line('renewal', 1000), line('unused', -1000), line('remaining', 500)], { percentOff: 50, amountOff: null }, 0);
    expect(half).toMatchObject({ subtotal: 500, discount: 250, total: 250, creditGenerated: 0 });
    const off = computeInvoice([line('renewal', 1000), line('unused', -1500)], { percentOff: null, amountOff: 1000 }, 0);
    expect(off).toMatchObject({ subtotal: -500, discount: 0, total: -500, creditGenerated: 500 });
  });

  test('line discounts always add up to the discount and never exceed their line', () => {
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (let k = 0; k < 200; k += 1) {
      const lines = Array.from({ length: 1 + (next() % 6) }, (_, i) => line(`l${i}`, (next() % 5000) - 500, [], next() % 4 !== 0));
      const discount = k % 2 === 0 ? { percentOff: (next() % 10_001) / 100, amountOff: null } : { percentOff: null, amountOff: next() % 20_000 };
      const inv = computeInvoice(lines, discount, 0);
      expect(inv.lines.reduce((a, l) => a + l.discountAmount, 0)).toBe(inv.discount);
      for (const l of inv.lines) {
        expect(l.discountAmount).toBeGreaterThanOrEqual(0);
        expect(l.discountAmount).toBeLessThanOrEqual(Math.max(0, l.amount));
      }
    }
  });

  test('a discount with both percentOff and amountOff is refused', () => {
    expect(() => computeInvoice([line('a', 100)], { percentOff: 10, amountOff: 10 }, 0)).toThrow(RangeError);
  });

  test('allocateLargestRemainder splits exactly', () => {
    expect(allocateLargestRemainder(10n, [1n, 1n, 1n])).toEqual([4n, 3n, 3n]);
    expect(allocateLargestRemainder(0n, [5n, 7n])).toEqual([0n, 0n]);
  });
});

describe('taxes', () => {
  test('inclusive 20% on 1200 is 200 of tax inside the amount; the total is unchanged', () => {
    const inv = computeInvoice([line('a', 1200, [vat20])], null, 0);
    expect(inv.lines[0].taxAmounts).toEqual([{ taxRate: 'txr_vat20', amount: 200, inclusive: true }]);
    expect(inv).toMatchObject({ subtotal: 1200, tax: 200, total: 1200, amountDue: 1200 });
  });

  test('inclusive 7.5% on 1000: the net 930.23 rounds to 930, so the tax is 70', () => {
    expect(computeInvoice([line('a', 1000, [{ id: 't', percentage: 7.5, inclusive: true }])], null, 0).tax).toBe(70);
  });

  test('exclusive 8.875% rounds half away from zero: 400 -> 35.5 -> 36, 1000 -> 88.75 -> 89, -400 -> -36', () => {
    expect(computeInvoice([line('a', 400, [nyc])], null, 0)).toMatchObject({ tax: 36, total: 436 });
    expect(computeInvoice([line('a', 1000, [nyc])], null, 0)).toMatchObject({ tax: 89, total: 1089 });
    expect(computeInvoice([line('a', -400, [nyc])], null, 0)).toMatchObject({ tax: -36, total: -436 });
  });

  test('several rates on one line are each computed on the same taxable amount (no compounding)', () => {
    const inv = computeInvoice([line('a', 10_000, [nyc, five])], null, 0);
    expect(inv.lines[0].taxAmounts.map((t) => t.amount)).toEqual([888, 500]); // 887.5 -> 888; 5% of 10 000, not of 10 888
    expect(inv).toMatchObject({ tax: 1388, total: 11_388 });
  });

  test('two inclusive rates take the net out once: two 10% in 12 000 are 1 000 each (net 10 000), not 1 091 each', () => {
    const ten = (id: string): TaxRateInput => ({ id, percentage: 10, inclusive: true });
    const inv = computeInvoice([line('a', 12_000, [ten('a'), ten('b')])], null, 0);
    expect(inv.lines[0].taxAmounts.map((t) => t.amount)).toEqual([1000, 1000]);
    expect(inv).toMatchObject({ tax: 2000, total: 12_000 });
    // Unequal rates, a share with a remainder, and a credit line: the split adds up to the tax inside exactly.
    const mixed = computeInvoice([line('a', 1001, [{ id: 'x', percentage: 7, inclusive: true }, { id: 'y', percentage: 13, inclusive: true }])], null, 0);
    expect(mixed.lines[0].taxAmounts.map((t) => t.amount)).toEqual([58, 109]); // net 834.17 -> 834; 167 split 7:13 = 58.45 / 108.55
    expect(computeInvoice([line('a', -12_000, [ten('a'), ten('b')])], null, 0).lines[0].taxAmounts.map((t) => t.amount)).toEqual([-1000, -1000]);
  });

  test('inclusive and exclusive together: both count as tax, only the exclusive one adds to the total', () => {
    const inv = computeInvoice([line('a', 1200, [vat20, five])], null, 0);
    expect(inv.lines[0].taxAmounts).toEqual([
      { taxRate: 'txr_vat20', amount: 200, inclusive: true },
      { taxRate: 'txr_5', amount: 60, inclusive: false },
    ]);
    expect(inv).toMatchObject({ subtotal: 1200, tax: 260, total: 1260 });
  });

  test('tax is on the amount after its discount', () => {
    const inv = computeInvoice([line('a', 1200, [vat20]), line('b', 1000, [nyc])], { percentOff: 50, amountOff: null }, 0);
    expect(inv.lines.map((l) => [l.discountAmount, l.taxAmounts[0].amount])).toEqual([
      [600, 100], // 600 inclusive of 20%: 500 net + 100 tax
      [500, 44], // 8.875% of 500 = 44.375
    ]);
    expect(inv).toMatchObject({ subtotal: 2200, discount: 1100, tax: 144, total: 1144 });
  });

  test('a percentage with more than 4 decimals is refused', () => {
    expect(() => computeInvoice([line('a', 100, [{ id: 't', percentage: 8.87501, inclusive: false }])], null, 0)).toThrow(RangeError);
  });
});

describe('credit balance and totals', () => {
  const lines = [line('a', 5000)];

  test('a credit smaller than the total is used whole; the rest is due', () => {
    expect(computeInvoice(lines, null, 1200)).toMatchObject({ total: 5000, appliedBalance: 1200, amountDue: 3800, creditGenerated: 0 });
  });

  test('a credit larger than the total pays it all; the rest stays on the balance', () => {
    expect(computeInvoice(lines, null, 8000)).toMatchObject({ total: 5000, appliedBalance: 5000, amountDue: 0, creditGenerated: 0 });
  });

  test('a negative total (a downgrade credit) uses no balance and generates credit', () => {
    expect(computeInvoice([line('a', 1000), line('unused', -3000)], null, 500)).toEqual({
      lines: [
        { key: 'a', amount: 1000, discountAmount: 0, taxAmounts: [] },
        { key: 'unused', amount: -3000, discountAmount: 0, taxAmounts: [] },
      ],
      subtotal: -2000,
      discount: 0,
      tax: 0,
      total: -2000,
      appliedBalance: 0,
      amountDue: 0,
      creditGenerated: 2000,
    });
  });

  test('an empty invoice is all zeros', () => {
    expect(computeInvoice([], { percentOff: 20, amountOff: null }, 100)).toMatchObject({
      subtotal: 0, discount: 0, tax: 0, total: 0, appliedBalance: 0, amountDue: 0, creditGenerated: 0,
    });
  });

  test('a negative credit balance is refused', () => {
    expect(() => computeInvoice(lines, null, -1)).toThrow(RangeError);
  });
});
