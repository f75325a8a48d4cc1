import type { Client } from '@temporalio/client';
import { redeemDiscount, releaseRedeemed } from '../../api/coupons/redeem';
import type { AppDeps } from '../../api/deps';
import { DomainError } from '../../domain/errors';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { api, apiDeps, createMerchant, getStack, temporalClient, type Merchant } from './harness';

// The billing catalog on the real stack: plans, tax rates, coupons and promotion codes through the API, and
// redemptions counted by each coupon's workflow, called the way the subscriptions code calls them
// (redeemDiscount / releaseRedeemed with deps built from the stack).

let m: Merchant;
let other: Merchant;
let deps: AppDeps;
let db: Mongo;
let temporal: Client;

beforeAll(async () => {
  [m, other] = await Promise.all([createMerchant(), createMerchant()]);
  db = await connectMongo(getStack().mongoUri);
  temporal = await temporalClient();
  deps = apiDeps(db, temporal);
});

afterAll(async () => {
  await db?.close();
  await temporal?.connection.close();
});

const V = '/v202607';
let k = 0;
const key = (what: string) => `${what}-${Date.now()}-${++k}`;

/** The error a refused request answers with: status, code and param. */
async function refusal(path: string, body: unknown, secretKey = m.secretKey) {
  const r = await api.post(path, body, secretKey);
  return { status: r.status, code: r.body?.error?.code, param: r.body?.error?.param };
}

/** The DomainError a call throws: kind, code and param. */
async function thrown(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return { kind: err.kind, code: err.code, param: err.param };
}

const monthly = { amount: 4900, currency: 'eur', interval: 'month' };

