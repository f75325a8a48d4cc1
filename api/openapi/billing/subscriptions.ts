import type { OperationExample } from '../examples';
import type { ErrorCatalogEntry } from '../error-catalog';

// Subscriptions and invoices: Layla Haddad subscribes to Dar Al Qahwa's monthly coffee box (19.99 EUR, VAT
// 20% on top) with the card she saved, on 31 January 2026 at 10:00 UTC; it renews on 28 February.

const SUB = 'sub_eu_4FfYk2xQm8RzTq1VbN7cLp';
const SI = 'si_eu_9TqLm2VbN7cLp4FfYk2xQm';
const CUS = 'cus_eu_n0tPF7ZDzFXzN3H4oHClcr';
const PM = 'pm_eu_b5X6X0CyavjZmBSTSsW8YZ';
const PLAN = 'plan_eu_Qm8RzTq1VbN7cLp4FfYk2x';
const PLAN_GOLD = 'plan_eu_Tq1VbN7cLp4FfYk2xQm8Rz';
const TXR = 'txr_eu_Lp4FfYk2xQm8RzTq1VbN7c';
const IN = 'in_eu_2xQm8RzTq1VbN7cLp4FfYk';
const IL = 'il_eu_8RzTq1VbN7cLp4FfYk2xQm';
const PI = 'pi_eu_YZpzhDLY7uje4JQ5WysUec';
const REQUEST_ID = 'req_7kQp2VxN9cLm4TbRw8Zd3H';

const JAN_31 = 1769853600; // 2026-01-31T10:00:00Z
const FEB_28 = 1772272800; // 2026-02-28T10:00:00Z
const MAR_31 = 1774951200; // 2026-03-31T10:00:00Z
const FEB_10 = 1770717600; // 2026-02-10T10:00:00Z

const subscription = {
  subscription: SUB,
  object: 'subscription',
  customer: CUS,
  status: 'active',
  currency: 'EUR',
  items: [{ item: SI, plan: PLAN, quantity: 1 }],
  default_payment_method: PM,
  default_tax_rates: [TXR],
  discount: null,
  cancel_at_period_end: false,
  canceled_at: null,
  ended_at: null,
  pause_collection: null,
  billing_cycle_anchor: JAN_31,
  current_period_start: JAN_31,
  current_period_end: FEB_28,
  trial_start: null,
  trial_end: null,
  latest_invoice: IN,
  test_clock: null,
  metadata: { box: 'single-origin' },
  created: JAN_31,
};

const line = {
  line: IL,
  description: '1 × Coffee box (every month)',
  amount: 1999,
  quantity: 1,
  plan: PLAN,
  proration: false,
  period: { start: JAN_31, end: FEB_28 },
  discount_amount: 0,
  tax_amounts: [{ tax_rate: TXR, amount: 400, inclusive: false }],
};

const invoice = {
  invoice: IN,
  object: 'invoice',
  customer: CUS,
  subscription: SUB,
  status: 'paid',
  billing_reason: 'subscription_create',
  currency: 'EUR',
  lines: [line],
  subtotal: 1999,
  discount: 0,
  tax: 400,
  total: 2399,
  applied_balance: 0,
  amount_due: 2399,
  amount_paid: 2399,
  amount_remaining: 0,
  attempt_count: 1,
  next_payment_attempt: null,
  payment_intent: PI,
  last_payment_error: null,
  period_start: JAN_31,
  period_end: FEB_28,
  test_clock: null,
  created: JAN_31,
  finalized_at: JAN_31,
  paid_at: JAN_31,
  voided_at: null,
};

const openInvoice = {
  ...invoice,
  status: 'open',
  billing_reason: 'subscription_cycle',
  lines: [{ ...line, period: { start: FEB_28, end: MAR_31 } }],
  amount_paid: 0,
  amount_remaining: 2399,
  next_payment_attempt: FEB_28 + 86_400,
  last_payment_error: { code: 'insufficient_funds' },
  period_start: FEB_28,
  period_end: MAR_31,
  created: FEB_28,
  finalized_at: FEB_28,
  paid_at: null,
};

