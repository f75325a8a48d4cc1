import { Webhook } from 'standardwebhooks';
import {
  api,
  closeHookReceivers,
  createMerchant,
  eventually,
  pay,
  signingSecretOf,
  startHookReceiver,
  temporalClient,
  type Delivery,
  type HookReceiver,
  type Merchant,
} from './harness';

// Webhook delivery end to end on the real stack: real HTTP receivers on loopback (the stack runs with
// WEBHOOK_ALLOW_PRIVATE_HOSTS=true and WEBHOOK_RETRY_SCHEDULE=1s,2s,4s).

afterAll(closeHookReceivers);

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

const headersOf = (d: Delivery) => d.headers as Record<string, string>;

/** The delivery as a merchant verifies it (docs/webhooks.md): its event, or a throw. */
async function verified(d: Delivery): Promise<unknown> {
  return new Webhook((await signingSecretOf(m.tenant)).secret).verify(d.raw, headersOf(d));
}

async function createIntent(webhooks: unknown[], extra: Record<string, unknown> = {}, key = m.secretKey) {
  const r = await api.post('/v202607/payment-intents', { amount: 2500, currency: 'EUR', webhooks, ...extra }, key);
  expect(r.status).toBe(201);
  return r.body.payment_intent as string;
}

/** Waits until the receiver has `n` deliveries of `type`. */
function receivedOf(rx: HookReceiver, type: string, n = 1, timeoutMs = 15_000) {
  return eventually(async () => (rx.of(type).length >= n ? rx.of(type) : undefined), timeoutMs, `${n} x ${type} at ${rx.url}`);
}

/** The event of `type` about `objectId` in the tenant's event list. */
function eventFor(objectId: string, type: string, key = m.secretKey) {
  return eventually(async () => {
    const r = await api.get(`/v202607/events?type=${type}&limit=100`, key);
    return (r.body.data as any[]).find((e) => JSON.stringify(e.data).includes(objectId));
  }, 15_000, `${type} event of ${objectId}`);
}

