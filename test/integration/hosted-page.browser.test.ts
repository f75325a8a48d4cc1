import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, useBrowser } from './browser';
import { api, createMerchant, eventually, getStack, pay, type Merchant } from './harness';

// The hosted payment page and the embedded form, driven in headless Chromium against the real stack:
// card details go to the gateway sandbox from the browser, the attempt goes through our API and the
// payment workflow, 3-D Secure happens on the sandbox's page, and the customer ends where the merchant
// asked. Screenshots land in test/artifacts/ (git-ignored) for a human look.

const { newPage, watch } = useBrowser();
let shop: { server: Server; url: string; hits: string[] };

/** The merchant's return page: records every visit. */
async function startShop() {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Shop</title><h1>Thanks for your order</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, hits, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  shop = await startShop();
});

afterAll(async () => {
  await new Promise((resolve) => shop?.server.close(resolve));
});

async function createIntent(m: Merchant, body: Record<string, unknown>) {
  const r = await api.post('/v202607/payment-intents', { currency: 'EUR', ...body }, m.secretKey);
  expect(r.status).toBe(201);
  return r.body as { payment_intent: string; url: string };
}

async function fillCard(page: Pick<Page, 'getByLabel'>, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry date').fill('12 / 34');
  await page.getByLabel('CVC').fill('123');
}

const intentStatus = async (m: Merchant, id: string) => (await api.get(`/v202607/payment-intents/${id}`, m.secretKey)).body.status as string;

test('a 3-D Secure card pays on the hosted page and the customer lands on return_url', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const intent = await createIntent(m, { amount: 2500, return_url: `${shop.url}/orders/42/done?ref=abc` });
  const page = await newPage();

  await page.goto(intent.url);
  await expect(page.getByText('Brew & Bean Coffee').first().isVisible()).resolves.toBe(true);
  await expect(page.locator('.summary-amount').textContent()).resolves.toBe('25.00 EUR');
  const pay = page.getByRole('button', { name: 'Pay 25.00 EUR' });
  await pay.waitFor();
  await fillCard(page, '4000 0000 0000 3220');
  await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('4000 0000 0000 3220');
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-1-form.png'), fullPage: true });

  await pay.click();
  const complete = page.getByRole('button', { name: 'Complete authentication' });
  await complete.waitFor({ timeout: 20_000 });
  expect(new URL(page.url()).origin).toBe(new URL(getStack().sandboxUrl).origin);
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-2-3ds.png'), fullPage: true });

  await complete.click();
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-3-success.png'), fullPage: true });

  await page.waitForURL(`${shop.url}/orders/42/done?ref=abc`, { timeout: 15_000 });
  await eventually(async () => (shop.hits.includes('/orders/42/done?ref=abc') ? true : undefined), 5_000, 'the return_url visit');
  await expect(intentStatus(m, intent.payment_intent)).resolves.toBe('success');
  await page.close();
});

test('a declined card shows the reason and another card can pay', async () => {
  const m = await createMerchant('Declines Ltd');
  const intent = await createIntent(m, { amount: 1999 });
  const page = await newPage();
  await page.goto(intent.url);

  await fillCard(page, '4000 0000 0000 0002');
  await page.getByRole('button', { name: 'Pay 19.99 EUR' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Payment failed' });
  await alert.waitFor({ timeout: 20_000 });
  await expect(alert.textContent()).resolves.toBe('Payment failed: your card was declined, try another card.');
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-4-declined.png'), fullPage: true });
  // The customer is put back on the card number, and the intent stays open for them.
  await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('card-number');
  // The live region no longer says the payment is being processed.
  await expect(page.locator('#status-message').textContent()).resolves.not.toContain('Processing');
  await expect(intentStatus(m, intent.payment_intent)).resolves.toBe('pending');

  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByRole('button', { name: 'Pay 19.99 EUR' }).click();
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  // Without a return_url the flow ends on our generic result page.
  await page.waitForURL(/\/pay\/[^/]+\/result\?client_secret=pics_/, { timeout: 15_000 });
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-5-result.png'), fullPage: true });
  await expect(intentStatus(m, intent.payment_intent)).resolves.toBe('success');
  await page.close();
});

test('while a charge’s answer is being checked, the result page and a reloaded payment page say so, offer no form, and follow it to the payment', async () => {
  const m = await createMerchant('Lost Answers SARL');
  const intent = await createIntent(m, { amount: 557 });
  const secret = new URL(intent.url).searchParams.get('client_secret')!;
  // Captured at the gateway, its answer never arrives: the workflow checks with the gateway by the attempt's key.
  const attempt = api.post(`/v202607/payment-intents/${intent.payment_intent}/attempts`, { token: 'tok_capture_no_answer' }, secret);
  await eventually(async () => {
    const s = await api.get(`/pay/${intent.payment_intent}/status?client_secret=${secret}`);
    return s.body.outcome === 'processing' ? true : undefined;
  }, 5_000, 'the attempt processing');
  const page = await newPage();

  await page.goto(`${new URL(intent.url).origin}/pay/${intent.payment_intent}/result?client_secret=${secret}`);
  await page.getByRole('heading', { name: 'Checking your payment…' }).waitFor();
  await expect(page.locator('body').textContent()).resolves.not.toContain('Nothing has been charged');

  await page.goto(intent.url);
  await page.getByRole('heading', { name: 'Checking your payment…' }).waitFor();
  await expect(page.locator('#card-form').isVisible()).resolves.toBe(false);
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-checking.png'), fullPage: true });
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 30_000 });
  expect((await attempt).status).toBe(200);
  await expect(intentStatus(m, intent.payment_intent)).resolves.toBe('success');
  await page.close();
}, 60_000);

