import type { CheckoutView } from '../../../api/hosted/checkout-view';
import { contentSecurityPolicy } from '../../../api/hosted/csp';
import { lineItemsOf, MAX_IMAGE_ORIGINS, safeImageUrl } from '../../../api/hosted/line-items';
import { localeFor, type Language } from '../../../api/hosted/locale';
import { exitUrl, giveUpUrl, merchantUrls, resultExitUrl } from '../../../api/hosted/merchant-exit';
import { checkoutPage, messagePage, notFoundCopy, resultPage } from '../../../api/hosted/pages';
import type { PaymentIntentRecord } from '../../../platform/records';
import { ASSETS, checkoutView, configOf, markup, pageSetup, pendingIntent, renderCheckout, renderResult } from './page-fixtures';

// The hosted page of older intents: language, line items, order reference, the merchant's final URLs.

const HOSTILE = `<img src=x onerror=alert(1)> "Mug"`;

/** An older intent of 35.00 EUR in Arabic, with an order reference, final URLs and two lines (one image unsafe). */
function intent(over: Partial<PaymentIntentRecord> = {}): PaymentIntentRecord {
  return pendingIntent({
    _id: 'pi_eu_older00000000000001',
    amount: 3500,
    api_version: 'older',
    lg: 'ar',
    human_friendly_payment_intent_secret: 'ORD-<42>',
    final_success_url: 'https://shop.example/ok?o=42',
    final_failure_url: 'https://shop.example/ko?o=42',
    line_items: [
      { name: HOSTILE, quantity: 2, price: 1250, image: 'https://cdn.shop.example/mug.png?a=1&b="2"' },
      { name: 'Tea', quantity: 1, price: 1000, image: 'javascript:alert(1)' },
    ],
    ...over,
  });
}

const view = (i = intent()) => checkoutView(i);
const setup = (v: CheckoutView, lg?: Language, layout: 'hosted' | 'embed' = 'hosted') => pageSetup(v, { lg, layout });
const render = (lg: Language, v = view()) => renderCheckout(v, { lg });

