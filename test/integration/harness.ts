import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { Client, Connection } from '@temporalio/client';
import type { Proc } from '../../scripts/stack';

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
  del: <T = any>(path: string, key?: string) => call<T>('DELETE', path, { key }),
};

export const admin = {
  post: <T = any>(path: string, body: unknown) => call<T>('POST', path, { body, key: getStack().adminToken }),
  get: <T = any>(path: string) => call<T>('GET', path, { key: getStack().adminToken }),
};

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

export async function temporalClient(): Promise<Client> {
  const connection = await Connection.connect({ address: getStack().temporalAddress });
  return new Client({ connection });
}

/** Pays an intent through the attempts endpoint with a fixed sandbox token. */
export async function pay(intentId: string, publishableKey: string, token = 'tok_success') {
  return api.post(`/v202607/payment-intents/${intentId}/attempts`, { token }, publishableKey);
}

/** What an older-interface webhook receiver got: the path, the JSON body and Service-Webhook-Secret. */
export interface OlderHook {
  path: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  secret: string | undefined;
}

/** A loopback receiver of the older interface's webhooks (payouts, older intents and refunds): answers 204. */
export async function startOlderHookReceiver(): Promise<{ base: string; hooks: OlderHook[]; close(): Promise<void> }> {
  const hooks: OlderHook[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      hooks.push({ path: req.url ?? '', body: JSON.parse(raw), secret: req.headers['service-webhook-secret'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hooks,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

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
