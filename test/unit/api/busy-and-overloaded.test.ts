import { ServiceError } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { errorHandler } from '../../../api/http/error-handler';
import { isDependencyDown } from '../../../api/http/dependency-errors';
import { inFlightCap } from '../../../api/http/in-flight-cap';
import { startFerret, type Proc } from '../../../scripts/stack';
import { holdSqliteWriteLock } from '../sqlite-write-lock';

// A busy database and a process at its request cap are answered 503 in the error shape, with Retry-After,
// never 500: the client is told to resend with its idempotency key, and nothing was done. The busy database
// is real: FerretDB on SQLite (the dev and test stack) with another connection holding SQLite's one write
// lock, so a write waits out its busy timeout and fails as it did in the open-loop outage drill.

const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-busy-'));
let ferret: { proc: Proc; uri: string };
let client: MongoClient;
let things: Collection<{ _id: string }>;
const servers: { close: () => void }[] = [];

beforeAll(async () => {
  ferret = await startFerret({ dataDir: dir, logDir: dir, busyTimeoutMs: 300 });
  client = new MongoClient(ferret.uri);
  await client.connect();
  things = client.db().collection('things');
  await things.insertOne({ _id: 'first' });
}, 60_000);

afterAll(async () => {
  for (const s of servers) s.close();
  await client?.close();
  await ferret?.proc.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(app: Koa): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("FerretDB's SQLITE_BUSY is a dependency that is busy: the request is answered 503 in the shape, and the write is done when resent", async () => {
  const app = new Koa();
  app.silent = true;
  app.use(errorHandler);
  app.use(async (ctx) => {
    await things.insertOne({ _id: String(ctx.query.id) });
    ctx.status = 201;
    ctx.body = { id: ctx.query.id };
  });
  const url = await serve(app);

  const lock = await holdSqliteWriteLock(path.join(dir, 'ferretdb', 'payorch.sqlite'));
  let answer: Response;
  let busy: unknown;
  try {
    busy = await things.insertOne({ _id: 'probe' }).catch((err: unknown) => err);
    answer = await fetch(`${url}/?id=second`, { method: 'POST' });
  } finally {
    await lock.release();
  }
  // The error as the driver hands it over: an InternalError whose text names SQLite's busy state.
  expect(busy).toBeInstanceOf(MongoServerError);
  expect(busy).toMatchObject({ codeName: 'InternalError', message: expect.stringMatching(/SQLITE_BUSY/) });
  expect(isDependencyDown(busy)).toBe(true);

  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(await answer.json()).toEqual({
    error: { type: 'api_error', code: 'service_unavailable', message: 'A dependency of the service is unavailable; retry later', request_id: '' },
  });
  expect(await things.countDocuments({ _id: { $in: ['probe', 'second'] } })).toBe(0);

  const again = await fetch(`${url}/?id=second`, { method: 'POST' });
  expect(again.status).toBe(201);
  expect(await things.findOne({ _id: 'second' })).toEqual({ _id: 'second' });
});

test('MongoDB errors that mean "not now" (a primary stepping down, a retryable write) are 503s; a duplicate key is not', () => {
  const server = (fields: Record<string, unknown>) => new MongoServerError({ errmsg: 'x', ...fields });
  expect(isDependencyDown(server({ code: 189, codeName: 'PrimarySteppedDown' }))).toBe(true);
  expect(isDependencyDown(server({ code: 10107, codeName: 'NotWritablePrimary' }))).toBe(true);
  expect(isDependencyDown(server({ code: 91, codeName: 'ShutdownInProgress' }))).toBe(true);
  expect(isDependencyDown(server({ code: 112, codeName: 'WriteConflict', errorLabels: ['TransientTransactionError'] }))).toBe(true);
  expect(isDependencyDown(server({ code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000 duplicate key error' }))).toBe(false);
  expect(isDependencyDown(server({ code: 1, codeName: 'InternalError', errmsg: 'unexpected value' }))).toBe(false);
  expect(isDependencyDown(new Error('database is locked'))).toBe(false); // the text alone, outside a server error, is not enough
});

test("Temporal's gRPC UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED (a namespace's rate limit) are 503s; INVALID_ARGUMENT is not", () => {
  const grpc = (code: number) => new ServiceError('Failed to start Workflow', { cause: Object.assign(new Error(`${code}`), { code }) });
  expect([14, 4, 8].map((c) => isDependencyDown(grpc(c)))).toEqual([true, true, true]);
  expect(isDependencyDown(grpc(3))).toBe(false);
});

test('past its cap of requests in flight a process answers 503 overloaded at once, probes still pass, and it serves again when one ends', async () => {
  const gates: (() => void)[] = [];
  const app = new Koa();
  app.silent = true;
  app.use(errorHandler);
  app.use(inFlightCap(2));
  app.use(async (ctx) => {
    if (ctx.path === '/hold') await new Promise<void>((r) => gates.push(r));
    ctx.body = { path: ctx.path };
  });
  const url = await serve(app);

  const held = [fetch(`${url}/hold`), fetch(`${url}/hold`)];
  while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));

  const refused = await fetch(`${url}/v202607/payment-intents`, { method: 'POST' });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(await refused.json()).toEqual({ error: { type: 'api_error', code: 'overloaded', message: expect.stringMatching(/nothing was done/), request_id: '' } });
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect((await fetch(`${url}/readyz`)).status).toBe(200);

  gates.shift()!();
  expect((await held[0]!).status).toBe(200);
  expect((await fetch(`${url}/after`)).status).toBe(200);
  gates.shift()!();
  expect((await held[1]!).status).toBe(200);
  expect(gates).toHaveLength(0); // the refused request never reached the handler
});

test('a cap of 0 is no cap', async () => {
  const gates: (() => void)[] = [];
  const app = new Koa();
  app.use(inFlightCap(0));
  app.use(async (ctx) => {
    await new Promise<void>((r) => gates.push(r));
    ctx.body = 'ok';
  });
  const url = await serve(app);
  const held = Array.from({ length: 20 }, () => fetch(url));
  while (gates.length < 20) await new Promise((r) => setTimeout(r, 5));
  for (const g of gates) g();
  expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(20).fill(200));
});
