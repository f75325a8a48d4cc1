import { call, createMerchant, startApiProcess } from './harness';
import type { Proc } from '../../scripts/stack';

// API_MAX_IN_FLIGHT on the real stack: a second API process that takes two requests at once. Two payment
// attempts on a gateway that never answers (tok_timeout: the stack's gateway timeout is 4 s) hold both places;
// meanwhile the process answers 503 `overloaded` at once, its probes still answer, and once the attempts
// end it serves again. The refused request did nothing: sent again, it is answered as a first request.

let capped: Proc;
let cappedUrl: string;

beforeAll(async () => {
  ({ proc: capped, url: cappedUrl } = await startApiProcess('api-capped', { API_MAX_IN_FLIGHT: '2' }));
}, 90_000);

afterAll(async () => {
  await capped?.stop();
});

/** The process's own count of requests in flight, from its /metrics (which the cap never refuses). */
async function inFlight(): Promise<number> {
  const text = (await call('GET', '/metrics', { baseUrl: cappedUrl })).body as string;
  return Number(/^http_requests_in_flight (\d+)$/m.exec(text)?.[1]);
}

async function waitForInFlight(n: number): Promise<void> {
  for (const until = Date.now() + 3000; (await inFlight()) < n; ) {
    if (Date.now() > until) throw new Error(`fewer than ${n} requests in flight after 3 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('two attempts in flight fill a process capped at 2: a create is refused 503 overloaded, then accepted when resent after they end', async () => {
  const m = await createMerchant('Load shedding');
  const intents = await Promise.all(
    [1, 2].map(async () => (await call('POST', '/v202607/payment-intents', { key: m.secretKey, body: { amount: 1000, currency: 'EUR' } })).body.payment_intent as string),
  );
  const held = intents.map((id) => call('POST', `/v202607/payment-intents/${id}/attempts`, { baseUrl: cappedUrl, key: m.publishableKey, body: { token: 'tok_timeout' } }));

  const create = () =>
    call('POST', '/v202607/payment-intents', { baseUrl: cappedUrl, key: m.secretKey, body: { amount: 700, currency: 'EUR', idempotency_key: `shed-${m.tenant}` } });
  // The attempts reach the process within milliseconds and are held for the gateway's 4 s.
  // (Asked about the attempts rather than timed: a create answered before they arrive would spend the key.)
  await waitForInFlight(2);
  const refused = await create();
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.body).toEqual({ error: { type: 'api_error', code: 'overloaded', message: expect.stringMatching(/nothing was done/), request_id: expect.any(String) } });
  expect((await call('GET', '/readyz', { baseUrl: cappedUrl })).status).toBe(200);
  expect((await call('GET', '/metrics', { baseUrl: cappedUrl })).body).toMatch(/^http_requests_shed_total 1$/m);

  expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
  const accepted = await create();
  expect(accepted.status).toBe(201);
  // a first create: the refusals left nothing under the key
  expect(accepted.body).toMatchObject({ amount: 700, currency: 'EUR', status: 'pending', resource_created: true });
}, 30_000);