const error = (code: string, message: string, param?: string) => ({
  error: { type: 'invalid_request_error', code, message, ...(param ? { param } : {}), request_id: REQUEST_ID },
});

export const EXAMPLES: Record<string, OperationExample> = {
  'POST /v202607/subscriptions': {
    summary: 'A monthly coffee box charged to the saved card, VAT on top',
    body: {
      customer: CUS,
      items: [{ plan: PLAN }],
      default_payment_method: PM,
      default_tax_rates: [TXR],
      metadata: { box: 'single-origin' },
      webhooks: [{ url: 'https://shop.example.com/hooks/billing', events: ['invoice.paid', 'invoice.payment_failed', 'subscription.canceled'] }],
      idempotency_key: 'sub-layla-2026-01',
    },
    response: { status: 201, body: subscription },
    more: [
      { status: 201, summary: 'The first charge failed: incomplete until its invoice is paid', body: { ...subscription, status: 'incomplete' } },
      { status: 200, summary: 'The same idempotency_key again: the subscription as it stands', body: subscription },
      {
        status: 400,
        summary: 'The same idempotency_key with another plan',
        body: error(
          'idempotency_key_in_use',
          'This idempotency_key was used for a subscription with other parameters (customer, items, coupon or promotion code, default payment method, tax rates or trial): use a new key for a new subscription',
          'idempotency_key',
        ),
      },
      { status: 409, summary: "The customer's test clock is advancing", body: error('test_clock_advancing', "The customer's test clock is advancing; retry when it is ready") },
      {
        status: 409,
        summary: 'The same idempotency_key while the first request is still charging the first invoice (Retry-After: 2)',
        body: error(
          'idempotency_request_in_progress',
          'The first request with this idempotency_key is still making the subscription (its first invoice is being charged): retry shortly to get its answer',
          'idempotency_key',
        ),
      },
      { status: 400, summary: 'Plans that do not bill together', body: error('plans_mismatch', 'Every plan of a subscription must have the same currency, interval and interval_count', 'items[1][plan]') },
    ],
  },
  'GET /v202607/subscriptions': {
    summary: "A customer's subscriptions",
    query: { customer: CUS, status: 'active' },
    response: { status: 200, body: { data: [subscription], has_more: false } },
  },
  'GET /v202607/subscriptions/:subscription': {
    summary: 'Retrieve a subscription',
    params: { subscription: SUB },
    response: { status: 200, body: subscription },
  },
  'POST /v202607/subscriptions/:subscription': {
    summary: 'Switch to the gold box on 10 February, prorations on the next invoice',
    params: { subscription: SUB },
    body: { items: [{ item: SI, plan: PLAN_GOLD }], proration_behavior: 'create_prorations' },
    response: { status: 200, body: { ...subscription, items: [{ item: SI, plan: PLAN_GOLD, quantity: 1 }] } },
    more: [{ status: 409, summary: 'A canceled subscription', body: error('subscription_ended', 'This subscription is canceled') }],
  },
  'POST /v202607/subscriptions/:subscription/cancel': {
    summary: 'Cancel now',
    params: { subscription: SUB },
    body: {},
    response: { status: 200, body: { ...subscription, status: 'canceled', canceled_at: FEB_10, ended_at: FEB_10 } },
    more: [{ status: 409, summary: 'It expired incomplete', body: error('subscription_ended', 'This subscription is incomplete_expired') }],
  },
  'GET /v202607/invoices': {
    summary: "A subscription's invoices",
    query: { subscription: SUB },
    response: { status: 200, body: { data: [openInvoice, invoice], has_more: false } },
  },
  'POST /v202607/invoices/create-preview': {
    summary: 'The next invoice if Layla switched to the gold box now',
    body: { subscription: SUB, items: [{ item: SI, plan: PLAN_GOLD }], proration_date: FEB_10 },
    response: {
      status: 200,
      body: {
        ...invoice,
        invoice: 'upcoming_2026-02-28',
        status: 'draft',
        billing_reason: 'subscription_cycle',
        lines: [
          { ...line, line: 'preview_0', description: '1 × Gold box (every month)', amount: 2999, plan: PLAN_GOLD, period: { start: FEB_28, end: MAR_31 }, tax_amounts: [{ tax_rate: TXR, amount: 600, inclusive: false }] },
          { ...line, line: 'preview_proration_0', description: 'Unused time on 1 × Coffee box (every month) after 2026-02-10', amount: -1285, proration: true, period: { start: FEB_10, end: FEB_28 }, tax_amounts: [{ tax_rate: TXR, amount: -257, inclusive: false }] },
          { ...line, line: 'preview_proration_1', description: 'Remaining time on 1 × Gold box (every month) after 2026-02-10', amount: 1928, plan: PLAN_GOLD, proration: true, period: { start: FEB_10, end: FEB_28 }, tax_amounts: [{ tax_rate: TXR, amount: 386, inclusive: false }] },
        ],
        subtotal: 3642,
        tax: 729,
        total: 4371,
        amount_due: 4371,
        amount_paid: 0,
        amount_remaining: 4371,
        attempt_count: 0,
        next_payment_attempt: FEB_28,
        payment_intent: null,
        period_start: FEB_28,
        period_end: MAR_31,
        created: FEB_10,
        finalized_at: null,
        paid_at: null,
      },
    },
    more: [
      { status: 409, summary: 'A canceled subscription has no next invoice', body: error('subscription_ended', 'This subscription is canceled') },
      { status: 404, summary: 'Canceled at period end, nothing left to bill', body: error('invoice_upcoming_none', `Subscription '${SUB}' makes no further invoice: it ends at its period's end with nothing left to bill, or its collection is paused with no resume date`) },
    ],
  },
  'GET /v202607/invoices/:invoice': {
    summary: 'Retrieve an invoice',
    params: { invoice: IN },
    response: { status: 200, body: invoice },
  },
  'POST /v202607/invoices/:invoice/pay': {
    summary: 'Attempt a past-due invoice now (the customer updated the card)',
    params: { invoice: IN },
    body: {},
    response: { status: 200, body: { ...openInvoice, status: 'paid', attempt_count: 2, amount_paid: 2399, amount_remaining: 0, next_payment_attempt: null, last_payment_error: { code: 'insufficient_funds' }, paid_at: FEB_28 + 3600 } },
    more: [{ status: 409, summary: 'Already paid', body: error('invoice_not_open', 'This invoice is paid: only an open or uncollectible invoice can be paid or voided') }],
  },
  'POST /v202607/invoices/:invoice/void': {
    summary: 'Void an open invoice',
    params: { invoice: IN },
    body: {},
    response: { status: 200, body: { ...openInvoice, status: 'void', amount_remaining: 0, next_payment_attempt: null, voided_at: FEB_28 + 7200 } },
    more: [{ status: 409, summary: 'Already paid', body: error('invoice_not_open', 'This invoice is paid: only an open or uncollectible invoice can be paid or voided') }],
  },
};