describe('plans', () => {
  test('create answers the plan view; the same idempotency_key answers the same plan (200)', async () => {
    const idempotency_key = key('plan');
    const a = await api.post(`${V}/plans`, { ...monthly, trial_period_days: 14, nickname: 'Club', metadata: { roast: 'dark' }, idempotency_key }, m.secretKey);
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      plan: expect.stringMatching(/^plan_eu_/),
      object: 'plan',
      active: true,
      amount: 4900,
      currency: 'EUR',
      interval: 'month',
      interval_count: 1,
      trial_period_days: 14,
      nickname: 'Club',
      billing_scheme: 'per_unit',
      tiers_mode: null,
      tiers: null,
      metadata: { roast: 'dark' },
      created: expect.any(Number),
      resource_created: true,
    });
    expect(Math.abs(a.body.created - Date.now() / 1000)).toBeLessThan(60);
    const b = await api.post(`${V}/plans`, { ...monthly, trial_period_days: 14, nickname: 'Club', metadata: { roast: 'dark' }, idempotency_key }, m.secretKey);
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ ...a.body, resource_created: false });
    // Concurrent creates with one key: one plan.
    const k2 = key('plan-race');
    const race = await Promise.all(Array.from({ length: 5 }, () => api.post(`${V}/plans`, { ...monthly, idempotency_key: k2 }, m.secretKey)));
    expect(new Set(race.map((r) => r.body.plan)).size).toBe(1);
    expect(race.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
  });

  test('the same idempotency_key with other parameters is a 400 idempotency_key_in_use; the same parameters (in any order or case) answer the plan', async () => {
    const idempotency_key = key('plan-reused');
    const a = await api.post(`${V}/plans`, { amount: 1000, currency: 'eur', interval: 'month', metadata: { tier: 'a', roast: 'dark' }, idempotency_key }, m.secretKey);
    expect(a.status).toBe(201);
    const inUse = { status: 400, code: 'idempotency_key_in_use', param: 'idempotency_key' };
    expect(await refusal(`${V}/plans`, { amount: 2000, currency: 'eur', interval: 'year', idempotency_key })).toEqual(inUse);
    expect(await refusal(`${V}/plans`, { amount: 1000, currency: 'eur', interval: 'month', idempotency_key })).toEqual(inUse);
    expect(await refusal(`${V}/plans`, { amount: 1000, currency: 'eur', interval: 'month', metadata: { tier: 'b', roast: 'dark' }, idempotency_key })).toEqual(inUse);
    // The plan's nickname may change since: the request is what a repeat is held to, and the plan answered as it is now.
    await api.post(`${V}/plans/${a.body.plan}`, { nickname: 'Renamed' }, m.secretKey);
    const again = await api.post(`${V}/plans`, { metadata: { roast: 'dark', tier: 'a' }, interval: 'month', interval_count: 1, currency: 'EUR', amount: 1000, idempotency_key }, m.secretKey);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...a.body, nickname: 'Renamed', resource_created: false });
  });

  test('concurrent creates with one key and different bodies: one plan is made, the others are refused', async () => {
    const idempotency_key = key('plan-race-bodies');
    const race = await Promise.all([1000, 2000, 3000, 4000, 5000].map((amount) => api.post(`${V}/plans`, { ...monthly, amount, idempotency_key }, m.secretKey)));
    expect(race.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400]);
    expect(race.filter((r) => r.status === 400).map((r) => r.body.error.code)).toEqual(Array(4).fill('idempotency_key_in_use'));
    const made = race.find((r) => r.status === 201)!.body;
    expect((await api.get(`${V}/plans/${made.plan}`, m.secretKey)).body).toMatchObject({ plan: made.plan, amount: made.amount });
  });

  test('a plan made before its request was kept still answers its key, whatever the request', async () => {
    const idempotency_key = key('plan-legacy');
    const a = await api.post(`${V}/plans`, { ...monthly, idempotency_key }, m.secretKey);
    await db.c.plans.updateOne({ _id: a.body.plan }, { $unset: { create_fingerprint: '' } });
    const b = await api.post(`${V}/plans`, { ...monthly, amount: 9900, idempotency_key }, m.secretKey);
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ ...a.body, resource_created: false });
  });

  test('a tiered plan: tiers priced by quantity, the last one `inf` (answered as null), no amount', async () => {
    const r = await api.post(
      `${V}/plans`,
      { currency: 'EUR', interval: 'year', billing_scheme: 'tiered', tiers_mode: 'volume', tiers: [{ up_to: 10, unit_amount: 2500 }, { up_to: 'inf', unit_amount: 2000, flat_amount: 500 }] },
      m.secretKey,
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      amount: null,
      billing_scheme: 'tiered',
      tiers_mode: 'volume',
      tiers: [
        { up_to: 10, unit_amount: 2500, flat_amount: 0 },
        { up_to: null, unit_amount: 2000, flat_amount: 500 },
      ],
    });
  });

  test.each([
    ['amount missing for per_unit', { currency: 'EUR', interval: 'month' }, 'parameter_missing', 'amount'],
    ['more than a year of months', { ...monthly, interval_count: 13 }, 'parameter_invalid', 'interval_count'],
    ['more than a year of days', { ...monthly, interval: 'day', interval_count: 366 }, 'parameter_invalid', 'interval_count'],
    ['two years', { ...monthly, interval: 'year', interval_count: 2 }, 'parameter_invalid', 'interval_count'],
    ['an unknown interval', { ...monthly, interval: 'decade' }, 'parameter_invalid', 'interval'],
    ['a long trial', { ...monthly, trial_period_days: 731 }, 'parameter_invalid', 'trial_period_days'],
    ['a fractional amount', { ...monthly, amount: 10.5 }, 'parameter_invalid', 'amount'],
    ['a made-up currency', { ...monthly, currency: 'EURO' }, 'parameter_invalid', 'currency'],
    ['tiers on a per_unit plan', { ...monthly, tiers: [{ up_to: 'inf', unit_amount: 1 }] }, 'parameter_invalid', 'tiers'],
    ['tiered without tiers', { currency: 'EUR', interval: 'month', billing_scheme: 'tiered', tiers_mode: 'graduated' }, 'parameter_missing', 'tiers'],
    ['tiered without tiers_mode', { currency: 'EUR', interval: 'month', billing_scheme: 'tiered', tiers: [{ up_to: 'inf', unit_amount: 1 }] }, 'parameter_missing', 'tiers_mode'],
    ['tiered with an amount', { ...monthly, billing_scheme: 'tiered', tiers_mode: 'volume', tiers: [{ up_to: 'inf', unit_amount: 1 }] }, 'parameter_invalid', 'amount'],
    [
      'tiers not ascending',
      { currency: 'EUR', interval: 'month', billing_scheme: 'tiered', tiers_mode: 'graduated', tiers: [{ up_to: 10, unit_amount: 5 }, { up_to: 5, unit_amount: 4 }, { up_to: 'inf', unit_amount: 3 }] },
      'parameter_invalid',
      'tiers[1][up_to]',
    ],
    ['a bounded last tier', { currency: 'EUR', interval: 'month', billing_scheme: 'tiered', tiers_mode: 'graduated', tiers: [{ up_to: 10, unit_amount: 5 }] }, 'parameter_invalid', 'tiers'],
    ['a tier without amounts', { currency: 'EUR', interval: 'month', billing_scheme: 'tiered', tiers_mode: 'graduated', tiers: [{ up_to: 'inf' }] }, 'parameter_missing', 'tiers[0][unit_amount]'],
    ['an unknown parameter', { ...monthly, product: 'coffee' }, 'parameter_unknown', 'product'],
  ])('refused: %s', async (_name, body, code, param) => {
    expect(await refusal(`${V}/plans`, body)).toEqual({ status: 400, code, param });
  });

  test('retrieve, update nickname and metadata (merged; an empty value removes a key), archive (idempotent), list with filters', async () => {
    const { resource_created: _created, ...p } = (await api.post(`${V}/plans`, { ...monthly, currency: 'SAR', metadata: { a: '1', b: '2' } }, m.secretKey)).body;
    expect((await api.get(`${V}/plans/${p.plan}`, m.secretKey)).body).toEqual(p);
    const u = await api.post(`${V}/plans/${p.plan}`, { nickname: 'Gold', metadata: { b: '', c: '3' } }, m.secretKey);
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ nickname: 'Gold', metadata: { a: '1', c: '3' }, amount: 4900 });
    expect((await api.post(`${V}/plans/${p.plan}`, { nickname: null }, m.secretKey)).body.nickname).toBeNull();
    // Prices are immutable.
    expect(await refusal(`${V}/plans/${p.plan}`, { amount: 100 })).toEqual({ status: 400, code: 'parameter_unknown', param: 'amount' });

    const archived = await api.post(`${V}/plans/${p.plan}/archive`, {}, m.secretKey);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ plan: p.plan, active: false });
    expect((await api.post(`${V}/plans/${p.plan}/archive`, {}, m.secretKey)).body).toMatchObject({ active: false });

    const inactive = await api.get(`${V}/plans?active=false&currency=sar`, m.secretKey);
    expect(inactive.status).toBe(200);
    expect(inactive.body.data.map((x: { plan: string }) => x.plan)).toEqual([p.plan]);
    const active = await api.get(`${V}/plans?active=true`, m.secretKey);
    expect(active.body.data.every((x: { active: boolean }) => x.active)).toBe(true);
    expect(active.body.data.map((x: { plan: string }) => x.plan)).not.toContain(p.plan);
    // A cursor list: one by one, newest first.
    const first = await api.get(`${V}/plans?limit=1`, m.secretKey);
    expect(first.body).toMatchObject({ data: [expect.anything()], has_more: true });
    const second = await api.get(`${V}/plans?limit=1&starting_after=${first.body.data[0].plan}`, m.secretKey);
    expect(second.body.data[0].plan).not.toBe(first.body.data[0].plan);
    expect((await api.get(`${V}/plans?active=maybe`, m.secretKey)).body.error).toMatchObject({ code: 'parameter_invalid', param: 'active' });
  });

  test("another tenant's plan is a 404 everywhere, and not a cursor", async () => {
    const p = (await api.post(`${V}/plans`, monthly, other.secretKey)).body;
    for (const r of [
      await api.get(`${V}/plans/${p.plan}`, m.secretKey),
      await api.post(`${V}/plans/${p.plan}`, { nickname: 'x' }, m.secretKey),
      await api.post(`${V}/plans/${p.plan}/archive`, {}, m.secretKey),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'plan' });
    }
    expect((await api.get(`${V}/plans?starting_after=${p.plan}`, m.secretKey)).body.error).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
    expect((await api.get(`${V}/plans/${p.plan}`, other.secretKey)).body.active).toBe(true);
    // v202608 serves the same routes.
    expect((await api.get(`/v202608/plans/${p.plan}`, other.secretKey)).status).toBe(200);
  });
});

