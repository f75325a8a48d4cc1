import { api, createMerchant, eventually, getStack, pay, type Merchant } from './harness';

// The hosted page of older-interface intents (POST /payment-intents): its language (`lg`, `?lg=`), the
// purchase's line items and order reference, the CSP that lets their images in, and the merchant's final
// URLs, rendered by the real API from the record the older create wrote.

interface OlderIntent {
  uuid: string;
  /** The `pi_...` id: the hosted page's path and the workflow's id. */
  id: string;
  url: string;
}

const LINE_ITEMS = [
  { name: '<img src=x onerror=alert(1)> "Mug" & co', quantity: 2, price: 1250, image: 'https://cdn.shop.example/mug.png?size=80' },
  { name: 'Tea', quantity: 1, price: 1000, image: 'http://insecure.shop.example/tea.png' },
  { name: 'Spoon', quantity: 3, price: 0 },
];

async function olderIntent(m: Merchant, body: Record<string, unknown>): Promise<OlderIntent> {
  const r = await api.post('/payment-intents', { gateway: 'sandbox', amount: 3500, currency: 'EUR', ...body }, m.secretKey);
  expect(r.status).toBe(201);
  expect(Object.keys(r.body).sort()).toEqual(['payment_intent', 'resource_created', 'target_url']);
  const url = String(r.body.target_url);
  const id = decodeURIComponent(new URL(url).pathname.split('/')[2]!);
  expect(id).toMatch(/^pi_/);
  return { uuid: r.body.payment_intent, id, url };
}

async function page(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const configOf = (html: string) => JSON.parse(/<script type="application\/json" id="checkout-config">([\s\S]*?)<\/script>/.exec(html)![1]!);
const markupOf = (html: string) => html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '');
const withQuery = (url: string, extra: string) => `${url}${url.includes('?') ? '&' : '?'}${extra}`;

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant('Brew & Bean');
});

const ARABIC = {
  lg: 'ar',
  line_items: LINE_ITEMS,
  final_success_url: 'https://shop.example/orders/42/paid?from=pay',
  final_failure_url: 'https://shop.example/orders/42/failed',
  human_friendly_payment_intent_secret: 'ORD-42 <b>',
};

