import type { OperationExample } from '../examples';
import type { ErrorCatalogEntry } from '../error-catalog';

// Examples and error codes of the billing catalog: plans, tax rates, coupons and promotion codes. The story
// goes on from the reference's: Dar Al Qahwa (region eu) sells a monthly coffee club, with German VAT, a
// launch coupon and its promotion code SUMMER26.

const PLAN = 'plan_eu_QZROE5hFEQdS9dOzumlXWn';
const PLAN_TIERED = 'plan_eu_8gTsO5yjjWG4xZmtDU7deR';
const TXR = 'txr_eu_6bLKHTv32ZQp25AcYbETfT';
const COUPON = 'coupon_eu_irJ8zEnMZxo87j0w52hssB';
const COUPON_OLD = 'coupon_eu_4AK2fhYmdAuJNY8OKfGr9s';
const PROMO = 'promo_eu_0tdZLNv4Ht2o9Y0CwhUhyZ';
const REQUEST_ID = 'req_7kPq2VbN9xWm4ZtR8sLc3D';

const CREATED = 1_783_332_000; // 2026-07-06 10:00 UTC
const error = (type: string, code: string, message: string, param?: string) => ({ error: { type, code, message, ...(param ? { param } : {}), request_id: REQUEST_ID } });

const plan = {
  plan: PLAN,
  object: 'plan',
  active: true,
  amount: 4900,
  currency: 'EUR',
  interval: 'month',
  interval_count: 1,
  trial_period_days: 14,
  nickname: 'Coffee club, monthly',
  billing_scheme: 'per_unit',
  tiers_mode: null,
  tiers: null,
  metadata: { roast: 'medium' },
  created: CREATED,
};

const tieredPlan = {
  ...plan,
  plan: PLAN_TIERED,
  amount: null,
  trial_period_days: null,
  nickname: 'Office beans, per kilo',
  billing_scheme: 'tiered',
  tiers_mode: 'graduated',
  tiers: [
    { up_to: 10, unit_amount: 2500, flat_amount: 0 },
    { up_to: null, unit_amount: 2000, flat_amount: 0 },
  ],
  metadata: {},
};

const taxRate = {
  tax_rate: TXR,
  object: 'tax_rate',
  active: true,
  percentage: 19,
  inclusive: true,
  display_name: 'VAT',
  jurisdiction: 'DE',
  description: 'German VAT, standard rate',
  created: CREATED,
};

const coupon = {
  coupon: COUPON,
  object: 'coupon',
  name: 'Launch: 25% off for 3 months',
  percent_off: 25,
  amount_off: null,
  currency: null,
  duration: 'repeating',
  duration_in_months: 3,
  max_redemptions: 500,
  redeem_by: null,
  times_redeemed: 41,
  valid: true,
  metadata: { campaign: 'launch-2026' },
  created: CREATED,
};

const promotionCode = {
  promotion_code: PROMO,
  object: 'promotion_code',
  code: 'SUMMER26',
  coupon,
  active: true,
  max_redemptions: 100,
  times_redeemed: 12,
  expires_at: 1_788_220_799, // 2026-08-31 23:59:59 UTC
  metadata: {},
  created: CREATED,
};

