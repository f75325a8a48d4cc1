import type { OperationExample } from '../examples';
import type { ErrorCatalogEntry } from '../error-catalog';

// Checkout and billing-portal sessions: Layla Haddad subscribes to Dar Al Qahwa's monthly coffee box (19.99
// EUR, VAT 20 % on top) on a hosted checkout page on 31 January 2026 at 10:00 UTC; later the shop sends her to
// the billing portal to switch to the gold box or cancel.

const HOST = 'https://api-eu.payments.example.com';
const CS = 'cs_eu_7LmQp2VxN9cKd4TbRw8Zd3';
const BPS = 'bps_eu_Zd3H7kQp2VxN9cLm4TbRw8';
const CUS = 'cus_eu_n0tPF7ZDzFXzN3H4oHClcr';
const PLAN = 'plan_eu_Qm8RzTq1VbN7cLp4FfYk2x';
const PLAN_GOLD = 'plan_eu_Tq1VbN7cLp4FfYk2xQm8Rz';
const TXR = 'txr_eu_Lp4FfYk2xQm8RzTq1VbN7c';
const SUB = 'sub_eu_4FfYk2xQm8RzTq1VbN7cLp';
const PI = 'pi_eu_YZpzhDLY7uje4JQ5WysUec';
const REQUEST_ID = 'req_7kQp2VxN9cLm4TbRw8Zd3H';

const JAN_31 = 1769853600; // 2026-01-31T10:00:00Z
const FEB_1 = JAN_31 + 86_400;
const FEB_10 = 1770717600; // 2026-02-10T10:00:00Z

const session = {
  checkout_session: CS,
  object: 'checkout_session',
  mode: 'subscription',
  status: 'open',
  customer: CUS,
  url: `${HOST}/billing/checkout/${CS}`,
  success_url: 'https://shop.example.com/subscribed?session={CHECKOUT_SESSION_ID}',
  cancel_url: 'https://shop.example.com/coffee-box',
  subscription: null,
  payment_intent: PI,
  amount_total: 2399,
  currency: 'EUR',
  completion_error: null,
  expires_at: FEB_1,
  created: JAN_31,
};

const portal = {
  billing_portal_session: BPS,
  object: 'billing_portal.session',
  customer: CUS,
  url: `${HOST}/billing/portal/${BPS}`,
  return_url: 'https://shop.example.com/account',
  expires_at: FEB_10 + 3600,
  created: FEB_10,
};

const error = (code: string, message: string, param?: string) => ({
  error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}), request_id: REQUEST_ID },
});

export const EXAMPLES: Record<string, OperationExample> = {
  'POST /v202607/checkout-sessions': {
    summary: 'A hosted page where Layla subscribes to the monthly coffee box, VAT on top',
    body: {
      mode: 'subscription',
      customer: CUS,
      line_items: [{ plan: PLAN, quantity: 1 }],
      success_url: 'https://shop.example.com/subscribed?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example.com/coffee-box',
      subscription_data: { default_tax_rates: [TXR], metadata: { box: 'single-origin' } },
      locale: 'ar',
      idempotency_key: 'checkout-layla-2026-01',
    },
    response: { status: 201, body: session },
    more: [
      { status: 200, summary: 'The same idempotency_key again: the session as it stands', body: { ...session, status: 'complete', subscription: SUB } },
      { status: 400, summary: 'An archived plan', body: error('plan_inactive', `Plan '${PLAN}' is archived and takes no new subscriptions`, 'line_items[0][plan]') },
    ],
  },
  'GET /v202607/checkout-sessions/:checkout_session': {
    summary: 'Paid and complete: the subscription it started',
    params: { checkout_session: CS },
    response: { status: 200, body: { ...session, status: 'complete', subscription: SUB } },
    more: [
      { status: 200, summary: 'Not paid within 24 hours', body: { ...session, status: 'expired' } },
      {
        status: 200,
        summary: 'With a 14-day trial and a promotion code: nothing due today (the intent is a card check of 1.00 EUR, refunded at completion)',
        body: { ...session, amount_total: 0, status: 'complete', subscription: SUB },
      },
    ],
  },
  'POST /v202607/billing-portal/sessions': {
    summary: "Send Layla to manage her coffee box: switch to gold, cancel, update her card",
    body: { customer: CUS, return_url: 'https://shop.example.com/account', plans: [PLAN, PLAN_GOLD] },
    response: { status: 201, body: portal },
    more: [{ status: 400, summary: 'An unknown customer', body: error('resource_missing', `No such customer: 'cus_eu_0000000000000000000000'`, 'customer') }],
  },
};

const FIX = 'Fix the request as `message` and `param` say; repeating it unchanged fails the same way.';

export const ERRORS: ErrorCatalogEntry[] = [
  { code: 'checkout_session_cannot_complete', statuses: [409], meaning: "A payment attempt on a checkout session's intent was refused before any charge: the session could no longer start its subscription (`message` says why: it expired or completed, a plan was archived, a tax rate deactivated, its coupon or promotion code can no longer be redeemed; `param` names the field).", action: 'Create a new checkout session (with another code, or none) and send the customer to it.' },
  { code: 'checkout_amount_too_large', statuses: [400], meaning: "The checkout session's first invoice (or a renewal) would exceed 99,999,999,999 minor units.", action: FIX },
  {
    code: 'csrf_token_invalid',
    statuses: [403],
    meaning: "A billing-portal page's form carried no token of its session (the hosted portal page's own requests).",
    action: 'Reload the portal page and try again.',
  },
  {
    code: 'billing_portal_session_expired',
    statuses: [409],
    meaning: 'The billing-portal session is more than an hour old: its page no longer acts.',
    action: 'Create a new billing-portal session and send the customer to its url.',
  },
  {
    code: 'portal_switch_unavailable',
    statuses: [409],
    meaning: 'The billing portal switches the plan of a subscription with one item only.',
    action: "Change the plans of a subscription with several items through POST /v202607/subscriptions/{id}.",
  },
  {
    code: 'confirm_token_invalid',
    statuses: [400],
    meaning: "A billing-portal plan switch was confirmed for another plan or proration date than its confirm step showed.",
    action: 'Open the switch again: its confirm step shows the figures for now.',
  },
];