const CN = 'cn_eu_5cLp4FfYk2xQm8RzTq1VbN';
const RE = 're_eu_h8PVkyzbqPBCGz9h7wD3rY';
const creditNote = {
  credit_note: CN,
  object: 'credit_note',
  invoice: IN,
  payment_intent: PI,
  customer: CUS,
  subscription: SUB,
  status: 'issued',
  currency: 'EUR',
  amount: 500,
  lines: [],
  reason: 'product_unsatisfactory',
  memo: 'A bag arrived torn',
  refund: null,
  refund_status: null,
  credit_to_balance: 500,
  created: FEB_10,
};

Object.assign(EXAMPLES, {
  'POST /v202607/credit-notes': {
    summary: "5.00 EUR of January's box back to Layla's credit balance (her next invoice uses it first)",
    body: { invoice: IN, amount: 500, reason: 'product_unsatisfactory', memo: 'A bag arrived torn', idempotency_key: 'cn-layla-torn-bag' },
    response: { status: 201, body: creditNote },
    more: [
      { status: 201, summary: 'Refunded to the card instead (`refund: true`)', body: { ...creditNote, refund: RE, refund_status: 'pending', credit_to_balance: 0 } },
      { status: 200, summary: 'The same idempotency_key again', body: creditNote },
      { status: 400, summary: 'More than is left of the invoice after its refunds and credit notes', body: error('credit_note_amount_too_large', 'Credit note amount 2400 exceeds the 1899 left to credit on invoice in_eu_2xQm8RzTq1VbN7cLp4FfYk: the 2400 it paid, less its earlier credit notes and the refunds of its payment', 'amount') },
    ],
  },
  'GET /v202607/credit-notes': {
    summary: "An invoice's credit notes",
    query: { invoice: IN },
    response: { status: 200, body: { data: [creditNote], has_more: false } },
  },
  'GET /v202607/credit-notes/:credit_note': {
    summary: 'Retrieve a credit note',
    params: { credit_note: CN },
    response: { status: 200, body: creditNote },
  },
  'GET /v202607/customers/:customer/credit-balance': {
    summary: "Layla's credit balance",
    params: { customer: CUS },
    response: { status: 200, body: { customer: CUS, object: 'credit_balance', balances: [{ currency: 'EUR', credit: 500 }] } },
  },
} satisfies Record<string, OperationExample>);

