import { Client, Connection } from '@temporalio/client';
import { MongoClient, type Db } from 'mongodb';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ID_PREFIXES } from '../../platform/ids';
import { STRANDED_SWEEP_WORKFLOW, type StrandedSweepInput, type StrandedSweepOutcome } from '../../workflows/stranded-sweep/messages';
import { startStack, type Stack } from '../stack';

// What every drill shares: a throwaway real stack, a small HTTP client that can set the Host header (the
// region comes from it), tenants made through the admin API, and the id patterns findings are judged by.

export interface DrillStack {
  stack: Stack;
  dir: string;
  logDir: string;
}

/** The real local stack (Temporal dev server, FerretDB, sandbox, worker, API) on free loopback ports. */
export async function startDrillStack(name: string, env: Record<string, string> = {}): Promise<DrillStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `payorch-drill-${name}-`));
  const logDir = path.join(dir, 'logs');
  const t0 = Date.now();
  const stack = await startStack({
    dataDir: path.join(dir, 'data'),
    logDir,
    temporalDb: 'fast',
    env: {
      REGIONS: 'eu,us',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s',
      GATEWAY_TIMEOUT_MS: '4000',
      // Probes are many and fast; the rate limits have their own tests and would only turn probes into 429s.
      RATE_LIMIT_SECRET_PER_SEC: '0',
      RATE_LIMIT_PUBLISHABLE_PER_SEC: '0',
      RATE_LIMIT_ATTEMPTS_PER_SEC: '0',
      RATE_LIMIT_CLIENT_SECRET_PER_SEC: '0',
      ...env,
    },
  });
  say(`stack up in ${Date.now() - t0} ms; logs in ${logDir}`);
  return { stack, dir, logDir };
}

export interface Reply {
  status: number;
  text: string;
  body: unknown;
  headers: http.IncomingHttpHeaders;
}

/** One request with node:http (fetch does not let us choose the Host header). */
export function request(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  opts: { key?: string; body?: unknown; host?: string; timeoutMs?: number } = {},
): Promise<Reply> {
  const u = new URL(pathAndQuery, baseUrl);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  if (opts.host) headers.host = opts.host;
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method: method.toUpperCase(), headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, text, body, headers: res.headers });
      });
      res.on('error', reject);
    });
    req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`${method} ${pathAndQuery}: no answer within ${opts.timeoutMs ?? 60_000} ms`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export interface Tenant {
  tenant: string;
  secretKey: string;
  publishableKey: string;
  connector: string;
}

/** A tenant with a live sandbox card connector, made through the admin API as an operator would. */
export async function createTenant(stack: Stack, name: string, region = 'eu'): Promise<Tenant> {
  const host = `api-${region}.drill.example`;
  const t = await request(stack.apiUrl, 'POST', '/admin/tenants', { key: stack.adminToken, body: { name, region }, host });
  if (t.status !== 201) throw new Error(`tenant create: ${t.status} ${t.text}`);
  const tb = t.body as { tenant: string; secret_key: string; publishable_key: string };
  const c = await request(stack.apiUrl, 'POST', `/admin/tenants/${tb.tenant}/connectors`, {
    key: stack.adminToken,
    body: { gateway: 'sandbox', live: true, payment_methods: ['card'] },
    host,
  });
  if (c.status !== 201) throw new Error(`connector create: ${c.status} ${c.text}`);
  return { tenant: tb.tenant, secretKey: tb.secret_key, publishableKey: tb.publishable_key, connector: (c.body as { connector: string }).connector };
}

/** Typed ids as platform/ids.ts makes them, anywhere in a text. */
export const TYPED_ID = new RegExp(`\\b(?:${ID_PREFIXES.join('|')})_[a-z]{2,8}_[0-9A-Za-z]{20,40}\\b`, 'g');
export const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

export const idPrefix = (id: string) => id.slice(0, id.indexOf('_'));

/** Every string leaf of a JSON value with its key (the last path segment). */
export function leaves(value: unknown, key = '', out: { key: string; value: string | number }[] = []): { key: string; value: string | number }[] {
  if (typeof value === 'string' || typeof value === 'number') out.push({ key, value });
  else if (Array.isArray(value)) for (const v of value) leaves(v, key, out);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, k, out);
  return out;
}

/**
 * A deep copy of `value` with each string and number leaf passed through `f`, and each object key passed
 * through `key` (a map keyed by ids has its keys swapped too).
 */
export function mapLeaves(value: unknown, f: (v: string | number, key: string) => string | number, mapKey: (k: string) => string = (k) => k, key = ''): unknown {
  if (typeof value === 'string' || typeof value === 'number') return f(value, key);
  if (Array.isArray(value)) return value.map((v) => mapLeaves(v, f, mapKey, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [mapKey(k), mapLeaves(v, f, mapKey, k)]));
  return value;
}

/** One entry of the gateway sandbox's effect log (`GET /v1/effects`). */
export interface GatewayEffect {
  kind: string;
  id: string;
  idempotency_key: string;
  status: string | null;
  replays: number;
  amount: number | null;
  charge_id: string | null;
}

/** Every effect the sandbox made, each with the idempotency key it was made under. */
export async function gatewayEffects(sandboxUrl: string): Promise<GatewayEffect[]> {
  return ((await request(sandboxUrl, 'GET', '/v1/effects')).body as { effects: GatewayEffect[] }).effects;
}

/** An effect that may have moved money: any but one the gateway failed, declined, voided or canceled (one whose record is gone counts). */
export const isLive = (e: GatewayEffect) => !['failed', 'declined', 'voided', 'canceled'].includes(e.status ?? '');

/** The object a gateway call was made for: our keys are `<object id>:<step>`. */
export const keyOwner = (e: GatewayEffect) => e.idempotency_key.split(':')[0]!;

export const say = (line: string) => process.stdout.write(`${line}\n`);
export const pad = (s: string | number, n: number) => String(s).padEnd(n);

export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs `fn` with the stack's database and a Temporal client, each closed afterwards. */
export async function withDbAndTemporal<T>(stack: Stack, fn: (db: Db, client: Client) => Promise<T>): Promise<T> {
  const mongo = await MongoClient.connect(stack.mongoUri);
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    return await fn(mongo.db(), new Client({ connection }));
  } finally {
    await connection.close();
    await mongo.close();
  }
}

/** A run of the stranded-records sweep now, on the stack's task queue; answers its outcome. */
export function runStrandedSweep(stack: Stack, client: Client, name: string, input: StrandedSweepInput): Promise<StrandedSweepOutcome> {
  return client.workflow.execute(STRANDED_SWEEP_WORKFLOW, { taskQueue: stack.env.TEMPORAL_TASK_QUEUE ?? 'payments', workflowId: `drill-${name}-${Date.now()}`, args: [input] });
}
