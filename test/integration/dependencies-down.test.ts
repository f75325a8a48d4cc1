import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { call as harnessCall, createMerchant as harnessCreateMerchant, eventually as harnessEventually, type Merchant } from './harness';
import { startStack, type Proc, type Stack } from '../../scripts/stack';
import { signatureHeader } from '../../sandbox/callbacks';

// With MongoDB (FerretDB) or Temporal down, the API answers 503 in the one error shape, with no database
// text, readiness says which dependency is down, nothing half-made is left behind, and everything works
// again once the dependency is back on the same port and data. Own stack: this file kills servers.

let stack: Stack;
let dir: string;

// The shared harness, pointed at this file's own stack.
// Each reply also carries its raw text (to look for leaked internals) and how long it took.
const call = async (method: string, p: string, key?: string, body?: unknown) => {
  const started = Date.now();
  const r = await harnessCall(method, p, { baseUrl: stack.apiUrl, timeoutMs: 50_000, ...(key ? { key } : {}), ...(body !== undefined ? { body } : {}) });
  return { ...r, text: typeof r.body === 'string' ? r.body : JSON.stringify(r.body), ms: Date.now() - started };
};
type Reply = Awaited<ReturnType<typeof call>>;
const eventually = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number) => harnessEventually(check, timeoutMs, what);

const createMerchant = () => harnessCreateMerchant(`Deps ${Date.now()}`, stack);

/** The one error shape, a 503 that tells the client to retry, and nothing about the database inside. */
function expectUnavailable(r: Reply) {
  expect(r.status).toBe(503);
  expect(r.body).toEqual({
    error: { type: 'api_error', code: 'service_unavailable', message: expect.any(String), request_id: expect.any(String) },
  });
  expect(r.body.error.request_id).not.toBe('');
  expect(r.headers.get('retry-after')).toBe('1');
  expect(r.text).not.toMatch(/mongo|ferret|sqlite|temporal|grpc|ECONNREFUSED|127\.0\.0\.1|server selection|topology|stack|at \w+ \(/i);
}

async function kill(proc: Proc) {
  await proc.stop('SIGKILL');
  expect(proc.exited).toBe(true);
}

const timings: Record<string, number> = {};
let m: Merchant;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-deps-'));
  const t = Date.now();
  stack = await startStack({ dataDir: path.join(dir, 'data'), logDir: path.join(dir, 'logs'), temporalDb: 'fast', env: { LOG_LEVEL: 'info' } });
  timings['stack start'] = Date.now() - t;
  m = await createMerchant();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  process.stdout.write(`[dependencies-down] timings (ms): ${JSON.stringify(timings)}; logs in ${path.join(dir, 'logs')}\n`);
}, 60_000);

test('MongoDB down: 503 in the one error shape, /readyz names it; back on the same port and data, nothing lost', async () => {
  const before = await call('POST', '/v202607/payment-intents', m.secretKey, { amount: 1100, currency: 'EUR' });
  expect(before.status).toBe(201);

  await kill(stack.procs.ferretdb!);
  // The steady "MongoDB is down" state; the moment of the crash itself is the next test's subject.
  const ready = await eventually('readyz mongodb false', async () => {
    const r = await call('GET', '/readyz');
    return r.body.checks.mongodb === false ? r : undefined;
  }, 15_000);
  timings['readyz with mongo down'] = ready.ms;
  expect(ready.status).toBe(503);
  expect(ready.body).toEqual({ status: 'not_ready', checks: { mongodb: false, temporal: true, worker: true } });

  const list = await call('GET', '/v202607/payment-intents', m.secretKey);
  timings['list with mongo down'] = list.ms;
  expectUnavailable(list);
  const get = await call('GET', `/v202607/payment-intents/${before.body.payment_intent}`, m.secretKey);
  timings['get with mongo down'] = get.ms;
  expectUnavailable(get);

  // liveness is about the process, not its dependencies
  expect((await call('GET', '/healthz')).status).toBe(200);

  let t = Date.now();
  await stack.restartFerret();
  timings['ferret restart'] = Date.now() - t;
  t = Date.now();
  await eventually('list 200 after FerretDB restart', async () => ((await call('GET', '/v202607/payment-intents', m.secretKey)).status === 200 ? true : undefined), 30_000);
  timings['api back after ferret restart'] = Date.now() - t;
  expect((await call('GET', '/readyz')).status).toBe(200);

  // the intent written before the crash is still there, and the worker (which also lost MongoDB) pays it
  const listed = await call('GET', '/v202607/payment-intents', m.secretKey);
  expect(listed.body.data.map((d: any) => d.payment_intent)).toContain(before.body.payment_intent);
  expect(stack.procs.worker!.exited).toBe(false);
  const paid = await call('POST', `/v202607/payment-intents/${before.body.payment_intent}/attempts`, m.publishableKey, { token: 'tok_success' });
  expect(paid.body.status).toBe('success');
  await eventually('read model success', async () => ((await call('GET', `/v202607/payment-intents/${before.body.payment_intent}`, m.secretKey)).body.status === 'success' ? true : undefined), 15_000);
}, 60_000);

