import path from 'node:path';
import type { FrameLocator, Page, Request } from 'playwright-core';
import { ARTIFACTS, useBrowser } from './browser';
import { admin, api, createMerchant, eventually, getStack, type Merchant } from './harness';

// "Save this card for future payments" on the hosted page and the embedded form, driven in headless
// Chromium against the real stack: a v202608 intent with a customer and setup_future_usage "off_session"
// offers the checkbox; ticked, the page's attempt carries save_payment_method and the card is saved to the
// customer. Screenshots land in test/artifacts/ (git-ignored) for a human look.

const { newPage } = useBrowser();

/** The sandbox's card that pays with the customer present, without 3-D Secure, and can be saved. */
const SAVE_CARD = { number: '4000 0027 6000 3184', last4: '3184' };

interface Intent {
  payment_intent: string;
  url: string;
  customer?: string;
}

async function createIntent(m: Merchant, body: Record<string, unknown>): Promise<Intent> {
  const r = await api.post('/v202608/payment-intents', { currency: 'EUR', ...body }, m.secretKey);
  expect(r.status).toBe(201);
  return r.body as Intent;
}

const saving = (amount: number) => ({ amount, customer: { reference: `saver-${Date.now()}-${amount}` }, setup_future_usage: 'off_session' });

async function fillCard(page: Pick<Page, 'getByLabel'>, number: string, labels = { number: 'Card number', expiry: 'Expiry date', cvc: 'CVC' }) {
  await page.getByLabel(labels.number).fill(number);
  await page.getByLabel(labels.expiry).fill('12 / 34');
  await page.getByLabel(labels.cvc).fill('123');
}

/** The attempt the page submits, and our API's answer to it. */
function nextAttempt(page: Page): Promise<{ body: Record<string, unknown>; answer: Record<string, unknown> }> {
  const isAttempt = (r: Request) => r.method() === 'POST' && /\/v202607\/payment-intents\/[^/]+\/attempts$/.test(new URL(r.url()).pathname);
  return page.waitForResponse((res) => isAttempt(res.request()), { timeout: 20_000 }).then(async (res) => ({
    body: res.request().postDataJSON() as Record<string, unknown>,
    answer: (await res.json()) as Record<string, unknown>,
  }));
}

/**
 * On `form` (the hosted page itself, or the embedded form's frame on `page`): the save box is offered unticked,
 * the customer enters 3184, ticks it and pays with `payButton`; answers the attempt that click submitted.
 */
async function tickSaveAndPay(page: Page, form: Page | FrameLocator, payButton: string, screenshot: string) {
  const save = form.getByRole('checkbox', { name: 'Save this card for future payments' });
  await save.waitFor();
  await expect(save.isChecked()).resolves.toBe(false); // the customer opts in
  await fillCard(form, SAVE_CARD.number);
  await save.check();
  await page.screenshot({ path: path.join(ARTIFACTS, screenshot), fullPage: true });

  const attempt = nextAttempt(page);
  await form.getByRole('button', { name: payButton }).click();
  return attempt;
}

const intentStatus = async (m: Merchant, id: string) => (await api.get(`/v202607/payment-intents/${id}`, m.secretKey)).body.status as string;

test('ticked, "Save this card for future payments" saves the card to the customer and the success says so', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const intent = await createIntent(m, saving(2500));
  expect(intent.customer).toMatch(/^cus_/);
  const page = await newPage();
  await page.goto(intent.url);

  const { body, answer } = await tickSaveAndPay(page, page, 'Pay 25.00 EUR', 'hosted-7-save-card.png');
  expect(body).toMatchObject({ token: expect.stringMatching(/^tok_/), save_payment_method: true });
  expect(answer).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });

  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  await page.getByText('Card saved', { exact: true }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-7-save-card-success.png'), fullPage: true });
  await expect(page.locator('#outcome').getAttribute('data-payment-method')).resolves.toBe(answer.payment_method_uuid);
  await expect(intentStatus(m, intent.payment_intent)).resolves.toBe('success');

  // VERIFY: GET /v202608/customers/{customer}/payment-methods is another helper's, new: its shape is
  // { data: [{ payment_method, last4, ... }], has_more } as api/customers/payment-methods.ts defines it.
  const cards = await api.get(`/v202608/customers/${intent.customer}/payment-methods`, m.secretKey);
  expect(cards.status).toBe(200);
  expect(cards.body.data).toHaveLength(1);
  expect(cards.body.data[0]).toMatchObject({ payment_method: answer.payment_method_uuid, customer: intent.customer, last4: SAVE_CARD.last4 });
  await page.close();
});

