import type { RouteDef } from '../http/route';
import { BILLING_EXAMPLES } from './billing';
import { EXAMPLES as OPS_EXAMPLES } from './ops-examples';

// A request and a response example for every operation of the API, keyed by operation (method and path as
// the route declares it, under the first version that defines it: `POST /v202607/refunds`,
// `GET /payouts/:uuid`). buildOpenApi injects them into every document; test/unit/api/openapi-examples.test.ts
// parses each against its route's zod schemas and fails for an operation without one.
//
// The examples tell one story: the merchant "Dar Al Qahwa" (region eu) sells coffee; Layla Haddad pays an
// order of 25.00 EUR, is refunded 5.00 EUR, and saves her card for a monthly subscription; the shop's catalog
// (titles in English and Arabic, prices in SAR halalas) feeds carts, checkouts, orders and returns; a payout
// in GHS goes to a mobile-money wallet.

export interface ExampleResponse {
  status: number;
  /** What this answer shows, when it is not the operation's plain success. */
  summary?: string;
  body: unknown;
  /** Only for a response the route declares without a schema (default application/json). */
  contentType?: string;
}

export interface OperationExample {
  /** The request in words: the name of the example in the reference. */
  summary: string;
  /** Path parameters, by name. */
  params?: Record<string, string>;
  /** Query parameters as they appear in the URL (a repeated one as an array). */
  query?: Record<string, string | string[]>;
  body?: unknown;
  /** The answer to this request. */
  response: ExampleResponse;
  /** Other answers worth knowing: an idempotent replay, the commonest refusal. */
  more?: ExampleResponse[];
}

/** `POST /v202607/refunds`: the method, then the path under the first version that defines the route. */
export function operationKey(def: Pick<RouteDef, 'method' | 'path' | 'versions'>): string {
  const prefix = def.versions === 'unversioned' ? '' : `/${def.versions[0]}`;
  return `${def.method.toUpperCase()} ${prefix}${def.path}`;
}

export function exampleFor(def: Pick<RouteDef, 'method' | 'path' | 'versions'>): OperationExample | undefined {
  return EXAMPLES[operationKey(def)];
}

// ---------------------------------------------------------------------------------------------------------
// The cast: ids as the service makes them (`<prefix>_<region>_<22 base62>`), keys, UUIDs of the older interface.

const HOST = 'https://api-eu.payments.example.com';
const TENANT = 'ten_eu_XQpJzNIBnjjYgH7w1FOqlQ';
const PI = 'pi_eu_GtWpKeshykP8Z38qouC9uj';
const PI_SUBSCRIPTION = 'pi_eu_YZpzhDLY7uje4JQ5WysUec';
const PI_OLDER = 'pi_eu_9hpQqWwL1RNa3vmlM3zUNb';
const CUS = 'cus_eu_n0tPF7ZDzFXzN3H4oHClcr';
const CUS_2 = 'cus_eu_ZYZv8GgJwMKAL6waboHL03';
const RE = 're_eu_mM1TlHUe3kCJG4ljwV1daX';
const RE_2 = 're_eu_h8PVkyzbqPBCGz9h7wD3rY';
const CON = 'con_eu_JpuwKpK3AxQ5inJrGgPU4Y';
const CON_BACKUP = 'con_eu_5YeFEYzGaApI3kuVbPqVEZ';
const PF = 'pf_eu_QXeS4zTmDEUKqCNc1zlaaX';
const ORC = 'orc_eu_R3vrLzbAxzZEdKNBmDJRMS';
const PM = 'pm_eu_b5X6X0CyavjZmBSTSsW8YZ';
const PM_OLD = 'pm_eu_US0IGB0qvTLmLD3H6Xgi01';
const TI = 'ti_eu_7UjvJdDn6nwqr1TYqmxEtf';
const AGR = 'agr_eu_1sPo7Rz3lY3CYGHMMyYbqQ';
const EVT = 'evt_eu_Pw0XmL5mlro2ektIKK7L8Y';
const EVT_2 = 'evt_eu_rFxVqIS7GF4hQJhCUN8DWo';
const CAT = 'cat_eu_a9oI5RSXvOnXcmv9gZ9AbY';
const CAT_CHILD = 'cat_eu_xKVptuIzxQ4dFAvj9nFRZK';
const ATTR = 'attr_eu_YmSmWp8IyFVGWCN0e7LV4R';
const VAL = 'val_eu_5uWOFA4xI4ILwmTK9z9lHJ';
const VAL_2 = 'val_eu_OtKwaWe9R6yqmufenvoGFD';
const PROD = 'prod_eu_DYtNrkROHy5JPwfDuK02ta';
const PROD_2 = 'prod_eu_b3MhfVPRdGiJSvnyAmQDCD';
const CTL = 'ctl_eu_sNlujyCEmerO4TgCMkWo8y';
const CART = 'cart_eu_bUlSqf58FuRnPEhPOVLsti';
const ADDR = 'addr_eu_oFKyOxDsBV0U6QtfU6zBV1';
const CHK = 'chk_eu_GU8CAG92s7IS35vIsdfGYJ';
const ORD = 'ord_eu_fOXGpa2nf1jYIYdw4j3HId';
const RET = 'ret_eu_MvUyDnW62NNUSLpmVNE0cp';
const API_KEY_ID = 'o7MXo9sO7dZz52jPy';
const API_KEY_ID_2 = 'xDd6rDmXTDSRNqRd3';
const SECRET_KEY = 'sk_eu_7hlT9fCZpS3hurH1b6n68UEJofJJcLZ1R5O0eT6uKYmKlTxn3tV5YfTJcx7k';
const PUBLISHABLE_KEY = 'pk_eu_tbrg9mz4hKh2s9rxyahCtIlQo56qmOp3VWQQpmhGaFaWlPc8nlEtLrEgKUKo';
const MIT_KEY = 'sk_eu_Cz7F0G3uGtjNrROj2YZXyn01eYmKibKpoguBoMbcgKcFqHaSxS781v8TW9jS';
const UUID_PI = 'e3af9f96-01dd-495c-9627-9c9beae7c091';
const UUID_CHECKOUT = '602005b0-61ee-41bc-ac53-8e0f01ff520d';
const UUID_REFUND = '19734508-661f-47da-b30a-0bb3a8452917';
const UUID_PAYOUT = '24055ecb-33de-45f2-b103-03f147a3e608';
const UUID_RECIPIENT = 'f07b65de-9b45-487c-84a2-81c0b6745d2a';
const CLIENT_SECRET = 'pics_ef2537f79388ae8c0e856631b316ba76550f1eddae102259c1495a5aaf7e9d65';
const REQUEST_ID = 'req_4fQm8ZtR2xKp9WbLc3Vd7N';

const payUrl = (id: string) => `${HOST}/pay/${id}?client_secret=${CLIENT_SECRET}`;
const error = (type: string, code: string, message: string, param?: string) => ({
  error: { type, code, message, ...(param ? { param } : {}), request_id: REQUEST_ID },
});

// Errors more than one example shows.
const INVALID_API_KEY = error('authentication_error', 'invalid_api_key', 'Invalid API key provided');
const SERVICE_UNAVAILABLE = error('api_error', 'service_unavailable', 'A dependency of the service is unavailable; retry later');
const ATTEMPT_IN_PROGRESS = error('invalid_request_error', 'attempt_in_progress', 'A payment attempt is still being processed; retry shortly');
const ALREADY_PAID = error('invalid_request_error', 'payment_intent_unexpected_state', 'This payment intent is paid (success) and can no longer be canceled');

const WEBHOOK = { url: 'https://daralqahwa.example/webhooks/payments', secret: 'whk_9fT2LmQ8xPz4Rk7V', events: ['payment.success', 'payment.canceled'] };
const WEBHOOK_ENDPOINT_DISABLED = {
  id: 'whe_5c0f3e9a1b7d24c68e0a9f1d3b5c7e29',
  url: WEBHOOK.url,
  state: 'disabled',
  created_at: '2026-06-02T08:15:00.000Z',
  last_success_at: '2026-08-10T08:59:12.000Z',
  failing_since: '2026-08-10T09:01:40.000Z',
  disabled_at: '2026-08-13T09:01:45.000Z',
  disabled_event: 'evt_eu_9d2c4b6a8e0f1a3c5e7b9d1f3a5c7e9b',
  enabled_at: '2026-06-02T08:15:00.000Z',
  enabled_by: null,
  parked: 14,
};

const intent = {
  payment_intent: PI,
  status: 'pending',
  amount: 2500,
  currency: 'EUR',
  url: payUrl(PI),
  expires_at: '2026-08-14T10:00:00.000Z',
  customer: CUS,
  created_at: '2026-08-14T09:30:00.000Z',
};

/** What a v202607/v202608 create answers: the intent, and whether this request made it. */
const intentCreated = (status: string, resource_created: boolean) => ({
  payment_intent: PI,
  status,
  amount: 2500,
  currency: 'EUR',
  url: payUrl(PI),
  expires_at: intent.expires_at,
  customer: CUS,
  resource_created,
});

