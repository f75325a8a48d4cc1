import { api, createMerchant, eventually, mongo, withMitClaim, type Merchant } from './harness';
import { clockBilling } from './billing-clock';

// Billing-portal sessions through the API and the page's own requests, on the real stack: create and its
// refusals, the page (only the session's customer's subscriptions, an unknown or expired session), and the
// forms (a CSRF token of the session required; cancel at the period's end and its undo; a plan switch applied
// only at the proration date its confirm step showed; another customer's subscription not found), and what the
// page says of a subscription that does not simply renew (past due, paused). The page in a browser:
// billing-pages.browser.test.ts.

let m: Merchant;
let other: Merchant;
beforeAll(async () => {
  [m, other] = await Promise.all([createMerchant('Portal shop').then((x) => withMitClaim(x)), createMerchant('Another shop').then((x) => withMitClaim(x))]);
});

const post = (path: string, body: unknown, key = m.secretKey) => api.post(`/v202607${path}`, body, key);
const get = (path: string, key = m.secretKey) => api.get(`/v202607${path}`, key);

let seq = 0;
async function customer(key = m.secretKey): Promise<string> {
  const c = await post('/customers', { reference: `portal-${Date.now()}-${++seq}` }, key);
  expect(c.status).toBe(201);
  return c.body.customer;
}
async function plan(body: Record<string, unknown> = {}, key = m.secretKey): Promise<string> {
  const p = await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month', nickname: `Plan ${++seq}`, ...body }, key);
  expect(p.status).toBe(201);
  return p.body.plan;
}