test('in Arabic the offer reads right to left; left unticked, the attempt carries no save_payment_method and nothing is saved', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const intent = await createIntent(m, saving(3500));
  const page = await newPage();
  await page.goto(`${intent.url}&lg=ar`);

  await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
  const save = page.getByRole('checkbox', { name: 'حفظ هذه البطاقة للمدفوعات المستقبلية' });
  await save.waitFor();
  await fillCard(page, SAVE_CARD.number, { number: 'رقم البطاقة', expiry: 'تاريخ الانتهاء', cvc: 'رمز التحقق (CVC)' });
  // Right to left: the checkbox stands at the start of its line, on the right, with the label to its left.
  const [box, label] = await Promise.all([save.boundingBox(), page.locator('label[for="save-card"]').boundingBox()]);
  expect(box!.x).toBeGreaterThan(label!.x + label!.width - 1);
  await save.check();
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-7-save-card-ar.png'), fullPage: true });
  await save.uncheck(); // changes their mind

  const attempt = nextAttempt(page);
  await page.locator('#pay-button').click();
  const { body, answer } = await attempt;
  expect(body).not.toHaveProperty('save_payment_method');
  expect(answer).toMatchObject({ status: 'success' });
  expect(answer).not.toHaveProperty('payment_method_uuid');
  await page.getByRole('heading', { name: 'تم الدفع بنجاح' }).waitFor({ timeout: 20_000 });
  await expect(page.locator('#outcome-saved').isHidden()).resolves.toBe(true);
  await expect(page.getByText('تم حفظ البطاقة').count()).resolves.toBe(0);

  const cards = await api.get(`/v202608/customers/${intent.customer}/payment-methods`, m.secretKey); // VERIFY: as above
  expect(cards.status).toBe(200);
  expect(cards.body.data).toEqual([]);
  await page.close();
});

test('an intent without setup_future_usage shows no checkbox, even with a customer', async () => {
  const m = await createMerchant();
  const page = await newPage();
  for (const body of [{ amount: 1200, customer: { reference: `no-save-${Date.now()}` } }, { amount: 1300 }]) {
    const intent = await createIntent(m, body);
    await page.goto(intent.url);
    await page.getByRole('button', { name: /^Pay / }).waitFor();
    await expect(page.getByRole('checkbox').count()).resolves.toBe(0);
    await expect(page.getByText('Save this card').count()).resolves.toBe(0);
  }
  // And paying it submits what the page always did.
  const intent = await createIntent(m, { amount: 1400, customer: { reference: `no-save-pay-${Date.now()}` } });
  await page.goto(intent.url);
  await fillCard(page, '4242 4242 4242 4242');
  const attempt = nextAttempt(page);
  await page.getByRole('button', { name: 'Pay 14.00 EUR' }).click();
  const { body } = await attempt;
  expect(Object.keys(body).sort()).toEqual(['connector', 'token']);
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  await page.close();
});

test('the embedded form offers it too: ticked, the card is saved and the form says so', async () => {
  const m = await createMerchant('Embedded Goods');
  const intent = await createIntent(m, saving(8900));
  const page = await newPage();
  await page.goto(`${getStack().apiUrl}/demo/embedded?payment_intent=${intent.payment_intent}&key=${m.publishableKey}`);

  const form = page.frameLocator('iframe[title="Secure payment form"]');
  const { body, answer } = await tickSaveAndPay(page, form, 'Pay 89.00 EUR', 'embedded-3-save-card.png');
  expect(body).toMatchObject({ save_payment_method: true });
  expect(answer).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  await page.waitForSelector('body[data-last-payment-status="succeeded"]', { timeout: 20_000 });
  await form.getByText('Card saved', { exact: true }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'embedded-4-save-card-success.png'), fullPage: true });
  // The merchant's page hears the outcome, never the saved card's id (its server gets that from the API).
  await expect(page.locator('#event-log pre').textContent()).resolves.not.toContain('pm_');

  const cards = await api.get(`/v202608/customers/${intent.customer}/payment-methods`, m.secretKey); // VERIFY: as above
  expect(cards.status).toBe(200);
  expect(cards.body.data).toMatchObject([{ payment_method: answer.payment_method_uuid, last4: SAVE_CARD.last4 }]);
  await page.close();
});