test('once the attempt limit is reached the form goes, and the page says so in its language', async () => {
  const m = await createMerchant('Many Tries Ltd');
  const intent = await createIntent(m, { amount: 322 });
  // Through the publishable key, waiting out its rate limit.
  const decline = async (): Promise<{ body: unknown }> => {
    const r = await pay(intent.payment_intent, m.publishableKey, 'tok_decline');
    if (r.status !== 429) return r;
    await new Promise((resolve) => setTimeout(resolve, 300));
    return decline();
  };
  for (let n = 0; n < 19; n++) expect((await decline()).body).toMatchObject({ status: 'failed' });
  const page = await newPage();
  await page.goto(intent.url);
  await fillCard(page, '4242 4242 4242 4242');
  expect((await decline()).body).toMatchObject({ status: 'failed' }); // the 20th, elsewhere, while the customer types
  await page.getByRole('button', { name: 'Pay 3.22 EUR' }).click();
  await page.getByRole('heading', { name: 'Payment not completed' }).waitFor({ timeout: 20_000 });
  await expect(page.locator('#outcome-message').textContent()).resolves.toBe('This payment has reached its limit of payment attempts.');
  await expect(page.locator('#card-form').isVisible()).resolves.toBe(false);

  await page.goto(`${intent.url}&lg=fr`);
  await page.getByRole('heading', { name: 'Paiement non effectué' }).waitFor();
  await expect(page.locator('#outcome-message').textContent()).resolves.toBe('Ce paiement a atteint sa limite de tentatives de paiement.');
  await expect(page.locator('#card-form').count()).resolves.toBe(0);
  await page.close();
}, 60_000);

test('the embedded form pays inside the merchant page, 3-D Secure in a popup, and tells the page with a DOM event', async () => {
  const m = await createMerchant('Embedded Goods');
  const intent = await createIntent(m, { amount: 8900 });
  const page = await newPage();
  await page.goto(`${getStack().apiUrl}/demo/embedded?payment_intent=${intent.payment_intent}&key=${m.publishableKey}`);

  const form = page.frameLocator('iframe[title="Secure payment form"]');
  await fillCard(form, '4000 0000 0000 3220');
  await page.screenshot({ path: path.join(ARTIFACTS, 'embedded-1-form.png'), fullPage: true });
  await form.getByRole('button', { name: 'Pay 89.00 EUR' }).click();

  // The merchant's page must not be navigated away: the bank's page opens in a popup from a click.
  const openBank = form.getByRole('link', { name: /Open your bank/ });
  await openBank.waitFor({ timeout: 20_000 });
  const [popup] = await Promise.all([page.context().waitForEvent('page'), openBank.click()]);
  watch(popup);
  await popup.getByRole('button', { name: 'Complete authentication' }).click();

  await page.waitForSelector('body[data-last-payment-status="succeeded"]', { timeout: 20_000 });
  await form.getByRole('heading', { name: 'Payment successful' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'embedded-2-success.png'), fullPage: true });
  expect(page.url()).toContain('/demo/embedded');
  await expect(page.locator('#event-log pre').textContent()).resolves.toContain(intent.payment_intent);
  await expect(intentStatus(m, intent.payment_intent)).resolves.toBe('success');
  // Back on our page, the popup hands over to the form that opened it and closes itself.
  await popup.waitForEvent('close', { timeout: 30_000 }); // it polls on its own; a loaded CI machine is slow
  await page.close();
});