export const EXAMPLES: Record<string, OperationExample> = {
  // Plans ---------------------------------------------------------------------------------------------------
  'POST /v202607/plans': {
    summary: 'A monthly coffee club at 49.00 EUR with a 14-day trial',
    body: { amount: 4900, currency: 'eur', interval: 'month', trial_period_days: 14, nickname: 'Coffee club, monthly', metadata: { roast: 'medium' }, idempotency_key: 'plan-club-monthly' },
    response: { status: 201, body: { ...plan, resource_created: true } },
    more: [
      { status: 200, summary: 'The same idempotency_key again: the plan it made', body: { ...plan, resource_created: false } },
      {
        status: 400,
        summary: 'The same idempotency_key with another price',
        body: error('invalid_request_error', 'idempotency_key_in_use', 'This idempotency_key was used for a plan with other parameters: use a new key for a new plan', 'idempotency_key'),
      },
      { status: 400, summary: 'More than a year between charges', body: error('invalid_request_error', 'parameter_invalid', 'Invalid interval_count: at most one year between charges: 12 for interval month', 'interval_count') },
    ],
  },
  'GET /v202607/plans': {
    summary: 'The active plans in EUR',
    query: { active: 'true', currency: 'EUR', limit: '10' },
    response: { status: 200, body: { data: [tieredPlan, plan], has_more: false } },
  },
  'GET /v202607/plans/:plan': {
    summary: 'Retrieve a plan',
    params: { plan: PLAN },
    response: { status: 200, body: plan },
  },
  'POST /v202607/plans/:plan': {
    summary: 'Rename a plan',
    params: { plan: PLAN },
    body: { nickname: 'Coffee club (monthly)' },
    response: { status: 200, body: { ...plan, nickname: 'Coffee club (monthly)' } },
    more: [
      { status: 400, summary: 'A price cannot change: make a new plan', body: error('invalid_request_error', 'parameter_unknown', 'Received unknown parameter: amount', 'amount') },
    ],
  },
  'POST /v202607/plans/:plan/archive': {
    summary: 'Archive a plan: no new subscriptions',
    params: { plan: PLAN },
    response: { status: 200, body: { ...plan, active: false } },
  },

  // Tax rates -----------------------------------------------------------------------------------------------
  'POST /v202607/tax-rates': {
    summary: 'German VAT, included in the price',
    body: { percentage: 19, inclusive: true, display_name: 'VAT', jurisdiction: 'DE', description: 'German VAT, standard rate', idempotency_key: 'vat-de-19' },
    response: { status: 201, body: { ...taxRate, resource_created: true } },
    more: [
      { status: 200, summary: 'The same idempotency_key again: the tax rate it made', body: { ...taxRate, resource_created: false } },
      {
        status: 400,
        summary: 'The same idempotency_key with another percentage',
        body: error('invalid_request_error', 'idempotency_key_in_use', 'This idempotency_key was used for a tax rate with other parameters: use a new key for a new tax rate', 'idempotency_key'),
      },
      { status: 400, summary: 'Too many decimals', body: error('invalid_request_error', 'parameter_invalid', 'Invalid percentage: at most 4 decimals', 'percentage') },
    ],
  },
  'GET /v202607/tax-rates': {
    summary: 'The active inclusive tax rates',
    query: { active: 'true', inclusive: 'true' },
    response: { status: 200, body: { data: [taxRate], has_more: false } },
  },
  'GET /v202607/tax-rates/:tax_rate': {
    summary: 'Retrieve a tax rate',
    params: { tax_rate: TXR },
    response: { status: 200, body: taxRate },
  },
  'POST /v202607/tax-rates/:tax_rate': {
    summary: 'Retire a tax rate',
    params: { tax_rate: TXR },
    body: { active: false },
    response: { status: 200, body: { ...taxRate, active: false } },
  },

  // Coupons -------------------------------------------------------------------------------------------------
  'POST /v202607/coupons': {
    summary: '25% off for the first three months, for 500 subscriptions',
    body: { percent_off: 25, duration: 'repeating', duration_in_months: 3, max_redemptions: 500, name: 'Launch: 25% off for 3 months', metadata: { campaign: 'launch-2026' }, idempotency_key: 'coupon-launch' },
    response: { status: 201, body: { ...coupon, times_redeemed: 0, resource_created: true } },
    more: [
      { status: 200, summary: 'The same idempotency_key again: the coupon it made', body: { ...coupon, resource_created: false } },
      {
        status: 400,
        summary: 'The same idempotency_key with another discount',
        body: error('invalid_request_error', 'idempotency_key_in_use', 'This idempotency_key was used for a coupon with other parameters: use a new key for a new coupon', 'idempotency_key'),
      },
      { status: 400, summary: 'A repeating coupon without its months', body: error('invalid_request_error', 'parameter_missing', 'Missing required parameter: duration_in_months', 'duration_in_months') },
    ],
  },
  'GET /v202607/coupons': {
    summary: 'List coupons',
    query: { limit: '10' },
    response: {
      status: 200,
      body: {
        data: [
          coupon,
          { ...coupon, coupon: COUPON_OLD, name: '5.00 EUR off once', percent_off: null, amount_off: 500, currency: 'EUR', duration: 'once', duration_in_months: null, max_redemptions: 50, times_redeemed: 50, valid: false, metadata: {}, created: CREATED - 86_400 },
        ],
        has_more: false,
      },
    },
  },
  'GET /v202607/coupons/:coupon': {
    summary: 'Retrieve a coupon',
    params: { coupon: COUPON },
    response: { status: 200, body: coupon },
  },
  'DELETE /v202607/coupons/:coupon': {
    summary: 'Delete a coupon (subscriptions that have it keep their discount)',
    params: { coupon: COUPON_OLD },
    response: { status: 200, body: { coupon: COUPON_OLD, object: 'coupon', deleted: true } },
  },

  // Promotion codes -----------------------------------------------------------------------------------------
  'POST /v202607/promotion-codes': {
    summary: 'A code customers type for the launch coupon',
    body: { coupon: COUPON, code: 'SUMMER26', max_redemptions: 100 },
    response: { status: 201, body: { ...promotionCode, times_redeemed: 0, expires_at: null } },
    more: [
      { status: 409, summary: 'The code exists already (in any case)', body: error('invalid_request_error', 'promotion_code_exists', "A promotion code 'summer26' exists already (codes match whatever their case)") },
      { status: 400, summary: 'No such coupon', body: error('invalid_request_error', 'resource_missing', `No such coupon: '${COUPON_OLD}'`, 'coupon') },
    ],
  },
  'GET /v202607/promotion-codes': {
    summary: 'Find a code as a customer typed it',
    query: { code: 'summer26' },
    response: { status: 200, body: { data: [promotionCode], has_more: false } },
  },
  'GET /v202607/promotion-codes/:promotion_code': {
    summary: 'Retrieve a promotion code, with its coupon',
    params: { promotion_code: PROMO },
    response: { status: 200, body: promotionCode },
  },
  'POST /v202607/promotion-codes/:promotion_code': {
    summary: 'Deactivate a promotion code',
    params: { promotion_code: PROMO },
    body: { active: false },
    response: { status: 200, body: { ...promotionCode, active: false } },
  },
};