describe('tax rates', () => {
  test('create, idempotent create, retrieve, update, list with filters, tenant isolation', async () => {
    const idempotency_key = key('txr');
    const a = await api.post(`${V}/tax-rates`, { percentage: 8.875, inclusive: false, display_name: 'Sales tax', jurisdiction: 'NY', description: 'NYC', idempotency_key }, m.secretKey);
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      tax_rate: expect.stringMatching(/^txr_eu_/),
      object: 'tax_rate',
      active: true,
      percentage: 8.875,
      inclusive: false,
      display_name: 'Sales tax',
      jurisdiction: 'NY',
      description: 'NYC',
      created: expect.any(Number),
      resource_created: true,
    });
    const again = await api.post(`${V}/tax-rates`, { percentage: 8.875, inclusive: false, display_name: 'Sales tax', jurisdiction: 'NY', description: 'NYC', idempotency_key }, m.secretKey);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...a.body, resource_created: false });
    const vat = (await api.post(`${V}/tax-rates`, { percentage: 19, inclusive: true, display_name: 'VAT' }, m.secretKey)).body;

    const u = await api.post(`${V}/tax-rates/${a.body.tax_rate}`, { display_name: 'NY sales tax', jurisdiction: null, active: false }, m.secretKey);
    expect(u.body).toMatchObject({ display_name: 'NY sales tax', jurisdiction: null, active: false, percentage: 8.875 });
    expect((await api.get(`${V}/tax-rates/${a.body.tax_rate}`, m.secretKey)).body).toMatchObject({ active: false, description: 'NYC' });
    expect(await refusal(`${V}/tax-rates/${a.body.tax_rate}`, { percentage: 20 })).toEqual({ status: 400, code: 'parameter_unknown', param: 'percentage' });

    const ids = async (q: string) => (await api.get(`${V}/tax-rates?${q}`, m.secretKey)).body.data.map((x: { tax_rate: string }) => x.tax_rate);
    expect(await ids('inclusive=true')).toContain(vat.tax_rate);
    expect(await ids('inclusive=true')).not.toContain(a.body.tax_rate);
    expect(await ids('active=false&inclusive=false')).toEqual([a.body.tax_rate]);
    expect(await ids('active=true')).not.toContain(a.body.tax_rate);

    expect((await api.get(`${V}/tax-rates/${vat.tax_rate}`, other.secretKey)).status).toBe(404);
    expect((await api.post(`${V}/tax-rates/${vat.tax_rate}`, { active: false }, other.secretKey)).status).toBe(404);
  });

  test('the same idempotency_key with other parameters is a 400 idempotency_key_in_use; the same ones answer the tax rate', async () => {
    const idempotency_key = key('txr-reused');
    const a = await api.post(`${V}/tax-rates`, { percentage: 20, inclusive: false, display_name: 'VAT', idempotency_key }, m.secretKey);
    expect(a.status).toBe(201);
    const inUse = { status: 400, code: 'idempotency_key_in_use', param: 'idempotency_key' };
    expect(await refusal(`${V}/tax-rates`, { percentage: 5, inclusive: true, display_name: 'GST', idempotency_key })).toEqual(inUse);
    expect(await refusal(`${V}/tax-rates`, { percentage: 20, inclusive: false, display_name: 'VAT', description: 'Another', idempotency_key })).toEqual(inUse);
    // Retired and renamed since: the same request still answers it, as it is now.
    await api.post(`${V}/tax-rates/${a.body.tax_rate}`, { display_name: 'UK VAT', active: false }, m.secretKey);
    const again = await api.post(`${V}/tax-rates`, { percentage: 20, inclusive: false, display_name: 'VAT', idempotency_key }, m.secretKey);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...a.body, display_name: 'UK VAT', active: false, resource_created: false });
  });

  test.each([
    ['zero', { percentage: 0, inclusive: true, display_name: 'VAT' }, 'parameter_invalid', 'percentage'],
    ['above 100', { percentage: 100.5, inclusive: true, display_name: 'VAT' }, 'parameter_invalid', 'percentage'],
    ['five decimals', { percentage: 8.87512, inclusive: true, display_name: 'VAT' }, 'parameter_invalid', 'percentage'],
    ['inclusive missing', { percentage: 19, display_name: 'VAT' }, 'parameter_missing', 'inclusive'],
    ['display_name missing', { percentage: 19, inclusive: true }, 'parameter_missing', 'display_name'],
    ['display_name empty', { percentage: 19, inclusive: true, display_name: ' ' }, 'parameter_invalid', 'display_name'],
  ])('refused: %s', async (_name, body, code, param) => {
    expect(await refusal(`${V}/tax-rates`, body)).toEqual({ status: 400, code, param });
  });
});

