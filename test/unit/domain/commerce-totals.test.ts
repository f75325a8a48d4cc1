import { commerceTotals, DEFAULT_COMMERCE_RATES, settingsOrDefault } from '../../../domain/commerce-totals';

const rates = (taxRateBasisPoints: number, shippingFlat = 0, freeShippingFrom: number | null = null) => ({ taxRateBasisPoints, shippingFlat, freeShippingFrom });

describe('subtotal and tax', () => {
  test('subtotal is the sum of unitPrice × quantity; tax on it at the rate', () => {
    const t = commerceTotals([{ unitPrice: 1000, quantity: 2 }, { unitPrice: 250, quantity: 3 }], rates(1500), false);
    expect(t).toEqual({ subtotal: 2750, tax: 413, shipping: null, total: 3163 }); // 412.5 rounds up
  });

  test.each([
    // [subtotal, bp, tax]: floor((subtotal * bp + 5000) / 10000)
    [5000, 1, 1], // 0.5 exactly: half up
    [4999, 1, 0], // 0.4999
    [15000, 1, 2], // 1.5: up
    [14999, 1, 1], // 1.4999
    [1, 5000, 1], // 0.5 of a minor unit: up
    [1, 4999, 0],
    [3, 5000, 2], // 1.5
    [10, 1500, 2], // 1.5
    [0, 1500, 0],
    [12345, 0, 0],
    [12345, 10000, 12345], // 100 %
  ])('subtotal %i at %i bp: tax %i (half up, integers only)', (subtotal, bp, tax) => {
    const t = commerceTotals([{ unitPrice: subtotal, quantity: 1 }], rates(bp), false);
    expect(t.tax).toBe(tax);
    expect(t.total).toBe(subtotal + tax);
  });

  test('tax is rounded once per cart, not per line', () => {
    // Three lines of 0.5 minor units of tax each: per line that would be 3 (1+1+1); per cart it is 2 (1.5 up).
    const lines = [{ unitPrice: 5000, quantity: 1 }, { unitPrice: 5000, quantity: 1 }, { unitPrice: 5000, quantity: 1 }];
    expect(commerceTotals(lines, rates(1), false).tax).toBe(2);
  });

  test('exact beyond 2^53 in the intermediate product (no floating point)', () => {
    // 99_999_999_999 × 9_999 bp overflows a double's exact range before the division.
    const t = commerceTotals([{ unitPrice: 99_999_999_999, quantity: 1 }], rates(9_999), false);
    expect(t.tax).toBe(Number((99_999_999_999n * 9_999n + 5_000n) / 10_000n));
    expect(t.tax).toBe(99_989_999_999);
  });

  test('a figure beyond the exact integers is refused rather than rounded', () => {
    expect(() => commerceTotals([{ unitPrice: Number.MAX_SAFE_INTEGER, quantity: 2 }], rates(0), false)).toThrow(RangeError);
  });
});

describe('shipping', () => {
  test('null without shipping (a cart): the total is subtotal + tax', () => {
    expect(commerceTotals([{ unitPrice: 1000, quantity: 1 }], rates(1000, 500), false)).toEqual({ subtotal: 1000, tax: 100, shipping: null, total: 1100 });
  });

  test('the flat fee below the threshold, never taxed', () => {
    expect(commerceTotals([{ unitPrice: 1000, quantity: 1 }], rates(1000, 500, 5000), true)).toEqual({ subtotal: 1000, tax: 100, shipping: 500, total: 1600 });
  });

  test('free from the threshold on (the subtotal, before tax), not one unit below', () => {
    expect(commerceTotals([{ unitPrice: 5000, quantity: 1 }], rates(1000, 500, 5000), true).shipping).toBe(0);
    expect(commerceTotals([{ unitPrice: 4999, quantity: 1 }], rates(1000, 500, 5000), true).shipping).toBe(500);
    // tax would lift 4999 above 5000, but the threshold is on the products' subtotal
    expect(commerceTotals([{ unitPrice: 4999, quantity: 1 }], rates(1000, 500, 5000), true).total).toBe(4999 + 500 + 500);
  });

  test('no threshold: always the flat fee', () => {
    expect(commerceTotals([{ unitPrice: 1_000_000, quantity: 9 }], rates(0, 700, null), true).shipping).toBe(700);
  });

  test('an empty cart costs nothing, shipping included', () => {
    expect(commerceTotals([], rates(1500, 500, 10_000), true)).toEqual({ subtotal: 0, tax: 0, shipping: 0, total: 0 });
    expect(commerceTotals([], rates(1500, 500), false)).toEqual({ subtotal: 0, tax: 0, shipping: null, total: 0 });
  });
});

describe('settingsOrDefault', () => {
  test('no settings: no tax, no shipping', () => {
    expect(settingsOrDefault(null)).toEqual({ taxRateBasisPoints: 0, shippingFlat: 0, freeShippingFrom: null });
    expect(settingsOrDefault(null)).toEqual(DEFAULT_COMMERCE_RATES);
  });

  test('the stored numbers', () => {
    const record = { _id: 'ten_eu_x', tax_rate_basis_points: 1400, shipping_flat: 300, free_shipping_from: 20_000, webhook_urls: [], updated_at: new Date() };
    expect(settingsOrDefault(record)).toEqual({ taxRateBasisPoints: 1400, shippingFlat: 300, freeShippingFrom: 20_000 });
  });
});
