import type { CheckoutView } from '../../../api/hosted/checkout-view';
import { lineItemsOf } from '../../../api/hosted/line-items';
import type { Language } from '../../../api/hosted/locale';
import { intentLanguage, pageLanguage } from '../../../api/hosted/page-language';
import { checkoutPageSetup, resultPageSetup } from '../../../api/hosted/page-setup';
import { checkoutPage, resultPage, type PageAssets } from '../../../api/hosted/pages';
import { formatMoney } from '../../../domain/money';
import type { PaymentIntentRecord } from '../../../platform/records';

// What the hosted pages' unit tests draw a page from, set up as the routes do (api/hosted/routes.ts): an
// intent's record, its checkout view, the page's language and credential. Each test file gives the intent
// what it is about.

export const ASSETS: PageAssets = {
  css: '/assets/hosted/checkout.css?v=1',
  js: '/assets/hosted/checkout.js?v=1',
  favicon: '/assets/hosted/favicon.svg?v=1',
  demoCss: '/assets/hosted/demo.css?v=1',
  demoJs: '/assets/hosted/demo.js?v=1',
  embedJs: '/js/v1/embed.js',
};

/** A pending v202607 intent of 25.00 EUR, created 2026-03-01 12:00 UTC, open for half an hour. */
export function pendingIntent(over: Partial<PaymentIntentRecord> = {}): PaymentIntentRecord {
  const id = over._id ?? 'pi_eu_page0000000000000001';
  const now = new Date('2026-03-01T12:00:00Z');
  return {
    _id: id,
    tenant_id: 'ten_eu_x',
    region: 'eu',
    status: 'pending',
    amount: 2500,
    currency: 'EUR',
    customer: null,
    metadata: {},
    webhooks: [],
    return_url: null,
    pin: null,
    connectors: ['con_a'],
    timeout_seconds: 1800,
    idempotency_key: null,
    idempotency_scope: id,
    api_version: 'v202607',
    expires_at: new Date('2026-03-01T12:30:00Z'),
    created_at: now,
    updated_at: now,
    version: 0,
    ...over,
  };
}

/** The intent's page as loadCheckoutView builds it: its amount and lines, the card (test mode) its one method. */
export function checkoutView(intent: PaymentIntentRecord, over: Partial<CheckoutView> = {}): CheckoutView {
  return {
    intent,
    merchantName: 'Brew & Bean',
    amountLabel: formatMoney(intent.amount, intent.currency),
    methods: [{ name: 'card', title: 'Card', category: 'card', logoUrl: '/assets/payment-methods/card.svg', available: true }],
    card: { tokenUrl: 'http://127.0.0.1:4010/v1/tokens', connector: 'con_a', testMode: true },
    lineItems: lineItemsOf(intent),
    ...over,
  };
}

/** The page's language as the route settles it: `?lg=` (when given), then the intent's `lg`, else English. */
export const languageOf = (v: CheckoutView, lg?: Language) => intentLanguage(pageLanguage(lg ? { lg } : {}, undefined), v.intent.lg);

/**
 * What the route draws the checkout page with: opened with the client secret `pics_x` (hosted) or the
 * publishable key `pk_eu_x` (embed).
 */
export function pageSetup(v: CheckoutView, opts: { lg?: Language; layout?: 'hosted' | 'embed' } = {}) {
  const layout = opts.layout ?? 'hosted';
  const credential = layout === 'hosted' ? ({ kind: 'client_secret', value: 'pics_x' } as const) : ({ kind: 'publishable_key', value: 'pk_eu_x' } as const);
  return checkoutPageSetup(v, { layout, credential, lang: languageOf(v, opts.lg), attempt: null });
}

export const renderCheckout = (v: CheckoutView, opts: { lg?: Language; layout?: 'hosted' | 'embed' } = {}) =>
  checkoutPage(v, { ...pageSetup(v, opts), assets: ASSETS });

/** The result page, opened with the client secret `pics_x`. */
export const renderResult = (v: CheckoutView, lg?: Language) => resultPage(v, { ...resultPageSetup(v, 'pics_x', languageOf(v, lg)), assets: ASSETS });

/** The page's HTML without its JSON data block (which holds the values as JSON, escaped separately). */
export const markup = (page: string) => page.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '');

/** The page script's config: the JSON data block. */
export const configOf = (page: string) => JSON.parse(/<script type="application\/json" id="checkout-config">([\s\S]*?)<\/script>/.exec(page)![1]!);
