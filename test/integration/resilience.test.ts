import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal as temporalProto } from '@temporalio/proto';
import { call as harnessCall, createMerchant as harnessCreateMerchant, eventually as harnessEventually, type Merchant } from './harness';
import { forkTs, freePort, startStack, waitFor, type Proc, type Stack } from '../../scripts/stack';

// A crash or restart of any process loses nothing. This file runs its OWN stack (killing processes of the
// shared one would break the other files) and kills real processes with SIGKILL, then restarts them on the
// same ports and data. No fixed sleeps: everything polls with a deadline.

let stack: Stack;
let dir: string;

// The shared harness, pointed at this file's own stack.
const call = (method: string, p: string, key?: string, body?: unknown) =>
  harnessCall(method, p, { baseUrl: stack.apiUrl, timeoutMs: 45_000, ...(key ? { key } : {}), ...(body !== undefined ? { body } : {}) });
const eventually = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number) => harnessEventually(check, timeoutMs, what);

/** Waits until the wall clock passes `at` (an intent's expires_at): a deadline, not a guessed sleep. */
async function until(at: string | Date) {
  const t = new Date(at).getTime();
  await eventually(`clock past ${new Date(t).toISOString()}`, async () => (Date.now() > t + 200 ? true : undefined), 30_000);
}

const createMerchant = () => harnessCreateMerchant(`Resilience ${Date.now()}`, stack);

const createIntent = (m: Merchant, body: Record<string, unknown>) => call('POST', '/v202607/payment-intents', m.secretKey, body);
const getIntent = (m: Merchant, id: string) => call('GET', `/v202607/payment-intents/${id}`, m.secretKey);
const pay = (m: Merchant, id: string, token = 'tok_success') => call('POST', `/v202607/payment-intents/${id}/attempts`, m.publishableKey, { token });
const statusBecomes = (m: Merchant, id: string, status: string, timeoutMs: number) =>
  eventually(`${id} ${status}`, async () => ((await getIntent(m, id)).body.status === status ? true : undefined), timeoutMs);
const ready = () => call('GET', '/readyz');

async function kill(proc: Proc) {
  const pid = proc.child.pid;
  await proc.stop('SIGKILL');
  expect(proc.exited).toBe(true);
  expect(proc.child.signalCode).toBe('SIGKILL');
  return pid;
}

const timings: Record<string, number> = {};
const observed: Record<string, unknown> = {};
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  try {
    return await fn();
  } finally {
    timings[name] = Date.now() - t;
  }
}

let m: Merchant;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-resilience-'));
  stack = await timed('stack start', () =>
    startStack({ dataDir: path.join(dir, 'data'), logDir: path.join(dir, 'logs'), temporalDb: 'fast', env: { LOG_LEVEL: 'info' } }),
  );
  m = await createMerchant();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  process.stdout.write(`[resilience] timings (ms): ${JSON.stringify(timings)}; observed: ${JSON.stringify(observed)}; logs in ${path.join(dir, 'logs')}\n`);
}, 60_000);

test('worker SIGKILLed: the API keeps accepting intents; a restarted worker processes them and fires the timers', async () => {
  const expiring = await createIntent(m, { amount: 1200, currency: 'EUR', timeout: 2 });
  const before = await createIntent(m, { amount: 1300, currency: 'EUR' });
  expect(expiring.status).toBe(201);
  expect(before.status).toBe(201);
  await kill(stack.procs.worker!);

  // No worker: creates are still accepted (the record and the workflow start need only MongoDB and Temporal).
  const during = await createIntent(m, { amount: 1400, currency: 'EUR' });
  expect(during.status).toBe(201);
  expect((await getIntent(m, during.body.payment_intent)).body.status).toBe('pending');
  // MongoDB and Temporal are fine. (The worker check reads describeTaskQueue's pollers, which Temporal keeps
  // listing for a while after the last poll, so it cannot be asserted false right after the kill; the value
  // seen is recorded with the timings.)
  const r = await ready();
  expect(r.body.checks).toMatchObject({ mongodb: true, temporal: true });
  observed['readyz worker check right after worker SIGKILL'] = r.body.checks.worker;

  // The 2 s deadline passes while no worker runs: nothing can act on it yet.
  await until(expiring.body.expires_at);
  expect((await getIntent(m, expiring.body.payment_intent)).body.status).toBe('pending');

  await timed('worker restart', () => stack.startWorker());
  // the durable timer fired while the worker was dead; the new worker runs the cancel
  await timed('timer after worker restart', () => statusBecomes(m, expiring.body.payment_intent, 'canceled', 20_000));
  // an intent created while no worker ran is payable, and so is one from before the kill
  const paid = await timed('pay after worker restart', () => pay(m, during.body.payment_intent));
  expect(paid.status).toBe(200);
  expect(paid.body.status).toBe('success');
  expect((await pay(m, before.body.payment_intent)).body.status).toBe('success');
  await statusBecomes(m, during.body.payment_intent, 'success', 10_000);
}, 60_000);