test('requests that meet MongoDB dying are 503 too, never 500 (pooled connections the server closed)', async () => {
  // Pooled connections whose peer just died fail with a bare EPIPE ("This socket has been ended by the other
  // party") that the driver does not wrap in a MongoNetworkError. A few crash rounds: warm the pool, SIGKILL
  // FerretDB, let the API read the FINs, send a burst, restart.
  const seen: number[][] = [];
  for (let round = 0; round < 4; round += 1) {
    const burst = () => Promise.all(Array.from({ length: 10 }, () => call('GET', '/v202607/payment-intents', m.secretKey)));
    expect((await burst()).map((r) => r.status)).toEqual(Array(10).fill(200));
    await kill(stack.procs.ferretdb!);
    // One round trip through the API's event loop, so it has read the closed sockets' FIN before the burst
    // (a synchronisation point, not a sleep).
    expect((await call('GET', '/healthz')).status).toBe(200);
    const replies = await burst();
    seen.push(replies.map((r) => r.status));
    for (const r of replies.filter((x) => x.status !== 200)) expect(r.text).not.toMatch(/socket|EPIPE|mongo/i);
    await stack.restartFerret();
    await eventually('list 200 after FerretDB restart', async () => ((await call('GET', '/v202607/payment-intents', m.secretKey)).status === 200 ? true : undefined), 30_000);
  }
  timings['crash rounds: replies not 503'] = seen.flat().filter((s) => s !== 503).length;
  expect(seen).toEqual(seen.map(() => Array(10).fill(503)));
}, 60_000);

test('Temporal down: create is 503 (not 500) and leaves no record; /readyz says temporal false; back on restart', async () => {
  const mongo = new MongoClient(stack.mongoUri);
  await mongo.connect();
  try {
    const intents = mongo.db().collection('payment_intents');
    const count = () => intents.countDocuments({ tenant_id: m.tenant });
    const countBefore = await count();

    await kill(stack.procs.temporal!);

    const ready = await eventually('readyz temporal false', async () => {
      const r = await call('GET', '/readyz');
      return r.status === 503 && r.body.checks.temporal === false ? r : undefined;
    }, 15_000);
    expect(ready.body.checks.mongodb).toBe(true);

    const key = `temporal-down-${Date.now()}`;
    const create = await call('POST', '/v202607/payment-intents', m.secretKey, {
      amount: 2200,
      currency: 'EUR',
      idempotency_key: key,
      customer: { reference: key, first_name: 'Down' },
      webhooks: [{ url: 'https://merchant.example.com/hooks', secret: 'whsec_down', events: ['payment.success'] }],
    });
    timings['create with temporal down'] = create.ms;
    expectUnavailable(create);
    // compensation: the record inserted before the failed start is gone, so nothing would never expire, and
    // so are its side writes (a refused request leaves nothing behind)
    expect(await count()).toBe(countBefore);
    expect(await intents.countDocuments({ idempotency_scope: `${m.tenant}:${key}` })).toBe(0);
    expect(await mongo.db().collection('customers').countDocuments({ tenant_id: m.tenant, reference: key })).toBe(0);
    expect(await mongo.db().collection('webhook_secrets').countDocuments({ tenant_id: m.tenant })).toBe(0);
    // reads that need only MongoDB keep working
    expect((await call('GET', '/v202607/payment-intents', m.secretKey)).status).toBe(200);
    // A gateway's callback meanwhile (a 3DS just completed) is a 503, so the gateway sends it again: a 200
    // would drop it, and the intent might expire with the customer's payment made in time.
    const raw = JSON.stringify({ event_id: 'evt_cb_down', kind: 'charge', created_at: new Date().toISOString(), data: { object: 'charge', id: 'ch_cb_down', status: 'succeeded', reference: 'pi_eu_cbdown' } });
    const secret = stack.env.SANDBOX_CALLBACK_SECRET ?? 'sandbox-dev-callback-secret';
    const callback = await harnessCall('POST', '/callbacks/sandbox/pi_eu_cbdown', {
      baseUrl: stack.apiUrl,
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'sandbox-signature': signatureHeader(secret, raw, Math.floor(Date.now() / 1000)) },
    });
    expect(callback.status).toBe(503);

    const t = Date.now();
    await stack.restartTemporal();
    timings['temporal restart'] = Date.now() - t;
    // How long the API's own connection takes to notice the server is back (gRPC reconnect backoff grows
    // with the length of the outage): measured and reported, bounded by the deadline.
    await eventually('readyz temporal true after restart', async () => ((await call('GET', '/readyz')).body.checks.temporal === true ? true : undefined), 60_000);
    timings['api sees temporal after restart'] = Date.now() - t;
    // the merchant's retry with the same key now creates the intent, exactly once
    const retry = await eventually('create 201 after Temporal restart', async () => {
      const r = await call('POST', '/v202607/payment-intents', m.secretKey, { amount: 2200, currency: 'EUR', idempotency_key: key });
      return r.status === 201 || r.status === 200 ? r : undefined;
    }, 30_000);
    timings['create ok after temporal restart'] = Date.now() - t;
    expect(retry.status).toBe(201);
    expect(await count()).toBe(countBefore + 1);
    const paid = await call('POST', `/v202607/payment-intents/${retry.body.payment_intent}/attempts`, m.publishableKey, { token: 'tok_success' });
    expect(paid.body.status).toBe('success');
    await eventually('readyz 200', async () => ((await call('GET', '/readyz')).status === 200 ? true : undefined), 30_000);
  } finally {
    await mongo.close();
  }
}, 90_000);
