import { call, createMerchant, startApiProcess, type Merchant, type Reply } from './harness';
import type { Proc } from '../../scripts/stack';

// Per-key token buckets on the real stack: a second API process (same MongoDB, Temporal and worker as the
// shared stack) with tiny buckets that refill one token per 1000 s, so what passes is a count, never a
// matter of timing. The shared API, with the default limits, creates the tenants and intents.

const LIMITS = {
  RATE_LIMIT_SECRET_PER_SEC: '0.001',
  RATE_LIMIT_SECRET_BURST: '3',
  RATE_LIMIT_PUBLISHABLE_PER_SEC: '0.001',
  RATE_LIMIT_PUBLISHABLE_BURST: '5',
  RATE_LIMIT_ATTEMPTS_PER_SEC: '0.001',
  RATE_LIMIT_ATTEMPTS_BURST: '2',
  RATE_LIMIT_CLIENT_SECRET_PER_SEC: '0.001',
  RATE_LIMIT_CLIENT_SECRET_BURST: '2',
};

let limited: Proc;
let limitedUrl: string;

beforeAll(async () => {
  ({ proc: limited, url: limitedUrl } = await startApiProcess('api-rate-limited', LIMITS));
}, 90_000);

afterAll(async () => {
  await limited?.stop();
});

const onLimited = (method: string, p: string, key: string, body?: unknown) => call(method, p, { baseUrl: limitedUrl, key, ...(body !== undefined ? { body } : {}) });
const list = (key: string) => onLimited('GET', '/v202607/payment-intents', key);
const attempt = (intent: string, credential: string, token = 'tok_decline') => onLimited('POST', `/v202607/payment-intents/${intent}/attempts`, credential, { token });

/** A pending intent, created through the shared API (default limits). */
async function intent(m: Merchant): Promise<{ id: string; clientSecret: string }> {
  const r = await call('POST', '/v202607/payment-intents', { key: m.secretKey, body: { amount: 1000, currency: 'EUR' } });
  expect(r.status).toBe(201);
  return { id: r.body.payment_intent, clientSecret: new URL(r.body.url).searchParams.get('client_secret')! };
}

const count = (replies: Reply[], status: number) => replies.filter((r) => r.status === status).length;

function expectRateLimited(r: Reply, message: RegExp) {
  expect(r.status).toBe(429);
  expect(r.body).toEqual({ error: { type: 'rate_limit_error', code: 'rate_limited', message: expect.stringMatching(message), request_id: expect.any(String) } });
  const retryAfter = Number(r.headers.get('retry-after'));
  // one token per 1000 s: the next one is most of that away
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(900);
  expect(retryAfter).toBeLessThanOrEqual(1000);
}

test("a secret key gets its burst, then 429 with Retry-After; another tenant's key on the same process is served meanwhile", async () => {
  const [a, b] = await Promise.all([createMerchant('Rate limited A'), createMerchant('Rate limited B')]);
  // A floods while B sends its three, all at once on the same process.
  const [floodA, fromB] = await Promise.all([
    Promise.all(Array.from({ length: 10 }, () => list(a.secretKey))),
    Promise.all(Array.from({ length: 3 }, () => list(b.secretKey))),
  ]);
  expect([count(floodA, 200), count(floodA, 429)]).toEqual([3, 7]);
  expect(fromB.map((r) => r.status)).toEqual([200, 200, 200]);
  expectRateLimited(floodA.find((r) => r.status === 429)!, /too many requests with this API key/i);

  // still refused (nothing refilled); B's bucket is its own, and its three spent it
  expect((await list(a.secretKey)).status).toBe(429);
  expect((await list(b.secretKey)).status).toBe(429);
  // per process: the shared API has buckets of its own
  expect((await call('GET', '/v202607/payment-intents', { key: a.secretKey })).status).toBe(200);
});

test('card testing through a publishable key is slowed: two attempts across intents, then 429; its other requests and other tenants go on', async () => {
  const [a, b] = await Promise.all([createMerchant('Card testing target'), createMerchant('Card testing bystander')]);
  const intents = await Promise.all([intent(a), intent(a), intent(a), intent(b)]);
  const tries = [];
  for (const i of intents.slice(0, 3)) tries.push(await attempt(i.id, a.publishableKey));
  expect(tries.map((r) => r.status)).toEqual([200, 200, 429]);
  expect(tries[0]!.body.status).toBe('failed'); // the declines were real attempts
  expectRateLimited(tries[2]!, /too many payment attempts with this publishable key/i);

  // the attempts bucket is apart from the key's general one, which still has tokens: 403, not 429
  expect((await onLimited('GET', '/v202607/payment-intents', a.publishableKey)).status).toBe(403);
  // another tenant's publishable key pays on the same process
  const other = await attempt(intents[3]!.id, b.publishableKey, 'tok_success');
  expect([other.status, other.body.status]).toEqual([200, 'success']);
});

test("a client secret (the hosted page's credential) gets two attempts, then 429 with a message for the customer; another intent's still works", async () => {
  const m = await createMerchant('Client secret limits');
  const [first, second] = await Promise.all([intent(m), intent(m)]);
  const tries = [];
  for (let n = 0; n < 3; n += 1) tries.push(await attempt(first.id, first.clientSecret));
  expect(tries.map((r) => r.status)).toEqual([200, 200, 429]);
  expectRateLimited(tries[2]!, /^Too many payment attempts for this payment\. Please wait \d+ seconds and try again\.$/);

  const other = await attempt(second.id, second.clientSecret, 'tok_success');
  expect([other.status, other.body.status]).toEqual([200, 'success']);
});