describe('coupons', () => {
  test('create (percent or amount off), idempotent create, retrieve, list, delete', async () => {
    const idempotency_key = key('coupon');
    const a = await api.post(`${V}/coupons`, { percent_off: 12.5, duration: 'repeating', duration_in_months: 3, name: 'Launch', metadata: { c: 'x' }, idempotency_key }, m.secretKey);
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      coupon: expect.stringMatching(/^coupon_eu_/),
      object: 'coupon',
      name: 'Launch',
      percent_off: 12.5,
      amount_off: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: null,
      redeem_by: null,
      times_redeemed: 0,
      valid: true,
      metadata: { c: 'x' },
      created: expect.any(Number),
      resource_created: true,
    });
    const again = await api.post(`${V}/coupons`, { percent_off: 12.5, duration: 'repeating', duration_in_months: 3, name: 'Launch', metadata: { c: 'x' }, idempotency_key }, m.secretKey);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...a.body, resource_created: false });
    const redeemBy = Math.floor(Date.now() / 1000) + 86_400;
    const b = await api.post(`${V}/coupons`, { amount_off: 500, currency: 'eur', duration: 'once', max_redemptions: 10, redeem_by: redeemBy }, m.secretKey);
    expect(b.body).toMatchObject({ amount_off: 500, currency: 'EUR', percent_off: null, duration: 'once', duration_in_months: null, max_redemptions: 10, redeem_by: redeemBy, valid: true });

    expect((await api.get(`${V}/coupons/${b.body.coupon}`, m.secretKey)).body).toMatchObject({ coupon: b.body.coupon, times_redeemed: 0 });
    const listed = async () => (await api.get(`${V}/coupons?limit=100`, m.secretKey)).body.data.map((x: { coupon: string }) => x.coupon);
    expect(await listed()).toEqual(expect.arrayContaining([a.body.coupon, b.body.coupon]));

    expect((await api.del(`${V}/coupons/${b.body.coupon}`, other.secretKey)).status).toBe(404);
    const del = await api.del(`${V}/coupons/${b.body.coupon}`, m.secretKey);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ coupon: b.body.coupon, object: 'coupon', deleted: true });
    expect((await api.get(`${V}/coupons/${b.body.coupon}`, m.secretKey)).status).toBe(404);
    expect((await api.del(`${V}/coupons/${b.body.coupon}`, m.secretKey)).status).toBe(404);
    expect(await listed()).not.toContain(b.body.coupon);
    // Unknown to new redemptions and new promotion codes.
    expect(await refusal(`${V}/promotion-codes`, { coupon: b.body.coupon, code: key('GONE') })).toEqual({ status: 400, code: 'resource_missing', param: 'coupon' });
    expect(await thrown(redeemDiscount(deps, m.tenant, { coupon: b.body.coupon, subscription: 'sub_eu_gone', currency: 'EUR' }))).toEqual({
      kind: 'invalid_request',
      code: 'resource_missing',
      param: 'coupon',
    });
    // And another tenant never sees it.
    expect((await api.get(`${V}/coupons/${a.body.coupon}`, other.secretKey)).status).toBe(404);
  });

  test('the same idempotency_key with other parameters is a 400 idempotency_key_in_use; the same ones answer the coupon', async () => {
    const idempotency_key = key('coupon-reused');
    const a = await api.post(`${V}/coupons`, { percent_off: 10, duration: 'once', metadata: { campaign: 'spring' }, idempotency_key }, m.secretKey);
    expect(a.status).toBe(201);
    const inUse = { status: 400, code: 'idempotency_key_in_use', param: 'idempotency_key' };
    expect(await refusal(`${V}/coupons`, { percent_off: 90, duration: 'forever', idempotency_key })).toEqual(inUse);
    expect(await refusal(`${V}/coupons`, { percent_off: 10, duration: 'once', metadata: { campaign: 'autumn' }, idempotency_key })).toEqual(inUse);
    const again = await api.post(`${V}/coupons`, { percent_off: 10, duration: 'once', metadata: { campaign: 'spring' }, idempotency_key }, m.secretKey);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...a.body, resource_created: false });
  });

  test.each([
    ['neither form', { duration: 'once' }, 'parameter_missing', 'percent_off'],
    ['both forms', { percent_off: 10, amount_off: 100, currency: 'EUR', duration: 'once' }, 'parameter_invalid', 'amount_off'],
    ['amount_off without currency', { amount_off: 100, duration: 'once' }, 'parameter_missing', 'currency'],
    ['currency with percent_off', { percent_off: 10, currency: 'EUR', duration: 'once' }, 'parameter_invalid', 'currency'],
    ['percent_off above 100', { percent_off: 100.01, duration: 'once' }, 'parameter_invalid', 'percent_off'],
    ['percent_off with 3 decimals', { percent_off: 12.345, duration: 'once' }, 'parameter_invalid', 'percent_off'],
    ['amount_off zero', { amount_off: 0, currency: 'EUR', duration: 'once' }, 'parameter_invalid', 'amount_off'],
    ['repeating without months', { percent_off: 10, duration: 'repeating' }, 'parameter_missing', 'duration_in_months'],
    ['months without repeating', { percent_off: 10, duration: 'forever', duration_in_months: 3 }, 'parameter_invalid', 'duration_in_months'],
    ['more than 120 months', { percent_off: 10, duration: 'repeating', duration_in_months: 121 }, 'parameter_invalid', 'duration_in_months'],
    ['redeem_by in the past', { percent_off: 10, duration: 'once', redeem_by: 1_700_000_000 }, 'parameter_invalid', 'redeem_by'],
    ['max_redemptions zero', { percent_off: 10, duration: 'once', max_redemptions: 0 }, 'parameter_invalid', 'max_redemptions'],
  ])('refused: %s', async (_name, body, code, param) => {
    expect(await refusal(`${V}/coupons`, body)).toEqual({ status: 400, code, param });
  });
});

