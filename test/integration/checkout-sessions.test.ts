import { createCheckoutSession } from '../../api/checkout-sessions/service';
import { checkoutSessionCreateBody } from '../../api/checkout-sessions/schemas';
import { tenantAuth } from '../../api/deps';
import { giveBackPayment } from '../../api/refunds/service';
import { serviceRefundKey } from '../../domain/refund';
import { connectMongo } from '../../platform/mongo';
import { api, apiDeps, createMerchant, eventually, getStack, mongo, startHookReceiver, temporalClient, withMethod, withMitClaim, type HookReceiver, type Merchant } from './harness';

// Checkout sessions (mode subscription) through the API on the real stack: create with the first invoice
// worked out, retrieve, refusals, tenant isolation, idempotency, expiry, and completion exactly once (paid on
// the page, completed by whichever of the page and a retrieve comes first, one subscription, the first invoice
// paid by the session's intent). The page itself is driven in billing-pages.browser.test.ts.

let m: Merchant;
let other: Merchant;
let hooks: HookReceiver;
beforeAll(async () => {
  [m, other, hooks] = await Promise.all([createMerchant('Checkout sessions shop'), createMerchant('Another shop'), startHookReceiver()]);
});
afterAll(() => hooks.close());

const post = (path: string, body: unknown, key = m.secretKey) => api.post(`/v202607${path}`, body, key);
const get = (path: string, key = m.secretKey) => api.get(`/v202607${path}`, key);

let seq = 0;
async function customer(key = m.secretKey): Promise<string> {
  const c = await post('/customers', { reference: `cs-${Date.now()}-${++seq}` }, key);
  expect(c.status).toBe(201);
  return c.body.customer;
}
async function plan(body: Record<string, unknown> = {}, key = m.secretKey): Promise<string> {
  const p = await post('/plans', { amount: 1999, currency: 'EUR', interval: 'month', nickname: `Box ${++seq}`, ...body }, key);
  expect(p.status).toBe(201);
  return p.body.plan;
}
const urls = { success_url: 'https://shop.example.com/welcome', cancel_url: 'https://shop.example.com/plans' };
const sessionBody = (cus: string, planId: string, more: Record<string, unknown> = {}) => ({ mode: 'subscription', customer: cus, line_items: [{ plan: planId }], ...urls, ...more });

/** Pays the session's intent as the page does: a card token, the card saved. */
async function pay(intent: string, token = 'tok_success') {
  const r = await api.post(`/v202607/payment-intents/${intent}/attempts`, { token, save_payment_method: true }, m.publishableKey);
  expect(r.status).toBe(200);
  return r.body as { status: string; payment_method_uuid?: string };
}

test('create answers the session with its first invoice worked out; retrieve answers it; another tenant finds nothing', async () => {
  const cus = await customer();
  const box = await plan();
  const coupon = (await post('/coupons', { percent_off: 10, duration: 'forever', name: 'WELCOME10' })).body.coupon;
  const vat = (await post('/tax-rates', { percentage: 20, inclusive: false, display_name: 'VAT' })).body.tax_rate;
  const created = await post('/checkout-sessions', sessionBody(cus, box, { line_items: [{ plan: box, quantity: 2 }], coupon, subscription_data: { default_tax_rates: [vat] } }));
  expect(created.status).toBe(201);
  const s = created.body;
  // 2 × 19.99 = 39.98; 10 % off = 4.00 (3.998 rounded half up); VAT 20 % of 35.98 = 7.20 (7.196); total 43.18.
  expect(s).toEqual({
    checkout_session: expect.stringMatching(/^cs_eu_/),
    object: 'checkout_session',
    mode: 'subscription',
    status: 'open',
    customer: cus,
    url: expect.stringMatching(new RegExp(`/billing/checkout/${s.checkout_session}$`)),
    ...urls,
    subscription: null,
    payment_intent: expect.stringMatching(/^pi_eu_/),
    amount_total: 4318,
    currency: 'EUR',
    completion_error: null,
    expires_at: s.created + 86_400,
    created: expect.any(Number),
  });
  // The intent the page pays: exactly that total, for this customer, keeping the card.
  const intent = (await api.get(`/v202608/payment-intents/${s.payment_intent}`, m.secretKey)).body;
  expect(intent).toMatchObject({ status: 'pending', amount: 4318, currency: 'EUR', customer: cus, setup_future_usage: 'off_session' });
  expect((await get(`/checkout-sessions/${s.checkout_session}`)).body).toEqual(s);
  // The page shows it.
  const page = await fetch(s.url);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  const text = await page.text();
  expect(text).toContain('43.18 EUR');
  expect(text).toContain('WELCOME10');

  const foreign = await get(`/checkout-sessions/${s.checkout_session}`, other.secretKey);
  expect(foreign.status).toBe(404);
  expect(foreign.body.error.code).toBe('resource_missing');
});

