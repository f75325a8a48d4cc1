import type { CheckoutView } from '../../../api/hosted/checkout-view';
import { contentSecurityPolicy, pageHeaders } from '../../../api/hosted/csp';
import { ENGLISH } from '../../../api/hosted/locale';
import { messagePage, notFoundCopy } from '../../../api/hosted/pages';
import { ASSETS, checkoutView, markup, pendingIntent as intent, renderCheckout, renderResult } from './page-fixtures';

const HOSTILE = `Evil "Shop" <script>alert(1)</script>`;

/** An English page (no `lg` anywhere) of a merchant with a hostile name, offering the card and SEPA (unavailable). */
function view(over: Partial<CheckoutView> = {}): CheckoutView {
  return checkoutView(over.intent ?? intent(), {
    merchantName: HOSTILE,
    methods: [
      { name: 'card', title: 'Card', category: 'card', logoUrl: '/assets/payment-methods/card.svg', available: true },
      { name: 'sepa_debit', title: 'SEPA Direct Debit', category: 'bank', logoUrl: '/assets/payment-methods/sepa_debit.svg', available: false },
    ],
    ...over,
  });
}

const render = (v = view(), layout: 'hosted' | 'embed' = 'hosted') => renderCheckout(v, { layout });

describe('hosted payment page', () => {
  test('shows the merchant, the amount and a Pay button with the amount', () => {
    const page = render();
    expect(page).toContain('Pay Evil &quot;Shop&quot; &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('<p class="summary-amount">25.00 EUR</p>');
    expect(page).toMatch(/<span class="pay-label">Pay 25\.00 EUR<\/span>/);
  });

  test('renders no value unescaped: the only scripts are our file and the JSON data block', () => {
    const page = render();
    expect(markup(page)).not.toContain('<script>alert');
    expect(page.match(/<script/g)).toHaveLength(2);
    const json = /<script type="application\/json" id="checkout-config">([\s\S]*?)<\/script>/.exec(page)![1]!;
    expect(json).not.toContain('<');
    expect(JSON.parse(json).merchantName).toBe(HOSTILE);
  });

  test('every card field has a visible label bound to its input', () => {
    const page = render();
    for (const [id, text] of [
      ['card-number', 'Card number'],
      ['card-expiry', 'Expiry date'],
      ['card-cvc', 'CVC'],
      ['card-name', 'Name on card'],
    ]) {
      expect(page).toMatch(new RegExp(`<label for="${id}">${text}`));
      expect(page).toContain(`<input id="${id}"`);
    }
    expect(page).toContain('autocomplete="cc-number"');
    expect(page).toContain('role="alert"');
    expect(page).toContain('aria-live="polite"');
  });

  test('lists the other methods as not available in the sandbox', () => {
    expect(render()).toMatch(/SEPA Direct Debit<\/span>\s*<span class="method-note">Not available in the sandbox/);
  });

  test('an intent that is already paid shows the outcome instead of the form', () => {
    const paid = view({ intent: intent({ status: 'success' }) });
    const page = render(paid);
    expect(page).not.toContain('id="card-form"');
    expect(page).toContain('Payment successful');
    expect(page).toContain('<a id="outcome-link" class="button-secondary" href="/pay/pi_eu_page0000000000000001/result?client_secret=pics_x" >Continue</a>');
    // With a return_url, the link goes back to the merchant.
    const back = render(view({ intent: intent({ status: 'success', return_url: 'https://shop.example/back' }) }));
    expect(back).toContain('href="https://shop.example/back" >Return to Evil &quot;Shop&quot; &lt;script&gt;alert(1)&lt;/script&gt;</a>');
  });

  test('without a card connector the page says card payments are unavailable', () => {
    const page = render(view({ card: null, methods: [{ name: 'sepa_debit', title: 'SEPA Direct Debit', category: 'bank', logoUrl: '/x.svg', available: false }] }));
    expect(page).not.toContain('id="card-form"');
    expect(page).toContain('Card payments are not available for this payment');
  });

  test('the embedded layout has the form but not the merchant header', () => {
    const page = render(view(), 'embed');
    expect(page).toContain('id="card-form"');
    expect(page).not.toContain('merchant-bar');
    expect(page).toContain('class="layout-embed"');
  });

  test('the result page states the outcome and offers the way back to pay while pending', () => {
    const pending = renderResult(view());
    expect(pending).toContain('This payment is not complete yet');
    expect(pending).toContain('href="/pay/pi_eu_page0000000000000001?client_secret=pics_x"');
    const expired = renderResult(view({ intent: intent({ status: 'canceled', cancellation_reason: 'expired' }) }));
    expect(expired).toContain('This payment has expired');
    expect(expired).toContain('You can close this window.');
    expect(expired).not.toContain('<script');
    // A return_url alone does not make the result page send the customer on.
    expect(renderResult(view({ intent: intent({ status: 'success', return_url: 'https://shop.example/back' }) }))).not.toContain('http-equiv');
  });

  test('the not-found page reveals nothing about the intent', () => {
    const page = messagePage(ASSETS, notFoundCopy(ENGLISH), ENGLISH);
    expect(page).toContain('Payment not found');
    expect(page).not.toMatch(/pi_|EUR/);
  });
});

describe('content security policy', () => {
  const csp = contentSecurityPolicy({ connect: ['http://sandbox.test:4010'], frameAncestors: 'none' });

  test('only our origin and the sandbox may receive data', () => {
    expect(csp).toContain("connect-src 'self' http://sandbox.test:4010");
    expect(csp).toContain("form-action 'self' http://sandbox.test:4010");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });

  test('the hosted page cannot be framed, the embedded form can', () => {
    expect(csp).toContain("frame-ancestors 'none'");
    expect(contentSecurityPolicy({ frameAncestors: 'any' })).toContain('frame-ancestors *');
    expect(pageHeaders(csp)['X-Frame-Options']).toBe('DENY');
    expect(pageHeaders(csp, { framable: true })['X-Frame-Options']).toBeUndefined();
  });

  test('pages keep the client secret out of caches and Referer headers', () => {
    expect(pageHeaders(csp)).toMatchObject({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' });
  });
});
