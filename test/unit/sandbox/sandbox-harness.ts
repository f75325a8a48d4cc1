// Shared by the sandbox tests: the sandbox app on a real port, the real adapter pointed at it, a tiny real
// callback receiver, and `eventually` for waiting on conditions instead of sleeping fixed times.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxGateway } from '../../../gateways/sandbox-adapter';
import { createSandboxApp, type Sandbox, type SandboxOptions } from '../../../sandbox/app';
import type { CallbackBody } from '../../../sandbox/callbacks';
import type { chargeJson, payoutJson, recipientJson, refundJson } from '../../../sandbox/resources';

export type ChargeJson = ReturnType<typeof chargeJson>;
export type RefundJson = ReturnType<typeof refundJson>;
export type PayoutJson = ReturnType<typeof payoutJson>;
export type RecipientJson = ReturnType<typeof recipientJson>;
export interface ErrorJson {
  error: { code: string; message: string; param: string | null };
}
export interface EffectsJson {
  count: number;
  total: number;
  effects: Array<{ kind: string; id: string; idempotency_key: string; status: string | null; replays: number }>;
}

export const SECRET = 'test-callback-secret';
/** Deliberately not the listening address: challenge URLs must be built on publicUrl. */
export const PUBLIC_URL = 'http://sandbox.example.test:4010';
export const RETURN_URL = 'https://shop.example.test/checkout/return';

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  json: T;
  text: string;
}

export interface Harness {
  baseUrl: string;
  sandbox: Sandbox;
  adapter: SandboxGateway;
  adapterWith(timeoutMs: number): SandboxGateway;
  http<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer<T>>;
  effects(idempotencyKey?: string): Promise<EffectsJson>;
  stop(): Promise<void>;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startSandbox(overrides: Partial<SandboxOptions> = {}): Promise<Harness> {
  const sandbox = createSandboxApp({
    callbackSecret: SECRET,
    publicUrl: PUBLIC_URL,
    callbackDelayMs: 50,
    callbackRetryDelayMs: 50,
    ...overrides,
  });
  const server = sandbox.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = async <T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer<T>> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: T;
    try {
      json = JSON.parse(text) as T;
    } catch {
      json = undefined as T; // HTML pages and empty bodies
    }
    return { status: res.status, headers: res.headers, json, text };
  };
  return {
    baseUrl,
    sandbox,
    adapter: new SandboxGateway({ baseUrl, callbackSecret: SECRET, timeoutMs: 5000 }),
    adapterWith: (timeoutMs) => new SandboxGateway({ baseUrl, callbackSecret: SECRET, timeoutMs }),
    http,
    async effects(idempotencyKey) {
      const query = idempotencyKey === undefined ? '' : `?idempotency_key=${encodeURIComponent(idempotencyKey)}`;
      const res = await http<EffectsJson>('GET', `/v1/effects${query}`);
      expect(res.status).toBe(200);
      return res.json;
    },
    async stop() {
      sandbox.close();
      await closeServer(server);
    },
  };
}

export interface ReceivedCallback {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: CallbackBody<ChargeJson | RefundJson | PayoutJson>;
}

export interface CallbackReceiver {
  /** A callback URL of the shape our API uses: `<base>/callbacks/sandbox/<reference>`. */
  url(reference: string): string;
  received: ReceivedCallback[];
  /** Requests seen so far, including those answered with an error status. */
  attempts: number;
  stop(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1:0; `statusFor(n)` picks the answer to the n-th request (1-based). */
export async function startCallbackReceiver(statusFor: (attempt: number) => number = () => 200): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  let attempts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      attempts += 1;
      const status = statusFor(attempts);
      const rawBody = Buffer.concat(chunks).toString('utf8');
      if (status >= 200 && status < 300) {
        received.push({ path: req.url ?? '', headers: req.headers, rawBody, body: JSON.parse(rawBody) as ReceivedCallback['body'] });
      }
      res.statusCode = status;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (reference) => `${base}/callbacks/sandbox/${encodeURIComponent(reference)}`,
    received,
    get attempts() {
      return attempts;
    },
    stop: () => closeServer(server),
  };
}

/** Polls `probe` until it returns something other than undefined/false, or fails after the deadline. */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 5000, intervalMs = 10, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

let counter = 0;
/** A fresh idempotency key per call, so tests never collide on the sandbox's global key space. */
export function key(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now()}-${counter}`;
}