test('a delivery carries the secret, a verifiable Standard Webhooks signature and the envelope with metadata', async () => {
  const rx = await startHookReceiver();
  const secret = 'whs-test-secret-1';
  const pi = await createIntent([{ url: rx.url, secret, events: ['payment.success'] }], { metadata: { order: 'ord_42', channel: 'web' } });
  expect((await pay(pi, m.publishableKey, 'tok_success')).body.status).toBe('success');

  const [d] = await receivedOf(rx, 'payment.success');
  expect(d.headers['service-webhook-secret']).toBe(secret);
  expect(d.headers['content-type']).toMatch(/^application\/json/);
  expect(d.headers['webhook-id']).toMatch(/^evt_/);
  expect(d.headers['webhook-signature']).toMatch(/^v1,/);
  expect(await verified(d)).toEqual(d.body);
  // the endpoint's own secret is not the signing key
  expect(() => new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`).verify(d.raw, headersOf(d))).toThrow('No matching signature found');

  expect(Object.keys(d.body).sort()).toEqual(['created_at', 'data', 'id', 'type']);
  expect(d.body.id).toBe(d.headers['webhook-id']);
  expect(d.body.type).toBe('payment.success');
  expect(new Date(d.body.created_at).toISOString()).toBe(d.body.created_at);
  expect(d.body.data).toMatchObject({
    payment_intent: pi,
    amount: 2500,
    currency: 'EUR',
    status: 'success',
    metadata: { order: 'ord_42', channel: 'web' },
  });
});

test('a secret that cannot travel in an HTTP header is refused at create, not retried for 3 days', async () => {
  for (const secret of ['sécret-ü', 'a\nb', 'with space']) {
    const r = await api.post(
      '/v202607/payment-intents',
      { amount: 100, currency: 'EUR', webhooks: [{ url: 'https://hooks.example.com/x', secret, events: ['payment.success'] }] },
      m.secretKey,
    );
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('webhooks[0][secret]');
  }
});

test('the same URL listed twice in one resource is refused at create (it would get every event twice)', async () => {
  const url = 'https://hooks.example.com/twice';
  const r = await api.post(
    '/v202607/payment-intents',
    { amount: 100, currency: 'EUR', webhooks: [{ url, events: ['payment.success'] }, { url, events: ['payment.success', 'payment.canceled'] }] },
    m.secretKey,
  );
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'parameter_invalid', param: 'webhooks[1][url]' });
});

test('an endpoint without a secret gets no secret header, and is signed all the same', async () => {
  const rx = await startHookReceiver();
  const pi = await createIntent([{ url: rx.url, events: ['payment.success'] }]);
  await pay(pi, m.publishableKey, 'tok_success');
  const [d] = await receivedOf(rx, 'payment.success');
  expect(d.headers['service-webhook-secret']).toBeUndefined();
  expect(d.headers['webhook-id']).toBe(d.body.id);
  expect(await verified(d)).toEqual(d.body);
});

test('subscriptions filter by event type', async () => {
  const all = await startHookReceiver();
  const canceledOnly = await startHookReceiver();
  const failedOnly = await startHookReceiver();
  const webhooks = [
    { url: all.url, events: ['payment.success', 'payment.attempt_failed', 'payment.canceled'] },
    { url: canceledOnly.url, events: ['payment.canceled'] },
    { url: failedOnly.url, events: ['payment.attempt_failed'] },
  ];

  // declined, then paid: attempt_failed goes to its subscribers only, success to `all` only
  const pi = await createIntent(webhooks);
  expect((await pay(pi, m.publishableKey, 'tok_decline')).status).toBeLessThan(500);
  await receivedOf(all, 'payment.attempt_failed');
  await receivedOf(failedOnly, 'payment.attempt_failed');
  expect((await pay(pi, m.publishableKey, 'tok_success')).body.status).toBe('success');
  await receivedOf(all, 'payment.success');

  // canceled: only the endpoints subscribed to it
  const pi2 = await createIntent(webhooks);
  expect((await api.post(`/v202607/payment-intents/${pi2}/cancel`, {}, m.secretKey)).status).toBeLessThan(300);
  await receivedOf(canceledOnly, 'payment.canceled');
  await receivedOf(all, 'payment.canceled');

  // the events were recorded, and their deliveries settled: nothing more is on its way to the others
  const ev = await eventFor(pi, 'payment.success');
  const evDetail = await eventually(async () => {
    const r = await api.get(`/v202607/events/${ev.id}`, m.secretKey);
    return r.body.deliveries?.[0]?.attempts?.length >= 1 ? r.body : undefined;
  });
  expect(evDetail.deliveries.map((x: any) => x.url)).toEqual([all.url]);
  const evf = await eventFor(pi, 'payment.attempt_failed');
  const failedDetail = await api.get(`/v202607/events/${evf.id}`, m.secretKey);
  expect(failedDetail.body.deliveries.map((x: any) => x.url).sort()).toEqual([all.url, failedOnly.url].sort());
  const evc = await eventFor(pi2, 'payment.canceled');
  const detail = await api.get(`/v202607/events/${evc.id}`, m.secretKey);
  expect(detail.body.deliveries.map((x: any) => x.url).sort()).toEqual([all.url, canceledOnly.url].sort());

  expect(canceledOnly.received.map((r) => r.body.type)).toEqual(['payment.canceled']);
  expect(failedOnly.received.map((r) => r.body.type)).toEqual(['payment.attempt_failed']);
  expect(all.of('payment.success').map((r) => r.body.data.payment_intent)).toEqual([pi]);
  expect(failedOnly.of('payment.success')).toHaveLength(0);
  expect(canceledOnly.of('payment.success')).toHaveLength(0);
  expect(canceledOnly.of('payment.attempt_failed')).toHaveLength(0);
});

test('a failing endpoint does not delay a healthy one, and its retries carry the same event id', async () => {
  const failing = await startHookReceiver({ status: 500 });
  const healthy = await startHookReceiver();
  const pi = await createIntent([
    { url: failing.url, events: ['payment.success'] },
    { url: healthy.url, events: ['payment.success'] },
  ]);
  const paidAt = Date.now();
  expect((await pay(pi, m.publishableKey, 'tok_success')).body.status).toBe('success');

  const [ok] = await receivedOf(healthy, 'payment.success', 1, 3_000);
  expect(ok.at - paidAt).toBeLessThan(3_000);

  // the failing one is retried on the schedule (1s, 2s, 4s): at least three attempts, one event id
  const tries = await receivedOf(failing, 'payment.success', 3, 15_000);
  expect(new Set(tries.map((t) => t.headers['webhook-id'])).size).toBe(1);
  expect(tries[0].headers['webhook-id']).toBe(ok.headers['webhook-id']);
  expect(new Set(tries.map((t) => t.raw)).size).toBe(1); // the same bytes on every attempt
  expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(900);
  // the healthy endpoint was delivered once: a 2xx ends its delivery
  expect(healthy.of('payment.success')).toHaveLength(1);

  // the attempts are visible in the events API with their status codes
  const id = ok.headers['webhook-id'] as string;
  const detail = await eventually(async () => {
    const r = await api.get(`/v202607/events/${id}`, m.secretKey);
    const f = r.body.deliveries?.find((x: any) => x.url === failing.url);
    return f?.attempts.length >= 3 ? r.body : undefined;
  });
  const f = detail.deliveries.find((x: any) => x.url === failing.url);
  const h = detail.deliveries.find((x: any) => x.url === healthy.url);
  expect(f.attempts.every((a: any) => a.status_code === 500 && a.outcome === 'failed')).toBe(true);
  expect(f.attempts[0].error).toEqual(expect.stringContaining('receiver says no'));
  expect(h.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 204, outcome: 'delivered', url: healthy.url })]);
});

test('a receiver that is down at first gets the event once it is back', async () => {
  // reserve a free port, then close it: the first attempt finds nobody listening
  const probe = await startHookReceiver();
  const port = probe.port;
  await probe.close();
  const url = `http://127.0.0.1:${port}/hook`;

  const pi = await createIntent([{ url, events: ['payment.success'] }]);
  await pay(pi, m.publishableKey, 'tok_success');
  const ev = await eventFor(pi, 'payment.success');
  const failed = await eventually(async () => {
    const r = await api.get(`/v202607/events/${ev.id}`, m.secretKey);
    const attempts = r.body.deliveries?.[0]?.attempts ?? [];
    return attempts.length >= 1 ? attempts : undefined;
  }, 10_000, 'a first failed attempt');
  expect(failed[0]).toMatchObject({ attempt: 1, status_code: null, outcome: 'failed', url });
  expect(failed[0].error).toEqual(expect.any(String));

  const back = await startHookReceiver({ port });
  const [d] = await receivedOf(back, 'payment.success', 1, 15_000);
  expect(d.headers['webhook-id']).toBe(ev.id);
  expect(d.body.data.payment_intent).toBe(pi);

  const after = await eventually(async () => {
    const r = await api.get(`/v202607/events/${ev.id}`, m.secretKey);
    const attempts = r.body.deliveries[0].attempts;
    return attempts.at(-1)?.outcome === 'delivered' ? attempts : undefined;
  });
  expect(after.length).toBeGreaterThanOrEqual(2);
  expect(after.at(-1)).toMatchObject({ status_code: 204, outcome: 'delivered' });
});

test('events API: list by type, tenant isolation, attempts, redelivery', async () => {
  const rx = await startHookReceiver();
  const secret = 'redeliver-secret';
  const pi = await createIntent([{ url: rx.url, secret, events: ['payment.success', 'payment.attempt_failed'] }]);
  await pay(pi, m.publishableKey, 'tok_decline');
  await pay(pi, m.publishableKey, 'tok_success');
  const [first] = await receivedOf(rx, 'payment.success');
  await receivedOf(rx, 'payment.attempt_failed');
  const id = first.headers['webhook-id'] as string;

  // list, filtered by type
  const success = await api.get('/v202607/events?type=payment.success&limit=100', m.secretKey);
  expect(success.status).toBe(200);
  expect(success.body.data.length).toBeGreaterThanOrEqual(1);
  expect(success.body.data.every((e: any) => e.type === 'payment.success')).toBe(true);
  expect(success.body.data.map((e: any) => e.id)).toContain(id);
  const failedList = await api.get('/v202607/events?type=payment.attempt_failed&limit=100', m.secretKey);
  expect(failedList.body.data.every((e: any) => e.type === 'payment.attempt_failed')).toBe(true);
  expect(failedList.body.data.map((e: any) => e.id)).not.toContain(id);
  const everything = await api.get('/v202607/events?limit=100', m.secretKey);
  expect(everything.body.data.map((e: any) => e.id)).toContain(id);

  // another tenant sees neither the event nor it in its list
  const other = await createMerchant();
  expect((await api.get(`/v202607/events/${id}`, other.secretKey)).status).toBe(404);
  expect((await api.post(`/v202607/events/${id}/redeliver`, {}, other.secretKey)).status).toBe(404);
  expect((await api.get('/v202607/events?limit=100', other.secretKey)).body.data.map((e: any) => e.id)).not.toContain(id);
  expect((await api.get('/v202607/events/evt_eu_doesnotexist0000', m.secretKey)).status).toBe(404);

  // the event with its attempts
  const detail = await eventually(async () => {
    const r = await api.get(`/v202607/events/${id}`, m.secretKey);
    return r.body.deliveries?.[0]?.attempts?.length >= 1 ? r : undefined;
  });
  expect(detail.status).toBe(200);
  expect(detail.body).toMatchObject({ id, type: 'payment.success', created_at: first.body.created_at, data: first.body.data });
  expect(detail.body.deliveries).toHaveLength(1);
  expect(detail.body.deliveries[0].url).toBe(rx.url);
  expect(detail.body.deliveries[0].attempts[0]).toMatchObject({
    delivery: `${id}-0`,
    attempt: 1,
    url: rx.url,
    status_code: 204,
    outcome: 'delivered',
    error: null,
    latency_ms: expect.any(Number),
    attempted_at: expect.any(String),
  });

  // redelivery: 202, the same id and bytes again, freshly signed
  const red = await api.post(`/v202607/events/${id}/redeliver`, {}, m.secretKey);
  expect(red.status).toBe(202);
  expect(red.body.event).toBe(id);
  expect(red.body.deliveries).toEqual([expect.stringMatching(new RegExp(`^${id}-0-redeliver-\\d+$`))]);
  const both = await receivedOf(rx, 'payment.success', 2);
  expect(both).toHaveLength(2);
  expect(both[1].headers['webhook-id']).toBe(id);
  expect(both[1].raw).toBe(first.raw);
  expect(both[1].headers['service-webhook-secret']).toBe(secret);
  expect(await verified(both[1])).toEqual(first.body);
  // In Temporal (visibility and the UI's summary, which the payload codec does not seal) the receiver shows its
  // scheme, host and port only: its path may carry its secret.
  const shown = await (await temporalClient()).workflow.getHandle(red.body.deliveries[0]).describe();
  const origin = new URL(rx.url).origin;
  expect(shown.searchAttributes.WebhookUrl).toEqual([new URL(rx.url).pathname === '/' ? origin : `${origin}/[redacted]`]);
  expect(await shown.staticSummary()).toContain(`to ${new URL(rx.url).pathname === '/' ? origin : `${origin}/[redacted]`}`);
  expect(await shown.staticSummary()).not.toContain(rx.url);

  // the redelivery's attempt shows up under the same endpoint
  await eventually(async () => {
    const r = await api.get(`/v202607/events/${id}`, m.secretKey);
    const attempts = r.body.deliveries[0].attempts;
    return attempts.some((a: any) => a.delivery === red.body.deliveries[0] && a.outcome === 'delivered') ? attempts : undefined;
  });

  // a url that is not an endpoint of the event is refused
  expect((await api.post(`/v202607/events/${id}/redeliver`, { url: 'http://127.0.0.1:1/nope' }, m.secretKey)).status).toBe(400);
});

test('refund.success reaches the refund webhook', async () => {
  const rx = await startHookReceiver();
  const pi = await createIntent([]);
  expect((await pay(pi, m.publishableKey, 'tok_success')).body.status).toBe('success');
  const r = await api.post(
    '/v202607/refunds',
    { payment_intent: pi, amount: 700, currency: 'EUR', webhooks: [{ url: rx.url, secret: 'refund-secret', events: ['refund.success'] }] },
    m.secretKey,
  );
  expect(r.status).toBe(201);
  const [d] = await receivedOf(rx, 'refund.success');
  expect(d.headers['service-webhook-secret']).toBe('refund-secret');
  expect(await verified(d)).toEqual(d.body);
  expect(d.body).toMatchObject({ type: 'refund.success', data: { refund: r.body.refund, payment_intent: pi, amount: 700, status: 'success' } });
  expect(rx.received.every((x) => x.body.type === 'refund.success')).toBe(true);
});