const customer = {
  customer: CUS,
  reference: 'CRM-88213',
  first_name: 'Layla',
  last_name: 'Haddad',
  email: 'layla.haddad@example.com',
  phone_number: '+971 50 123 4567',
  test_clock: null,
  created_at: '2026-08-02T11:04:51.000Z',
};

const customerAddress = { line1: 'Marina Gate 2, Al Marsa Street', city: 'Dubai', country: 'AE' };
const customerWithAddress = { ...customer, address: customerAddress };

const savedCard = {
  payment_method: PM,
  customer: CUS,
  brand: 'visa',
  last4: '4242',
  exp_month: 12,
  exp_year: 2030,
  created_at: '2026-08-14T09:34:10.000Z',
};

const paymentMethods = {
  payment_form: null,
  payment_methods: [
    { name: 'card', title: 'Card', category: 'card', logo_url: `${HOST}/assets/payment-methods/card.svg`, favicon_url: `${HOST}/assets/payment-methods/card-favicon.svg` },
    {
      name: 'apple_pay',
      title: 'Apple Pay',
      category: 'wallet',
      logo_url: `${HOST}/assets/payment-methods/apple_pay.svg`,
      favicon_url: `${HOST}/assets/payment-methods/apple_pay-favicon.svg`,
    },
  ],
};
const formPaymentMethods = { payment_form: PF, payment_methods: paymentMethods.payment_methods.slice(0, 1) };

// GET /v202607/payment-forms[/...] is the listing of /v202607/payment-methods[/...] under its other name.
const checkoutMethods: OperationExample = { summary: 'What an unpinned checkout offers', response: { status: 200, body: paymentMethods } };
const formMethods: OperationExample = { summary: 'What a payment form offers', params: { payment_form: PF }, response: { status: 200, body: formPaymentMethods } };

const refund = {
  refund: RE,
  payment_intent: PI,
  status: 'success',
  amount: 500,
  currency: 'EUR',
  created_at: '2026-08-15T08:12:03.000Z',
  gateway_transaction_id: 'sbx_rf_81f2c0a94d',
};

const paymentSucceededEvent = {
  id: EVT,
  type: 'payment.success',
  created_at: '2026-08-14T09:34:12.000Z',
  data: { ...intent, status: 'success' },
};

const lineItems = [
  {
    name: 'قهوة عربية بالهيل ٢٥٠ غ (Cardamom Arabic coffee 250 g)',
    quantity: 2,
    price: 1250,
    image: 'https://cdn.daralqahwa.example/img/cardamom-250.jpg',
    category: 'coffee',
    slug: 'cardamom-arabic-coffee-250',
    url: 'https://daralqahwa.example/p/cardamom-arabic-coffee-250',
  },
];

const olderIntent = {
  payment_intent: UUID_PI,
  payment_intent_secret: 100482,
  amount: 2500,
  currency: 'EUR',
  status: 'pending',
  sub_status: 'pending_created',
  gateway: 'sandbox',
  human_friendly_payment_intent_secret: 'DQ-1042',
  payment_intent_timeout_seconds: 1800,
  final_success_url: 'https://daralqahwa.example/orders/1042/thanks',
  final_failure_url: 'https://daralqahwa.example/orders/1042/retry',
  initial_data: { payment_intent_id: PI_OLDER },
  payment_intent_date: '2026-08-14T09:30:00.000Z',
  feature_flag: null,
  tenant: { logo: null, favicon: null },
  tenant_initial_user_data: { phone_number: '+971 50 123 4567', email: 'layla.haddad@example.com', payment_intent_channel: 'checkout_intent', redirect_to: null },
  lg: 'ar',
  x_token_id: null,
  step_number: 1,
  last_reason: '',
  transaction_id: 731204,
  checkout_intent: UUID_CHECKOUT,
  line_items: lineItems,
};

const olderIntentRow = {
  ...olderIntent,
  checkout_intent_idempotency_key: 'order-1042',
  idempotency_key: 'order-1042',
  phone_number: '+971 50 123 4567',
  amount_paid_by_customer: 0,
  gateway_transaction_id: null,
  gateway_transaction_human_readable: null,
  created_at: '2026-08-14T09:30:00.000Z',
  updated_at: '2026-08-14T09:30:00.000Z',
};

const pageMeta = (sortBy: string[][], totalItems = 1) => ({
  meta: { itemsPerPage: 20, totalItems, currentPage: 1, totalPages: 1, sortBy },
});
const pageLinks = (path: string, query: string) => ({
  links: { first: `${path}?page=1&limit=20&${query}`, previous: null, current: `${path}?page=1&limit=20&${query}`, next: null, last: `${path}?page=1&limit=20&${query}` },
});

const checkoutIntent = {
  checkout_intent: UUID_CHECKOUT,
  status: 'open',
  amount: 2500,
  currency: 'EUR',
  gateways: [{ gateway: 'sandbox', payment_methods: ['card'] }],
  payment_intent: null,
  checkout_intent_idempotency_key: 'order-1042',
  human_friendly_payment_intent_secret: 'DQ-1042',
  final_success_url: 'https://daralqahwa.example/orders/1042/thanks',
  final_failure_url: 'https://daralqahwa.example/orders/1042/retry',
  lg: 'ar',
  line_items: lineItems,
  created_at: '2026-08-14T09:29:40.000Z',
};

const recipient = {
  id: 311,
  uuid: UUID_RECIPIENT,
  tenant_id: 42,
  gateway: 'sandbox',
  recipient_type: 'mobile_money',
  gateway_recipient_id: 'sbx_rcp_5c1d93ab70',
  bank_account_number: null,
  bank_account_name: null,
  bank_code: null,
  bank_name: null,
  mobile_money_number: '+233 24 123 4567',
  mobile_money_provider: 'MTN',
  name: 'Kwame Mensah',
  email: 'kwame.mensah@example.com',
  phone: '+233 24 123 4567',
  metadata: { supplier: 'beans-accra-07' },
  created_at: '2026-08-01T14:20:00.000Z',
  updated_at: '2026-08-01T14:20:02.000Z',
};

const payout = {
  id: 5120,
  uuid: UUID_PAYOUT,
  tenant_id: 42,
  recipient_uuid: UUID_RECIPIENT,
  recipient,
  gateway: 'sandbox',
  amount: 150000,
  currency: 'GHS',
  status: 'success',
  sub_status: 'success',
  gateway_payout_id: 'sbx_po_9e4b27c1d3',
  failure_reason: null,
  narration: 'Green coffee beans, lot 2026-07',
  metadata: { invoice: 'INV-2026-0718' },
  webhook_urls: ['https://daralqahwa.example/webhooks/payouts'],
  timeout_seconds: 259200,
  expires_at: '2026-08-17T10:00:00.000Z',
  late_outcome: null,
  idempotency_key: 'payout-inv-2026-0718',
  created_at: '2026-08-14T10:00:00.000Z',
  updated_at: '2026-08-14T10:00:04.000Z',
};

const title = (key: string, en: string, ar: string) => ({ key, en, ar });

const category = {
  id: CAT,
  title: title('coffee', 'Coffee', 'قهوة'),
  children: [{ id: CAT_CHILD, title: title('arabic-coffee', 'Arabic coffee', 'قهوة عربية') }],
  categoryAttributes: [
    {
      id: ATTR,
      title: title('roast', 'Roast', 'التحميص'),
      values: [
        { id: VAL, title: title('light', 'Light', 'فاتح') },
        { id: VAL_2, title: title('medium', 'Medium', 'متوسط') },
      ],
    },
  ],
};

const product = {
  id: PROD,
  sku: 'DQ-CARD-250',
  title: { en: 'Cardamom Arabic coffee 250 g', ar: 'قهوة عربية بالهيل ٢٥٠ غ' },
  price: 4500,
  currency: 'SAR',
  stock: 120,
  isInStock: true,
  ratingsAverage: 4.7,
  ratingsCount: 318,
  popularity: 912,
  categoryIds: [CAT_CHILD],
  attributes: { [ATTR]: [VAL] } as Record<string, string[]>,
  imageUrl: 'https://cdn.daralqahwa.example/img/cardamom-250.jpg',
};

const product2 = {
  id: PROD_2,
  sku: 'DQ-DALLAH-S',
  title: { en: 'Brass dallah, small', ar: 'دلة نحاسية صغيرة' },
  price: 18900,
  currency: 'SAR',
  stock: 14,
  isInStock: true,
  ratingsAverage: 4.9,
  ratingsCount: 41,
  popularity: 208,
  categoryIds: [CAT],
  attributes: {} as Record<string, string[]>,
  imageUrl: 'https://cdn.daralqahwa.example/img/dallah-small.jpg',
};

const address = {
  id: ADDR,
  phone: '+966 55 123 4567',
  additionalPhone: null,
  address: 'طريق الملك فهد، حي العليا، مبنى ١٢',
  additionalInfo: 'الطابق الثالث، شقة ٧',
  region: 'Riyadh Province',
  city: 'Riyadh',
};