test('refusals name the parameter and write nothing', async () => {
  const cus = await customer();
  const box = await plan();
  const yearly = await plan({ interval: 'year' });
  const archived = await plan();
  await post(`/plans/${archived}/archive`, {});
  const foreignCustomer = await customer(other.secretKey);
  const foreignPlan = await plan({}, other.secretKey);
  const cases: [Record<string, unknown>, number, string, string][] = [
    [sessionBody('cus_eu_0000000000000000000000', box), 400, 'resource_missing', 'customer'],
    [sessionBody(foreignCustomer, box), 400, 'resource_missing', 'customer'],
    [sessionBody(cus, foreignPlan), 400, 'resource_missing', 'line_items[0][plan]'],
    [sessionBody(cus, archived), 400, 'plan_inactive', 'line_items[0][plan]'],
    [sessionBody(cus, box, { line_items: [{ plan: box }, { plan: yearly }] }), 400, 'plans_mismatch', 'line_items[1][plan]'],
    [sessionBody(cus, box, { subscription_data: { default_tax_rates: ['txr_eu_0000000000000000000000'] } }), 400, 'resource_missing', 'subscription_data[default_tax_rates][0]'],
    // Listed twice, a rate would be charged twice on every invoice.
    [sessionBody(cus, box, { subscription_data: { default_tax_rates: ['txr_eu_0000000000000000000000', 'txr_eu_0000000000000000000000'] } }), 400, 'parameter_invalid', 'subscription_data[default_tax_rates]'],
    [sessionBody(cus, box, { coupon: 'coupon_eu_0000000000000000000000' }), 400, 'resource_missing', 'coupon'],
    [sessionBody(cus, box, { mode: 'payment' }), 400, 'parameter_invalid', 'mode'],
    [{ mode: 'subscription', customer: cus, line_items: [{ plan: box }], success_url: 'javascript:alert(1)', cancel_url: urls.cancel_url }, 400, 'parameter_invalid', 'success_url'],
  ];
  for (const [body, status, code, param] of cases) {
    const r = await post('/checkout-sessions', body);
    expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status, code, param });
  }
  const both = await post('/checkout-sessions', sessionBody(cus, box, { coupon: 'coupon_eu_0000000000000000000000', promotion_code: 'promo_eu_0000000000000000000000' }));
  expect(both.status).toBe(400);
  // Nothing was made: the customer has no intent.
  expect((await get(`/payment-intents?customer=${cus}`)).body.data).toEqual([]);
});

test('a session whose renewal fits only thanks to its coupon is refused: the subscription made at completion is held to its renewal without one', async () => {
  const cus = await customer();
  // 90,909,090,909 with 10% exclusive tax renews at 100,000,000,000, one over the largest amount; half off, it fits.
  const big = await plan({ amount: 90_909_090_909 });
  const tax = (await post('/tax-rates', { percentage: 10, inclusive: false, display_name: 'VAT' })).body.tax_rate as string;
  const halfOff = (await post('/coupons', { percent_off: 50, duration: 'forever' })).body.coupon as string;
  const r = await post('/checkout-sessions', sessionBody(cus, big, { coupon: halfOff, subscription_data: { default_tax_rates: [tax] } }));
  // Before, the session was made and paid, and its completion then failed (subscription_total_too_large): refunded.
  expect([r.status, r.body.error?.code, r.body.error?.param]).toEqual([400, 'checkout_amount_too_large', 'line_items']);
  expect((await get(`/payment-intents?customer=${cus}`)).body.data).toEqual([]);
});