const FIX_DISCOUNT = 'Take the discount off the request, or give another coupon or promotion code.';

export const ERRORS: ErrorCatalogEntry[] = [
  { code: 'promotion_code_exists', statuses: [409], meaning: 'Your account has a promotion code with this code already; codes match whatever their case (`SUMMER` and `summer` are one code).', action: 'Choose another code, or use the existing one (list promotion codes with `code`).' },
  { code: 'coupon_expired', statuses: [400], meaning: 'The coupon (or the coupon of the promotion code, `param` says which) can no longer be redeemed: its `redeem_by` has passed.', action: FIX_DISCOUNT },
  { code: 'coupon_max_redemptions', statuses: [400], meaning: 'The coupon has been redeemed its `max_redemptions` times.', action: FIX_DISCOUNT },
  { code: 'coupon_currency_mismatch', statuses: [400], meaning: 'The coupon takes an amount off in another currency than the subscription\'s.', action: 'Use a percent_off coupon, or an amount_off coupon in the subscription\'s currency.' },
  { code: 'promotion_code_inactive', statuses: [400], meaning: 'The promotion code is not active.', action: 'Activate it (POST /v202607/promotion-codes/{promotion_code} with `active: true`), or give another code.' },
  { code: 'promotion_code_expired', statuses: [400], meaning: 'The promotion code\'s `expires_at` has passed.', action: FIX_DISCOUNT },
  { code: 'promotion_code_max_redemptions', statuses: [400], meaning: 'The promotion code has been redeemed its `max_redemptions` times.', action: FIX_DISCOUNT },
];