const cartLine = (p: typeof product, quantity: number) => ({
  id: p.id,
  sku: p.sku,
  title: p.title,
  imageUrl: p.imageUrl,
  quantity,
  unitPrice: p.price,
  lineTotal: p.price * quantity,
});
// 2 x 45.00 + 1 x 189.00 = 279.00 SAR, VAT 15 %, free shipping from 200.00 SAR.
const cartTotals = { subtotal: 27900, tax: 4185, shipping: 0, total: 32085 };
const cart = {
  cartId: CART,
  userId: 'user_8841',
  status: 'open',
  checkoutId: null,
  currency: 'SAR',
  idempotencyKey: 'cart-user_8841-2026-08-14',
  totals: cartTotals,
  products: [cartLine(product, 2), cartLine(product2, 1)],
};

const orderLines = [
  { id: PROD, title: product.title, quantity: 2, unitPrice: 4500, lineTotal: 9000 },
  { id: PROD_2, title: product2.title, quantity: 1, unitPrice: 18900, lineTotal: 18900 },
];

const returnView = {
  id: RET,
  orderId: ORD,
  idempotencyKey: 'return-ord-1042-dallah',
  userId: 'user_8841',
  productId: PROD_2,
  product: { id: PROD_2, title: product2.title },
  status: 'requested',
  reasonCode: 'damaged',
  quantity: 1,
  address,
  amount: 21735,
  currency: 'SAR',
  refund: null,
  refundFailure: null,
  createdAt: '2026-08-20T16:02:11.000Z',
  updatedAt: '2026-08-20T16:02:11.000Z',
};

const signingSecret = {
  tenant: TENANT,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwDdwQ4PtUz6Y=',
  created_at: '2026-08-01T09:00:00.000Z',
  previous: [],
};

const commerceSettings = {
  tenant: TENANT,
  taxRateBasisPoints: 1500,
  shippingFlat: 2500,
  freeShippingFrom: 20000,
  webhook_urls: ['https://daralqahwa.example/webhooks/commerce'],
  webhook_secret_set: true,
  updatedAt: '2026-08-01T09:15:00.000Z',
};

// ---------------------------------------------------------------------------------------------------------

const REC_RUN = 'rec_eu_3kTqV9bXw0Jd2mLpR7sYcA';
const DSC = 'dsc_eu_8HfQ2nVb5LxKc1ZpW9sTdE';
const EVT_DSC = 'evt_eu_8HfQ2nVb5LxKc1ZpW9sTdE';

function reconciliationRun(status: 'running' | 'discrepancies') {
  const none = { missing_at_gateway: 0, missing_in_ledger: 0, amount_mismatch: 0, status_mismatch: 0 };
  const one = { ...none, amount_mismatch: 1 };
  const done = status !== 'running';
  return {
    run: REC_RUN,
    trigger: 'manual',
    operator: 'amina@ops.example',
    window: { from: '2026-11-22T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' },
    status,
    objects: done
      ? [
          { object: 'capture', ledger_rows: 412, report_rows: 415, matched: 412, opened: one, already_open: 0, rechecked: 0, awaiting_recheck: 0, sample: [DSC] },
          { object: 'refund', ledger_rows: 37, report_rows: 37, matched: 37, opened: none, already_open: 0, rechecked: 2, awaiting_recheck: 1, sample: [] },
          { object: 'payout', ledger_rows: 9, report_rows: 9, matched: 9, opened: none, already_open: 0, rechecked: 0, awaiting_recheck: 0, sample: [] },
        ]
      : [],
    opened: done ? one : none,
    already_open: 0,
    started_at: '2026-11-23T08:00:00.000Z',
    finished_at: done ? '2026-11-23T08:00:04.000Z' : null,
    error: null,
  };
}

function discrepancy(resolution: { operator: string; reason: string; resolved_at: string } | null) {
  return {
    id: DSC,
    object: 'discrepancy',
    kind: 'amount_mismatch',
    object_type: 'capture',
    our_id: PI,
    gateway: 'sandbox',
    gateway_id: 'ch_5f1c2d3e4a5b6c7d8e9f0a1b',
    reference: PI,
    tenant: TENANT,
    ours: { amount: 2500, currency: 'EUR', status: 'success' },
    gateway_side: { amount: 2400, currency: 'EUR', status: 'succeeded' },
    run_id: REC_RUN,
    window: { from: '2026-11-22T00:00:00.000Z', to: '2026-11-23T00:00:00.000Z' },
    status: resolution ? 'resolved' : 'open',
    event: EVT_DSC,
    resolution,
    created_at: '2026-11-23T08:00:02.000Z',
  };
}