test('an older intent in Arabic shows its line items right to left, a decline in Arabic with the way back, then pays with 4242 and lands on final_success_url', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const r = await api.post(
    '/payment-intents',
    {
      gateway: 'sandbox',
      amount: 3500,
      currency: 'EUR',
      lg: 'ar',
      human_friendly_payment_intent_secret: 'ORD-42',
      // The image's host does not answer: the page leaves the picture out rather than show it broken.
      line_items: [
        { name: 'Flat white <b>', quantity: 2, price: 1250, image: 'https://127.0.0.1:1/mug.png' },
        { name: 'قهوة عربية', quantity: 1, price: 1000 },
      ],
      final_success_url: `${shop.url}/orders/42/paid?ref=abc`,
      final_failure_url: `${shop.url}/orders/42/failed`,
    },
    m.secretKey,
  );
  expect(r.status).toBe(201);
  const page = await newPage();
  await page.goto(r.body.target_url);

  await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ar');
  await expect(page.locator('.line-item-name').allTextContents()).resolves.toEqual(['\u2068Flat white <b>\u2069', '\u2068قهوة عربية\u2069']);
  await expect(page.locator('.line-item-total').allTextContents()).resolves.toEqual(['\u206825.00 EUR\u2069', '\u206810.00 EUR\u2069']);
  await expect(page.getByText('ORD-42').isVisible()).resolves.toBe(true);
  await page.locator('.line-item-image img').waitFor({ state: 'hidden', timeout: 10_000 });
  // The way back to the merchant waits for a failed attempt.
  const giveUp = page.locator('#give-up a');
  await expect(giveUp.isHidden()).resolves.toBe(true);

  // A declined card: the script's own words for it, in Arabic, and the way back to final_failure_url.
  await page.getByLabel('رقم البطاقة').fill('4000 0000 0000 0002');
  await page.getByLabel('تاريخ الانتهاء').fill('12 / 34');
  await page.getByLabel('رمز التحقق (CVC)').fill('123');
  await page.locator('#pay-button').click();
  const alert = page.getByRole('alert').filter({ hasText: 'فشل الدفع' });
  await alert.waitFor({ timeout: 20_000 });
  await expect(alert.textContent()).resolves.toBe('فشل الدفع: رُفضت بطاقتك، جرّب بطاقة أخرى.');
  await giveUp.waitFor({ state: 'visible' });
  await expect(giveUp.getAttribute('href')).resolves.toBe(`${shop.url}/orders/42/failed`);
  await expect(giveUp.textContent()).resolves.toBe('العودة إلى \u2068Brew & Bean Coffee\u2069');

  await page.getByLabel('رقم البطاقة').fill('4242 4242 4242 4242');
  await expect(page.getByLabel('رقم البطاقة').inputValue()).resolves.toBe('4242 4242 4242 4242');
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-6-arabic.png'), fullPage: true });

  await page.locator('#pay-button').click();
  await page.getByRole('heading', { name: 'تم الدفع بنجاح' }).waitFor({ timeout: 20_000 });
  await expect(page.locator('#outcome-link').textContent()).resolves.toBe('العودة إلى \u2068Brew & Bean Coffee\u2069');
  await page.waitForURL(`${shop.url}/orders/42/paid?ref=abc`, { timeout: 15_000 });
  await eventually(async () => (shop.hits.includes('/orders/42/paid?ref=abc') ? true : undefined), 5_000, 'the final_success_url visit');
  const id = new URL(r.body.target_url).pathname.split('/')[2]!;
  await expect(intentStatus(m, id)).resolves.toBe('success');
  await page.close();
});

test('a wrong client secret or another tenant’s key shows a plain not-found page', async () => {
  const m = await createMerchant();
  const other = await createMerchant();
  const intent = await createIntent(m, { amount: 500 });
  const base = intent.url.split('?')[0]!;
  for (const url of [base, `${base}?client_secret=pics_${'0'.repeat(64)}`, `${base}/embed?key=${other.publishableKey}`]) {
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('Payment not found');
    expect(html).not.toContain('5.00 EUR');
  }
  const embed = await fetch(`${base}/embed?key=${m.publishableKey}`);
  expect(embed.status).toBe(200);
  expect(embed.headers.get('content-security-policy')).toContain('frame-ancestors *');
});
