// `npm run bench:lists`: how long one page of GET /v202607/payment-intents takes among 100,000 intents of one
// tenant (and a few other tenants' intents), with no filter and with selective filters, with the list
// indexes of platform/mongo.ts and without them. Pages are read by the API's own paginate(), the function
// the route calls, so the figures are the database's part of a list request without HTTP or auth around it.
// It also times single inserts with and without those indexes: what the indexes cost each write.
//
// Knobs (all optional, read only here):
//   BENCH_MONGO=sqlite|postgresql   the FerretDB handler we start (sqlite: what `npm run dev` and the tests
//                                   run; postgresql: a throwaway PostgreSQL cluster, see bench/postgres.ts)
//   MONGODB_URI                     use this server instead (e.g. a real MongoDB 7); the benchmark writes
//                                   only to its own database, BENCH_DB (payorch_bench_lists), dropped first
//   BENCH_INTENTS=100000  BENCH_OTHER_TENANTS=3  BENCH_OTHER_INTENTS=10000  BENCH_INSERTS=300
//   BENCH_REQUESTS=50 per list case, cut short after BENCH_CASE_S=60 seconds (FerretDB sorts in memory: a
//   page can take seconds there); the table says how many each figure is made of
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient, type Collection } from 'mongodb';
import { DEFAULT_LIMIT } from '../api/http/pagination';
import { paginate, type PageQuery } from '../data/list';
import { newId } from '../platform/ids';
import { INDEXES } from '../platform/mongo';
import type { PaymentIntentRecord } from '../platform/records';
import { startFerret } from '../scripts/stack';
import { startPgFerret } from './postgres';

const env = process.env;
const num = (name: string, dflt: number) => (env[name] ? Number(env[name]) : dflt);
const INTENTS = num('BENCH_INTENTS', 100_000);
const OTHER_TENANTS = num('BENCH_OTHER_TENANTS', 3);
const OTHER_INTENTS = num('BENCH_OTHER_INTENTS', 10_000);
const REQUESTS = num('BENCH_REQUESTS', 50);
const CASE_MS = num('BENCH_CASE_S', 60) * 1000;
const INSERTS = num('BENCH_INSERTS', 300);
const HANDLER = (env.BENCH_MONGO ?? 'sqlite') as 'sqlite' | 'postgresql';
const DB = env.BENCH_DB ?? 'payorch_bench_lists';

const TENANT = 'ten_eu_benchlists';
const CUSTOMER = 'cus_eu_benchcustomer01'; // 1% of the tenant's intents

// ---- data --------------------------------------------------------------------------------------------

/** A seeded generator (mulberry32): the same data on every run, attributes drawn independently. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One intent as the API and the workflow write it; created one a minute, going back from now. */
function intent(tenant: string, i: number, random: () => number, now: number): PaymentIntentRecord {
  const s = random();
  const status = s < 0.01 ? 'canceled' : s < 0.31 ? 'pending' : 'success'; // canceled 1%, pending 30%
  const c = random();
  const currency = c < 0.05 ? 'GBP' : c < 0.3 ? 'USD' : 'EUR'; // GBP 5%
  const k = random();
  const customer = k < 0.01 ? CUSTOMER : k < 0.5 ? `cus_eu_pool${String(Math.floor(random() * 5000)).padStart(6, '0')}` : null;
  const created = new Date(now - i * 60_000);
  const id = newId('pi', 'eu');
  return {
    _id: id,
    tenant_id: tenant,
    region: 'eu',
    status,
    amount: 100 + Math.floor(random() * 100_000),
    currency,
    customer,
    metadata: { order: `ord_${i}` },
    webhooks: [],
    return_url: null,
    pin: null,
    connectors: ['con_eu_bench'],
    timeout_seconds: 1800,
    idempotency_key: null,
    idempotency_scope: id,
    api_version: 'v202607',
    expires_at: new Date(created.getTime() + 1_800_000),
    created_at: created,
    updated_at: created,
    version: 2,
    ...(status === 'success' ? { succeeded_at: created, amount_paid: 0, amount_refunded: 0 } : {}),
    ...(status === 'canceled' ? { canceled_at: created, cancellation_reason: 'expired' as const } : {}),
  };
}

async function seed(col: Collection<PaymentIntentRecord>): Promise<number> {
  const started = performance.now();
  const now = Date.now();
  const tenants: Array<[string, number]> = [[TENANT, INTENTS], ...Array.from({ length: OTHER_TENANTS }, (_, t): [string, number] => [`ten_eu_benchother${t}`, OTHER_INTENTS])];
  for (const [t, [tenant, count]] of tenants.entries()) {
    const random = seeded(t + 1);
    for (let from = 0; from < count; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, count - from) }, (_, j) => intent(tenant, from + j, random, now));
      await col.insertMany(batch, { ordered: false });
    }
  }
  return performance.now() - started;
}

// ---- measurement -------------------------------------------------------------------------------------

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1)).padStart(7);

interface Scenario {
  name: string;
  filter: Record<string, unknown>;
  page?: Partial<PageQuery>;
}

interface Figure {
  p50: number;
  p95: number;
  n: number;
  rows: number;
  matching: number;
}

