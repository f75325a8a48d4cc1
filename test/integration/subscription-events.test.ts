import { api, createMerchant, eventually, startHookReceiver, withMitClaim, type HookReceiver, type Merchant } from './harness';
import { clockBilling } from './billing-clock';

// The subscription events a merchant's endpoint receives, on the real stack in clock time: one per change, none for
// an update that changed nothing, each naming the subscription's latest invoice as GET answers it.

let m: Merchant;
let hooks: HookReceiver;

beforeAll(async () => {
  m = await withMitClaim(await createMerchant());
  hooks = await startHookReceiver();
});
afterAll(() => hooks.close());

const { post, get, nextSeq, clockAt, customerWithCard, advance, invoicesOf } = clockBilling(() => m, 'subevents');

async function plan(): Promise<string> {
  const p = await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month', nickname: `Plan ${nextSeq()}` });
  expect(p.status).toBe(201);
  return p.body.plan;
}

const webhooks = () => [{ url: hooks.url, events: ['subscription.created', 'subscription.updated', 'subscription.canceled', 'invoice.created', 'invoice.paid', 'invoice.payment_failed'] }];

/** The subscription's events received, each with what a receiver checks first. */
const received = (sub: string) =>
  hooks.received
    .filter((d) => d.body.type?.startsWith('subscription.') && d.body.data.subscription === sub)
    .map((d) => ({ type: d.body.type as string, status: d.body.data.status as string, latest_invoice: d.body.data.latest_invoice as string | null }));

/** Waits for `count` events of the subscription, then a moment more for any that should not come. */
async function settled(sub: string, count: number) {
  await eventually(async () => (received(sub).length >= count ? true : undefined), 30_000, `${count} subscription events`);
  await new Promise((r) => setTimeout(r, 2_000));
  return received(sub);
}

/** A second card of the customer, saved by a customer-present payment: one whose later charges are declined. */
async function decliningCard(customer: string): Promise<string> {
  const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer, setup_future_usage: 'off_session' }, m.secretKey);
  const paid = await api.post(`/v202607/payment-intents/${intent.body.payment_intent}/attempts`, { token: 'tok_mit_declines', save_payment_method: true }, m.publishableKey);
  expect(paid.body.status).toBe('success');
  return paid.body.payment_method_uuid;
}

test('a declined renewal sends one subscription.updated: past_due, naming the renewal invoice', async () => {
  const clock = await clockAt('2026-01-15T10:00:00Z');
  const { customer, pm } = await customerWithCard(clock);
  const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, webhooks: webhooks() });
  expect(created.status).toBe(201);
  const sub = created.body.subscription;
  expect((await post(`/subscriptions/${sub}`, { default_payment_method: await decliningCard(customer) })).status).toBe(200);
  const before = (await settled(sub, 3)).length; // created, active, the new card

  await advance(clock, '2026-02-15T12:00:00Z');
  const [, renewal] = await invoicesOf(sub);
  expect(renewal).toMatchObject({ status: 'open', attempt_count: 1, billing_reason: 'subscription_cycle' });
  expect((await settled(sub, before + 1)).slice(before)).toEqual([{ type: 'subscription.updated', status: 'past_due', latest_invoice: renewal.invoice }]);
});

test("a trial's end sends subscription.updated naming its first cycle's invoice; subscription.created names the trial's", async () => {
  const clock = await clockAt('2026-01-15T10:00:00Z');
  const { customer, pm } = await customerWithCard(clock);
  const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, trial_period_days: 7, webhooks: webhooks() });
  expect(created.status).toBe(201);
  const sub = created.body.subscription;
  const [trial] = await invoicesOf(sub);
  expect(await settled(sub, 1)).toEqual([{ type: 'subscription.created', status: 'trialing', latest_invoice: trial.invoice }]);

  await advance(clock, '2026-01-23T10:00:00Z');
  const [, cycle] = await invoicesOf(sub);
  expect(cycle).toMatchObject({ status: 'paid', billing_reason: 'subscription_cycle' });
  expect((await get(`/subscriptions/${sub}`)).body.latest_invoice).toBe(cycle.invoice);
  expect((await settled(sub, 2)).slice(1)).toEqual([{ type: 'subscription.updated', status: 'active', latest_invoice: cycle.invoice }]);
});

test('an update that changes nothing sends no subscription.updated: the same metadata twice, cancel at period end double-clicked', async () => {
  const clock = await clockAt('2026-01-15T10:00:00Z');
  const { customer, pm } = await customerWithCard(clock);
  const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, metadata: { tier: 'gold' }, webhooks: webhooks() });
  const sub = created.body.subscription;
  const before = (await settled(sub, 2)).length; // created, active

  for (const body of [{ metadata: { seats: '3' } }, { metadata: { seats: '3' } }, { metadata: { tier: 'gold' } }]) expect((await post(`/subscriptions/${sub}`, body)).status).toBe(200);
  const clicks = await Promise.all([post(`/subscriptions/${sub}`, { cancel_at_period_end: true }), post(`/subscriptions/${sub}`, { cancel_at_period_end: true })]);
  expect(clicks.map((c) => c.status)).toEqual([200, 200]);
  expect(clicks[0]!.body.canceled_at).toBe(clicks[1]!.body.canceled_at);

  const events = (await settled(sub, before + 2)).slice(before);
  expect(events).toHaveLength(2);
  const bodies = hooks.received.filter((d) => d.body.type === 'subscription.updated' && d.body.data.subscription === sub).slice(-2).map((d) => d.body.data);
  expect(bodies.map((d) => [d.metadata, d.cancel_at_period_end])).toEqual([
    [{ tier: 'gold', seats: '3' }, false],
    [{ tier: 'gold', seats: '3' }, true],
  ]);
});