export const EXAMPLES: Record<string, OperationExample> = {
  // Operations ------------------------------------------------------------------------------------------
  'GET /healthz': { summary: 'Is the process up?', response: { status: 200, body: { status: 'ok' } } },
  'GET /readyz': {
    summary: 'Can it serve?',
    response: { status: 200, body: { status: 'ready', checks: { mongodb: true, temporal: true, worker: true } } },
    more: [{ status: 503, summary: 'No worker is polling', body: { status: 'not_ready', checks: { mongodb: true, temporal: true, worker: false } } }],
  },
  'GET /metrics': {
    summary: 'Scrape the metrics',
    response: {
      status: 200,
      contentType: 'text/plain',
      body: [
        '# HELP http_requests_total HTTP requests by method, route and status',
        '# TYPE http_requests_total counter',
        'http_requests_total{method="POST",route="/payment-intents",status="201"} 1873',
        'http_requests_total{method="GET",route="/payment-intents/:payment_intent",status="200"} 5520',
      ].join('\n'),
    },
  },

  // Admin -----------------------------------------------------------------------------------------------
  'POST /admin/tenants': {
    summary: 'Create a tenant in the eu region',
    body: { name: 'Dar Al Qahwa', region: 'eu', payout_timeout_seconds: 259200 },
    response: { status: 201, body: { tenant: TENANT, tenant_id: 42, secret_key: SECRET_KEY, publishable_key: PUBLISHABLE_KEY } },
    more: [{ status: 400, summary: 'A region this deployment does not serve', body: error('invalid_request_error', 'region_invalid', "Unknown region 'ap'; served: eu, us", 'region') }],
  },
  'GET /admin/tenants/:tenant': {
    summary: 'Read a tenant and what it is set up with',
    params: { tenant: TENANT },
    response: {
      status: 200,
      body: {
        tenant: TENANT,
        tenant_id: 42,
        name: 'Dar Al Qahwa',
        region: 'eu',
        created_at: '2026-08-01T09:00:00.000Z',
        api_keys: [
          { api_key: API_KEY_ID, kind: 'secret', claims: [], revoked: false },
          { api_key: API_KEY_ID_2, kind: 'secret', claims: ['cards.mit'], revoked: false },
        ],
        connectors: [{ connector: CON, gateway: 'sandbox', live: true, payment_methods: ['card', 'apple_pay'], payouts: true, created_at: '2026-08-01T09:01:00.000Z' }],
        payment_forms: [{ payment_form: PF, connectors: [CON], payment_methods: ['card'], default: true, live: true, created_at: '2026-08-01T09:02:00.000Z' }],
        orchestrators: [{ orchestrator: ORC, connectors: [CON, CON_BACKUP], strategy: 'priority', live: true, default: false, created_at: '2026-08-01T09:03:00.000Z' }],
      },
    },
  },
  'POST /admin/tenants/:tenant/api-keys': {
    summary: 'Issue a secret key that may charge saved cards',
    params: { tenant: TENANT },
    body: { kind: 'secret', claims: ['cards.mit'], operator: 'nadia@ops.example', reason: 'subscriptions go live' },
    response: { status: 201, body: { api_key: API_KEY_ID_2, secret_key: MIT_KEY, claims: ['cards.mit'] } },
  },
  'POST /admin/tenants/:tenant/api-keys/:api_key/revoke': {
    summary: 'Revoke a key',
    params: { tenant: TENANT, api_key: API_KEY_ID },
    body: { operator: 'nadia@ops.example', reason: 'the key was pasted into a support ticket' },
    response: { status: 200, body: { api_key: API_KEY_ID, revoked: true } },
  },
  'POST /admin/tenants/:tenant/connectors': {
    summary: 'Connect the sandbox gateway for cards, Apple Pay and payouts',
    params: { tenant: TENANT },
    body: { gateway: 'sandbox', live: true, payment_methods: ['card', 'apple_pay'], payouts: true },
    response: { status: 201, body: { connector: CON } },
  },
  'POST /admin/tenants/:tenant/payment-forms': {
    summary: 'A default form offering cards only',
    params: { tenant: TENANT },
    body: { connectors: [CON], payment_methods: ['card'], default: true, live: true },
    response: { status: 201, body: { payment_form: PF } },
  },
  'POST /admin/tenants/:tenant/orchestrators': {
    summary: 'Fail over from one connector to a backup',
    params: { tenant: TENANT },
    body: { connectors: [CON, CON_BACKUP], strategy: 'priority', live: true, default: false },
    response: { status: 201, body: { orchestrator: ORC } },
  },
  'GET /admin/tenants/:tenant/webhook-signing-secret': {
    summary: "Read the tenant's webhook signing secret",
    params: { tenant: TENANT },
    response: { status: 200, body: signingSecret },
  },
  'POST /admin/tenants/:tenant/webhook-signing-secret/rotate': {
    summary: 'Rotate it (the old one signs beside it for 24 hours)',
    params: { tenant: TENANT },
    body: { idempotency_key: 'rotate-2026-08-14-incident-4411' },
    response: {
      status: 200,
      body: { tenant: TENANT, secret: 'whsec_3q0S6mUjN4bWvE9pXr2tYkLcA8dHfG1iZo5uQ7wBn0M=', created_at: '2026-08-14T12:00:00.000Z', previous: [{ expires_at: '2026-08-15T12:00:00.000Z' }] },
    },
    more: [
      {
        status: 409,
        summary: 'Two rotations at the same time',
        body: error('invalid_request_error', 'webhook_signing_secret_conflict', `the webhook signing secret of ${TENANT} is being rotated by another request`),
      },
      {
        status: 409,
        summary: 'A fourth rotation within 24 hours',
        body: error(
          'invalid_request_error',
          'webhook_signing_secret_rotation_limit',
          `The webhook signing secret of ${TENANT} has been rotated 3 times within 24 hours: at most 3 previous secrets sign beside the current one. The oldest of them expires at 2026-08-15T09:00:00.000Z; rotate again from then`,
        ),
      },
    ],
  },
  'GET /admin/tenants/:tenant/webhook-endpoints': {
    summary: "The tenant's endpoints: one disabled after 3 days of failures",
    params: { tenant: TENANT },
    response: { status: 200, body: { data: [WEBHOOK_ENDPOINT_DISABLED] } },
  },
  'POST /admin/tenants/:tenant/webhook-endpoints/:endpoint/enable': {
    summary: 'Re-enable it once the merchant fixed it, replaying what it missed',
    params: { tenant: TENANT, endpoint: WEBHOOK_ENDPOINT_DISABLED.id },
    body: { operator: 'nadia@ops.example', reason: 'Merchant fixed their TLS certificate (ticket OPS-2291)', replay_missed: true },
    response: {
      status: 200,
      body: {
        endpoint: {
          ...WEBHOOK_ENDPOINT_DISABLED,
          state: 'enabled',
          failing_since: null,
          enabled_at: '2026-08-14T12:00:00.000Z',
          enabled_by: { operator: 'nadia@ops.example', reason: 'Merchant fixed their TLS certificate (ticket OPS-2291)' },
          parked: 0,
        },
        replayed: [`${EVT_2}-0-replay-8b1e0d7c2a9f4e33`],
      },
    },
    more: [{ status: 409, summary: 'It is not disabled', body: error('invalid_request_error', 'webhook_endpoint_not_disabled', `The endpoint ${WEBHOOK_ENDPOINT_DISABLED.id} is not disabled`) }],
  },
  'POST /admin/tenants/:tenant/categories': {
    summary: 'A category with a subcategory attribute (roast)',
    params: { tenant: TENANT },
    body: {
      title: title('coffee', 'Coffee', 'قهوة'),
      parentId: null,
      categoryAttributes: [
        { title: title('roast', 'Roast', 'التحميص'), values: [{ title: title('light', 'Light', 'فاتح') }, { title: title('medium', 'Medium', 'متوسط') }] },
      ],
    },
    response: { status: 201, body: { ...category, children: [] } },
  },
  'POST /admin/tenants/:tenant/products': {
    summary: 'Add a product priced in SAR halalas',
    params: { tenant: TENANT },
    body: {
      sku: 'DQ-CARD-250',
      title: { en: 'Cardamom Arabic coffee 250 g', ar: 'قهوة عربية بالهيل ٢٥٠ غ' },
      price: 4500,
      currency: 'SAR',
      stock: 120,
      categoryIds: [CAT_CHILD],
      attributes: { [ATTR]: [VAL] },
      imageUrl: 'https://cdn.daralqahwa.example/img/cardamom-250.jpg',
    },
    response: { status: 201, body: { id: PROD } },
    more: [{ status: 409, summary: 'The sku is taken', body: error('invalid_request_error', 'sku_taken', "This tenant already has a product with sku 'DQ-CARD-250'", 'sku') }],
  },
  'PATCH /admin/tenants/:tenant/products/:id': {
    summary: 'Change the price and the stock',
    params: { tenant: TENANT, id: PROD },
    body: { price: 4200, stock: 96 },
    response: { status: 200, body: { ...product, price: 4200, stock: 96, onHand: 96, held: 0, oversold: 0, heldPastOnHand: 0 } },
  },
  'POST /admin/tenants/:tenant/catalogs': {
    summary: 'A curated catalog for the Ramadan season',
    params: { tenant: TENANT },
    body: { title: { en: 'Ramadan favourites', ar: 'مختارات رمضان' }, tags: ['ramadan', 'gifts'], productIds: [PROD, PROD_2] },
    response: { status: 201, body: { id: CTL } },
  },
  'PUT /admin/tenants/:tenant/commerce-settings': {
    summary: 'VAT 15 %, 25.00 SAR shipping, free from 200.00 SAR',
    params: { tenant: TENANT },
    body: {
      taxRateBasisPoints: 1500,
      shippingFlat: 2500,
      freeShippingFrom: 20000,
      webhook_urls: ['https://daralqahwa.example/webhooks/commerce'],
      webhook_secret: 'whk_C0mm3rc3S3cr3t',
    },
    response: { status: 200, body: commerceSettings },
  },
  'GET /admin/tenants/:tenant/commerce-settings': {
    summary: "Read the tenant's commerce settings",
    params: { tenant: TENANT },
    response: { status: 200, body: commerceSettings },
  },

  // Reconciliation (api/admin/reconciliation.ts) --------------------------------------------------------------
  'POST /admin/reconciliation/runs': {
    summary: 'Reconcile 22 November 2026 again after a gateway incident',
    body: { from: '2026-11-22T00:00:00Z', to: '2026-11-23T00:00:00Z', operator: 'amina@ops.example', reason: 'gateway incident INC-311' },
    response: { status: 202, body: reconciliationRun('running') },
    more: [{ status: 400, summary: 'A window longer than 31 days', body: error('invalid_request_error', 'parameter_invalid', 'Invalid window: a window is at most 31 days', 'to') }],
  },
  'GET /admin/reconciliation/runs/:run': {
    summary: 'Read the run: one capture was settled for less',
    params: { run: REC_RUN },
    response: { status: 200, body: reconciliationRun('discrepancies') },
    more: [{ status: 404, summary: 'No such run', body: error('invalid_request_error', 'resource_missing', "No such reconciliation run: 'rec_eu_unknown00'", 'run') }],
  },
  'GET /admin/reconciliation/discrepancies': {
    summary: "Open discrepancies of one tenant",
    query: { tenant: TENANT, status: 'open', limit: '25' },
    response: { status: 200, body: { data: [discrepancy(null)], has_more: false } },
  },
  'GET /admin/reconciliation/discrepancies/:discrepancy': {
    summary: 'Read a discrepancy',
    params: { discrepancy: DSC },
    response: { status: 200, body: discrepancy(null) },
    more: [{ status: 404, summary: 'Unknown discrepancy', body: error('invalid_request_error', 'resource_missing', "No such discrepancy: 'dsc_eu_unknown000'", 'discrepancy') }],
  },
  'POST /admin/reconciliation/discrepancies/:discrepancy/resolve': {
    summary: 'Resolve it: the gateway corrected its report',
    params: { discrepancy: DSC },
    body: { operator: 'amina@ops.example', reason: 'gateway confirmed 2500 settled, report corrected (ticket GW-8841)' },
    response: { status: 200, body: discrepancy({ operator: 'amina@ops.example', reason: 'gateway confirmed 2500 settled, report corrected (ticket GW-8841)', resolved_at: '2026-11-23T09:30:00.000Z' }) },
    more: [{ status: 409, summary: 'Already resolved', body: error('invalid_request_error', 'discrepancy_already_resolved', `Discrepancy ${DSC} was already resolved by amina@ops.example`) }],
  },

  // Payment intents (v202607, v202608) ---------------------------------------------------------------------
  'POST /v202607/payment-intents': {
    summary: 'Collect 25.00 EUR for order 1042',
    body: {
      amount: 2500,
      currency: 'EUR',
      idempotency_key: 'order-1042',
      customer: CUS,
      metadata: { order_id: '1042' },
      return_url: 'https://daralqahwa.example/orders/1042/thanks',
      webhooks: [WEBHOOK],
    },
    response: {
      status: 201,
      body: intentCreated('pending', true),
    },
    more: [
      {
        status: 200,
        summary: 'The same idempotency_key again: the intent it made, as it is now',
        body: intentCreated('success', false),
      },
      { status: 400, summary: 'An amount that is not in minor units', body: error('invalid_request_error', 'parameter_invalid', 'Invalid amount: an integer in minor units', 'amount') },
      { status: 401, summary: 'No key, or an unknown one', body: INVALID_API_KEY },
    ],
  },
  'POST /v202608/payment-intents': {
    summary: 'Pin the payment to a form, and offer to save the card',
    body: {
      amount: 2500,
      currency: 'EUR',
      idempotency_key: 'order-1043',
      customer: {
        reference: 'CRM-88213',
        first_name: 'Layla',
        last_name: 'Haddad',
        email: 'layla.haddad@example.com',
        address: { line1: 'Office 1204, Boulevard Plaza Tower 1', city: 'Dubai', country: 'AE' },
      },
      payment_form: PF,
      setup_future_usage: 'off_session',
      return_url: 'https://daralqahwa.example/orders/1043/thanks',
      webhooks: [WEBHOOK],
    },
    response: {
      status: 201,
      body: intentCreated('pending', true),
    },
    more: [
      {
        status: 200,
        summary: 'The same idempotency_key again: the intent it made, as it is now',
        body: intentCreated('pending', false),
      },
      {
        status: 400,
        summary: 'More than one pin',
        body: error('invalid_request_error', 'pin_conflict', 'Give at most one of payment_form, orchestrator, connector (got payment_form, connector)', 'connector'),
      },
    ],
  },
  'GET /v202607/payment-intents': {
    summary: 'The paid intents of one customer, ten at a time',
    query: { limit: '10', status: 'success', customer: CUS },
    response: {
      status: 200,
      body: {
        data: [
          { payment_intent: PI, status: 'success', amount: 2500, currency: 'EUR', customer: CUS, created_at: '2026-08-14T09:30:00.000Z' },
          { payment_intent: PI_SUBSCRIPTION, status: 'success', amount: 1900, currency: 'EUR', customer: CUS, created_at: '2026-07-14T09:00:00.000Z' },
        ],
        has_more: false,
      },
    },
  },
  'GET /v202607/payment-intents/:payment_intent': {
    summary: 'Retrieve a paid intent',
    params: { payment_intent: PI },
    response: { status: 200, body: { ...intent, status: 'success' } },
    more: [{ status: 404, summary: 'Unknown id', body: error('invalid_request_error', 'resource_missing', `No such payment_intent: 'pi_eu_0000000000000000000000'`, 'payment_intent') }],
  },
  'GET /v202608/payment-intents/:payment_intent': {
    summary: 'Retrieve a paid intent: the card it saved and the connector that took it',
    params: { payment_intent: PI },
    response: { status: 200, body: { ...intent, status: 'success', payment_method: PM, connector: CON, setup_future_usage: 'off_session' } },
  },
  'POST /v202607/payment-intents/:payment_intent/cancel': {
    summary: 'Cancel an unpaid intent',
    params: { payment_intent: PI },
    response: { status: 200, body: { ...intent, status: 'canceled' } },
    more: [{ status: 409, summary: 'Already paid', body: ALREADY_PAID }],
  },
  'POST /v202607/payment-intents/:payment_intent/attempts': {
    summary: 'Pay with a card token (what the hosted page does, with the publishable key)',
    params: { payment_intent: PI },
    body: { token: 'tok_sbx_4Jq8wT2mZr9xLp', save_payment_method: true },
    response: {
      status: 200,
      summary: '3-D Secure is needed: send the customer to next_action.url',
      body: { payment_intent: PI, status: 'requires_action', next_action: { type: 'redirect_to_url', url: 'https://sandbox.payments.example.com/3ds/ch_81b2f0c3?return=pay' } },
    },
    more: [
      { status: 200, summary: 'Paid, and the card saved', body: { payment_intent: PI, status: 'success', payment_method_uuid: PM } },
      { status: 200, summary: 'Declined', body: { payment_intent: PI, status: 'failed', failure_code: 'insufficient_funds' } },
      { status: 409, summary: 'Another attempt is still running', body: ATTEMPT_IN_PROGRESS },
    ],
  },

  // Customers -----------------------------------------------------------------------------------------------
  'POST /v202607/customers': {
    summary: 'Create a customer with your CRM reference',
    body: { reference: 'CRM-88213', first_name: 'Layla', last_name: 'Haddad', email: 'layla.haddad@example.com', phone_number: '+971 50 123 4567' },
    response: { status: 201, body: { ...customer, resource_created: true } },
    more: [{ status: 200, summary: 'That reference exists: the customer is updated', body: { ...customer, resource_created: false } }],
  },
  'GET /v202607/customers': {
    summary: 'Find a customer by email',
    query: { email: 'layla.haddad@example.com', limit: '10' },
    response: { status: 200, body: { data: [customer], has_more: false } },
  },
  'GET /v202607/customers/:customer': {
    summary: 'Retrieve a customer',
    params: { customer: CUS },
    response: { status: 200, body: customer },
  },
  'POST /v202607/customers/:customer': {
    summary: 'Update a phone number',
    params: { customer: CUS },
    body: { phone_number: '+971 55 987 6543' },
    response: { status: 200, body: { ...customer, phone_number: '+971 55 987 6543' } },
  },
  'POST /v202608/customers': {
    summary: 'Create a customer with a billing address',
    body: { reference: 'CRM-88213', first_name: 'Layla', last_name: 'Haddad', email: 'layla.haddad@example.com', address: customerAddress },
    response: { status: 201, body: { ...customerWithAddress, resource_created: true } },
    more: [{ status: 200, summary: 'That reference exists: the customer is updated', body: { ...customerWithAddress, resource_created: false } }],
  },
  'GET /v202608/customers': {
    summary: 'Find a customer by reference',
    query: { reference: 'CRM-88213' },
    response: { status: 200, body: { data: [customerWithAddress], has_more: false } },
  },
  'GET /v202608/customers/:customer': {
    summary: 'Retrieve a customer, with its address',
    params: { customer: CUS },
    response: { status: 200, body: customerWithAddress },
  },
  'POST /v202608/customers/:customer': {
    summary: 'Change one line of the address (the other fields stay)',
    params: { customer: CUS },
    body: { address: { line2: 'Apartment 1203' } },
    response: { status: 200, body: { ...customerWithAddress, address: { ...customerAddress, line2: 'Apartment 1203' } } },
  },
  'DELETE /v202607/customers/:customer': {
    summary: 'Delete a customer',
    params: { customer: CUS_2 },
    response: { status: 200, body: { customer: CUS_2, deleted: true } },
  },
  'GET /v202608/customers/:customer/payment-methods': {
    summary: "A customer's saved cards",
    params: { customer: CUS },
    query: { limit: '10' },
    response: { status: 200, body: { data: [savedCard], has_more: false } },
  },
  'DELETE /v202608/customers/:customer/payment-methods/:payment_method': {
    summary: 'Detach a saved card',
    params: { customer: CUS, payment_method: PM_OLD },
    response: {
      status: 200,
      body: { ...savedCard, payment_method: PM_OLD, brand: 'mastercard', last4: '4444', exp_month: 3, exp_year: 2027, created_at: '2026-03-02T18:40:00.000Z', detached: true },
    },
  },

  // Payment methods -----------------------------------------------------------------------------------------
  'GET /v202607/payment-methods': checkoutMethods,
  'GET /v202607/payment-methods/:payment_form': formMethods,
  'GET /v202607/payment-forms': checkoutMethods,
  'GET /v202607/payment-forms/:payment_form': formMethods,

  // Refunds ---------------------------------------------------------------------------------------------------
  'POST /v202607/refunds': {
    summary: 'Refund 5.00 EUR of a 25.00 EUR payment',
    body: {
      payment_intent: PI,
      amount: 500,
      currency: 'EUR',
      idempotency_key: 'refund-1042-1',
      webhooks: [{ url: 'https://daralqahwa.example/webhooks/refunds', secret: 'whk_9fT2LmQ8xPz4Rk7V', events: ['refund.success', 'refund.canceled'] }],
    },
    response: {
      status: 201,
      body: { refund: RE, payment_intent: PI, status: 'pending', amount: 500, currency: 'EUR', refundable_amount_left: 2000, resource_created: true },
    },
    more: [
      {
        status: 200,
        summary: 'The same idempotency_key again: the refund it made',
        body: { refund: RE, payment_intent: PI, status: 'success', amount: 500, currency: 'EUR', refundable_amount_left: 2000, resource_created: false },
      },
      {
        status: 400,
        summary: 'More than is left to refund',
        body: error('invalid_request_error', 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT', 'Refund amount 2500 exceeds the refundable balance 2000', 'amount'),
      },
    ],
  },
  'GET /v202607/refunds': {
    summary: 'The refunds of one payment intent',
    query: { payment_intent: PI, limit: '10' },
    response: {
      status: 200,
      body: {
        data: [
          { refund: RE_2, payment_intent: PI, status: 'pending', amount: 700, currency: 'EUR', created_at: '2026-08-16T10:00:00.000Z' },
          { refund: RE, payment_intent: PI, status: 'success', amount: 500, currency: 'EUR', created_at: '2026-08-15T08:12:03.000Z' },
        ],
        has_more: false,
      },
    },
  },
  'GET /v202607/refunds/:refund': {
    summary: 'Retrieve a refund',
    params: { refund: RE },
    response: { status: 200, body: refund },
  },

  // Events ----------------------------------------------------------------------------------------------------
  'GET /v202607/events': {
    summary: 'The payment.success events of the last days',
    query: { type: 'payment.success', limit: '10' },
    response: { status: 200, body: { data: [paymentSucceededEvent], has_more: false } },
  },
  'GET /v202607/events/:event': {
    summary: 'An event and its delivery attempts',
    params: { event: EVT },
    response: {
      status: 200,
      body: {
        ...paymentSucceededEvent,
        deliveries: [
          {
            url: WEBHOOK.url,
            attempts: [
              {
                delivery: `${EVT}-0`,
                attempt: 1,
                attempted_at: '2026-08-14T09:34:12.000Z',
                url: WEBHOOK.url,
                status_code: 503,
                latency_ms: 212,
                error: 'HTTP 503',
                outcome: 'failed',
              },
              {
                delivery: `${EVT}-0`,
                attempt: 2,
                attempted_at: '2026-08-14T09:35:12.000Z',
                url: WEBHOOK.url,
                status_code: 200,
                latency_ms: 87,
                error: null,
                outcome: 'delivered',
              },
            ],
            parked: false,
          },
        ],
      },
    },
  },
  'POST /v202607/events/:event/redeliver': {
    summary: 'Send an event to one endpoint again',
    params: { event: EVT_2 },
    body: { url: WEBHOOK.url },
    response: { status: 202, body: { event: EVT_2, deliveries: [`${EVT_2}-0-redeliver-1`] } },
    more: [
      { status: 400, summary: 'Not an endpoint of this event', body: error('invalid_request_error', 'parameter_invalid', `'https://daralqahwa.example/hooks' is not an endpoint of event ${EVT_2}`, 'url') },
      {
        status: 409,
        summary: 'The endpoint is disabled',
        body: error('invalid_request_error', 'webhook_endpoint_disabled', `The endpoint ${WEBHOOK.url} is disabled: deliveries to it are parked until an admin re-enables it`),
      },
    ],
  },
  'POST /v202607/events/replay': {
    summary: 'Send the endpoint every event since Monday 09:00 again (after its outage)',
    body: { url: WEBHOOK.url, since: '2026-08-10T09:00:00Z' },
    response: {
      status: 202,
      body: {
        url: WEBHOOK.url,
        since: '2026-08-10T09:00:00.000Z',
        deliveries: [`${EVT_2}-0-replay-3f9a1c2b7d4e5f60`],
        already_started: 0,
        has_more: false,
        next_since: null,
        next_starting_after: null,
      },
    },
    more: [
      { status: 400, summary: 'Too far back', body: error('invalid_request_error', 'parameter_invalid', 'since may be at most 30 days ago', 'since') },
      { status: 400, summary: 'An unknown cursor', body: error('invalid_request_error', 'resource_missing', "No such event: 'evt_eu_0000000000000000'", 'starting_after') },
      {
        status: 409,
        summary: 'The endpoint is disabled',
        body: error('invalid_request_error', 'webhook_endpoint_disabled', `The endpoint ${WEBHOOK.url} is disabled: deliveries to it are parked until an admin re-enables it`),
      },
    ],
  },

  // Saved cards -----------------------------------------------------------------------------------------------
  'POST /cards/mit': {
    summary: "Charge Layla's saved card for this month's subscription",
    body: { payment_intent_secret: PI_SUBSCRIPTION, payment_method_uuid: PM, agreement_id: 'sub-2026-monthly-88213', agreement_type: 'RECURRING' },
    response: { status: 200, body: { code: 'ok', transaction_uuid: TI } },
    more: [
      { status: 409, summary: 'Another attempt of this intent is running', body: ATTEMPT_IN_PROGRESS },
      { status: 202, summary: 'The gateway has not answered yet', body: { code: 'PROCESSING', transaction_uuid: TI } },
      {
        status: 402,
        summary: 'Declined by the issuer',
        body: {
          error: {
            type: 'card_error',
            code: 'card_declined',
            message: 'The card was declined (insufficient_funds); the payment intent stays pending',
            decline_code: 'insufficient_funds',
            transaction_uuid: TI,
            request_id: REQUEST_ID,
          },
        },
      },
      {
        status: 403,
        summary: 'A key without the cards.mit claim',
        body: error('permission_error', 'missing_claim', "Charging a saved card needs a secret key with the claim 'cards.mit'"),
      },
    ],
  },
  'GET /v202608/transactions/:transaction': {
    summary: 'How a merchant-initiated charge stands',
    params: { transaction: TI },
    response: {
      status: 200,
      body: {
        transaction: TI,
        object: 'transaction',
        kind: 'merchant_initiated',
        payment_intent: PI_SUBSCRIPTION,
        status: 'succeeded',
        amount: 1900,
        currency: 'EUR',
        payment_method: PM,
        agreement: { agreement: AGR, agreement_id: 'sub-2026-monthly-88213', agreement_type: 'RECURRING' },
        connector: CON,
        failure_code: null,
        next_action: null,
        created_at: '2026-09-14T06:00:00.000Z',
        updated_at: '2026-09-14T06:00:02.000Z',
      },
    },
  },

  // Older interface -------------------------------------------------------------------------------------------
  'POST /payment-intents': {
    summary: 'Create an intent under a checkout intent, for the sandbox gateway',
    body: { gateway: 'sandbox', checkout_intent: UUID_CHECKOUT, lg: 'ar' },
    response: { status: 201, body: { payment_intent: UUID_PI, resource_created: true, target_url: payUrl(PI_OLDER) } },
    more: [
      { status: 200, summary: 'The same checkout intent and gateway again: the intent already made', body: { payment_intent: UUID_PI, resource_created: false, target_url: payUrl(PI_OLDER) } },
      { status: 409, summary: 'The checkout intent is already paid', body: error('invalid_request_error', 'checkout_intent_completed', 'This checkout intent has already been paid') }],
  },
  'POST /v202606/payment-intents': {
    summary: 'Create an intent without choosing a gateway; the customer by your merchant_id',
    body: {
      amount: 2500,
      currency: 'EUR',
      idempotency_key: 'order-1042',
      customer: { merchant_id: 'CRM-88213', first_name: 'Layla', last_name: 'Haddad', email: 'layla.haddad@example.com' },
      final_success_url: 'https://daralqahwa.example/orders/1042/thanks',
      final_failure_url: 'https://daralqahwa.example/orders/1042/retry',
      webhook_urls: ['https://daralqahwa.example/webhooks/older'],
      webhook_secret: 'whk_9fT2LmQ8xPz4Rk7V',
    },
    response: { status: 201, body: { payment_intent: UUID_PI, payment_intent_created: true, customer: { customer: CUS, merchant_id: 'CRM-88213', created: false } } },
    more: [
      { status: 200, summary: 'The same idempotency_key again', body: { payment_intent: UUID_PI, payment_intent_created: false, customer: { customer: CUS, merchant_id: 'CRM-88213', created: false } } },
    ],
  },
  'GET /payment-intents': {
    summary: 'Paid intents, largest first',
    query: { 'filter.status': '$eq:success', sortBy: 'amount:DESC', limit: '20', page: '1' },
    response: {
      status: 200,
      body: {
        data: [{ ...olderIntentRow, status: 'success', sub_status: 'success', step_number: 4, amount_paid_by_customer: 2500, gateway_transaction_id: 'sbx_ch_7a1c9e02b4', gateway_transaction_human_readable: 'SBX-7A1C9E' }],
        ...pageMeta([['amount', 'DESC']]),
        ...pageLinks('/payment-intents', 'sortBy=amount:DESC&filter.status=$eq:success'),
      },
    },
  },
  'GET /payment-intents/:payment_intent': {
    summary: 'Retrieve an intent by UUID (also by pi_ id or integer secret)',
    params: { payment_intent: UUID_PI },
    response: { status: 200, body: olderIntent },
  },
  'PUT /payment-intents/:payment_intent/cancel': {
    summary: 'Cancel an intent',
    params: { payment_intent: UUID_PI },
    response: { status: 200, body: { ...olderIntent, status: 'canceled', sub_status: 'canceled_requested', last_reason: null } },
    more: [
      { status: 409, summary: 'Already paid', body: ALREADY_PAID },
    ],
  },
  'POST /checkout-intents': {
    summary: 'Group the payments of order 1042, shown in Arabic',
    body: {
      amount: 2500,
      currency: 'EUR',
      checkout_intent_idempotency_key: 'order-1042',
      gateways: ['sandbox'],
      human_friendly_payment_intent_secret: 'DQ-1042',
      final_success_url: 'https://daralqahwa.example/orders/1042/thanks',
      final_failure_url: 'https://daralqahwa.example/orders/1042/retry',
      lg: 'ar',
      line_items: lineItems,
      webhook_urls: ['https://daralqahwa.example/webhooks/older'],
    },
    response: { status: 201, body: { ...checkoutIntent, resource_created: true } },
    more: [
      { status: 200, summary: 'The same checkout_intent_idempotency_key again', body: { ...checkoutIntent, resource_created: false } },
    ],
  },
  'GET /checkout-intents/:checkout_intent': {
    summary: 'Retrieve a checkout intent once paid',
    params: { checkout_intent: UUID_CHECKOUT },
    response: { status: 200, body: { ...checkoutIntent, status: 'completed', payment_intent: UUID_PI } },
  },
  'GET /gateways': {
    summary: 'The gateways your live connectors offer',
    response: { status: 200, body: { data: [{ gateway: 'sandbox', payment_methods: ['card', 'apple_pay'] }] } },
  },
  'POST /refunds': {
    summary: "Refund 5.00 EUR of a payment, by its transaction_id",
    body: { transaction_id: 731204, amount: 500, currency: 'EUR', checkout_intent_idempotency_key: 'refund-1042-1', webhook_urls: ['https://daralqahwa.example/webhooks/older'] },
    response: { status: 201, body: { refund_id: 90817, refundable_amount_left: 2000, resource_created: true } },
    more: [
      { status: 200, summary: 'The same checkout_intent_idempotency_key again: the refund it made', body: { refund_id: 90817, refundable_amount_left: 2000, resource_created: false } },
      { status: 400, summary: 'The payment did not succeed', body: error('invalid_request_error', 'REFUND_TX_MUST_BE_SUCCESSFUL', 'The payment intent has no successful payment', 'transaction_id') }],
  },
  'GET /refunds': {
    summary: 'One refund by its integer id',
    query: { 'filter.id': '$eq:90817' },
    response: {
      status: 200,
      body: {
        data: [
          {
            id: 90817,
            uuid: UUID_REFUND,
            amount: 500,
            currency: 'EUR',
            status: 'success',
            sub_status: 'success',
            checkout_intent_idempotency_key: 'refund-1042-1',
            gateway_transaction_id: 'sbx_rf_81f2c0a94d',
            gateway_transaction_human_readable: 'SBX-RF-81F2',
            gateway: 'sandbox',
            transaction_id: 731204,
            payment_intent: UUID_PI,
            created_at: '2026-08-15T08:12:03.000Z',
            updated_at: '2026-08-15T08:12:09.000Z',
            succeeded_at: '2026-08-15T08:12:09.000Z',
          },
        ],
        ...pageMeta([['id', 'DESC']]),
        ...pageLinks('/refunds', 'sortBy=id:DESC&filter.id=$eq:90817'),
      },
    },
  },

  // Payouts ---------------------------------------------------------------------------------------------------
  'POST /payouts': {
    summary: 'Pay 1,500.00 GHS to a registered recipient',
    body: {
      amount: 150000,
      currency: 'GHS',
      gateway: 'sandbox',
      recipient_uuid: UUID_RECIPIENT,
      narration: 'Green coffee beans, lot 2026-07',
      idempotency_key: 'payout-inv-2026-0718',
      webhook_urls: ['https://daralqahwa.example/webhooks/payouts'],
      metadata: { invoice: 'INV-2026-0718' },
    },
    response: { status: 201, body: { payout_uuid: UUID_PAYOUT, recipient_uuid: UUID_RECIPIENT, status: 'pending_created', gateway_payout_id: null, resource_created: true } },
  },
  'GET /payouts': {
    summary: 'Payouts in GHS, newest first',
    query: { 'filter.currency': '$eq:GHS', sortBy: 'created_at:DESC', limit: '20' },
    response: {
      status: 200,
      body: { data: [payout], ...pageMeta([['created_at', 'DESC']]), ...pageLinks('/payouts', 'sortBy=created_at:DESC&filter.currency=$eq:GHS') },
    },
  },
  'GET /payouts/:uuid': {
    summary: 'Retrieve a payout with its recipient',
    params: { uuid: UUID_PAYOUT },
    response: { status: 200, body: payout },
  },
  'GET /payouts/:uuid/status': {
    summary: "The gateway's current view of a payout",
    params: { uuid: UUID_PAYOUT },
    response: { status: 200, body: { code: { type: 'succeeded', success: true, code: 200 }, response: { id: 'sbx_po_9e4b27c1d3', status: 'succeeded', amount: 150000, currency: 'GHS' } } },
  },
  'POST /payout-recipients': {
    summary: 'Register an MTN mobile-money wallet',
    body: {
      recipient_type: 'mobile_money',
      mobile_money_number: '+233241234567',
      mobile_money_provider: 'MTN',
      name: 'Kwame Mensah',
      email: 'kwame.mensah@example.com',
      phone: '+233 24 123 4567',
      gateway: 'sandbox',
      idempotency_key: 'supplier-beans-accra-07',
      metadata: { supplier: 'beans-accra-07' },
    },
    response: { status: 201, body: { recipient_uuid: UUID_RECIPIENT, gateway_recipient_id: 'sbx_rcp_5c1d93ab70', resource_created: true } },
    more: [
      { status: 200, summary: 'The same idempotency_key again', body: { recipient_uuid: UUID_RECIPIENT, gateway_recipient_id: 'sbx_rcp_5c1d93ab70', resource_created: false } },
    ],
  },
  'GET /payout-recipients': {
    summary: 'Mobile-money recipients',
    query: { 'filter.recipient_type': '$eq:mobile_money', limit: '20' },
    response: {
      status: 200,
      body: { data: [recipient], ...pageMeta([['id', 'DESC']]), ...pageLinks('/payout-recipients', 'sortBy=id:DESC&filter.recipient_type=$eq:mobile_money') },
    },
  },
  'GET /payout-recipients/:uuid': {
    summary: 'Retrieve a payout recipient',
    params: { uuid: UUID_RECIPIENT },
    response: { status: 200, body: recipient },
  },

  // Commerce ------------------------------------------------------------------------------------------------
  'GET /catalogs': {
    summary: 'The catalogs tagged ramadan',
    query: { 'filter.tags': '$eq:ramadan' },
    response: { status: 200, body: { catalogs: [{ id: CTL, title: { en: 'Ramadan favourites', ar: 'مختارات رمضان' }, tags: ['ramadan', 'gifts'], totalProducts: 2 }] } },
  },
  'GET /catalogs-products': {
    summary: "A catalog's products in stock, cheapest first",
    query: { 'filter.catalogId': `$eq:${CTL}`, isInStock: 'true', sortBy: 'price:ASC', page: '1', perPage: '20' },
    response: {
      status: 200,
      body: {
        catalogs: [{ id: CTL, title: { en: 'Ramadan favourites', ar: 'مختارات رمضان' }, children: category.children, categoryAttributes: category.categoryAttributes, products: [product, product2] }],
        pagination: { totalItems: 2, currentPage: 1, pageSize: 20, totalPages: 1 },
      },
    },
  },
  'GET /category': {
    summary: 'A category, its subcategories and its products rated 4.5 or more',
    query: { categoryId: CAT, 'filter.ratingsAverage': '$gte:4.5', sortBy: 'popularity:DESC', perPage: '20' },
    response: { status: 200, body: { categories: [category], products: [product, product2], pagination: { totalItems: 2, currentPage: 1, pageSize: 20, totalPages: 1 } } },
  },
  'POST /commerce/cart': {
    summary: 'Open a cart in SAR for a shopper',
    body: { userId: 'user_8841', idempotencyKey: 'cart-user_8841-2026-08-14', currency: 'SAR' },
    response: { status: 201, body: { cartId: CART, customerAddresses: [address] } },
    more: [
      { status: 200, summary: 'The same idempotencyKey again: the cart it made', body: { cartId: CART, customerAddresses: [address] } },
    ],
  },
  'GET /cart/:cartId': {
    summary: 'Retrieve a cart',
    params: { cartId: CART },
    response: { status: 200, body: cart },
  },
  'POST /cart': {
    summary: 'Two bags of coffee and a dallah',
    body: {
      cartId: CART,
      products: [
        { id: PROD, quantity: 2 },
        { id: PROD_2, quantity: 1 },
      ],
    },
    response: { status: 200, body: cart },
    more: [
      { status: 409, summary: 'The cart was checked out and paid', body: error('invalid_request_error', 'cart_converted', `Cart '${CART}' was converted into an order and can no longer change; create a new cart`) },
      {
        status: 400,
        summary: 'Not enough stock',
        body: error('invalid_request_error', 'quantity_above_stock', `Only 14 of product '${PROD_2}' in stock (asked for 20)`, 'products[1][quantity]'),
      },
    ],
  },
  'POST /commerce/addresses': {
    summary: "Save a shopper's address in Riyadh",
    body: {
      userId: 'user_8841',
      phone: '+966 55 123 4567',
      address: 'طريق الملك فهد، حي العليا، مبنى ١٢',
      additionalInfo: 'الطابق الثالث، شقة ٧',
      region: 'Riyadh Province',
      city: 'Riyadh',
    },
    response: { status: 201, body: address },
  },
  'POST /checkouts': {
    summary: 'Check the cart out to a saved address',
    body: { cartId: CART, shippingAddress: { id: ADDR } },
    response: { status: 201, body: { checkoutId: CHK, status: 'awaiting_payment', totals: cartTotals, payment_intent: 'pi_eu_Hc4q1Rk9zWm2Lx7Tb0Pn5V', url: payUrl('pi_eu_Hc4q1Rk9zWm2Lx7Tb0Pn5V') } },
    more: [
      { status: 409, summary: 'The cart is already paid', body: error('invalid_request_error', 'cart_converted', 'This cart was checked out and paid already') },
      {
        status: 200,
        summary: 'A price changed since the cart was filled: review the new cart',
        body: {
          checkoutId: CHK,
          status: 'changed',
          totals: { subtotal: 27300, tax: 4095, shipping: 0, total: 31395 },
          cartChanges: {
            type: 'prices',
            newCart: {
              cartId: CART,
              products: [{ ...cartLine(product, 2), unitPrice: 4200, lineTotal: 8400 }, cartLine(product2, 1)],
              currency: 'SAR',
              totals: { subtotal: 27300, tax: 4095, shipping: 0, total: 31395 },
            },
            differences: [{ productId: PROD, quantityChange: 0, newQuantity: 2, priceChange: -300, newPrice: 4200 }],
          },
        },
      },
    ],
  },
  'GET /checkouts/:checkoutId': {
    summary: 'A paid checkout and its order',
    params: { checkoutId: CHK },
    response: {
      status: 200,
      body: {
        checkoutId: CHK,
        status: 'completed',
        cartId: CART,
        userId: 'user_8841',
        currency: 'SAR',
        products: orderLines,
        totals: cartTotals,
        shippingAddress: address,
        payment_intent: 'pi_eu_Hc4q1Rk9zWm2Lx7Tb0Pn5V',
        url: payUrl('pi_eu_Hc4q1Rk9zWm2Lx7Tb0Pn5V'),
        orderId: ORD,
        createdAt: '2026-08-14T13:20:00.000Z',
      },
    },
  },
  'GET /orders/:orderId': {
    summary: 'An order and what of it can still be returned',
    params: { orderId: ORD },
    response: {
      status: 200,
      body: {
        orderId: ORD,
        checkoutId: CHK,
        userId: 'user_8841',
        status: 'paid',
        payment_intent: 'pi_eu_Hc4q1Rk9zWm2Lx7Tb0Pn5V',
        currency: 'SAR',
        products: orderLines,
        totals: cartTotals,
        shippingAddress: address,
        returnableProducts: [
          { productId: PROD, returnableQuantity: 2, returnableReasons: ['damaged', 'defective', 'wrong_item', 'not_as_described'] },
          { productId: PROD_2, returnableQuantity: 1, returnableReasons: ['damaged', 'defective', 'wrong_item', 'not_as_described', 'no_longer_needed', 'other'] },
        ],
        createdAt: '2026-08-14T13:24:41.000Z',
      },
    },
  },
  'POST /returns': {
    summary: 'Return a dented dallah',
    body: { orderId: ORD, idempotencyKey: 'return-ord-1042-dallah', productId: PROD_2, quantity: 1, reasonCode: 'damaged', address: { id: ADDR } },
    response: { status: 200, body: { id: RET } },
    more: [{ status: 400, summary: 'Too late', body: error('invalid_request_error', 'return_window_closed', 'The return window of this order has closed', 'orderId') }],
  },
  'PUT /returns/:id': {
    summary: 'Approve a return',
    params: { id: RET },
    body: { status: 'approved' },
    response: { status: 200, body: { ...returnView, status: 'approved', updatedAt: '2026-08-21T09:00:00.000Z' } },
    more: [{ status: 409, summary: 'A move its status does not allow', body: error('invalid_request_error', 'return_transition_invalid', 'A return that is refunded cannot become approved') }],
  },
  'GET /returns': {
    summary: "A shopper's returns, newest first",
    query: { 'filter.userId': 'user_8841', page: '1', perPage: '20' },
    response: { status: 200, body: { returns: [returnView], pagination: { totalItems: 1, currentPage: 1, pageSize: 20, totalPages: 1 } } },
  },
  ...BILLING_EXAMPLES,
  ...OPS_EXAMPLES,
};

// ---------------------------------------------------------------------------------------------------------

interface MediaType {
  schema?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Operation {
  parameters?: { name: string; in: string; schema?: { type?: unknown }; examples?: Record<string, { value: unknown }> }[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}

const exampleName = (summary: string) =>
  summary
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 60) || 'example';

/**
 * The error an operation shows for a status it documents without an example of its own (and for
 * `default`, which documents every status a route does not list): the commonest code of that status.
 */
export function genericErrorExample(status: number | 'default', auth: RouteDef['auth'], declared: number[] = []): ExampleResponse | null {
  switch (status) {
    case 400:
      return { status, summary: 'A parameter the endpoint does not accept', body: error('invalid_request_error', 'parameter_invalid', 'Invalid limit: Too big: expected number to be <=100', 'limit') };
    case 401:
      return { status, summary: 'No key, or an unknown one', body: INVALID_API_KEY };
    case 403:
      return { status, summary: 'A publishable key where a secret key is needed', body: error('permission_error', 'secret_key_required', 'A publishable key can only submit payment attempts; use a secret key') };
    case 404:
      return { status, summary: 'Unknown id (or one of another account)', body: error('invalid_request_error', 'resource_missing', "No such object: 'pi_eu_0000000000000000000000'") };
    case 503:
      return { status, summary: 'A dependency did not answer: retry with the same idempotency key', body: SERVICE_UNAVAILABLE };
    case 'default': {
      // A status the route does not list (that is what `default` documents).
      const candidates: ExampleResponse[] = [
        ...(auth === 'secret' || auth === 'publishable'
          ? [{ status: 429, summary: 'Too many requests (any endpoint): wait Retry-After seconds', body: error('rate_limit_error', 'rate_limited', 'Too many requests with this API key; retry in 2 s') }]
          : []),
        { status: 503, summary: 'A dependency did not answer (any endpoint): retry after Retry-After seconds', body: SERVICE_UNAVAILABLE },
        { status: 500, summary: 'An unexpected failure (any endpoint): retry, then quote request_id', body: error('api_error', 'internal_error', 'An unexpected error occurred; it has been logged') },
      ];
      return candidates.find((c) => !declared.includes(c.status)) ?? null;
    }
    default:
      return null;
  }
}

/**
 * Puts `ex` into a generated operation: each parameter's example, the body's, and each answer's under its
 * status (an error status the route does not list goes under `default`, where every error is documented).
 */
export function attachExamples(op: Operation, ex: OperationExample, opts: { describeSchemaless: boolean; auth: RouteDef['auth'] }): void {
  for (const p of op.parameters ?? []) {
    const raw = p.in === 'path' ? ex.params?.[p.name] : p.in === 'query' ? ex.query?.[p.name] : undefined;
    if (raw === undefined) continue;
    const value = p.schema?.type === 'array' && !Array.isArray(raw) ? [raw] : raw;
    p.examples = { [p.name]: { value } };
  }
  const body = op.requestBody?.content?.['application/json'];
  if (body && ex.body !== undefined) body.examples = { [exampleName(ex.summary)]: { summary: ex.summary, value: ex.body } };
  for (const r of [ex.response, ...(ex.more ?? [])]) {
    const response = op.responses?.[String(r.status)] ?? (r.status >= 400 ? op.responses?.['default'] : undefined);
    if (!response) continue;
    const summary = r.summary ?? ex.summary;
    let media = response.content ? Object.values(response.content)[0] : undefined;
    if (!media) {
      if (!opts.describeSchemaless) continue;
      media = {};
      response.content = { [r.contentType ?? 'application/json']: media };
    }
    media.examples = { ...media.examples, [exampleName(summary)]: { summary, value: r.body } };
  }
  // Error statuses still without an example get the commonest error of their status.
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const media = response.content?.['application/json'];
    if (!media || media.examples || !(status === 'default' || Number(status) >= 400)) continue;
    const declared = Object.keys(op.responses ?? {}).filter((k) => k !== 'default').map(Number);
    const generic = genericErrorExample(status === 'default' ? 'default' : Number(status), opts.auth, declared);
    if (generic) media.examples = { [exampleName(generic.summary!)]: { summary: generic.summary, value: generic.body } };
  }
}