describe('the hosted page of an older intent', () => {
  test('speaks Arabic right to left, shows the escaped line items above the amount, and lets in only their https images', async () => {
    const intent = await olderIntent(m, ARABIC);
    const res = await page(intent.url);
    expect(res.status).toBe(200);
    expect(res.html).toMatch(/<html lang="ar" dir="rtl">/);
    const html = markupOf(res.html);
    // Translated, server-rendered.
    expect(html).toContain('<label for="card-number">رقم البطاقة</label>');
    expect(html).toContain('الدفع إلى \u2068Brew &amp; Bean\u2069');
    expect(html).toContain('<span class="pay-label">ادفع \u206835.00 EUR\u2069</span>');
    expect(html).not.toMatch(/Card number|>Pay with card</);
    // Line items: escaped, quantity × unit price and line total in the intent's currency, above the amount.
    expect(html).toContain('\u2068&lt;img src=x onerror=alert(1)&gt; &quot;Mug&quot; &amp; co\u2069');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('2 × \u206812.50 EUR\u2069');
    expect(html).toContain('<span class="line-item-total">\u206825.00 EUR\u2069</span>');
    expect(html).toContain('<span class="line-item-total">\u20680.00 EUR\u2069</span>');
    expect(html.indexOf('class="line-items"')).toBeLessThan(html.indexOf('class="summary-amount"'));
    // Only the https image is shown, and only its origin is added to img-src.
    expect(html).toContain('<span class="line-item-image"><img src="https://cdn.shop.example/mug.png?size=80"');
    expect(html).not.toContain('insecure.shop.example');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("img-src 'self' data: https://cdn.shop.example;");
    expect(csp).not.toContain('insecure');
    expect(csp).toContain("default-src 'none'; script-src 'self'; style-src 'self';");
    // The order reference, escaped.
    expect(html).toContain('<dt>مرجع الطلب</dt><dd>\u2068ORD-42 &lt;b&gt;\u2069</dd>');
    // The script's copy and the final URLs come in its config.
    const config = configOf(res.html);
    expect(config).toMatchObject({
      lang: 'ar',
      dir: 'rtl',
      finalSuccessUrl: ARABIC.final_success_url,
      finalFailureUrl: ARABIC.final_failure_url,
      returnUrl: null,
      genericFailure: 'رُفض الدفع',
    });
    expect(config.text.failed).toBe('فشل الدفع: {reason}، جرّب بطاقة أخرى.');
    expect(config.failureReasons.card_declined).toBe('رُفضت بطاقتك');
    // No ?lg= on the URL: nothing to remember.
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  test('?lg= overrides the intent’s language, is kept in the result link and, by a cookie, through the 3-D Secure return', async () => {
    const intent = await olderIntent(m, ARABIC);
    const res = await page(withQuery(intent.url, 'lg=fr'));
    expect(res.html).toMatch(/<html lang="fr">/);
    expect(res.html).toContain('<label for="card-number">Numéro de carte</label>');
    expect(configOf(res.html).resultUrl).toMatch(/\/result\?client_secret=pics_[0-9a-f]+&lg=fr$/);
    const cookie = res.headers.get('set-cookie')!;
    // Plain http here (no X-Forwarded-Proto: https): not Secure, or the browser would not send it back.
    expect(cookie).toBe(`payorch_lg=fr; path=/pay/${intent.id}; samesite=lax; httponly`);

    // Behind an https proxy (the app trusts X-Forwarded-Proto) the cookie is Secure.
    const proxied = await page(withQuery(intent.url, 'lg=ar'), { 'x-forwarded-proto': 'https' });
    expect(proxied.headers.get('set-cookie')).toBe(`payorch_lg=ar; path=/pay/${intent.id}; samesite=lax; secure; httponly`);

    // The 3DS return URL is the page URL the workflow was given, plus attempt=N: no lg, but the cookie.
    const back = withQuery(intent.url, 'attempt=1');
    expect((await page(back, { cookie: cookie.split(';')[0]! })).html).toMatch(/<html lang="fr">/);
    expect((await page(back)).html).toMatch(/<html lang="ar" dir="rtl">/);

    // The result page speaks it too, and its "pay" link carries it.
    const result = await page(withQuery(intent.url.replace(`/pay/${intent.id}?`, `/pay/${intent.id}/result?`), 'lg=fr'));
    expect(result.html).toMatch(/<html lang="fr">/);
    expect(result.html).toContain('Ce paiement n’est pas encore terminé');
    expect(result.html).toMatch(/href="\/pay\/[^"]+\?client_secret=pics_[0-9a-f]+&amp;lg=fr"/);
  });

  test('an unknown language falls back to English without an error, both on the intent and in ?lg=', async () => {
    const intent = await olderIntent(m, { lg: 'de' });
    const res = await page(withQuery(intent.url, 'lg=xx-YY'));
    expect(res.status).toBe(200);
    expect(res.html).toMatch(/<html lang="en">/);
    expect(res.html).toContain('<label for="card-number">Card number</label>');
    expect(res.headers.get('set-cookie')).toBeNull();
    // A wrong secret reads "not found" in the language asked for.
    const missing = await page(`${getStack().apiUrl}/pay/${intent.id}?client_secret=pics_${'0'.repeat(64)}&lg=ar`);
    expect(missing.status).toBe(404);
    expect(missing.html).toMatch(/<html lang="ar" dir="rtl">/);
    expect(missing.html).toContain('الدفعة غير موجودة');
  });

  test('a paid intent sends the customer to final_success_url, from the page and from the result page', async () => {
    const intent = await olderIntent(m, ARABIC);
    expect((await pay(intent.id, m.publishableKey)).body.status).toBe('success');
    const res = await eventually(async () => {
      const p = await page(intent.url);
      return configOf(p.html).outcome === 'succeeded' ? p : undefined;
    }, 20_000, 'the paid record');
    expect(res.html).toContain('تم الدفع بنجاح');
    expect(res.html).toMatch(/<a id="outcome-link" class="button-secondary" href="https:\/\/shop\.example\/orders\/42\/paid\?from=pay" >العودة إلى \u2068Brew &amp; Bean\u2069<\/a>/);
    const result = await page(intent.url.replace(`/pay/${intent.id}?`, `/pay/${intent.id}/result?`));
    expect(result.html).toContain('<meta http-equiv="refresh" content="3; url=https://shop.example/orders/42/paid?from=pay">');
    expect(result.html).toMatch(/<html lang="ar" dir="rtl">/);
    expect(result.headers.get('content-security-policy')).toContain("img-src 'self' data: https://cdn.shop.example;");
  });

  test('a canceled intent sends the customer to final_failure_url', async () => {
    const intent = await olderIntent(m, { ...ARABIC, lg: 'fr' });
    expect((await api.post(`/v202607/payment-intents/${intent.id}/cancel`, {}, m.secretKey)).status).toBe(200);
    const res = await eventually(async () => {
      const p = await page(intent.url);
      return configOf(p.html).outcome === 'canceled' ? p : undefined;
    }, 20_000, 'the canceled record');
    expect(res.html).toContain('Ce paiement a été annulé');
    expect(res.html).toMatch(/href="https:\/\/shop\.example\/orders\/42\/failed" >Retour à Brew &amp; Bean<\/a>/);
    const result = await page(intent.url.replace(`/pay/${intent.id}?`, `/pay/${intent.id}/result?`));
    expect(result.html).toContain('url=https://shop.example/orders/42/failed">');
  });

  test('after a failed attempt the page offers the way back to final_failure_url', async () => {
    const intent = await olderIntent(m, { ...ARABIC, lg: 'en' });
    const before = await page(intent.url);
    expect(before.html).toContain('<p id="give-up" class="give-up" hidden><a href="https://shop.example/orders/42/failed">Return to Brew &amp; Bean</a></p>');
    expect((await pay(intent.id, m.publishableKey, 'tok_decline')).body.status).toBe('failed');
    const after = await eventually(async () => {
      const p = await page(intent.url);
      return p.html.includes('<p id="give-up" class="give-up" >') ? p : undefined;
    }, 20_000, 'the failed attempt on the record');
    expect(after.html).toContain('id="card-form"'); // the customer may still try another card
  });
});

describe('v202607 intents are shown as before', () => {
  test('English, no line items, no final URLs, the CSP unchanged', async () => {
    const r = await api.post('/v202607/payment-intents', { amount: 2500, currency: 'EUR', return_url: 'https://shop.example/back' }, m.secretKey);
    const res = await page(r.body.url);
    expect(res.html).toMatch(/<html lang="en">/);
    expect(res.html).not.toContain('line-items');
    expect(res.html).toContain('<p id="give-up" class="give-up" hidden><a href="https://shop.example/back">'); // until an attempt fails
    const config = configOf(res.html);
    expect(config).toMatchObject({ finalSuccessUrl: null, finalFailureUrl: null });
    expect(config.returnUrl).toBe('https://shop.example/back');
    expect(res.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
    // ?lg= works for them too.
    expect((await page(withQuery(r.body.url, 'lg=ar'))).html).toMatch(/<html lang="ar" dir="rtl">/);
  });

  test('after a failed attempt the page offers the way back to return_url, where the flow would end; without one, none', async () => {
    const r = await api.post('/v202607/payment-intents', { amount: 2500, currency: 'EUR', return_url: 'https://shop.example/back' }, m.secretKey);
    expect((await pay(r.body.payment_intent, m.publishableKey, 'tok_decline')).body.status).toBe('failed');
    const after = await eventually(async () => {
      const p = await page(r.body.url);
      return p.html.includes('<p id="give-up" class="give-up" >') ? p : undefined;
    }, 20_000, 'the failed attempt on the record');
    expect(after.html).toContain('<a href="https://shop.example/back">');
    expect(after.html).toContain('id="card-form"'); // another card may still be tried
    const without = await api.post('/v202607/payment-intents', { amount: 2500, currency: 'EUR' }, m.secretKey);
    expect((await page(without.body.url)).html).not.toContain('id="give-up"');
  });
});