const FIX = 'Fix the request as `message` and `param` say; repeating it unchanged fails the same way.';

export const ERRORS: ErrorCatalogEntry[] = [
  { code: 'plans_mismatch', statuses: [400], meaning: "The subscription's plans (or the new ones) differ in currency, interval or interval_count.", action: 'Subscribe to plans that bill together, or make separate subscriptions.' },
  { code: 'plan_inactive', statuses: [400], meaning: 'The plan is archived and takes no new subscriptions.', action: FIX },
  { code: 'tax_rate_inactive', statuses: [400], meaning: 'The tax rate is inactive.', action: FIX },
  { code: 'subscription_ended', statuses: [409], meaning: 'The subscription is canceled or expired incomplete: it can no longer change.', action: 'Start a new subscription.' },
  { code: 'subscription_incomplete', statuses: [409], meaning: "The items of an incomplete subscription cannot change before its first invoice is paid.", action: 'Pay the first invoice (or cancel and start again).' },
  { code: 'invoice_not_paid', statuses: [400], meaning: 'Only a paid invoice, paid (at least in part) by card, can be credited.', action: 'Void an open invoice instead, or credit a paid one.' },
  { code: 'credit_note_amount_too_large', statuses: [400], meaning: "The amount is more than is left of the invoice: its refunds and credit notes draw on one balance, its payment intent's (or a line's amount is more than is left of the line after earlier credit notes of it).", action: 'Credit at most what is left; retrieve the refunds and credit notes of the invoice to see what was given back.' },
  { code: 'subscription_items_duplicate', statuses: [409], meaning: 'A change names one item twice.', action: 'Name each item once.' },
  { code: 'invoice_payment_in_progress', statuses: [409], meaning: "A charge of the invoice is on the wire or being reconciled with the gateway: it cannot be voided now.", action: 'Retrieve the invoice a little later: it is paid, or void it then.' },
  { code: 'invoice_not_open', statuses: [409], meaning: 'Only an open or uncollectible invoice can be paid or voided; this one is paid or void.', action: 'Retrieve the invoice; nothing is left to collect.' },
  { code: 'invoice_upcoming_none', statuses: [404], meaning: "The subscription makes no further invoice: it is canceled at its period's end with no prorations pending (or paused then, or in its trial), or its collection is paused with no resumes_at.", action: 'Nothing to preview. Undo the cancellation or resume collection to see the next renewal.' },
];
