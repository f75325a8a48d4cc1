import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { MongoClient } from 'mongodb';
import { Client, Connection, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { AppDeps } from '../../api/deps';
import { customerData } from '../../data/customers';
import { loadConfig } from '../../platform/config';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { forkTs, freePort, type Proc } from '../../scripts/stack';
import { startReceiver } from '../unit/webhooks/receiver';

// What integration tests use: the running stack's addresses, a merchant factory and a small JSON client.

export interface StackInfo {
  dir: string;
  apiUrl: string;
  adminToken: string;
  sandboxUrl: string;
  mongoUri: string;
  temporalAddress: string;
  env: Record<string, string>;
  workerMetricsUrl: string;
}

export function getStack(): StackInfo {
  const file = process.env.PAYORCH_STACK;
  if (!file) throw new Error('PAYORCH_STACK is not set: run integration tests through jest (globalSetup starts the stack)');
  return JSON.parse(readFileSync(file, 'utf8')) as StackInfo;
}

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; baseUrl?: string; timeoutMs?: number } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${opts.baseUrl ?? getStack().apiUrl}${path}`, {
    method,
    headers,
    ...(opts.timeoutMs ? { signal: AbortSignal.timeout(opts.timeoutMs) } : {}),
    body: opts.rawBody ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

export const api = {
  get: <T = any>(path: string, key?: string) => call<T>('GET', path, { key }),
  post: <T = any>(path: string, body: unknown, key?: string) => call<T>('POST', path, { key, body }),
  put: <T = any>(path: string, body: unknown, key?: string) => call<T>('PUT', path, { key, body }),
  del: <T = any>(path: string, key?: string) => call<T>('DELETE', path, { key }),
};

export const admin = {
  post: <T = any>(path: string, body: unknown) => call<T>('POST', path, { body, key: getStack().adminToken }),
  get: <T = any>(path: string) => call<T>('GET', path, { key: getStack().adminToken }),
};

export interface SigningSecretView {
  tenant: string;
  secret: string;
  created_at: string;
  previous: { expires_at: string }[];
}

/** A tenant's webhook signing secret (`whsec_...`, which signs every delivery) as the admin API shows it. */
export async function signingSecretOf(tenant: string): Promise<SigningSecretView> {
  const r = await admin.get<SigningSecretView>(`/admin/tenants/${tenant}/webhook-signing-secret`);
  if (r.status !== 200) throw new Error(`webhook-signing-secret of ${tenant}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export interface Merchant {
  tenant: string;
  secretKey: string;
  publishableKey: string;
  connector: string;
}

let counter = 0;
/**
 * A fresh tenant with a live sandbox card connector: each test gets its own, so tests never collide.
 * `stack` names another stack than the shared one (tests that kill processes run their own).
 */
export async function createMerchant(name = `Test shop ${++counter}`, stack?: { apiUrl: string; adminToken: string }): Promise<Merchant> {
  const adminCall = (path: string, body: unknown) =>
    call('POST', path, { body, key: stack?.adminToken ?? getStack().adminToken, ...(stack ? { baseUrl: stack.apiUrl } : {}) });
  const t = await adminCall('/admin/tenants', { name, region: 'eu' });
  if (t.status !== 201) throw new Error(`tenant create failed: ${t.status} ${JSON.stringify(t.body)}`);
  const c = await adminCall(`/admin/tenants/${t.body.tenant}/connectors`, { gateway: 'sandbox', live: true, payment_methods: ['card'] });
  if (c.status !== 201) throw new Error(`connector create failed: ${c.status} ${JSON.stringify(c.body)}`);
  return { tenant: t.body.tenant, secretKey: t.body.secret_key, publishableKey: t.body.publishable_key, connector: c.body.connector };
}

/** The merchant with a secret key that carries `cards.mit`: subscriptions charge saved cards with the customer absent. */
export async function withMitClaim(m: Merchant, stack?: { apiUrl: string; adminToken: string }): Promise<Merchant> {
  const k = await call('POST', `/admin/tenants/${m.tenant}/api-keys`, { body: { claims: ['cards.mit'] }, key: stack?.adminToken ?? getStack().adminToken, ...(stack ? { baseUrl: stack.apiUrl } : {}) });
  if (k.status !== 201) throw new Error(`cards.mit key failed: ${k.status} ${JSON.stringify(k.body)}`);
  return { ...m, secretKey: k.body.secret_key };
}

