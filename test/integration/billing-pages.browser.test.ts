import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS, useBrowser } from './browser';
import { api, createMerchant, eventually, getStack, mongo, withMitClaim, type Merchant } from './harness';

// The two hosted billing pages in headless Chromium against the real stack. A customer (on a test clock, so
// the proration figures are exact) opens a checkout session, enters a card, subscribes and lands on the
// merchant's success_url; the subscription is active, its first invoice paid by the session's intent (never
// charged again) and the card saved. Then the billing portal: the subscription and its invoice, a plan switch
// whose confirm step shows the prorations (checked against the API's preview for the same proration_date)
// and applies them, a card update, a cancellation at the period's end. Screenshots land in test/artifacts/.

const { newPage } = useBrowser();
let shop: { server: Server; url: string; hits: string[] };

beforeAll(async () => {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Shop</title><h1>Welcome to the club</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  shop = { server, hits, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
afterAll(async () => {
  await new Promise((resolve) => shop?.server.close(resolve));
});

const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });

function client(m: Merchant) {
  return {
    post: (p: string, body: unknown) => api.post(`/v202607${p}`, body, m.secretKey),
    get: (p: string) => api.get(`/v202607${p}`, m.secretKey),
  };
}

async function fillCard(page: Page, number: string, labels = { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' }) {
  await page.getByLabel(labels.number).fill(number);
  await page.getByLabel(labels.expiry).fill('12 / 34');
  await page.getByLabel(labels.cvc).fill('123');
}

/** The amounts a page lists (`data-amount` of each figure), in order. */
const amountsOf = (page: Page, selector: string) => page.locator(`${selector} dd[data-amount]`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-amount'))));

let seq = 0;

test('a customer subscribes on the checkout page, then switches plan, updates the card and cancels in the billing portal', async () => {
  const m = await withMitClaim(await createMerchant('Dar Al Qahwa'));
  const { post, get } = client(m);
  const clock = (await post('/test-clocks', { frozen_time: at('2026-04-01T00:00:00Z') })).body.test_clock;
  const customer = (await post('/customers', { reference: `billing-page-${Date.now()}-${++seq}`, test_clock: clock })).body.customer as string;
  const basic = (await post('/plans', { amount: 3000, currency: 'EUR', interval: 'month', nickname: 'Basic box' })).body.plan as string;
  const gold = (await post('/plans', { amount: 9000, currency: 'EUR', interval: 'month', nickname: 'Gold box' })).body.plan as string;

  // ---- checkout --------------------------------------------------------------------------------------
  const created = await post('/checkout-sessions', {
    mode: 'subscription',
    customer,
    line_items: [{ plan: basic }],
    success_url: `${shop.url}/welcome?session={CHECKOUT_SESSION_ID}`,
    cancel_url: `${shop.url}/plans`,
  });
  expect(created.status).toBe(201);
  const cs = created.body;
  const page = await newPage();
  await page.goto(cs.url);
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
  await page.getByRole('heading', { level: 1, name: 'Subscribe to Dar Al Qahwa' }).waitFor();
  await expect(page.locator('.summary-amount').textContent()).resolves.toBe('30.00 EUR every month');
  await expect(amountsOf(page, '#totals')).resolves.toEqual([3000, 3000]);
  await expect(page.getByRole('link', { name: 'Back to Dar Al Qahwa' }).getAttribute('href')).resolves.toBe(`${shop.url}/plans`);
  // Keyboard: the card fields come in order, then the button.
  await page.getByLabel('Card number').focus();
  await page.keyboard.press('Tab');
  await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('card-expiry');
  await fillCard(page, '4242 4242 4242 4242');
  await shot(page, 'billing-1-checkout.png');

  const attempt = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/payment-intents/${cs.payment_intent}/attempts`));
  await page.getByRole('button', { name: 'Subscribe' }).click();
  const answer = await (await attempt).json();
  expect(answer).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  await shot(page, 'billing-2-checkout-paid.png');
  await page.waitForURL(`${shop.url}/welcome?session=${cs.checkout_session}`, { timeout: 20_000 });

  const session = (await get(`/checkout-sessions/${cs.checkout_session}`)).body;
  expect(session).toMatchObject({ status: 'complete', subscription: expect.stringMatching(/^sub_eu_/), payment_intent: cs.payment_intent });
  const sub = (await get(`/subscriptions/${session.subscription}`)).body;
  expect(sub).toMatchObject({ status: 'active', customer, default_payment_method: answer.payment_method_uuid, items: [{ plan: basic, quantity: 1 }], current_period_start: at('2026-04-01T00:00:00Z'), current_period_end: at('2026-05-01T00:00:00Z') });
  const invoices = (await get(`/invoices?subscription=${sub.subscription}`)).body.data;
  expect(invoices).toHaveLength(1);
  expect(invoices[0]).toMatchObject({ status: 'paid', billing_reason: 'subscription_create', total: 3000, amount_paid: 3000, payment_intent: cs.payment_intent, attempt_count: 0 });
  // Paid once: the customer's only intent is the session's, and the card is saved to them.
  const intents = (await get(`/payment-intents?customer=${customer}`)).body.data;
  expect(intents.map((i: { payment_intent: string; status: string; amount: number }) => [i.payment_intent, i.status, i.amount])).toEqual([[cs.payment_intent, 'success', 3000]]);
  const cards = (await api.get(`/v202608/customers/${customer}/payment-methods`, m.secretKey)).body.data;
  expect(cards).toMatchObject([{ payment_method: answer.payment_method_uuid, last4: '4242' }]);

  // ---- the billing portal ---------------------------------------------------------------------------
  const advanced = await post(`/test-clocks/${clock}/advance`, { frozen_time: at('2026-04-11T00:00:00Z') }); // 10 of 30 days used
  expect(advanced.status).toBe(200);
  await eventually(async () => ((await get(`/test-clocks/${clock}`)).body.status === 'ready' ? true : undefined), 60_000, 'the clock');
  const portal = await post('/billing-portal/sessions', { customer, return_url: `${shop.url}/account` });
  expect(portal.status).toBe(201);
  await page.goto(portal.body.url);
  await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
  const item = page.locator(`[data-subscription="${sub.subscription}"]`);
  await expect(item.getByRole('heading', { name: 'Basic box' }).isVisible()).resolves.toBe(true);
  await expect(item.locator('.status').textContent()).resolves.toBe('Active');
  await expect(item.locator('.portal-item-price').textContent()).resolves.toBe('30.00 EUR every month');
  await expect(item.locator('[data-when]').textContent()).resolves.toBe('Renews on 1 May 2026');
  await expect(page.locator(`[data-invoice="${invoices[0].invoice}"]`).textContent()).resolves.toContain('30.00 EUR');
  await expect(page.locator(`[data-invoice="${invoices[0].invoice}"] .status`).textContent()).resolves.toBe('Paid');
  await expect(page.locator('#portal-card').textContent()).resolves.toContain('Visa ending in 4242');
  await shot(page, 'billing-3-portal.png');

  // Switch plan: the plans, then the confirm step with the prorations for the moment shown.
  await item.getByRole('link', { name: 'Switch plan' }).click();
  await page.getByRole('heading', { level: 1, name: 'Choose a new plan' }).waitFor();
  await expect(page.locator(`[data-plan="${basic}"] .status`).textContent()).resolves.toBe('Current plan');
  await page.locator(`[data-plan="${gold}"]`).getByRole('link', { name: /Select/ }).click();
  await page.getByRole('heading', { level: 1, name: 'Confirm your new plan' }).waitFor();
  const prorationDate = Number(await page.locator('#confirm-switch input[name="proration_date"]').inputValue());
  expect(prorationDate).toBe(at('2026-04-11T00:00:00Z'));
  const shown = await amountsOf(page, '#proration');
  const preview = await post('/invoices/create-preview', { subscription: sub.subscription, items: [{ item: sub.items[0].item, plan: gold }], proration_date: prorationDate });
  expect(preview.status).toBe(200);
  // The next period at 90.00, a credit of −30.00 × 20/30 and a charge of 90.00 × 20/30, then the total.
  expect(shown).toEqual([...preview.body.lines.map((l: { amount: number }) => l.amount), preview.body.total]);
  expect(shown).toEqual([9000, -2000, 6000, 13_000]);
  await expect(page.locator('#proration-total').textContent()).resolves.toBe('130.00 EUR');
  await shot(page, 'billing-4-portal-switch-confirm.png');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Your plan has been changed.').waitFor({ timeout: 20_000 });
  const switched = (await get(`/subscriptions/${sub.subscription}`)).body;
  expect(switched.items).toEqual([{ item: sub.items[0].item, plan: gold, quantity: 1 }]);
  // Applied at that same proration_date: the next invoice carries exactly the prorations shown.
  const next = (await post('/invoices/create-preview', { subscription: sub.subscription })).body;
  expect(next.lines.map((l: { amount: number }) => l.amount)).toEqual([9000, -2000, 6000]);
  expect(next.total).toBe(13_000);
  await expect(item.getByRole('heading', { name: 'Gold box' }).isVisible()).resolves.toBe(true);

  // Update card: a card check of 1.00 EUR saves the new card, which becomes the subscription's; the check is refunded.
  await page.getByRole('button', { name: 'Update card' }).click();
  await page.getByRole('heading', { level: 1, name: 'Update your card' }).waitFor({ timeout: 20_000 });
  await fillCard(page, '5555 5555 5555 4444');
  await shot(page, 'billing-5-portal-card.png');
  await page.getByRole('button', { name: 'Save card' }).click();
  await page.getByText('Your card has been updated.').waitFor({ timeout: 30_000 });
  await expect(page.locator('#portal-card').textContent()).resolves.toContain('Mastercard ending in 4444');
  const withCard = (await get(`/subscriptions/${sub.subscription}`)).body;
  expect(withCard.default_payment_method).not.toBe(answer.payment_method_uuid);
  const newCards = (await api.get(`/v202608/customers/${customer}/payment-methods`, m.secretKey)).body.data;
  expect(newCards[0]).toMatchObject({ payment_method: withCard.default_payment_method, last4: '4444' });
  const check = (await get(`/payment-intents?customer=${customer}`)).body.data.find((i: { payment_intent: string }) => i.payment_intent !== cs.payment_intent);
  expect(check).toMatchObject({ status: 'success', amount: 100 });
  const refunds = (await get(`/refunds?payment_intent=${check.payment_intent}`)).body.data;
  expect(refunds).toMatchObject([{ amount: 100 }]);

  // Cancel: at the end of the period, said on the page; and it can be undone.
  await item.getByRole('link', { name: 'Cancel subscription' }).click();
  await page.getByRole('heading', { level: 1, name: 'Cancel your subscription' }).waitFor();
  await expect(page.locator('.portal-cancel-message').textContent()).resolves.toContain('until 1 May 2026');
  await shot(page, 'billing-6-portal-cancel.png');
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await page.getByText('Your subscription will end on 1 May 2026.').waitFor({ timeout: 20_000 });
  await expect(item.locator('[data-when]').textContent()).resolves.toBe('Cancels on 1 May 2026');
  expect((await get(`/subscriptions/${sub.subscription}`)).body).toMatchObject({ cancel_at_period_end: true, status: 'active' });
  await shot(page, 'billing-7-portal-canceled.png');
  await item.getByRole('button', { name: 'Don’t cancel' }).click();
  await page.getByText('Your subscription will renew as before.').waitFor({ timeout: 20_000 });
  expect((await get(`/subscriptions/${sub.subscription}`)).body.cancel_at_period_end).toBe(false);
  await item.getByRole('link', { name: 'Cancel subscription' }).click();
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await page.getByText('Your subscription will end on 1 May 2026.').waitFor({ timeout: 20_000 });
  expect((await get(`/subscriptions/${sub.subscription}`)).body.cancel_at_period_end).toBe(true);

  await expect(page.getByRole('link', { name: 'Return to Dar Al Qahwa' }).getAttribute('href')).resolves.toBe(`${shop.url}/account`);
  await page.close();
}, 180_000);

test('in Arabic, with a trial and a 3-D Secure card: right to left, a card check instead of a charge, back on the page after the bank', async () => {
  const m = await withMitClaim(await createMerchant('Dar Al Qahwa'));
  const { post, get } = client(m);
  const customer = (await post('/customers', { reference: `billing-ar-${Date.now()}-${++seq}` })).body.customer as string;
  const plan = (await post('/plans', { amount: 1999, currency: 'EUR', interval: 'month', nickname: 'Coffee box' })).body.plan as string;
  const tax = (await post('/tax-rates', { percentage: 20, inclusive: false, display_name: 'VAT' })).body.tax_rate as string;
  const cs = (
    await post('/checkout-sessions', {
      mode: 'subscription',
      customer,
      line_items: [{ plan }],
      subscription_data: { trial_period_days: 14, default_tax_rates: [tax] },
      locale: 'ar',
      success_url: `${shop.url}/welcome`,
      cancel_url: `${shop.url}/plans`,
    })
  ).body;
  expect(cs).toMatchObject({ amount_total: 0, currency: 'EUR' });
  expect((await get(`/payment-intents/${cs.payment_intent}`)).body.amount).toBe(100); // the card check

  const page = await newPage();
  await page.goto(cs.url);
  await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
  await expect(page.locator('html').getAttribute('lang')).resolves.toBe('ar');
  // The merchant's Latin name is a bidi isolate inside the Arabic heading.
  await page.getByRole('heading', { level: 1, name: 'الاشتراك لدى \u2068Dar Al Qahwa\u2069' }).waitFor();
  await expect(page.locator('.summary-amount').textContent()).resolves.toBe('14 يومًا مجانًا');
  await expect(page.locator('#totals-then').textContent()).resolves.toContain('\u206823.99 EUR\u2069');
  // Right to left: the card number's label starts on the right.
  const [label, input] = await Promise.all([page.getByText('رقم البطاقة', { exact: true }).boundingBox(), page.getByLabel('رقم البطاقة').boundingBox()]);
  expect(label!.x + label!.width).toBeGreaterThan(input!.x + input!.width - 2);
  await fillCard(page, '4000 0000 0000 3220', { number: 'رقم البطاقة', expiry: 'تاريخ الانتهاء', cvc: 'رمز التحقق (CVC)' });
  await shot(page, 'billing-8-checkout-ar-trial.png');

  await page.getByRole('button', { name: 'ابدأ الفترة التجريبية' }).click();
  const complete = page.getByRole('button', { name: 'Complete authentication' });
  await complete.waitFor({ timeout: 20_000 });
  expect(new URL(page.url()).origin).toBe(new URL(getStack().sandboxUrl).origin);
  await complete.click();
  // The bank sends the browser to the intent's payment page, which hands it back to the checkout page, then on.
  await page.waitForURL(`${shop.url}/welcome?session_id=${cs.checkout_session}`, { timeout: 30_000 });

  const session = (await get(`/checkout-sessions/${cs.checkout_session}`)).body;
  expect(session).toMatchObject({ status: 'complete', amount_total: 0 });
  const sub = (await get(`/subscriptions/${session.subscription}`)).body;
  expect(sub).toMatchObject({ status: 'trialing', trial_end: sub.trial_start + 14 * 86_400 });
  const [first] = (await get(`/invoices?subscription=${sub.subscription}`)).body.data;
  expect(first).toMatchObject({ total: 0, status: 'paid' });
  // The card check is given back in full.
  const refunds = (await get(`/refunds?payment_intent=${cs.payment_intent}`)).body.data;
  expect(refunds).toMatchObject([{ amount: 100 }]);

  // The portal in Arabic.
  const portal = (await post('/billing-portal/sessions', { customer, locale: 'ar', return_url: `${shop.url}/account` })).body;
  await page.goto(portal.url);
  await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
  await page.getByRole('heading', { level: 1, name: 'الفوترة' }).waitFor();
  await expect(page.locator(`[data-subscription="${sub.subscription}"] .status`).textContent()).resolves.toBe('فترة تجريبية');
  await shot(page, 'billing-9-portal-ar.png');
  await page.close();
}, 120_000);

test('an expired checkout session and an expired portal session say so', async () => {
  const m = await withMitClaim(await createMerchant('Dar Al Qahwa'));
  const { post } = client(m);
  const customer = (await post('/customers', { reference: `billing-exp-${Date.now()}-${++seq}` })).body.customer as string;
  const plan = (await post('/plans', { amount: 500, currency: 'EUR', interval: 'month' })).body.plan as string;
  const cs = (await post('/checkout-sessions', { mode: 'subscription', customer, line_items: [{ plan }], success_url: `${shop.url}/ok`, cancel_url: `${shop.url}/back` })).body;
  const portal = (await post('/billing-portal/sessions', { customer })).body;
  // Past their expiry, as 24 hours and one hour later (the records' `expires_at` moved back).
  const db = await mongo();
  try {
    const past = new Date(Date.now() - 1000);
    await db.db().collection('checkout_sessions').updateOne({ _id: cs.checkout_session }, { $set: { expires_at: past } });
    await db.db().collection('portal_sessions').updateOne({ _id: portal.billing_portal_session }, { $set: { expires_at: past } });
  } finally {
    await db.close();
  }

  const page = await newPage();
  await page.goto(`${cs.url}?lg=fr`);
  await page.getByRole('heading', { level: 1, name: 'Cette page de paiement a expiré' }).waitFor();
  await expect(page.getByRole('link', { name: 'Retour à Dar Al Qahwa' }).getAttribute('href')).resolves.toBe(`${shop.url}/back`);
  await shot(page, 'billing-10-checkout-expired-fr.png');
  const answer = await page.goto(portal.url);
  expect(answer?.status()).toBe(410);
  await page.getByRole('heading', { level: 1, name: 'This session has expired' }).waitFor();
  await page.close();
});