describe('the hosted page in the intent’s language', () => {
  test('Arabic: lang and dir on <html>, Arabic words, amounts as isolates, card inputs left to right', () => {
    const page = render('ar');
    expect(page).toMatch(/^<!doctype html>\n<html lang="ar" dir="rtl">/);
    expect(page).toContain('<label for="card-number">رقم البطاقة</label>');
    expect(page).toContain('<span class="pay-label">ادفع \u206835.00 EUR\u2069</span>');
    expect(page).toContain('<p class="summary-amount">\u206835.00 EUR\u2069</p>');
    expect(page).toMatch(/<input id="card-number"[^>]*dir="ltr"/);
    expect(markup(page)).not.toMatch(/>Pay |Card number|Expiry date/);
    const config = configOf(page);
    expect(config).toMatchObject({ lang: 'ar', dir: 'rtl', genericFailure: 'رُفض الدفع' });
    expect(config.text.pay).toBe('ادفع {amount}');
    expect(config.failureReasons.card_declined).toBe('رُفضت بطاقتك');
  });

  test('French and English pages are left to right, with no dir attribute', () => {
    expect(render('fr')).toMatch(/<html lang="fr">/);
    expect(render('fr')).toContain('<label for="card-number">Numéro de carte</label>');
    expect(render('en')).toMatch(/<html lang="en">/);
    expect(render('en')).toContain('<span class="pay-label">Pay 35.00 EUR</span>');
  });

  test('line items come above the amount, escaped, with quantity × unit price, line total and safe images only', () => {
    const page = markup(render('en'));
    const items = page.indexOf('class="line-items"');
    expect(items).toBeGreaterThan(0);
    expect(items).toBeLessThan(page.indexOf('class="summary-amount"'));
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Mug&quot;');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('<span class="line-item-quantity">2 × 12.50 EUR</span>');
    expect(page).toContain('<span class="line-item-total">25.00 EUR</span>');
    expect(page).toContain('<span class="line-item-total">10.00 EUR</span>');
    expect(page).toContain('src="https://cdn.shop.example/mug.png?a=1&amp;b=%222%22"');
    expect(page).not.toContain('javascript:');
    expect(page.match(/<span class="line-item-image"><img src=/g)).toHaveLength(1);
    expect(page.match(/<span class="line-item-image"><\/span>/g)).toHaveLength(1); // an empty frame keeps the lines aligned
  });

  test('the order reference is shown, escaped, when the merchant gave one', () => {
    expect(render('en')).toContain('<div><dt>Order reference</dt><dd>ORD-&lt;42&gt;</dd></div>');
    expect(render('fr')).toContain('<dt>Référence de commande</dt>');
    expect(render('en', view(intent({ human_friendly_payment_intent_secret: null })))).not.toContain('Order reference');
  });

  test('the final URLs reach the script; the give-up link waits for a failed attempt', () => {
    const page = render('en');
    expect(configOf(page)).toMatchObject({ finalSuccessUrl: 'https://shop.example/ok?o=42', finalFailureUrl: 'https://shop.example/ko?o=42', returnUrl: null });
    expect(page).toContain('<p id="give-up" class="give-up" hidden><a href="https://shop.example/ko?o=42">Return to Brew &amp; Bean</a></p>');
    // After a failed attempt the page opens with it shown, in the page's language.
    const failed = view(intent({ last_failure_code: 'card_declined' }));
    expect(render('en', failed)).toContain('<p id="give-up" class="give-up" ><a href="https://shop.example/ko?o=42">Return to Brew &amp; Bean</a></p>');
    expect(render('fr', failed)).toContain('<p id="give-up" class="give-up" ><a href="https://shop.example/ko?o=42">Retour à Brew &amp; Bean</a></p>');
    const none = view(intent({ final_failure_url: null, final_success_url: null }));
    expect(render('en', none)).not.toContain('id="give-up"');
    expect(configOf(render('en', none))).toMatchObject({ finalSuccessUrl: null, finalFailureUrl: null });
  });

  test('links carry a language chosen by ?lg=, not the intent’s own', () => {
    expect(configOf(render('fr')).resultUrl).toBe('/pay/pi_eu_older00000000000001/result?client_secret=pics_x&lg=fr');
    expect(setup(view()).config.resultUrl).toBe('/pay/pi_eu_older00000000000001/result?client_secret=pics_x');
    expect(setup(view()).config.lang).toBe('ar');
  });

  test('the embedded form leaves the way back to the merchant’s page: no URLs of theirs, no give-up link', () => {
    const embed = setup(view(intent({ last_failure_code: 'card_declined' })), 'en', 'embed');
    expect(embed.config).toMatchObject({ mode: 'embed', resultUrl: null, returnUrl: null, finalSuccessUrl: null, finalFailureUrl: null });
    expect(embed.giveUp).toBeNull();
    expect(checkoutPage(view(), { ...embed, assets: ASSETS })).not.toContain('id="give-up"');
  });

  test('an intent already ended opens on its outcome, with the link to the final URL of that ending', () => {
    const paid = view(intent({ status: 'success' }));
    const page = render('ar', paid);
    expect(configOf(page).outcome).toBe('succeeded');
    expect(page).not.toContain('id="card-form"');
    expect(page).toContain('href="https://shop.example/ok?o=42" >العودة إلى \u2068Brew &amp; Bean\u2069</a>');
    const canceled = render('fr', view(intent({ status: 'canceled', cancellation_reason: 'requested' })));
    expect(canceled).toContain('href="https://shop.example/ko?o=42" >Retour à Brew &amp; Bean</a>');
    // Without a URL of the merchant's, the page goes on to our result page.
    const plain = render('en', view(intent({ status: 'success', final_success_url: null })));
    expect(plain).toContain('href="/pay/pi_eu_older00000000000001/result?client_secret=pics_x&amp;lg=en" >Continue</a>');
  });

  test('the not-found page speaks the language of ?lg=', () => {
    const page = messagePage(ASSETS, notFoundCopy(localeFor('ar')), localeFor('ar'));
    expect(page).toMatch(/<html lang="ar" dir="rtl">/);
    expect(page).toContain('الدفعة غير موجودة');
  });
});

describe('the result page of an older intent', () => {
  const paid = view(intent({ status: 'success' }));

  test('sends the customer to the final URL: a link, and a refresh for a page without script', () => {
    const page = renderResult(paid);
    expect(page).toMatch(/<html lang="ar" dir="rtl">/);
    expect(page).toContain('<meta http-equiv="refresh" content="3; url=https://shop.example/ok?o=42">');
    expect(page).toContain('href="https://shop.example/ok?o=42" >العودة إلى \u2068Brew &amp; Bean\u2069</a>');
    expect(page).toContain('تم الدفع بنجاح');
    expect(page).not.toContain('<script');
    expect(renderResult(view(intent({ status: 'canceled', cancellation_reason: 'expired' })), 'fr')).toContain('url=https://shop.example/ko?o=42">');
  });

  test('the final URL is escaped in the refresh and the link', () => {
    const exitUrl = 'https://shop.example/ok?o=42&x="1"';
    const page = resultPage(paid, { assets: ASSETS, locale: localeFor('en'), outcome: 'succeeded', checking: false, selfHref: '/r', payAgainHref: '/x', exitUrl });
    expect(page).toContain('<meta http-equiv="refresh" content="3; url=https://shop.example/ok?o=42&amp;x=&quot;1&quot;">');
    expect(page).toContain('href="https://shop.example/ok?o=42&amp;x=&quot;1&quot;" >Return to Brew &amp; Bean</a>');
  });

  test('without a final URL it stays the generic page; a pending intent links back to pay, in its language', () => {
    expect(renderResult(view(intent({ status: 'success', final_success_url: null })))).not.toContain('http-equiv');
    const pending = renderResult(view(), 'fr');
    expect(pending).toContain('Ce paiement n’est pas encore terminé');
    expect(pending).toContain('href="/pay/pi_eu_older00000000000001?client_secret=pics_x&amp;lg=fr"');
    expect(pending).not.toContain('http-equiv');
  });
});