/** A subscription of `cus` to `planId`, on a card saved by a customer-present payment. */
async function subscribe(cus: string, planId: string, merchant = m): Promise<{ subscription: string; items: { item: string }[] }> {
  const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: cus, setup_future_usage: 'off_session' }, merchant.secretKey);
  const paid = await api.post(`/v202607/payment-intents/${intent.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, merchant.publishableKey);
  const s = await post('/subscriptions', { customer: cus, items: [{ plan: planId }], default_payment_method: paid.body.payment_method_uuid }, merchant.secretKey);
  expect(s.status).toBe(201);
  return s.body;
}

/** The page's HTML and the CSRF token its forms carry. */
async function open(url: string): Promise<{ status: number; html: string; csrf: string | null }> {
  const r = await fetch(url);
  const html = await r.text();
  return { status: r.status, html, csrf: /name="csrf_token" value="([0-9a-f]{64})"/.exec(html)?.[1] ?? null };
}

/** A form of the page, as its script sends it. */
async function submit(url: string, body: Record<string, unknown>) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

test('create answers an hour-long session with its url; refusals name the parameter', async () => {
  const cus = await customer();
  const created = await post('/billing-portal/sessions', { customer: cus, return_url: 'https://shop.example.com/account' });
  expect(created.status).toBe(201);
  expect(created.body).toEqual({
    billing_portal_session: expect.stringMatching(/^bps_eu_/),
    object: 'billing_portal.session',
    customer: cus,
    url: expect.stringMatching(new RegExp(`/billing/portal/${created.body.billing_portal_session}$`)),
    return_url: 'https://shop.example.com/account',
    expires_at: created.body.created + 3600,
    created: expect.any(Number),
  });
  const archived = await plan();
  await post(`/plans/${archived}/archive`, {});
  const cases: [Record<string, unknown>, string, string][] = [
    [{ customer: 'cus_eu_0000000000000000000000' }, 'resource_missing', 'customer'],
    [{ customer: await customer(other.secretKey) }, 'resource_missing', 'customer'],
    [{ customer: cus, plans: [await plan({}, other.secretKey)] }, 'resource_missing', 'plans[0]'],
    [{ customer: cus, plans: [await plan(), archived] }, 'plan_inactive', 'plans[1]'],
    [{ customer: cus, return_url: 'javascript:alert(1)' }, 'parameter_invalid', 'return_url'],
  ];
  for (const [body, code, param] of cases) {
    const r = await post('/billing-portal/sessions', body);
    expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status: 400, code, param });
  }
});

test("the page shows the session's customer's subscriptions only; an unknown session is not found and an expired one says so", async () => {
  const [alice, bob] = [await customer(), await customer()];
  const box = await plan({ nickname: 'Tea box' });
  const aliceSub = await subscribe(alice, box);
  const bobSub = await subscribe(bob, box);
  const session = (await post('/billing-portal/sessions', { customer: alice })).body;
  const page = await open(session.url);
  expect(page.status).toBe(200);
  expect(page.html).toContain(`data-subscription="${aliceSub.subscription}"`);
  expect(page.html).not.toContain(bobSub.subscription);
  expect(page.html).toContain('Tea box');
  expect(page.csrf).toMatch(/^[0-9a-f]{64}$/);
  const headers = (await fetch(session.url)).headers;
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('referrer-policy')).toBe('no-referrer');

  const origin = new URL(session.url).origin;
  expect((await open(`${origin}/billing/portal/bps_eu_0000000000000000000000`)).status).toBe(404);
  // Another customer's subscription is not found from this session, even by its id in the URL.
  const foreignPage = await open(`${session.url}/subscriptions/${bobSub.subscription}/cancel`);
  expect(foreignPage.status).toBe(404);
  expect(foreignPage.html).toContain('Billing page not found');

  const db = await mongo();
  try {
    await db.db().collection('portal_sessions').updateOne({ _id: session.billing_portal_session }, { $set: { expires_at: new Date(Date.now() - 1000) } });
  } finally {
    await db.close();
  }
  const expired = await open(session.url);
  expect(expired.status).toBe(410);
  expect(expired.html).toContain('This session has expired');
  const late = await submit(`${session.url}/subscriptions/${aliceSub.subscription}/cancel`, { csrf_token: page.csrf });
  expect(late).toMatchObject({ status: 409, body: { error: { code: 'billing_portal_session_expired' } } });
  // Refused, and nothing done.
  expect((await get(`/subscriptions/${aliceSub.subscription}`)).body).toMatchObject({ status: 'active', cancel_at_period_end: false });
});

test("the forms: the session's CSRF token, cancel at the period's end and its undo, another customer's subscription not found", async () => {
  const [alice, bob] = [await customer(), await customer()];
  const box = await plan();
  const sub = await subscribe(alice, box);
  const bobSub = await subscribe(bob, box);
  const session = (await post('/billing-portal/sessions', { customer: alice })).body;
  const { csrf } = await open(session.url);
  const cancel = `${session.url}/subscriptions/${sub.subscription}/cancel`;

  expect(await submit(cancel, {})).toMatchObject({ status: 400, body: { error: { code: 'parameter_missing' } } });
  expect(await submit(cancel, { csrf_token: '0'.repeat(64) })).toMatchObject({ status: 403, body: { error: { code: 'csrf_token_invalid' } } });
  // Another session's token does not open this one.
  const bobSession = (await post('/billing-portal/sessions', { customer: bob })).body;
  const bobCsrf = (await open(bobSession.url)).csrf;
  expect((await submit(cancel, { csrf_token: bobCsrf })).status).toBe(403);
  expect((await get(`/subscriptions/${sub.subscription}`)).body.cancel_at_period_end).toBe(false);

  const canceled = await submit(cancel, { csrf_token: csrf });
  expect(canceled).toEqual({ status: 200, body: { redirect: `/billing/portal/${session.billing_portal_session}?notice=canceled&subscription=${sub.subscription}` } });
  expect((await get(`/subscriptions/${sub.subscription}`)).body).toMatchObject({ status: 'active', cancel_at_period_end: true });
  const renewed = await submit(`${session.url}/subscriptions/${sub.subscription}/renew?lg=fr`, { csrf_token: csrf });
  expect(renewed.body.redirect).toBe(`/billing/portal/${session.billing_portal_session}?notice=renewed&lg=fr`);
  expect((await get(`/subscriptions/${sub.subscription}`)).body.cancel_at_period_end).toBe(false);

  const foreign = await submit(`${session.url}/subscriptions/${bobSub.subscription}/cancel`, { csrf_token: csrf });
  expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'resource_missing' } } });
  expect((await get(`/subscriptions/${bobSub.subscription}`)).body.cancel_at_period_end).toBe(false);
});

test('a plan switch is applied only as its confirm step showed it: that plan, at that proration_date', async () => {
  const cus = await customer();
  const basic = await plan({ amount: 3000, nickname: 'Basic' });
  const gold = await plan({ amount: 9000, nickname: 'Gold' });
  const weekly = await plan({ interval: 'week', nickname: 'Weekly' });
  const sub = await subscribe(cus, basic);
  const session = (await post('/billing-portal/sessions', { customer: cus })).body;

  const list = await open(`${session.url}/subscriptions/${sub.subscription}/switch`);
  expect(list.html).toContain(`data-plan="${gold}"`);
  expect(list.html).not.toContain(`data-plan="${weekly}"`); // another interval does not bill like the subscription
  const confirm = await open(`${session.url}/subscriptions/${sub.subscription}/switch?plan=${gold}`);
  expect(confirm.status).toBe(200);
  const prorationDate = Number(/name="proration_date" value="(\d+)"/.exec(confirm.html)![1]);
  const token = /name="confirm_token" value="([0-9a-f]{64})"/.exec(confirm.html)![1]!;
  const action = `${session.url}/subscriptions/${sub.subscription}/switch`;

  const tampered = await submit(action, { csrf_token: confirm.csrf, plan: gold, proration_date: prorationDate - 86_400, confirm_token: token });
  expect(tampered).toMatchObject({ status: 400, body: { error: { code: 'confirm_token_invalid', param: 'confirm_token' } } });
  const otherPlan = await submit(action, { csrf_token: confirm.csrf, plan: weekly, proration_date: prorationDate, confirm_token: token });
  expect(otherPlan.status).toBe(400);
  expect((await get(`/subscriptions/${sub.subscription}`)).body.items[0].plan).toBe(basic);

  // The figures shown are the API's preview for that date, and the switch lands on exactly those.
  const preview = (await post('/invoices/create-preview', { subscription: sub.subscription, items: [{ item: sub.items[0]!.item, plan: gold }], proration_date: prorationDate })).body;
  const shown = [...confirm.html.matchAll(/<dd data-amount="(-?\d+)"/g)].map((x) => Number(x[1]));
  expect(shown).toEqual([...preview.lines.map((l: { amount: number }) => l.amount), preview.total]);
  const applied = await submit(action, { csrf_token: confirm.csrf, plan: gold, proration_date: String(prorationDate), confirm_token: token });
  expect(applied).toEqual({ status: 200, body: { redirect: `/billing/portal/${session.billing_portal_session}?notice=switched` } });
  expect((await get(`/subscriptions/${sub.subscription}`)).body.items).toEqual([{ item: sub.items[0]!.item, plan: gold, quantity: 1 }]);
  const next = (await post('/invoices/create-preview', { subscription: sub.subscription })).body;
  expect(next.lines.map((l: { amount: number }) => l.amount)).toEqual(preview.lines.map((l: { amount: number }) => l.amount));
});

test('a session whose customer was deleted ends with it: the page says so and its forms do nothing (no card check for no one)', async () => {
  const alice = await customer();
  const session = (await post('/billing-portal/sessions', { customer: alice })).body;
  const page = await open(session.url);
  expect(page.status).toBe(200);
  expect((await api.del(`/v202607/customers/${alice}`, m.secretKey)).status).toBe(200);
  const after = await open(session.url);
  expect([after.status, after.html.includes('This session has expired')]).toEqual([410, true]);
  // Before, the card form answered 200 and made a 1.00 card-check intent for the deleted customer (explorer).
  const card = await submit(`${session.url}/card`, { csrf_token: page.csrf });
  expect(card).toMatchObject({ status: 409, body: { error: { code: 'billing_portal_session_expired' } } });
  expect((await api.get('/v202607/payment-intents?limit=100', m.secretKey)).body.data.filter((i: { customer?: string }) => i.customer === alice)).toEqual([]);
});

test('a card update paid but never finished on the page (the portal session expired first): the new card is set and the check refunded all the same', async () => {
  const alice = await customer();
  const sub = await subscribe(alice, await plan());
  const session = (await post('/billing-portal/sessions', { customer: alice })).body;
  const { csrf } = await open(session.url);
  const started = await submit(`${session.url}/card`, { csrf_token: csrf });
  const intent = /payment_intent=(pi_[A-Za-z0-9_]+)/.exec(started.body.redirect)![1]!;
  // The session expires before the customer pays; they pay anyway, and never reach /card/done.
  const db = await mongo();
  try {
    await db.db().collection('portal_sessions').updateOne({ _id: session.billing_portal_session }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    const paid = await api.post(`/v202607/payment-intents/${intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
    expect(paid.body.status).toBe('success');
    const refunds = await eventually(async () => {
      const data = (await get(`/refunds?payment_intent=${intent}`)).body.data;
      return data.length ? data : undefined;
    }, 30_000, 'the card check refunded without the page');
    expect(refunds).toEqual([expect.objectContaining({ amount: 100 })]);
    expect((await get(`/subscriptions/${sub.subscription}`)).body.default_payment_method).toBe(paid.body.payment_method_uuid);
  } finally {
    await db.close();
  }
});

