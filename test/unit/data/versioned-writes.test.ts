import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Collection } from 'mongodb';
import { saveVersioned } from '../../../data/versioned-writes';
import { workflowRecordData } from '../../../data/workflow-records';
import type { Mongo } from '../../../platform/mongo';
import { startFerret, type Proc } from '../../../scripts/stack';
import { holdSqliteWriteLock } from '../sqlite-write-lock';

// FerretDB runs an update as a read that evaluates the filter, then a separate write by _id. Two saves of one
// record in flight at once can then both match version 1 and land in either order, the older one last: the
// read model moves backwards. That happened in the Temporal outage drill (a paid intent left `pending`): a
// local activity attempt that timed out waiting on SQLite's one writer kept running beside its retry and the
// next save. Here a second SQLite connection holds the write lock while two saves of one record start, so
// both read before either writes; one process's saves of a record must still end on the newer version.

const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-versioned-'));
let ferret: { proc: Proc; uri: string };
let client: MongoClient;
let records: Collection<{ _id: string; version: number; status: string }>;

beforeAll(async () => {
  ferret = await startFerret({ dataDir: dir, logDir: dir, busyTimeoutMs: 5000 });
  client = new MongoClient(ferret.uri);
  await client.connect();
  records = client.db().collection('records');
}, 60_000);

afterAll(async () => {
  await client?.close();
  await ferret?.proc.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('two saves of one record started together while the database is busy end on the newer version, every time', async () => {
  const ends: number[] = [];
  for (let round = 0; round < 12; round += 1) {
    const id = `pi_${round}`;
    await records.insertOne({ _id: id, version: 1, status: 'pending' });
    const lock = await holdSqliteWriteLock(path.join(dir, 'ferretdb', 'payorch.sqlite'));
    // The older save first, as a timed-out attempt would be; the newer one right behind it.
    const saves = Promise.all([saveVersioned(records, id, 2, { status: 'processing' }), saveVersioned(records, id, 3, { status: 'success' })]);
    await new Promise((r) => setTimeout(r, 300)); // both are in FerretDB, waiting for the lock
    await lock.release();
    const [older, newer] = await saves;
    expect([older, newer]).toEqual(['applied', 'applied']);
    const doc = await records.findOne({ _id: id });
    ends.push(doc!.version);
    expect(doc).toEqual({ _id: id, version: 3, status: 'success' });
  }
  expect(ends).toEqual(Array(12).fill(3));
}, 60_000);

test("a voided charge recorded while a save of its intent is in flight is kept: one write of a record at a time, whoever writes", async () => {
  const intents = client.db().collection<{ _id: string; version: number; status: string; voided_charges?: unknown[] }>('payment_intents');
  const data = workflowRecordData({ c: { paymentIntents: intents } } as unknown as Mongo);
  const kept: number[] = [];
  for (let round = 0; round < 12; round += 1) {
    const id = `pi_void_${round}`;
    await intents.insertOne({ _id: id, version: 1, status: 'pending' });
    const lock = await holdSqliteWriteLock(path.join(dir, 'ferretdb', 'payorch.sqlite'));
    // The intent's save (a cancel) and the voided charge's record, both read before either writes.
    const both = Promise.all([
      data.savePaymentIntent(id, 2, { status: 'canceled' } as never),
      data.addVoidedCharge(id, { charge_id: 'ch_lost', attempt: 1, at: new Date(0), outcome: 'refunded', error: null }),
    ]);
    await new Promise((r) => setTimeout(r, 300));
    await lock.release();
    await both;
    const doc = await intents.findOne({ _id: id });
    kept.push(doc?.voided_charges?.length ?? 0);
    expect(doc).toMatchObject({ version: 2, status: 'canceled' });
  }
  expect(kept).toEqual(Array(12).fill(1));
}, 60_000);

test('a stale save stays stale, and a failed save does not hold the next one', async () => {
  await records.insertOne({ _id: 'c', version: 5, status: 'success' });
  expect(await saveVersioned(records, 'c', 4, { status: 'pending' })).toBe('stale');
  const failing = saveVersioned(records, 'c', 6, { status: { $bad: 1 } as never });
  const next = saveVersioned(records, 'c', 7, { status: 'refunded' });
  await expect(failing).rejects.toThrow();
  expect(await next).toBe('applied');
  expect(await records.findOne({ _id: 'c' })).toEqual({ _id: 'c', version: 7, status: 'refunded' });
});

// Why the guard above cannot reach across processes on FerretDB: a save whose process was killed while it waited
// for SQLite's writer still lands once the writer is free (FerretDB 1.24.2 goes on with a request after its client
// is gone). So a worker killed mid-save can write over what its successor saved meanwhile; on MongoDB the filter
// and the write are one step, and the successor's newer version refuses the late one.
test("FerretDB lands a killed process's save once the database is free (the limit of the per-process guard)", async () => {
  await records.insertOne({ _id: 'killed', version: 1, status: 'pending' });
  const lock = await holdSqliteWriteLock(path.join(dir, 'ferretdb', 'payorch.sqlite'));
  const save = `const { MongoClient } = require('mongodb');
    (async () => {
      const c = await new MongoClient(process.argv[1]).connect();
      console.log('connected');
      await c.db().collection('records').updateOne({ _id: 'killed', version: { $lt: 2 } }, { $set: { version: 2, status: 'processing' } });
    })();`;
  const child = spawn(process.execPath, ['-e', save, ferret.uri], { cwd: path.join(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  await new Promise((r) => setTimeout(r, 300)); // its update is in FerretDB, waiting for the lock
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  expect(await records.findOne({ _id: 'killed' })).toEqual({ _id: 'killed', version: 1, status: 'pending' });
  await lock.release();
  let doc = await records.findOne({ _id: 'killed' });
  for (let waited = 0; doc?.version === 1 && waited < 5000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    doc = await records.findOne({ _id: 'killed' });
  }
  expect(doc).toEqual({ _id: 'killed', version: 2, status: 'processing' });
}, 30_000);