test('worker down: Updates answer 503 within their deadline; after restart each happened whole or not at all', async () => {
  // An API process of its own with a short Update deadline (the stack's API keeps the default 45 s).
  const port = await freePort();
  const api = forkTs('api-short-deadline', 'api/main.ts', { ...stack.env, PORT: String(port), WORKFLOW_UPDATE_DEADLINE_MS: '3000' }, path.join(dir, 'logs'));
  const base = `http://127.0.0.1:${port}`;
  const short = (method: string, p: string, key: string, body?: unknown) =>
    harnessCall(method, p, { baseUrl: base, timeoutMs: 30_000, key, ...(body !== undefined ? { body } : {}) });
  try {
    await waitFor('short-deadline API', async () => (await fetch(`${base}/healthz`)).ok, 60_000, api);
    const toCancel = (await createIntent(m, { amount: 1500, currency: 'EUR' })).body.payment_intent as string;
    const toPay = (await createIntent(m, { amount: 1600, currency: 'EUR' })).body.payment_intent as string;
    await kill(stack.procs.worker!);

    for (const [what, reply] of [
      ['cancel', () => short('POST', `/v202607/payment-intents/${toCancel}/cancel`, m.secretKey)],
      ['attempt', () => short('POST', `/v202607/payment-intents/${toPay}/attempts`, m.publishableKey, { token: 'tok_success' })],
    ] as const) {
      const started = Date.now();
      const r = await reply();
      timings[`${what} with no worker`] = Date.now() - started;
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
      expect(r.headers.get('retry-after')).toBe('1');
      expect(Date.now() - started).toBeLessThan(15_000);
    }

    await timed('worker restart (deadline test)', () => stack.startWorker());
    // Temporal may still deliver an Update it had admitted: a retry finds it done, or does it now. Never both.
    const cancelAgain = await call('POST', `/v202607/payment-intents/${toCancel}/cancel`, m.secretKey);
    observed['cancel after worker restart'] = { status: cancelAgain.status, body: cancelAgain.body };
    if (cancelAgain.status === 409) expect(cancelAgain.body.error.code).toBe('payment_intent_unexpected_state');
    else expect(cancelAgain.status).toBe(200);
    await statusBecomes(m, toCancel, 'canceled', 15_000);
    const payAgain = await pay(m, toPay);
    expect([200, 409]).toContain(payAgain.status);
    await statusBecomes(m, toPay, 'success', 15_000);
    const charges = await fetch(`${stack.sandboxUrl}/v1/effects?kind=charge`).then((r) => r.json() as Promise<{ effects: { idempotency_key: string }[] }>);
    expect(charges.effects.filter((e) => e.idempotency_key.startsWith(`${toPay}:`))).toHaveLength(1);
  } finally {
    await api.stop();
  }
}, 120_000);