/** What the page says, its tags dropped. */
const words = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test("past due, the cancel step says its declined invoice is still due and retried; it is: not 'not charged again'", async () => {
  const { post: postAt, get: getAt, clockAt, customerWithCard, advance, invoicesOf } = clockBilling(() => m, 'portal-past-due');
  const clock = await clockAt('2026-07-01T00:00:00Z');
  const { customer: cus, pm } = await customerWithCard(clock, 'tok_mit_declines');
  const created = await postAt('/subscriptions', { customer: cus, items: [{ plan: await plan({ amount: 4000 }) }], default_payment_method: pm, trial_period_days: 1, dunning: { retry_days: [2] } });
  expect(created.status).toBe(201);
  const sub = created.body.subscription;
  // The trial's end: its 40.00 invoice declined, retried two days later.
  await advance(clock, '2026-07-02T00:00:01Z');
  expect((await getAt(`/subscriptions/${sub}`)).body.status).toBe('past_due');
  const declined = (await invoicesOf(sub)).at(-1);
  expect(declined).toMatchObject({ status: 'open', amount_remaining: 4000, next_payment_attempt: Date.parse('2026-07-04T00:00:00Z') / 1000 });

  const session = (await post('/billing-portal/sessions', { customer: cus })).body;
  const page = await open(`${session.url}/subscriptions/${sub}/cancel`);
  expect(page.status).toBe(200);
  const said = words(page.html);
  expect(said).toContain(
    'Your subscription ends on 2 August 2026 at the latest. An unpaid invoice of 40.00 EUR is still due. Your card will be charged again on 4 July 2026, and the payment retried until 2 August 2026 at the latest if that fails. Nothing else will be charged.',
  );
  expect(said).not.toContain('You will not be charged again');

  // Canceled at the period's end, the retry still charges the invoice, as the page said.
  expect((await submit(`${session.url}/subscriptions/${sub}/cancel`, { csrf_token: page.csrf })).status).toBe(200);
  await advance(clock, '2026-07-04T00:00:01Z');
  expect((await invoicesOf(sub)).at(-1)).toMatchObject({ invoice: declined.invoice, attempt_count: 2 });
});

test('paused with no resume date, the overview says paused, not "renews on"; with one, until when', async () => {
  const cus = await customer();
  const sub = (await subscribe(cus, await plan({ nickname: 'Paused box' }))).subscription;
  expect((await post(`/subscriptions/${sub}`, { pause_collection: { behavior: 'void' } })).body.status).toBe('paused');
  const session = (await post('/billing-portal/sessions', { customer: cus })).body;
  for (const [lang, paused, renews] of [
    ['en', 'Paused, with no date to resume', 'Renews on'],
    ['fr', 'En pause, sans date de reprise', 'Renouvelé le'],
    ['ar', 'متوقف مؤقتًا دون موعد للاستئناف', 'يتجدد في'],
  ] as const) {
    const said = words((await open(`${session.url}?lg=${lang}`)).html);
    expect(said).toContain(paused);
    expect(said).not.toContain(renews);
  }
  const resumesAt = Math.floor(Date.parse('2030-03-15T12:00:00Z') / 1000);
  expect((await post(`/subscriptions/${sub}`, { pause_collection: { behavior: 'void', resumes_at: resumesAt } })).status).toBe(200);
  expect(words((await open(session.url)).html)).toContain('Paused until 15 March 2030');
});