describe('promotion codes', () => {
  let coupon: { coupon: string };
  beforeAll(async () => {
    coupon = (await api.post(`${V}/coupons`, { percent_off: 20, duration: 'forever' }, m.secretKey)).body;
  });

  test('a code is unique per tenant whatever its case (SUMMER, then summer: 409); another tenant may have it', async () => {
    const code = `SUMMER${++k}${Date.now() % 100000}`;
    const a = await api.post(`${V}/promotion-codes`, { coupon: coupon.coupon, code, max_redemptions: 3, metadata: { a: '1' } }, m.secretKey);
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      promotion_code: expect.stringMatching(/^promo_eu_/),
      object: 'promotion_code',
      code,
      coupon: expect.objectContaining({ coupon: coupon.coupon, object: 'coupon', percent_off: 20 }),
      active: true,
      max_redemptions: 3,
      times_redeemed: 0,
      expires_at: null,
      metadata: { a: '1' },
      created: expect.any(Number),
    });
    const lower = await api.post(`${V}/promotion-codes`, { coupon: coupon.coupon, code: code.toLowerCase() }, m.secretKey);
    expect(lower.status).toBe(409);
    expect(lower.body.error).toMatchObject({ type: 'invalid_request_error', code: 'promotion_code_exists' });
    // Concurrent creates of one code: exactly one wins.
    const racing = `RACE${++k}${Date.now() % 100000}`;
    const race = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.post(`${V}/promotion-codes`, { coupon: coupon.coupon, code: i % 2 ? racing : racing.toLowerCase() }, m.secretKey)),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    // Another tenant has its own codes.
    const theirs = (await api.post(`${V}/coupons`, { percent_off: 5, duration: 'once' }, other.secretKey)).body;
    expect((await api.post(`${V}/promotion-codes`, { coupon: theirs.coupon, code }, other.secretKey)).status).toBe(201);
    // A coupon of another tenant is unknown.
    expect(await refusal(`${V}/promotion-codes`, { coupon: theirs.coupon, code: key('X') })).toEqual({ status: 400, code: 'resource_missing', param: 'coupon' });
  });

  test.each([
    ['too short', 'AB', 'parameter_invalid', 'code'],
    ['a space', 'NO CODE', 'parameter_invalid', 'code'],
    ['too long', 'X'.repeat(51), 'parameter_invalid', 'code'],
  ])('refused code: %s', async (_name, code, errorCode, param) => {
    expect(await refusal(`${V}/promotion-codes`, { coupon: coupon.coupon, code })).toEqual({ status: 400, code: errorCode, param });
  });

  test('refused: an expires_at in the past; a coupon id that is not one', async () => {
    expect(await refusal(`${V}/promotion-codes`, { coupon: coupon.coupon, code: key('P'), expires_at: 1_700_000_000 })).toEqual({ status: 400, code: 'parameter_invalid', param: 'expires_at' });
    expect(await refusal(`${V}/promotion-codes`, { coupon: 'plan_eu_0000000000000000000000', code: key('P') })).toEqual({ status: 400, code: 'parameter_invalid', param: 'coupon' });
  });

  test('retrieve, list by code (any case), coupon and active, update active and metadata through the owner', async () => {
    const code = `Autumn_${++k}-${Date.now() % 100000}`;
    const p = (await api.post(`${V}/promotion-codes`, { coupon: coupon.coupon, code, metadata: { a: '1' } }, m.secretKey)).body;
    expect((await api.get(`${V}/promotion-codes/${p.promotion_code}`, m.secretKey)).body).toEqual(p);
    const byCode = await api.get(`${V}/promotion-codes?code=${code.toUpperCase()}`, m.secretKey);
    expect(byCode.body).toEqual({ data: [p], has_more: false });
    const byCoupon = await api.get(`${V}/promotion-codes?coupon=${coupon.coupon}&active=true&limit=100`, m.secretKey);
    expect(byCoupon.body.data.map((x: { promotion_code: string }) => x.promotion_code)).toContain(p.promotion_code);

    const off = await api.post(`${V}/promotion-codes/${p.promotion_code}`, { active: false, metadata: { a: '', b: '2' } }, m.secretKey);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ promotion_code: p.promotion_code, active: false, metadata: { b: '2' } });
    expect((await api.get(`${V}/promotion-codes?code=${code}&active=false`, m.secretKey)).body.data).toHaveLength(1);
    expect((await api.get(`${V}/promotion-codes?code=${code}&active=true`, m.secretKey)).body.data).toHaveLength(0);
    expect(await thrown(redeemDiscount(deps, m.tenant, { promotionCode: p.promotion_code, subscription: 'sub_eu_off', currency: 'EUR' }))).toEqual({
      kind: 'invalid_request',
      code: 'promotion_code_inactive',
      param: 'promotion_code',
    });
    const on = await api.post(`${V}/promotion-codes/${p.promotion_code}`, { active: true }, m.secretKey);
    expect(on.body).toMatchObject({ active: true, metadata: { b: '2' } });
    expect((await redeemDiscount(deps, m.tenant, { promotionCode: p.promotion_code, subscription: 'sub_eu_on', currency: 'EUR' })).promotionCode).toMatchObject({ times_redeemed: 1 });

    for (const r of [await api.get(`${V}/promotion-codes/${p.promotion_code}`, other.secretKey), await api.post(`${V}/promotion-codes/${p.promotion_code}`, { active: false }, other.secretKey)])
      expect(r.body.error).toMatchObject({ code: 'resource_missing', param: 'promotion_code' });
    expect((await api.get(`${V}/promotion-codes?code=${code}`, other.secretKey)).body.data).toEqual([]);
  });
});