test('API SIGKILLed and restarted on the same port: nothing lost', async () => {
  const key = `api-crash-${Date.now()}`;
  const pi = await createIntent(m, { amount: 2100, currency: 'EUR', idempotency_key: key });
  expect(pi.status).toBe(201);
  const oldPid = await kill(stack.procs.api!);
  await expect(fetch(`${stack.apiUrl}/healthz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();

  const api = await timed('api restart', () => stack.startApi());
  expect(api.child.pid).not.toBe(oldPid);
  // same URL (startStack passes PORT in the env): merchants and the hosted page keep working
  expect(((await call('GET', '/healthz')).body)).toEqual({ status: 'ok' });
  const got = await getIntent(m, pi.body.payment_intent);
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ payment_intent: pi.body.payment_intent, status: 'pending', amount: 2100 });
  // the idempotency key still finds it: a merchant retrying after the crash gets the same intent
  const again = await createIntent(m, { amount: 2100, currency: 'EUR', idempotency_key: key });
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ payment_intent: pi.body.payment_intent, resource_created: false });
  expect((await pay(m, pi.body.payment_intent)).body.status).toBe('success');
}, 60_000);

test('Temporal SIGKILLed and restarted on the same port and database: timers that passed fire, paid intents stay refundable', async () => {
  const expiring = await createIntent(m, { amount: 3100, currency: 'EUR', timeout: 3 });
  const toPay = await createIntent(m, { amount: 3200, currency: 'EUR' });
  expect(expiring.status).toBe(201);
  expect((await pay(m, toPay.body.payment_intent)).body.status).toBe('success');
  await statusBecomes(m, toPay.body.payment_intent, 'success', 10_000);

  const worker = stack.procs.worker!;
  const apiProc = stack.procs.api!;
  await kill(stack.procs.temporal!);
  // readiness reports Temporal down; MongoDB reads keep working
  const down = await eventually('readyz temporal false', async () => {
    const r = await ready();
    return r.status === 503 && r.body.checks.temporal === false ? r : undefined;
  }, 15_000);
  expect(down.body.checks.mongodb).toBe(true);
  expect((await getIntent(m, expiring.body.payment_intent)).body.status).toBe('pending');

  // the intent's deadline passes while Temporal is down
  await until(expiring.body.expires_at);

  await timed('temporal restart', () => stack.restartTemporal());
  // The worker and the API were not restarted: they must reconnect by themselves.
  expect(worker.exited).toBe(false);
  expect(apiProc.exited).toBe(false);
  await timed('readyz after temporal restart', () =>
    eventually('readyz 200 after Temporal restart', async () => ((await ready()).status === 200 ? true : undefined), 30_000),
  );
  await timed('timer after temporal restart', () => statusBecomes(m, expiring.body.payment_intent, 'canceled', 30_000));

  const refund = await timed('refund after temporal restart', () =>
    call('POST', '/v202607/refunds', m.secretKey, { payment_intent: toPay.body.payment_intent, amount: 1000, currency: 'EUR' }),
  );
  expect(refund.status).toBe(201);
  expect(refund.body).toMatchObject({ status: 'pending', refundable_amount_left: 2200 });
  await eventually('refund success', async () => ((await call('GET', `/v202607/refunds/${refund.body.refund}`, m.secretKey)).body.status === 'success' ? true : undefined), 15_000);
  // and new work flows end to end on the restarted server
  const fresh = await createIntent(m, { amount: 3300, currency: 'EUR' });
  expect(fresh.status).toBe(201);
  expect((await pay(m, fresh.body.payment_intent)).body.status).toBe('success');
}, 90_000);

test('SIGTERM drains the worker with a charge in flight: exit 0, "worker stopped cleanly", one charge, the payment succeeds', async () => {
  const pi = await createIntent(m, { amount: 4100, currency: 'EUR' });
  expect(pi.status).toBe(201);
  const sandbox = (p: string, body?: unknown) =>
    fetch(`${stack.sandboxUrl}${p}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
  const chargesBefore = (await sandbox('/v1/effects?kind=charge')).count as number;
  await sandbox('/v1/admin/settings', { latency_ms: 3000 }); // every gateway call now takes 3 s
  const temporal = await Connection.connect({ address: stack.temporalAddress });
  try {
    const client = new Client({ connection: temporal });
    const paying = pay(m, pi.body.payment_intent); // the API waits on the workflow's attempt update
    // the charge activity has started on the worker
    await eventually('charge activity started', async () => {
      const d = await client.workflow.getHandle(pi.body.payment_intent).describe();
      return (d.raw.pendingActivities ?? []).some((a) => a.state === temporalProto.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) ? true : undefined;
    }, 10_000);

    const worker = stack.procs.worker!;
    const closed = new Promise<void>((resolve) => worker.child.once('close', () => resolve()));
    await timed('worker drain', () => worker.stop('SIGTERM', 30_000));
    await closed; // stdout fully read
    expect(worker.child.signalCode).toBeNull(); // it exited by itself, not by the stop() SIGKILL fallback
    expect(worker.exitCode).toBe(0);
    expect(worker.tail()).toContain('worker stopped cleanly');
    await eventually('log file flushed', async () => (readFileSync(worker.logFile, 'utf8').includes('worker stopped cleanly') ? true : undefined), 5000);

    await sandbox('/v1/admin/settings', { latency_ms: 0 });
    await timed('worker restart after drain', () => stack.startWorker());
    const r = await paying;
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('success');
    await statusBecomes(m, pi.body.payment_intent, 'success', 10_000);
    // the charge happened exactly once, whether the drained activity finished or its retry was deduplicated
    expect((await sandbox('/v1/effects?kind=charge')).count).toBe(chargesBefore + 1);
  } finally {
    await temporal.close();
  }
}, 60_000);