test('the same idempotency_key makes one session and one intent, also when sent five times at once', async () => {
  const cus = await customer();
  const box = await plan();
  const body = sessionBody(cus, box, { idempotency_key: `cs-key-${Date.now()}` });
  const answers = await Promise.all(Array.from({ length: 5 }, () => post('/checkout-sessions', body)));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
  expect(new Set(answers.map((a) => a.body.checkout_session)).size).toBe(1);
  await eventually(async () => (answers.every((a) => a.body.payment_intent) ? true : (await get(`/checkout-sessions/${answers[0]!.body.checkout_session}`)).body.payment_intent ? true : undefined), 10_000, 'the intent');
  expect((await get(`/payment-intents?customer=${cus}`)).body.data).toHaveLength(1);
  const again = await post('/checkout-sessions', body);
  expect(again.status).toBe(200);
  expect(again.body.checkout_session).toBe(answers[0]!.body.checkout_session);
  // The key with another customer (or plan) would hand that customer the first one's page: refused.
  const otherCustomer = await post('/checkout-sessions', { ...body, customer: await customer() });
  expect(otherCustomer.status).toBe(400);
  expect(otherCustomer.body.error).toMatchObject({ code: 'idempotency_key_in_use', param: 'idempotency_key' });
  expect((await post('/checkout-sessions', { ...body, line_items: [{ plan: await plan(), quantity: 1 }] })).body.error?.code).toBe('idempotency_key_in_use');
});

test('paid, the session completes once, whoever completes it and however many at once: one subscription, its first invoice paid by the session intent', async () => {
  const cus = await customer();
  const box = await plan({ amount: 2500 });
  const s = (await post('/checkout-sessions', sessionBody(cus, box, { subscription_data: { metadata: { from: 'checkout' } } }))).body;
  const paid = await pay(s.payment_intent);
  expect(paid).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });

  // The page's completion and four retrieves at the same moment.
  const complete = `${new URL(s.url).origin}/billing/checkout/${s.checkout_session}/complete`;
  const [fromPage, ...reads] = await Promise.all([fetch(complete, { redirect: 'manual' }), ...Array.from({ length: 4 }, () => get(`/checkout-sessions/${s.checkout_session}`))]);
  expect(fromPage.status).toBe(303);
  expect(fromPage.headers.get('location')).toBe(`${urls.success_url}?session_id=${s.checkout_session}`);
  const done = (await get(`/checkout-sessions/${s.checkout_session}`)).body;
  expect(done).toMatchObject({ status: 'complete', subscription: expect.stringMatching(/^sub_eu_/) });
  for (const r of reads) {
    expect(r.status).toBe(200);
    expect(['open', 'complete']).toContain(r.body.status);
    if (r.body.status === 'complete') expect(r.body.subscription).toBe(done.subscription);
  }

  const subs = (await get(`/subscriptions?customer=${cus}`)).body.data;
  expect(subs).toHaveLength(1);
  expect(subs[0]).toMatchObject({ subscription: done.subscription, status: 'active', default_payment_method: paid.payment_method_uuid, metadata: { from: 'checkout' } });
  const invoices = (await get(`/invoices?subscription=${done.subscription}`)).body.data;
  expect(invoices).toEqual([expect.objectContaining({ status: 'paid', total: 2500, amount_paid: 2500, payment_intent: s.payment_intent, attempt_count: 0 })]);
  // Charged once: the session's intent is the customer's only one.
  expect((await get(`/payment-intents?customer=${cus}`)).body.data.map((i: { payment_intent: string }) => i.payment_intent)).toEqual([s.payment_intent]);
  // Later completions change nothing.
  expect((await get(`/checkout-sessions/${s.checkout_session}`)).body.subscription).toBe(done.subscription);
  expect((await fetch(complete, { redirect: 'manual' })).headers.get('location')).toBe(`${urls.success_url}?session_id=${s.checkout_session}`);
});