describe('redemptions', () => {
  test('20 concurrent subscriptions redeem a promotion code limited to 5: exactly 5 succeed, and the records say 5', async () => {
    const coupon = (await api.post(`${V}/coupons`, { percent_off: 10, duration: 'once' }, m.secretKey)).body;
    const promo = (await api.post(`${V}/promotion-codes`, { coupon: coupon.coupon, code: key('FIVE'), max_redemptions: 5 }, m.secretKey)).body;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => redeemDiscount(deps, m.tenant, { promotionCode: promo.promotion_code, subscription: `sub_eu_race${i}`, currency: 'EUR' })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    expect(ok).toHaveLength(5);
    for (const r of results.filter((x) => x.status === 'rejected')) {
      const e = (r as PromiseRejectedResult).reason;
      expect(e).toBeInstanceOf(DomainError);
      expect({ kind: e.kind, code: e.code, param: e.param }).toEqual({ kind: 'invalid_request', code: 'promotion_code_max_redemptions', param: 'promotion_code' });
    }
    const counts = ok.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof redeemDiscount>>>).value.promotionCode!.times_redeemed).sort();
    expect(counts).toEqual([1, 2, 3, 4, 5]);
    expect((await api.get(`${V}/promotion-codes/${promo.promotion_code}`, m.secretKey)).body).toMatchObject({ times_redeemed: 5, coupon: { times_redeemed: 5 } });
    expect((await db.c.promotionCodes.findOne({ _id: promo.promotion_code }))!.times_redeemed).toBe(5);
    expect((await db.c.coupons.findOne({ _id: coupon.coupon }))!.times_redeemed).toBe(5);
  });

  test('the same subscription twice counts once; a release gives the use back (once); the limits of the coupon hold', async () => {
    const coupon = (await api.post(`${V}/coupons`, { amount_off: 300, currency: 'EUR', duration: 'forever', max_redemptions: 2 }, m.secretKey)).body;
    const first = await redeemDiscount(deps, m.tenant, { coupon: coupon.coupon, subscription: 'sub_eu_twice', currency: 'eur' });
    expect(first).toMatchObject({ coupon: { _id: coupon.coupon, times_redeemed: 1 }, promotionCode: null });
    expect((await redeemDiscount(deps, m.tenant, { coupon: coupon.coupon, subscription: 'sub_eu_twice', currency: 'EUR' })).coupon.times_redeemed).toBe(1);
    await redeemDiscount(deps, m.tenant, { coupon: coupon.coupon, subscription: 'sub_eu_second', currency: 'EUR' });
    expect((await api.get(`${V}/coupons/${coupon.coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 2, valid: false });
    expect(await thrown(redeemDiscount(deps, m.tenant, { coupon: coupon.coupon, subscription: 'sub_eu_third', currency: 'EUR' }))).toEqual({
      kind: 'invalid_request',
      code: 'coupon_max_redemptions',
      param: 'coupon',
    });
    await releaseRedeemed(deps, coupon.coupon, 'sub_eu_second');
    await releaseRedeemed(deps, coupon.coupon, 'sub_eu_second');
    expect((await api.get(`${V}/coupons/${coupon.coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1, valid: true });
    expect((await redeemDiscount(deps, m.tenant, { coupon: coupon.coupon, subscription: 'sub_eu_third', currency: 'EUR' })).coupon.times_redeemed).toBe(2);
    // Another tenant cannot redeem it (a release is only ever of what the create itself redeemed).
    expect(await thrown(redeemDiscount(deps, other.tenant, { coupon: coupon.coupon, subscription: 'sub_eu_x', currency: 'EUR' }))).toMatchObject({ code: 'resource_missing', param: 'coupon' });
    expect((await api.get(`${V}/coupons/${coupon.coupon}`, m.secretKey)).body.times_redeemed).toBe(2);
  });

  test('refusals: currency, unknown ids, expired coupon and code', async () => {
    const eur = (await api.post(`${V}/coupons`, { amount_off: 300, currency: 'EUR', duration: 'once' }, m.secretKey)).body;
    expect(await thrown(redeemDiscount(deps, m.tenant, { coupon: eur.coupon, subscription: 'sub_eu_usd', currency: 'USD' }))).toEqual({
      kind: 'invalid_request',
      code: 'coupon_currency_mismatch',
      param: 'coupon',
    });
    expect(await thrown(redeemDiscount(deps, m.tenant, { coupon: 'coupon_eu_0000000000000000000000', subscription: 'sub_eu_u', currency: 'EUR' }))).toMatchObject({
      code: 'resource_missing',
      param: 'coupon',
    });
    expect(await thrown(redeemDiscount(deps, m.tenant, { promotionCode: 'promo_eu_0000000000000000000000', subscription: 'sub_eu_u', currency: 'EUR' }))).toMatchObject({
      code: 'resource_missing',
      param: 'promotion_code',
    });

    // Times that have passed (written into the records: the API refuses to create them in the past).
    const soon = (await api.post(`${V}/coupons`, { percent_off: 10, duration: 'once', redeem_by: Math.floor(Date.now() / 1000) + 3600 }, m.secretKey)).body;
    await db.c.coupons.updateOne({ _id: soon.coupon }, { $set: { redeem_by: new Date(Date.now() - 1000) } });
    expect((await api.get(`${V}/coupons/${soon.coupon}`, m.secretKey)).body.valid).toBe(false);
    expect(await thrown(redeemDiscount(deps, m.tenant, { coupon: soon.coupon, subscription: 'sub_eu_late', currency: 'EUR' }))).toMatchObject({ code: 'coupon_expired', param: 'coupon' });

    const forever = (await api.post(`${V}/coupons`, { percent_off: 10, duration: 'forever' }, m.secretKey)).body;
    const code = (await api.post(`${V}/promotion-codes`, { coupon: forever.coupon, code: key('LATE'), expires_at: Math.floor(Date.now() / 1000) + 3600 }, m.secretKey)).body;
    await db.c.promotionCodes.updateOne({ _id: code.promotion_code }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect(await thrown(redeemDiscount(deps, m.tenant, { promotionCode: code.promotion_code, subscription: 'sub_eu_late', currency: 'EUR' }))).toMatchObject({
      code: 'promotion_code_expired',
      param: 'promotion_code',
    });
    // A coupon deleted after its code was made: the code redeems nothing.
    await api.del(`${V}/coupons/${forever.coupon}`, m.secretKey);
    const other2 = (await api.post(`${V}/promotion-codes`, { coupon: eur.coupon, code: key('OK') }, m.secretKey)).body;
    expect(other2.coupon.coupon).toBe(eur.coupon);
    expect(await thrown(redeemDiscount(deps, m.tenant, { promotionCode: code.promotion_code, subscription: 'sub_eu_gone', currency: 'EUR' }))).toMatchObject({
      code: 'resource_missing',
      param: 'promotion_code',
    });
  });
});