test('ticked, a card that needs 3-D Secure is saved once the challenge pays, and the page it returns to says so', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const intent = await createIntent(m, saving(3100));
  const page = await newPage();
  await page.goto(intent.url);
  await fillCard(page, '4000 0000 0000 3220');
  await page.getByRole('checkbox', { name: 'Save this card for future payments' }).check();
  // The attempt's answer is requires_action, naming no card, and the page leaves for the bank's at once.
  const attempt = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/attempts'));
  await page.locator('#pay-button').click();
  expect((await attempt).postDataJSON()).toMatchObject({ save_payment_method: true });

  const complete = page.getByRole('button', { name: 'Complete authentication' });
  await complete.waitFor({ timeout: 20_000 });
  await complete.click();
  await page.waitForURL(onHostedPageOf(intent.payment_intent), { timeout: 20_000 });
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  await page.getByText('Card saved', { exact: true }).waitFor({ timeout: 10_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-7-save-card-3ds.png'), fullPage: true });

  const cards = await api.get(`/v202608/customers/${intent.customer}/payment-methods`, m.secretKey);
  expect(cards.body.data).toMatchObject([{ last4: '3220' }]);
  await expect(page.locator('#outcome').getAttribute('data-payment-method')).resolves.toBe(cards.body.data[0].payment_method);

  // Opened again once paid, the page is rendered final and still says so.
  await page.goto(intent.url);
  await page.getByText('Card saved', { exact: true }).waitFor();
  await page.close();
});

// ---- the saved card charged later, with the customer absent (POST /cards/mit) ----------------------------
// 3184's issuer demands 3-D Secure for off-session charges: /cards/mit answers REQUIRES_ACTION with the
// sandbox's challenge page, which sends the cardholder back to the second intent's hosted page.

/** Saves 3184 to a new customer by paying `amount` on the hosted page with the box ticked. */
async function saveCardOnPage(m: Merchant, page: Page, amount: number): Promise<{ pm: string; customer: string }> {
  const intent = await createIntent(m, saving(amount));
  await page.goto(intent.url);
  await fillCard(page, SAVE_CARD.number);
  await page.getByRole('checkbox', { name: 'Save this card for future payments' }).check();
  const attempt = nextAttempt(page);
  await page.locator('#pay-button').click();
  const { answer } = await attempt;
  expect(answer).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  await page.getByText('Card saved', { exact: true }).waitFor({ timeout: 20_000 });
  return { pm: answer.payment_method_uuid as string, customer: intent.customer! };
}

async function mitKeyOf(m: Merchant): Promise<string> {
  const issued = await admin.post(`/admin/tenants/${m.tenant}/api-keys`, { claims: ['cards.mit'] });
  expect(issued.status).toBe(201);
  return issued.body.secret_key as string;
}

/** A pending v202607 intent of the customer, charged off-session with the saved card: REQUIRES_ACTION. */
async function chargeNeedingChallenge(m: Merchant, customer: string, pm: string, amount: number) {
  const created = await api.post('/v202607/payment-intents', { amount, currency: 'EUR', customer }, m.secretKey);
  expect(created.status).toBe(201);
  const intent = created.body.payment_intent as string;
  const r = await api.post(
    '/cards/mit',
    { payment_intent_secret: intent, payment_method_uuid: pm, agreement_id: `agr-${intent}`, agreement_type: 'RECURRING' },
    await mitKeyOf(m),
  );
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    code: 'REQUIRES_ACTION',
    transaction_uuid: expect.stringMatching(/^ti_/),
    next_action: { type: 'redirect_to_url', url: expect.stringContaining('/3ds/') },
  });
  return { intent, transaction: r.body.transaction_uuid as string, challengeUrl: r.body.next_action.url as string };
}