test("paid by an attempt that does not ask to save the card (the merchant's own form): the card is saved all the same and the session completes; one that refuses to save is a 400", async () => {
  const cus = await customer();
  const box = await plan({ amount: 1200 });
  const s = (await post('/checkout-sessions', sessionBody(cus, box))).body;
  const refused = await api.post(`/v202607/payment-intents/${s.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: false }, m.publishableKey);
  expect({ status: refused.status, code: refused.body.error?.code, param: refused.body.error?.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'save_payment_method' });
  const paid = await api.post(`/v202607/payment-intents/${s.payment_intent}/attempts`, { token: 'tok_success' }, m.publishableKey);
  expect(paid.body).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  const done = (await get(`/checkout-sessions/${s.checkout_session}`)).body;
  expect(done).toMatchObject({ status: 'complete', subscription: expect.stringMatching(/^sub_eu_/), completion_error: null });
  const sub = await eventually(async () => {
    const body = (await get(`/subscriptions/${done.subscription}`)).body;
    return body.status === 'active' ? body : undefined;
  }, 30_000, 'the subscription active, its first invoice paid by the session intent');
  expect(sub.default_payment_method).toBe(paid.body.payment_method_uuid);
  // Nothing given back: the payment is the first invoice's.
  expect((await get(`/refunds?payment_intent=${s.payment_intent}`)).body.data).toEqual([]);
});

test("a session's intent is not charged off-session (POST /cards/mit): the customer pays it on the session's page", async () => {
  const mitMerchant = await withMitClaim(m);
  const cus = await customer();
  // A card saved to the customer by an earlier payment.
  const earlier = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: cus, setup_future_usage: 'off_session' }, m.secretKey);
  const saved = await api.post(`/v202607/payment-intents/${earlier.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
  expect(saved.body.payment_method_uuid).toMatch(/^pm_eu_/);
  const s = (await post('/checkout-sessions', sessionBody(cus, await plan()))).body;
  const r = await api.post('/cards/mit', { payment_intent_secret: s.payment_intent, payment_method_uuid: saved.body.payment_method_uuid, agreement_id: `agr-${Date.now()}`, agreement_type: 'RECURRING' }, mitMerchant.secretKey);
  expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'payment_intent_secret' });
  expect((await api.get(`/v202607/payment-intents/${s.payment_intent}`, m.secretKey)).body.status).toBe('pending');
});

test('paid, and nobody comes back (the tab closed after paying, no retrieve): the session completes by itself, its subscription made', async () => {
  const cus = await customer();
  const box = await plan({ amount: 1800 });
  const s = (await post('/checkout-sessions', sessionBody(cus, box))).body;
  await pay(s.payment_intent);
  // The subscriptions list does not complete sessions: only the worker, told by the paid intent, can have.
  const subs = await eventually(async () => {
    const data = (await get(`/subscriptions?customer=${cus}`)).body.data;
    return data.length && data[0].status === 'active' ? data : undefined;
  }, 30_000, 'the subscription made without the page, its first invoice paid');
  expect(subs).toHaveLength(1);
  const db = await mongo();
  try {
    // The session is written complete just after its subscription is made: read until that write has landed.
    const stored = await eventually(async () => {
      const doc = await db.db().collection('checkout_sessions').findOne({ _id: s.checkout_session as never });
      return doc?.status === 'open' ? undefined : doc;
    }, 10_000, 'the session written as no longer open');
    expect(stored).toMatchObject({ status: 'complete', subscription: subs[0].subscription });
  } finally {
    await db.close();
  }
});

test('a coupon that may be redeemed once: completions racing each other still make one subscription with it, and refund nothing', async () => {
  const cus = await customer();
  const box = await plan({ amount: 4000 });
  const coupon = (await post('/coupons', { percent_off: 25, duration: 'once', max_redemptions: 1 })).body.coupon;
  const s = (await post('/checkout-sessions', sessionBody(cus, box, { coupon }))).body;
  expect(s.amount_total).toBe(3000);
  await pay(s.payment_intent);
  const complete = `${new URL(s.url).origin}/billing/checkout/${s.checkout_session}/complete`;
  const [page, ...racing] = await Promise.all([fetch(complete, { redirect: 'manual' }), ...Array.from({ length: 5 }, () => get(`/checkout-sessions/${s.checkout_session}`))]);
  expect(page.status).toBe(303);
  for (const r of racing) expect(r.status).toBe(200);
  const done = await eventually(async () => {
    const r = (await get(`/checkout-sessions/${s.checkout_session}`)).body;
    return r.status === 'complete' ? r : undefined;
  }, 20_000, 'the session complete');
  expect(done.completion_error).toBeNull();
  const subs = (await get(`/subscriptions?customer=${cus}`)).body.data;
  // The once coupon is on its first invoice (3000 of 4000), which used it up: it has left the subscription, as Stripe's.
  expect(subs).toEqual([expect.objectContaining({ subscription: done.subscription, discount: null })]);
  expect((await get(`/invoices?subscription=${done.subscription}`)).body.data).toEqual([expect.objectContaining({ total: 3000, discount: 1000, amount_paid: 3000, payment_intent: s.payment_intent })]);
  expect((await get(`/refunds?payment_intent=${s.payment_intent}`)).body.data).toEqual([]);
  expect((await get(`/coupons/${coupon}`)).body.times_redeemed).toBe(1);
});