describe('where the customer goes back to the merchant', () => {
  test('return_url first, then the final URL of the ending; only http(s)', () => {
    const older = merchantUrls(intent());
    expect(exitUrl(older, 'succeeded')).toBe('https://shop.example/ok?o=42');
    expect(exitUrl(older, 'expired')).toBe('https://shop.example/ko?o=42');
    expect(exitUrl(older, 'canceled')).toBe('https://shop.example/ko?o=42');
    const both = merchantUrls(intent({ return_url: 'https://shop.example/back' }));
    expect(exitUrl(both, 'succeeded')).toBe('https://shop.example/back');
    expect(giveUpUrl(both)).toBe('https://shop.example/back');
    const hostile = merchantUrls(intent({ final_success_url: 'javascript:alert(1)', final_failure_url: 'data:text/html,x' }));
    expect(hostile).toEqual({ returnUrl: null, finalSuccessUrl: null, finalFailureUrl: null });
    expect(giveUpUrl(hostile)).toBeNull();
    // A v202607 intent: no final URLs; after a failed attempt the way back is its return_url (none without one),
    // and its result page does not send the customer on.
    const v202607 = merchantUrls(intent({ return_url: 'https://shop.example/back', final_success_url: undefined, final_failure_url: undefined }));
    expect(giveUpUrl(v202607)).toBe('https://shop.example/back');
    expect(giveUpUrl(merchantUrls(intent({ final_success_url: undefined, final_failure_url: undefined })))).toBeNull();
    expect(resultExitUrl(v202607, 'succeeded')).toBeNull();
    expect(resultExitUrl(older, 'expired')).toBe('https://shop.example/ko?o=42');
    expect(resultExitUrl(older, null)).toBeNull();
  });
});

describe('line items and the images they may show', () => {
  test('only https images without credentials, whose origin a CSP can name', () => {
    expect(safeImageUrl('https://cdn.example/a.png')).toBe('https://cdn.example/a.png');
    expect(safeImageUrl('https://cdn.example:8443/a.png')).toBe('https://cdn.example:8443/a.png');
    for (const bad of ['http://cdn.example/a.png', 'javascript:alert(1)', 'data:image/png;base64,AA', 'https://u:p@cdn.example/a.png', 'https://[::1]/a.png', '//cdn.example/a', 42, null])
      expect(safeImageUrl(bad)).toBeNull();
  });

  test('totals and prices in the intent’s currency (zero-decimal too); malformed lines are left out', () => {
    const { items } = lineItemsOf({ currency: 'JPY', line_items: [{ name: 'Tea', quantity: 3, price: 500 }, { name: 7, quantity: 1 } as never] });
    expect(items).toEqual([{ name: 'Tea', quantity: 3, unitPrice: '500 JPY', total: '1500 JPY', image: null }]);
    expect(lineItemsOf({ currency: 'EUR' })).toEqual({ items: [], imageOrigins: [] });
  });

  test('image origins are deduplicated and capped; an image past the cap is not shown', () => {
    const line_items = Array.from({ length: MAX_IMAGE_ORIGINS + 2 }, (_, i) => ({ name: `n${i}`, quantity: 1, price: 1, image: `https://img${i}.example/x.png` }));
    line_items.push({ name: 'again', quantity: 1, price: 1, image: 'https://img0.example/y.png' });
    const { items, imageOrigins } = lineItemsOf({ currency: 'EUR', line_items });
    expect(imageOrigins).toHaveLength(MAX_IMAGE_ORIGINS);
    expect(items.filter((i) => i.image)).toHaveLength(MAX_IMAGE_ORIGINS + 1);
    expect(items[MAX_IMAGE_ORIGINS]!.image).toBeNull();
  });

  test('the CSP allows those origins in img-src and nowhere else', () => {
    const csp = contentSecurityPolicy({ connect: ['http://sandbox.test:4010'], frameAncestors: 'none', images: ['https://cdn.shop.example', 'https://cdn.shop.example', "https://x; script-src 'unsafe-inline'"] });
    expect(csp).toContain("img-src 'self' data: https://cdn.shop.example; connect-src 'self' http://sandbox.test:4010;");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    expect(contentSecurityPolicy({ frameAncestors: 'none' })).toContain("img-src 'self' data:;");
  });
});
