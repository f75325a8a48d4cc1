import { createPayorchClient, parseRetryAfter, retryingFetch } from '../../../clients/typescript/src';

// Retries on 429 and 503, honouring Retry-After, against a fake fetch and a recorded (not real) sleep.

function scripted(...answers: Array<[number, Record<string, string>?]>) {
  const bodies: string[] = [];
  let i = 0;
  const fetch = async (req: Request) => {
    bodies.push(await req.text());
    const [status, headers] = answers[Math.min(i++, answers.length - 1)];
    return new Response(JSON.stringify(status < 300 ? { ok: true } : { error: { code: 'x' } }), { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { fetch, bodies, calls: () => i };
}

function recorder() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const post = (body: unknown) => new Request('http://api.test/v202607/refunds', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

test('429 with Retry-After in seconds: waits that long, then answers the retry', async () => {
  const s = scripted([429, { 'retry-after': '2' }], [200]);
  const r = recorder();
  const res = await retryingFetch(s.fetch, { sleep: r.sleep })(post({ amount: 1 }));
  expect(res.status).toBe(200);
  expect(r.waits).toEqual([2000]);
  expect(s.bodies).toEqual(['{"amount":1}', '{"amount":1}']); // the body is sent again, whole
});

test('Retry-After as an HTTP date; anything else is ignored', () => {
  const now = Date.parse('2026-08-01T10:00:00Z');
  expect(parseRetryAfter('Sat, 01 Aug 2026 10:00:03 GMT', now)).toBe(3000);
  expect(parseRetryAfter('Sat, 01 Aug 2026 09:00:00 GMT', now)).toBe(0);
  expect(parseRetryAfter(null)).toBeNull();
  expect(parseRetryAfter('soon')).toBeNull();
  // neither seconds nor an HTTP date (Date.parse would read both as dates)
  expect(parseRetryAfter('1.5', now)).toBeNull();
  expect(parseRetryAfter('2026-08-01T10:00:03Z', now)).toBeNull();
});

test('without Retry-After: exponential backoff with jitter, then the last answer after `retries`', async () => {
  const s = scripted([429]);
  const r = recorder();
  const res = await retryingFetch(s.fetch, { sleep: r.sleep, retries: 3, baseDelayMs: 100, random: () => 1 })(post({ a: 1 }));
  expect(res.status).toBe(429);
  expect(s.calls()).toBe(4);
  expect(r.waits).toEqual([100, 200, 400]);
  const r0 = recorder();
  await retryingFetch(scripted([429], [200]).fetch, { sleep: r0.sleep, baseDelayMs: 100, random: () => 0 })(post({ a: 1 }));
  expect(r0.waits).toEqual([50]); // half the step at least
});

test('503 on a POST without an idempotency key is not repeated (it may have been carried out)', async () => {
  const s = scripted([503, { 'retry-after': '1' }], [200]);
  const res = await retryingFetch(s.fetch, { sleep: recorder().sleep })(post({ amount: 1 }));
  expect(res.status).toBe(503);
  expect(s.calls()).toBe(1);
});

test.each([{ idempotency_key: 'k1' }, { checkout_intent_idempotency_key: 'k1' }, { idempotencyKey: 'k1' }])('503 on a POST with %j is repeated', async (key) => {
  const s = scripted([503, { 'retry-after': '1' }], [201]);
  const res = await retryingFetch(s.fetch, { sleep: recorder().sleep })(post({ amount: 1, ...key }));
  expect(res.status).toBe(201);
  expect(s.calls()).toBe(2);
});

test('503 on a GET is repeated; other errors are not', async () => {
  const s = scripted([503], [200]);
  expect((await retryingFetch(s.fetch, { sleep: recorder().sleep })(new Request('http://api.test/x'))).status).toBe(200);
  for (const status of [400, 404, 409, 500, 502]) {
    const t = scripted([status], [200]);
    expect((await retryingFetch(t.fetch, { sleep: recorder().sleep })(new Request('http://api.test/x'))).status).toBe(status);
    expect(t.calls()).toBe(1);
  }
});

test('a Retry-After longer than maxRetryAfterMs is answered, not waited for', async () => {
  const s = scripted([429, { 'retry-after': '3600' }], [200]);
  const r = recorder();
  const res = await retryingFetch(s.fetch, { sleep: r.sleep })(post({}));
  expect(res.status).toBe(429);
  expect(r.waits).toEqual([]);
});

test('an abort during the wait ends the call', async () => {
  const s = scripted([429, { 'retry-after': '30' }], [200]);
  const ac = new AbortController();
  const call = retryingFetch(s.fetch)(new Request('http://api.test/x', { signal: ac.signal }));
  setTimeout(() => ac.abort(new Error('gave up')), 20);
  await expect(call).rejects.toThrow('gave up');
  expect(s.calls()).toBe(1);
});

test('through the client: a rate-limited create is retried once and answers the created intent', async () => {
  const s = scripted([429, { 'retry-after': '0' }], [201]);
  const onRetry = jest.fn();
  const client = createPayorchClient({ apiKey: 'sk_eu_x', baseUrl: 'http://api.test', fetch: s.fetch, retry: { onRetry } });
  const r = await client.POST('/v202607/payment-intents', { body: { amount: 100, currency: 'EUR' } });
  expect(r.response.status).toBe(201);
  expect(onRetry).toHaveBeenCalledWith(expect.objectContaining({ attempt: 1, status: 429, waitMs: 0 }));
});