test("a trial: nothing due today; the intent is a card check of 1.00, refunded once the session completes; the subscription's endpoints keep their secret", async () => {
  const cus = await customer();
  const box = await plan({ trial_period_days: 7 });
  const webhooks = [{ url: hooks.url, events: ['subscription.created'], secret: 'shared-secret-1' }];
  const s = (await post('/checkout-sessions', sessionBody(cus, box, { success_url: 'https://shop.example.com/welcome?s={CHECKOUT_SESSION_ID}', subscription_data: { webhooks } }))).body;
  expect(s.amount_total).toBe(0);
  expect((await get(`/payment-intents/${s.payment_intent}`)).body.amount).toBe(100);
  await pay(s.payment_intent);
  const done = (await get(`/checkout-sessions/${s.checkout_session}`)).body;
  expect(done.status).toBe('complete');
  const sub = (await get(`/subscriptions/${done.subscription}`)).body;
  expect(sub).toMatchObject({ status: 'trialing', trial_end: sub.trial_start + 7 * 86_400 });
  expect((await get(`/invoices?subscription=${done.subscription}`)).body.data).toEqual([expect.objectContaining({ total: 0, status: 'paid', payment_intent: null })]);
  expect((await get(`/refunds?payment_intent=${s.payment_intent}`)).body.data).toEqual([expect.objectContaining({ amount: 100 })]);
  const page = await fetch(`${new URL(s.url).origin}/billing/checkout/${s.checkout_session}/complete`, { redirect: 'manual' });
  expect(page.headers.get('location')).toBe(`https://shop.example.com/welcome?s=${s.checkout_session}`);
  const created = await eventually(async () => hooks.of('subscription.created').find((d) => d.body.data.subscription === done.subscription), 20_000, 'subscription.created');
  expect(created.secret).toBe('shared-secret-1');
});

test('a card check the merchant already refunded in part, or in full, is given back only for what is left: the completion finishes instead of failing for ever', async () => {
  // Before, the completion always refunded the whole check: refused once the merchant had refunded any of it, the
  // session stayed open with its subscription made, and the completing activity retried without end (explorer).
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    const deps = apiDeps(db, temporal);
    const checked = async (refundFirst: number) => {
      const pi = (await post('/payment-intents', { amount: 100, currency: 'EUR' })).body.payment_intent as string;
      expect((await api.post(`/v202607/payment-intents/${pi}/attempts`, { token: 'tok_success' }, m.publishableKey)).body.status).toBe('success');
      expect((await post('/refunds', { payment_intent: pi, amount: refundFirst, currency: 'EUR' })).status).toBe(201);
      return (await db.c.paymentIntents.findOne({ _id: pi }))!;
    };
    const part = await checked(40);
    const key = serviceRefundKey.ofCheckoutSession(`cs_eu_${Date.now()}part`, 'card_check');
    const rest = await giveBackPayment(deps, part, key);
    expect((await get(`/refunds/${rest}`)).body).toMatchObject({ amount: 60, payment_intent: part._id });
    expect(await giveBackPayment(deps, part, key)).toBe(rest); // retried: the same refund, nothing more
    const whole = await checked(100);
    expect(await giveBackPayment(deps, whole, serviceRefundKey.ofCheckoutSession(`cs_eu_${Date.now()}whole`, 'card_check'))).toBeNull();
    expect((await get(`/refunds?payment_intent=${whole._id}`)).body.data).toHaveLength(1);
  } finally {
    await db.close();
    await temporal.connection.close();
  }
});

