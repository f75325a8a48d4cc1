import { admin, api, createMerchant, eventually, getStack, pay, type Merchant } from './harness';

// Orchestrators on the real stack: an attempt fails over from a connector that refuses connections, and
// from one that never answers once a status query by the attempt's key confirms it made no charge; never
// on a decline. Each try is an attempt of its own with its payment.attempt_failed event.

async function connector(m: Merchant, sandboxBehavior?: 'down' | 'timeout'): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/connectors`, { gateway: 'sandbox', live: true, payment_methods: ['card'], ...(sandboxBehavior ? { sandbox_behavior: sandboxBehavior } : {}) });
  expect(r.status).toBe(201);
  return r.body.connector;
}

async function orchestrator(m: Merchant, connectors: string[], isDefault = false): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/orchestrators`, { connectors, default: isDefault });
  expect(r.status).toBe(201);
  return r.body.orchestrator;
}

const sandbox = async (path: string) => (await fetch(`${getStack().sandboxUrl}${path}`)).json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const chargesOfAttempt = async (intent: string, n: number) =>
  (await sandbox(`/v1/effects?kind=charge&idempotency_key=${encodeURIComponent(`${intent}:attempt:${n}`)}`)).count as number;

/** The intent's payment.attempt_failed events, oldest first. */
async function attemptFailures(m: Merchant, intent: string, n: number): Promise<{ connector: string; failure_code: string }[]> {
  return eventually(async () => {
    const events = await api.get('/v202607/events?type=payment.attempt_failed&limit=100', m.secretKey);
    const mine = events.body.data.filter((e: { data: { payment_intent: string } }) => e.data.payment_intent === intent).reverse();
    return mine.length >= n ? mine.map((e: { data: { connector: string; failure_code: string } }) => e.data) : undefined;
  }, 15_000, `${n} attempt_failed events`);
}

let m: Merchant;
let down: string;
let timingOut: string;
let healthy: string;
beforeAll(async () => {
  m = await createMerchant();
  [down, timingOut, healthy] = [await connector(m, 'down'), await connector(m, 'timeout'), await connector(m)];
});

test('a pinned orchestrator fails over from a down and a timing-out connector to the next, and the retrieve names the one that took it', async () => {
  const orc = await orchestrator(m, [down, timingOut, healthy]);
  const created = await api.post('/v202608/payment-intents', { amount: 4200, currency: 'EUR', orchestrator: orc }, m.secretKey);
  expect(created.status).toBe(201);
  const intent = created.body.payment_intent;
  const r = await pay(intent, m.publishableKey);
  expect(r.body.status).toBe('success');
  expect((await api.get(`/v202608/payment-intents/${intent}`, m.secretKey)).body).toMatchObject({ status: 'success', connector: healthy });
  // Each try is in the events, with the connector and the reason; the gateway made one charge, on the third.
  expect(await attemptFailures(m, intent, 2)).toEqual([
    expect.objectContaining({ connector: down, failure_code: 'connector_unavailable' }),
    expect.objectContaining({ connector: timingOut, failure_code: 'processing_error' }),
  ]);
  expect([await chargesOfAttempt(intent, 1), await chargesOfAttempt(intent, 2), await chargesOfAttempt(intent, 3)]).toEqual([0, 0, 1]);
}, 60_000);

test("the tenant's default orchestrator routes unpinned intents with failover", async () => {
  const other = await createMerchant();
  const dead = await connector(other, 'down');
  const alive = await connector(other);
  await orchestrator(other, [dead, alive], true);
  const created = await api.post('/v202607/payment-intents', { amount: 900, currency: 'EUR' }, other.secretKey);
  const intent = created.body.payment_intent;
  expect((await pay(intent, other.publishableKey)).body.status).toBe('success');
  expect((await api.get(`/v202608/payment-intents/${intent}`, other.secretKey)).body.connector).toBe(alive);
});

test('a decline never fails over: one attempt, one charge, the intent stays pending', async () => {
  const second = await connector(m);
  const orc = await orchestrator(m, [healthy, second]);
  const intent = (await api.post('/v202608/payment-intents', { amount: 1300, currency: 'EUR', orchestrator: orc }, m.secretKey)).body.payment_intent;
  const r = await pay(intent, m.publishableKey, 'tok_decline');
  expect(r.body).toMatchObject({ status: 'failed', failure_code: 'card_declined' });
  expect(await attemptFailures(m, intent, 1)).toEqual([expect.objectContaining({ connector: healthy, failure_code: 'card_declined' })]);
  expect(await chargesOfAttempt(intent, 2)).toBe(0);
  expect((await api.get(`/v202608/payment-intents/${intent}`, m.secretKey)).body.status).toBe('pending');
});

test('a failed 3DS challenge never fails over', async () => {
  const orc = await orchestrator(m, [healthy, await connector(m)]);
  const intent = (await api.post('/v202608/payment-intents', { amount: 1400, currency: 'EUR', orchestrator: orc }, m.secretKey)).body.payment_intent;
  const r = await pay(intent, m.publishableKey, 'tok_3ds');
  expect(r.body.status).toBe('requires_action');
  await fetch(r.body.next_action.url, { method: 'POST', body: new URLSearchParams({ action: 'fail' }), redirect: 'manual' });
  expect(await attemptFailures(m, intent, 1)).toEqual([expect.objectContaining({ connector: healthy, failure_code: 'authentication_failed' })]);
  expect(await chargesOfAttempt(intent, 2)).toBe(0);
});

test('an unknown sandbox_behavior is refused, naming it', async () => {
  const r = await admin.post(`/admin/tenants/${m.tenant}/connectors`, { gateway: 'sandbox', live: true, sandbox_behavior: 'flaky' });
  expect(r.status).toBe(400);
  expect(r.body.error.param).toBe('sandbox_behavior');
});