const onHostedPageOf = (intent: string) => (url: URL) => url.pathname === `/pay/${intent}` && url.searchParams.has('client_secret');

test('charged off-session later, the saved card needs 3-D Secure: the challenge in the browser pays the second intent and lands on its hosted page', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const page = await newPage();
  const { pm, customer } = await saveCardOnPage(m, page, 2500);

  const { intent, transaction, challengeUrl } = await chargeNeedingChallenge(m, customer, pm, 4200);
  await expect(intentStatus(m, intent)).resolves.toBe('pending');

  // The cardholder follows next_action.url: the sandbox bank's page, for this charge's amount.
  await page.goto(challengeUrl);
  await page.getByRole('heading', { name: 'Confirm your payment' }).waitFor();
  await expect(page.locator('dd').first().textContent()).resolves.toBe('€42.00');
  const complete = page.getByRole('button', { name: 'Complete authentication' });
  await complete.waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-8-mit-3ds.png'), fullPage: true });

  // Completing it sends the browser back to the second intent's hosted page, which shows it paid.
  await complete.click();
  await page.waitForURL(onHostedPageOf(intent), { timeout: 20_000 });
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 20_000 });
  await expect(page.locator('#outcome-message').textContent()).resolves.toBe('42.00 EUR paid to Brew & Bean Coffee.');
  expect(new URL(page.url()).pathname).toBe(`/pay/${intent}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'hosted-9-mit-3ds-paid.png'), fullPage: true });

  const paid = await eventually(async () => {
    const r = await api.get(`/v202608/payment-intents/${intent}`, m.secretKey);
    return r.body.status === 'success' ? r.body : undefined;
  }, 20_000, 'the second intent paid');
  expect(paid).toMatchObject({ status: 'success', payment_method: pm, customer });
  // The card was saved by the first payment, not this one: the page's status names no card saved.
  const here = new URL(page.url());
  const status = await (await fetch(`${here.origin}/pay/${intent}/status${here.search}`)).json();
  expect(status).toMatchObject({ outcome: 'succeeded' });
  expect(status).not.toHaveProperty('payment_method_uuid');
  const tx = await api.get(`/v202608/transactions/${transaction}`, m.secretKey);
  expect(tx.status).toBe(200);
  expect(tx.body).toMatchObject({ transaction, kind: 'merchant_initiated', payment_intent: intent, status: 'succeeded', amount: 4200, payment_method: pm });

  // Without a return_url the hosted flow ends on our result page, as for any payment.
  await page.waitForURL((url) => url.pathname === `/pay/${intent}/result`, { timeout: 15_000 });
  await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
  await page.close();
});

test('charged off-session later, the 3-D Secure challenge failed in the browser: the intent stays pending, the transaction fails authentication_failed', async () => {
  const m = await createMerchant('Brew & Bean Coffee');
  const page = await newPage();
  const { pm, customer } = await saveCardOnPage(m, page, 2600);
  const { intent, transaction, challengeUrl } = await chargeNeedingChallenge(m, customer, pm, 4300);

  await page.goto(challengeUrl);
  await page.getByRole('button', { name: 'Fail authentication' }).click();
  await page.waitForURL(onHostedPageOf(intent), { timeout: 20_000 });
  // Back on the hosted page, the failed attempt reads as any failed 3-D Secure and the form is offered again.
  const alert = page.getByRole('alert').filter({ hasText: 'Payment failed' });
  await alert.waitFor({ timeout: 20_000 });
  await expect(alert.textContent()).resolves.toBe('Payment failed: the authentication with your bank failed, try another card.');

  const tx = await eventually(async () => {
    const t = await api.get(`/v202608/transactions/${transaction}`, m.secretKey);
    return t.body.status === 'failed' ? t.body : undefined;
  }, 20_000, 'the transaction failed');
  expect(tx).toMatchObject({ status: 'failed', failure_code: 'authentication_failed', payment_intent: intent });
  const got = await api.get(`/v202608/payment-intents/${intent}`, m.secretKey);
  expect(got.body.status).toBe('pending');
  await page.close();
});