test("a session whose create was never answered is found by its key with its endpoints' secrets: its subscription's webhooks are signed", async () => {
  const cus = await customer();
  const box = await plan({ trial_period_days: 7 });
  const webhooks = [{ url: hooks.url, events: ['subscription.created'], secret: 'shared-secret-unanswered' }];
  const body = sessionBody(cus, box, { idempotency_key: `cs-unanswered-${Date.now()}`, subscription_data: { webhooks } });
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    // The insert lands, and its answer is lost (the database went away just after).
    const unanswered = withMethod(db, 'checkoutSessions', 'insertOne', (real) => async (doc: unknown) => {
      await (real as unknown as { insertOne(d: unknown): Promise<unknown> }).insertOne(doc);
      throw new Error('connection closed before the answer');
    });
    await expect(createCheckoutSession(apiDeps(unanswered, temporal), tenantAuth(m.tenant, 'eu'), checkoutSessionCreateBody.parse(body))).rejects.toThrow('connection closed');
  } finally {
    await db.close();
    await temporal.connection.close();
  }
  // Before, the secrets were to be written after the insert: the session a resend found named none, and the
  // subscription it made had endpoints without their secret.
  const s = await post('/checkout-sessions', body);
  expect(s.status).toBe(200);
  await pay(s.body.payment_intent);
  const done = (await get(`/checkout-sessions/${s.body.checkout_session}`)).body;
  expect(done.status).toBe('complete');
  const created = await eventually(async () => hooks.of('subscription.created').find((d) => d.body.data.subscription === done.subscription), 20_000, 'subscription.created');
  expect(created.secret).toBe('shared-secret-unanswered');
});

test('an intent canceled by the merchant ends its session', async () => {
  const s = (await post('/checkout-sessions', sessionBody(await customer(), await plan()))).body;
  expect((await post(`/payment-intents/${s.payment_intent}/cancel`, {})).status).toBe(200);
  expect((await get(`/checkout-sessions/${s.checkout_session}`)).body.status).toBe('expired');
  expect(await (await fetch(s.url)).text()).toContain('This checkout has expired');
});

test('paid, but the subscription is refused for good (its plan archived while 3-D Secure was under way): the payment is refunded and the session ends saying why', async () => {
  const cus = await customer();
  // An amount ending 99: the sandbox takes the refund and never executes it, so it stays pending.
  const box = await plan({ amount: 1599 });
  const s = (await post('/checkout-sessions', sessionBody(cus, box))).body;
  // The attempt passes the session's check (the plan is live then); the plan is archived before the bank answers.
  const challenged = await pay(s.payment_intent, 'tok_3ds');
  expect(challenged.status).toBe('requires_action');
  await post(`/plans/${box}/archive`, {});
  const url = (challenged as unknown as { next_action: { url: string } }).next_action.url;
  expect((await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'complete' }), redirect: 'manual' })).status).toBe(303);
  await eventually(async () => ((await api.get(`/v202608/payment-intents/${s.payment_intent}`, m.secretKey)).body.status === 'success' ? true : undefined), 20_000, 'the intent paid after 3DS');
  const ended = (await get(`/checkout-sessions/${s.checkout_session}`)).body;
  expect(ended).toMatchObject({ status: 'expired', subscription: null, completion_error: { code: 'plan_inactive', message: expect.any(String) } });
  expect((await get(`/refunds?payment_intent=${s.payment_intent}`)).body.data).toEqual([expect.objectContaining({ amount: 1599, status: 'pending' })]);
  expect((await get(`/subscriptions?customer=${cus}`)).body.data).toEqual([]);
  const page = await (await fetch(s.url)).text();
  expect(page).toContain('Your subscription could not be started');
  // Its refund is still pending: the page says so, not that it was refunded.
  expect(page).toContain('Your payment is being refunded.');
  expect(page).not.toContain('was refunded');
  // Asked again: the same, one refund.
  await get(`/checkout-sessions/${s.checkout_session}`);
  expect((await get(`/refunds?payment_intent=${s.payment_intent}`)).body.data).toHaveLength(1);
});

