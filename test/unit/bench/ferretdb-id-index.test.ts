import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startPgFerret, type PgFerret } from '../../../bench/postgres';

// FerretDB's PostgreSQL handler pushes a filter on `_id` down as `_jsonb -> $1 @> $2` (its source,
// internal/backends/postgresql/query.go), which its own btree index on `_id` cannot serve. The stack's
// trigger gives each table FerretDB creates a GIN index that can; here the planner is asked about that exact
// statement, on a table FerretDB made.

const logDir = mkdtempSync(path.join(os.tmpdir(), 'payorch-id-index-'));
let pg: PgFerret;
let client: MongoClient;

beforeAll(async () => {
  delete process.env.FERRETDB_PG_ID_INDEX; // the knob that leaves the index out, for measuring without it
  pg = await startPgFerret({ logDir });
  client = new MongoClient(pg.uri);
  await client.connect();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await pg?.stop();
  rmSync(logDir, { recursive: true, force: true });
});

test('a collection FerretDB creates gets a GIN index on _id, and its pushed-down _id filter uses it', async () => {
  const c = client.db().collection<{ _id: string; tenant_id: string; version: number; pad: string }>('payment_intents');
  await c.insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: `pi_${i}`, tenant_id: 'ten_1', version: 1, pad: 'x'.repeat(300) })));
  const table = pg.psql(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'payorch' AND table_name LIKE 'payment\\_intents\\_%'`);
  expect(table).toMatch(/^payment_intents_[0-9a-f]+$/);
  expect(pg.psql(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'payorch' AND tablename = '${table}' AND indexdef LIKE '%USING gin%'`)).toContain(
    `USING gin (((_jsonb -> '_id'::text)) jsonb_path_ops)`,
  );

  pg.psql(`ANALYZE payorch."${table}"`);
  const plan = pg.psql(`PREPARE q(text, jsonb) AS SELECT _jsonb FROM payorch."${table}" WHERE _jsonb -> $1 @> $2; EXPLAIN EXECUTE q('_id', '"pi_1234"')`);
  expect(plan).toContain('Bitmap Index Scan');
  expect(plan).not.toContain('Seq Scan');

  // And through FerretDB, the lookups the records make still find their document.
  expect(await c.findOne({ _id: 'pi_1234', tenant_id: 'ten_1' })).toMatchObject({ version: 1 });
  expect(await c.updateOne({ _id: 'pi_77', version: { $lt: 2 } }, { $set: { version: 2 } })).toMatchObject({ matchedCount: 1 });
});
