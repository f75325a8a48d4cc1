import { parseOrThrow } from '../../../api/http/validate';
import { planCreateBody } from '../../../api/plans/schemas';
import { mergeMetadata, planView } from '../../../api/plans/service';
import { hasAtMostDecimals, taxRateCreateBody } from '../../../api/tax-rates/schemas';
import { couponCreateBody } from '../../../api/coupons/schemas';
import { invoicePreviewBody, subscriptionUpdateBody } from '../../../api/subscriptions/schemas';
import { couponValid } from '../../../api/coupons/service';
import { DomainError } from '../../../domain/errors';
import type { CouponRecord, PlanRecord } from '../../../platform/billing-records';

// The billing catalog's request schemas and views as plain code: the refusals the integration test sees
// over HTTP come from here, with the code and the parameter api/http/validate.ts answers them with.

function refusal(schema: Parameters<typeof parseOrThrow>[0], body: unknown) {
  try {
    parseOrThrow(schema, body, 'body');
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, param: err.param };
    throw err;
  }
  return null;
}

test('decimals are counted as written, not as the binary fraction', () => {
  for (const ok of [19, 8.875, 7.6543, 0.0001, 33.3333, 100]) expect(hasAtMostDecimals(ok, 4)).toBe(true);
  for (const no of [8.87512, 0.00001, 33.33333]) expect(hasAtMostDecimals(no, 4)).toBe(false);
  expect(hasAtMostDecimals(12.34, 2)).toBe(true);
  expect(hasAtMostDecimals(0.29, 2)).toBe(true); // 0.29 * 100 is 28.999999999999996
  expect(hasAtMostDecimals(12.345, 2)).toBe(false);
  expect(refusal(taxRateCreateBody, { percentage: 0.29, inclusive: true, display_name: 'x' })).toBeNull();
  expect(refusal(couponCreateBody, { percent_off: 0.29, duration: 'once' })).toBeNull();
});

test('a tier problem names the tier and field it is about', () => {
  const tiered = { currency: 'EUR', interval: 'month', billing_scheme: 'tiered', tiers_mode: 'graduated' };
  expect(refusal(planCreateBody, { ...tiered, tiers: [{ up_to: 5, unit_amount: 1 }, { up_to: 5, unit_amount: 1 }, { up_to: 'inf', unit_amount: 1 }] })).toEqual({ code: 'parameter_invalid', param: 'tiers[1][up_to]' });
  expect(refusal(planCreateBody, { ...tiered, tiers: [{ up_to: 'inf', unit_amount: 1 }, { up_to: 'inf', unit_amount: 1 }] })).toEqual({ code: 'parameter_invalid', param: 'tiers[0]' });
  expect(refusal(planCreateBody, { ...tiered, tiers: [{ up_to: 0, unit_amount: 1 }, { up_to: 'inf', unit_amount: 1 }] })).toEqual({ code: 'parameter_invalid', param: 'tiers[0][up_to]' });
  expect(refusal(planCreateBody, { ...tiered, tiers: [{ up_to: 'inf', flat_amount: 100 }] })).toBeNull();
  expect(refusal(planCreateBody, { ...tiered, tiers: [{ up_to: 'inf', unit_amount: 1 }], amount: 0 })).toBeNull();
});

test('a year is the longest interval, however it is counted', () => {
  const plan = { amount: 100, currency: 'eur' };
  for (const [interval, max] of [['day', 365], ['week', 52], ['month', 12], ['year', 1]] as const) {
    expect(refusal(planCreateBody, { ...plan, interval, interval_count: max })).toBeNull();
    expect(refusal(planCreateBody, { ...plan, interval, interval_count: max + 1 })).toEqual({ code: 'parameter_invalid', param: 'interval_count' });
  }
});

test('metadata updates merge; an empty value removes a key; at most 50 keys after', () => {
  expect(mergeMetadata({ a: '1', b: '2' }, { b: '', c: '3' })).toEqual({ a: '1', c: '3' });
  const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
  expect(() => mergeMetadata(full, { extra: 'v' })).toThrow(DomainError);
  expect(Object.keys(mergeMetadata(full, { k0: '', extra: 'v' }))).toHaveLength(50);
  // Keys are data: a key named like a prototype property is an ordinary key.
  expect(mergeMetadata({}, { constructor: 'x' })).toEqual({ constructor: 'x' });
});

test('views: a tiered plan shows no amount; a coupon is invalid once past redeem_by, at its limit, or deleted', () => {
  const now = Date.parse('2026-07-10T10:00:00Z');
  const created = new Date(now - 1000);
  const plan: PlanRecord = {
    _id: 'plan_eu_1',
    tenant_id: 't',
    amount: 0,
    currency: 'EUR',
    interval: 'month',
    interval_count: 1,
    trial_period_days: null,
    nickname: null,
    billing_scheme: 'tiered',
    tiers_mode: 'volume',
    tiers: [{ up_to: null, unit_amount: 5, flat_amount: 0 }],
    active: true,
    metadata: {},
    idempotency_scope: 'x',
    created_at: created,
    updated_at: created,
  };
  expect(planView(plan)).toMatchObject({ amount: null, tiers: [{ up_to: null, unit_amount: 5, flat_amount: 0 }], created: Math.floor(created.getTime() / 1000) });
  const coupon: CouponRecord = {
    _id: 'coupon_eu_1',
    tenant_id: 't',
    name: null,
    metadata: {},
    deleted_at: null,
    percent_off: 10,
    amount_off: null,
    currency: null,
    duration: 'once',
    duration_in_months: null,
    max_redemptions: 2,
    redeem_by: new Date(now + 1000),
    times_redeemed: 1,
    idempotency_scope: 'x',
    created_at: created,
    version: 1,
  };
  expect(couponValid(coupon, now)).toBe(true);
  expect(couponValid({ ...coupon, times_redeemed: 2 }, now)).toBe(false);
  expect(couponValid(coupon, now + 1000)).toBe(false);
  expect(couponValid({ ...coupon, deleted_at: new Date(now) } as CouponRecord, now)).toBe(false);
});

test('a pause resuming, or a proration date, past the last second of year 9999 is a 400 naming it (a date beyond failed the preview with a 500)', () => {
  const refusal = (schema: Parameters<typeof parseOrThrow>[0], body: unknown) => {
    try {
      parseOrThrow(schema, body, 'body');
    } catch (err) {
      return err as DomainError;
    }
    throw new Error('accepted');
  };
  expect(refusal(subscriptionUpdateBody, { pause_collection: { behavior: 'void', resumes_at: 1e15 } })).toMatchObject({ code: 'parameter_invalid', param: 'pause_collection[resumes_at]' });
  expect(subscriptionUpdateBody.safeParse({ pause_collection: { behavior: 'void', resumes_at: 253_402_300_799 } }).success).toBe(true);
  expect(refusal(invoicePreviewBody, { subscription: 'sub_eu_4Z2QOXaJpRuUdaV6zj7MU0', proration_date: 8_640_000_000_001 })).toMatchObject({ code: 'parameter_invalid', param: 'proration_date' });
});