test('an open session past expires_at reads expired and its page says so', async () => {
  const cus = await customer();
  const s = (await post('/checkout-sessions', sessionBody(cus, await plan()))).body;
  const db = await mongo();
  try {
    await db.db().collection('checkout_sessions').updateOne({ _id: s.checkout_session }, { $set: { expires_at: new Date(Date.now() - 1000) } });
  } finally {
    await db.close();
  }
  expect((await get(`/checkout-sessions/${s.checkout_session}`)).body.status).toBe('expired');
  const page = await (await fetch(s.url)).text();
  expect(page).toContain('This checkout has expired');
  expect(page).not.toContain('id="card-form"');
});

test("the session intent's payment page (where a 3-D Secure challenge returns) sends the customer to the checkout page; unknown sessions are not found", async () => {
  const cus = await customer();
  const s = (await post('/checkout-sessions', sessionBody(cus, await plan()))).body;
  const intentUrl = (await get(`/payment-intents/${s.payment_intent}`)).body.url as string;
  const r = await fetch(`${intentUrl}&attempt=1`, { redirect: 'manual' });
  expect(r.status).toBe(303);
  expect(r.headers.get('location')).toBe(`/billing/checkout/${s.checkout_session}?attempt=1`);
  const origin = new URL(s.url).origin;
  expect((await fetch(`${origin}/billing/checkout/cs_eu_0000000000000000000000`)).status).toBe(404);
  // One character changed (never to itself: an id ending in x would otherwise stay the real one).
  const other = `${s.checkout_session.slice(0, -1)}${s.checkout_session.endsWith('x') ? 'y' : 'x'}`;
  expect((await fetch(`${origin}/billing/checkout/${other}`)).status).toBe(404);
});

test('an attempt on the intent of a session that could no longer complete is refused before any charge: its promotion code used up, its plan archived', async () => {
  const box = await plan({ amount: 850 });
  const coupon = (await post('/coupons', { percent_off: 50, duration: 'once' })).body.coupon;
  const code = (await post('/promotion-codes', { coupon, code: `ONCE${Date.now()}${++seq}`, max_redemptions: 1 })).body;
  const [first, second] = await Promise.all([customer(), customer()].map(async (c) => (await post('/checkout-sessions', sessionBody(await c, box, { promotion_code: code.promotion_code }))).body));
  expect((await pay(first.payment_intent)).status).toBe('success');
  expect((await get(`/checkout-sessions/${first.checkout_session}`)).body).toMatchObject({ status: 'complete', completion_error: null });

  const refused = await api.post(`/v202607/payment-intents/${second.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({ code: 'checkout_session_cannot_complete', message: expect.stringContaining('promotion code has been redeemed'), param: 'promotion_code' });
  // Nothing was charged, so nothing is refunded: the intent is still unpaid and the session open.
  expect((await api.get(`/v202608/payment-intents/${second.payment_intent}`, m.secretKey)).body.status).toBe('pending');
  expect((await get(`/refunds?payment_intent=${second.payment_intent}`)).body.data).toEqual([]);
  expect((await get(`/checkout-sessions/${second.checkout_session}`)).body).toMatchObject({ status: 'open', subscription: null, completion_error: null });

  const other = await plan({ amount: 1200 });
  const s = (await post('/checkout-sessions', sessionBody(await customer(), other))).body;
  await post(`/plans/${other}/archive`, {});
  const archived = await api.post(`/v202607/payment-intents/${s.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
  expect([archived.status, archived.body.error?.code, archived.body.error?.param]).toEqual([409, 'checkout_session_cannot_complete', 'line_items[0][plan]']);
  expect((await api.get(`/v202608/payment-intents/${s.payment_intent}`, m.secretKey)).body.status).toBe('pending');

  // Its customer deleted: before, the card was charged in full and then refunded, and a card saved to nobody.
  const gone = await customer();
  const left = (await post('/checkout-sessions', sessionBody(gone, await plan({ amount: 1300 })))).body;
  expect((await api.del(`/v202607/customers/${gone}`, m.secretKey)).status).toBe(200);
  const orphan = await api.post(`/v202607/payment-intents/${left.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
  expect([orphan.status, orphan.body.error?.code, orphan.body.error?.param]).toEqual([409, 'checkout_session_cannot_complete', 'customer']);
  expect((await api.get(`/v202608/payment-intents/${left.payment_intent}`, m.secretKey)).body.status).toBe('pending');
});