async function measure(col: Collection<PaymentIntentRecord>, s: Scenario, indexed: string): Promise<Figure> {
  process.stderr.write(`  ${s.name}, ${indexed}...\n`); // FerretDB can take minutes per case
  const filter = { tenant_id: TENANT, ...s.filter };
  const page: PageQuery = { limit: DEFAULT_LIMIT, ...s.page };
  const rows = (await paginate(col, filter, page)).data.length; // warm-up
  const times: number[] = [];
  const until = performance.now() + CASE_MS;
  while (times.length < REQUESTS && (times.length < 5 || performance.now() < until)) {
    const t = performance.now();
    await paginate(col, filter, page);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p95: pct(times, 95), n: times.length, rows, matching: await col.countDocuments(filter) };
}

/** Milliseconds per insertOne (p50, p95), one at a time as the API's create does. */
async function insertCost(col: Collection<PaymentIntentRecord>, seedNo: number): Promise<{ p50: number; p95: number }> {
  const random = seeded(seedNo);
  const times: number[] = [];
  for (let i = 0; i < INSERTS; i++) {
    const doc = intent(TENANT, -1 - i, random, Date.now() + 3_600_000);
    const t = performance.now();
    await col.insertOne(doc);
    times.push(performance.now() - t);
  }
  await col.deleteMany({ tenant_id: TENANT, created_at: { $gt: new Date() } });
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p95: pct(times, 95) };
}

// ---- run ---------------------------------------------------------------------------------------------

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-bench-lists-'));
  let uri = env.MONGODB_URI;
  let describe = `MONGODB_URI (${uri})`;
  let stop = async () => {};
  if (!uri) {
    if (HANDLER === 'postgresql') {
      const pg = await startPgFerret({ logDir: dir });
      ({ uri, describe } = pg);
      stop = pg.stop;
    } else {
      const ferret = await startFerret({ dataDir: dir, logDir: dir });
      uri = ferret.uri;
      describe = 'FerretDB 1.24.2 --handler=sqlite (what `npm run dev` and the tests run)';
      stop = () => ferret.proc.stop();
    }
  }
  const client = await MongoClient.connect(uri);
  try {
    const db = client.db(DB);
    await db.dropDatabase();
    const col = db.collection<PaymentIntentRecord>('payment_intents');
    const listIndexes = INDEXES.filter((d) => d.collection === 'paymentIntents' && 'tenant_id' in d.key);

    process.stdout.write(`list page latency: ${describe}\n`);
    const seedMs = await seed(col);
    const total = INTENTS + OTHER_TENANTS * OTHER_INTENTS;
    process.stdout.write(`seeded ${total.toLocaleString('en')} intents (${INTENTS.toLocaleString('en')} of one tenant) in ${(seedMs / 1000).toFixed(1)} s; pages of ${DEFAULT_LIMIT}\n`);

    const first = await paginate(col, { tenant_id: TENANT }, { limit: DEFAULT_LIMIT });
    const scenarios: Scenario[] = [
      { name: 'no filter, first page', filter: {} },
      { name: 'no filter, second page (starting_after)', filter: {}, page: { starting_after: first.data.at(-1)!._id } },
      { name: 'status=pending (30%)', filter: { status: 'pending' } },
      { name: 'status=canceled (1%)', filter: { status: 'canceled' } },
      { name: 'customer=<one customer> (1%)', filter: { customer: CUSTOMER } },
      { name: 'status=canceled&currency=GBP (0.05%)', filter: { status: 'canceled', currency: 'GBP' } },
    ];

    const withIdx = performance.now();
    for (const d of listIndexes) await col.createIndex(d.key);
    const buildMs = performance.now() - withIdx;
    const withIndexes: Figure[] = [];
    for (const s of scenarios) withIndexes.push(await measure(col, s, 'with indexes'));
    const insertWith = await insertCost(col, 101);

    await col.dropIndexes(); // all but _id
    const withoutIndexes: Figure[] = [];
    for (const s of scenarios) withoutIndexes.push(await measure(col, s, 'without indexes'));
    const insertWithout = await insertCost(col, 102);

    process.stdout.write(`built the ${listIndexes.length} list indexes of payment_intents in ${(buildMs / 1000).toFixed(1)} s\n\n`);
    process.stdout.write(`${'list page (ms)'.padEnd(42)} ${'matching'.padStart(8)}   with indexes:  p50     p95   n   without:  p50     p95   n\n`);
    scenarios.forEach((s, i) => {
      const a = withIndexes[i]!;
      const b = withoutIndexes[i]!;
      if (a.rows !== b.rows) throw new Error(`${s.name}: ${a.rows} rows with indexes, ${b.rows} without`);
      const n = (f: Figure) => String(f.n).padStart(3);
      process.stdout.write(`${s.name.padEnd(42)} ${String(a.matching).padStart(8)}            ${ms(a.p50)} ${ms(a.p95)} ${n(a)}        ${ms(b.p50)} ${ms(b.p95)} ${n(b)}\n`);
    });
    process.stdout.write(`${'insertOne (ms), one at a time'.padEnd(42)} ${''.padStart(8)}            ${ms(insertWith.p50)} ${ms(insertWith.p95)} ${String(INSERTS).padStart(3)}        ${ms(insertWithout.p50)} ${ms(insertWithout.p95)} ${String(INSERTS).padStart(3)}\n`);
    await db.dropDatabase();
  } finally {
    await client.close();
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench:lists failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