/** A fresh merchant whose (second) sandbox connector also pays out: payouts, reconciliation, stranded payouts. */
export async function createPayoutMerchant(): Promise<Merchant> {
  const m = await createMerchant();
  const c = await call('POST', `/admin/tenants/${m.tenant}/connectors`, { body: { gateway: 'sandbox', live: true, payment_methods: ['card'], payouts: true }, key: getStack().adminToken });
  if (c.status !== 201) throw new Error(`payout connector create failed: ${c.status} ${JSON.stringify(c.body)}`);
  return m;
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. No fixed sleeps. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function mongo(): Promise<MongoClient> {
  const c = new MongoClient(getStack().mongoUri);
  await c.connect();
  return c;
}

/** A customer as a DELETE leaves it when its process dies right after its first step: marked deleted (the API's own write), its cards and subscriptions untouched. */
export async function markCustomerDeletedOnly(tenantId: string, customer: string): Promise<void> {
  const db = await connectMongo(getStack().mongoUri);
  try {
    if (!(await customerData(db).remove(tenantId, customer))) throw new Error(`no live customer ${customer} to mark deleted`);
  } finally {
    await db.close();
  }
}

export async function temporalClient(): Promise<Client> {
  const connection = await Connection.connect({ address: getStack().temporalAddress });
  return new Client({ connection });
}

/** What the API's own functions take (its config, MongoDB and Temporal), built from the stack, for a test that calls them directly. */
/**
 * `db` with one method of one collection replaced (`replace` gets the real collection; every other member is
 * the real one, bound): how a test puts another request's step at an exact point of the code under test.
 */
export function withMethod<N extends keyof Mongo['c']>(db: Mongo, name: N, method: string, replace: (real: Mongo['c'][N]) => (...args: never[]) => unknown): Mongo {
  const hooked = new Proxy(db.c[name], {
    get(target, prop) {
      if (prop === method) return replace(target);
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { ...db, c: { ...db.c, [name]: hooked } };
}

/**
 * `temporal` whose Updates land in their workflows but whose answers never reach the caller in time, as when a
 * worker answers after the API's deadline: `executeUpdate` on a handle, or `executeUpdateWithStart`, makes the
 * real call and then throws the SDK's timeout.
 */
export function withLateAnswers(temporal: Client): Client {
  const late =
    <A extends unknown[]>(real: (...args: A) => Promise<unknown>) =>
    async (...args: A): Promise<never> => {
      await real(...args);
      throw new WorkflowUpdateRPCTimeoutOrCancelledError('Timeout or cancellation waiting for update');
    };
  const handles = (h: ReturnType<Client['workflow']['getHandle']>) =>
    new Proxy(h, { get: (t, p) => (p === 'executeUpdate' ? late(t.executeUpdate.bind(t)) : Reflect.get(t, p, t)) });
  const workflow = new Proxy(temporal.workflow, {
    get: (w, p) => {
      if (p === 'getHandle') return (...args: Parameters<Client['workflow']['getHandle']>) => handles(w.getHandle(...args));
      if (p === 'executeUpdateWithStart') return late(w.executeUpdateWithStart.bind(w));
      const v = Reflect.get(w, p, w);
      return typeof v === 'function' ? v.bind(w) : v;
    },
  });
  return new Proxy(temporal, { get: (c, p) => (p === 'workflow' ? workflow : Reflect.get(c, p, c)) });
}

/**
 * `db` whose first insert into collection `name` meets another request's record and sees it taken back: the other
 * record (`other(doc)`, the same key) is inserted first, ours is tried against it, then the other is deleted. The
 * race a create with an idempotency key must survive when the request that won it undid its record.
 * `collided()`: whether our insert did meet the other one (a test that never raced proves nothing).
 */
export function withWinnerTakenBack<N extends keyof Mongo['c']>(db: Mongo, name: N, other: (doc: { _id: string }) => { _id: string } = (doc) => doc) {
  let collided = false;
  let done = false;
  const racing = withMethod(db, name, 'insertOne', (real) => async (doc: { _id: string }) => {
    const c = real as unknown as { insertOne(d: unknown): Promise<unknown>; deleteOne(f: unknown): Promise<unknown> };
    if (done) return c.insertOne(doc);
    done = true;
    const theirs = other(doc);
    await c.insertOne(theirs);
    try {
      return await c.insertOne(doc);
    } catch (err) {
      collided = true;
      throw err;
    } finally {
      await c.deleteOne({ _id: theirs._id });
    }
  });
  return { db: racing, collided: () => collided };
}

/** `temporal` whose `workflow.<method>` is `replace(real)`: a Temporal call that fails, or is never made, as when a server does not answer or the process stops. */
export function withWorkflowCall<K extends 'start' | 'executeUpdateWithStart'>(temporal: Client, method: K, replace: (real: Client['workflow'][K]) => Client['workflow'][K]): Client {
  const real = temporal.workflow[method].bind(temporal.workflow) as Client['workflow'][K];
  const workflow = Object.assign(Object.create(temporal.workflow) as Client['workflow'], { [method]: replace(real) });
  return Object.assign(Object.create(temporal) as Client, { workflow });
}

export function apiDeps(mongo: Mongo, temporal: Client, env: Record<string, string> = {}): AppDeps {
  return { config: loadConfig({ ...process.env, ...getStack().env, ...env }), mongo, temporal } as unknown as AppDeps;
}

/** Pays an intent through the attempts endpoint with a fixed sandbox token. */
export async function pay(intentId: string, publishableKey: string, token = 'tok_success') {
  return api.post(`/v202607/payment-intents/${intentId}/attempts`, { token }, publishableKey);
}

/** What a loopback webhook receiver got. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as received: what the signature covers. */
  raw: string;
  /** The body as JSON (null when it is not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Service-Webhook-Secret: the endpoint's own secret, as given. */
  secret: string | undefined;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface HookReceiver {
  /** `http://127.0.0.1:<port>`, for endpoints under paths of the test's choosing. */
  base: string;
  /** `<base>/hook` */
  url: string;
  port: number;
  received: Delivery[];
  /** The deliveries of events of `type` (the envelope's `type`). */
  of(type: string): Delivery[];
  close(): Promise<void>;
}

const openReceivers = new Set<HookReceiver>();

/**
 * A webhook receiver on loopback (the stack runs with WEBHOOK_ALLOW_PRIVATE_HOSTS=true): keeps every
 * delivery and answers `status` (204; an error status with a short body). `port` listens again where a
 * receiver was closed. closeHookReceivers() closes those a test file left open.
 */
export async function startHookReceiver(opts: { status?: number; port?: number } = {}): Promise<HookReceiver> {
  const status = opts.status ?? 204;
  const received: Delivery[] = [];
  const server = await startReceiver((r, res) => {
    let body: unknown = null;
    try {
      body = JSON.parse(r.body);
    } catch {
      /* not JSON: null */
    }
    received.push({ path: r.path, headers: r.headers, raw: r.body, body, secret: r.headers['service-webhook-secret'] as string | undefined, at: Date.now() });
    res.writeHead(status).end(status >= 400 ? 'receiver says no' : undefined);
  }, opts.port);
  const base = `http://127.0.0.1:${server.port}`;
  const rx: HookReceiver = {
    base,
    url: `${base}/hook`,
    port: server.port,
    received,
    of: (type) => received.filter((d) => d.body?.type === type),
    close: async () => {
      openReceivers.delete(rx);
      await server.close();
    },
  };
  openReceivers.add(rx);
  return rx;
}

/** Closes every receiver still open (for afterAll). */
export async function closeHookReceivers(): Promise<void> {
  await Promise.all([...openReceivers].map((rx) => rx.close()));
}

/** What an older-interface webhook receiver got: its `path`, JSON `body` and `secret` are what those tests read. */
/** Resolves when a forked API process (scripts/stack.ts forkTs) says it listens; rejects with its log's tail. */
export function listening(proc: Proc, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${proc.name} did not start; see ${proc.logFile}\n${proc.tail()}`)), timeoutMs);
    proc.child.on('message', (m: { type?: string }) => {
      if (m?.type !== 'listening') return;
      clearTimeout(timer);
      resolve();
    });
    proc.child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${proc.name} exited with ${code}\n${proc.tail()}`));
    });
  });
}

/**
 * A second API process on the shared stack (same MongoDB, Temporal and worker) with settings of its own,
 * on a free port, once it listens: its `url`, and `proc` to stop it.
 */
export async function startApiProcess(name: string, env: Record<string, string>): Promise<{ url: string; proc: Proc }> {
  const port = await freePort();
  const logDir = mkdtempSync(path.join(os.tmpdir(), `payorch-${name}-`));
  const proc = forkTs(name, 'api/main.ts', { ...getStack().env, PORT: String(port), ...env }, logDir);
  await listening(proc, 60_000);
  return { url: `http://127.0.0.1:${port}`, proc };
}
