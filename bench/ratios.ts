// The issue-16 ratios of `npm run bench`, each beside its raw Temporal baseline measured in the same run on
// the same worker. bench/create-vs-start.ts runs these after its own phases and hands over its measuring
// tools (`RatioKit`), so every figure comes from one stack, one worker process and one clock.
//
// Knobs: BENCH_OPEN_INTENTS=10000 (intents open at once for RSS and timer lateness; 0 skips)
//        BENCH_UPDATE_COMPARE_RATE=10 (per s) BENCH_UPDATE_COMPARE_S=5   BENCH_DELIVERIES=400   BENCH_LIFECYCLES=100
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Db } from 'mongodb';
import { attemptUpdate, cancelUpdate, recheckAttemptUpdate } from '../workflows/payment-intent/messages';
import type { PaymentIntentRecord } from '../platform/records';

export interface Measured {
  name: string;
  ok: number;
  errors: number;
  seconds: number;
  rps: number;
  lat: number[];
}

export interface RatioKit<M extends Measured = Measured> {
  client: Client;
  db: Db;
  apiUrl: string;
  secretKey: string;
  publishableKey: string;
  connector: string;
  gatewayQueue: string;
  /** A fresh intent record (pending, not yet inserted), expiring at `expiresAt` when given. */
  record: (opts?: { expiresAt?: Date; webhooks?: PaymentIntentRecord['webhooks'] }) => PaymentIntentRecord;
  /** Inserts the record and starts its workflow, as the API does. */
  insertAndStart: (r: PaymentIntentRecord) => Promise<void>;
  /** The bench's raw start: client.workflow.start of a fresh intent's workflow, nothing else. */
  rawStart: () => Promise<void>;
  openLoop: (name: string, rate: number, ms: number, op: () => Promise<void>) => Promise<M>;
  closedLoop: (name: string, concurrency: number, ms: number, op: () => Promise<void>) => Promise<M>;
  report: (r: M) => void;
  settle: (label: string) => Promise<number>;
  /** Milliseconds of CPU per component since the process started (bench, api, worker, temporal, ...). */
  cpuNow: () => Record<string, number>;
  workerPids: () => number[];
  request: (base: string, method: string, p: string, opts?: { key?: string; body?: unknown }) => Promise<{ status: number; text: string }>;
}

export interface Ratio {
  name: string;
  value: number;
  aim: string;
  met: boolean;
  detail: string;
}

const env = process.env;
const num = (name: string, dflt: number) => (env[name] ? Number(env[name]) : dflt);
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const say = (s: string) => console.log(s);

/** Resident set size of each process, in MB (from /proc), with its command's first words. */
export function rssOf(pids: number[]): { pid: number; mb: number; cmd: string }[] {
  const out: { pid: number; mb: number; cmd: string }[] = [];
  for (const pid of pids) {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).map((w) => w.split('/').pop()).slice(0, 4).join(' ');
      out.push({ pid, mb: kb / 1024, cmd });
    } catch {
      /* gone */
    }
  }
  return out;
}
export const rssMb = (pids: number[]) => rssOf(pids).reduce((sum, p) => sum + p.mb, 0);
const rssLine = (pids: number[]) => rssOf(pids).map((p) => `${p.pid} ${p.cmd}: ${f1(p.mb)} MB`).join('; ');

async function inBatches<T>(items: T[], concurrency: number, f: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

/** A local webhook receiver answering 200 to everything; counts what it got and when. */
async function sink(): Promise<{ url: string; times: number[]; close: () => Promise<void> }> {
  const times: number[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      times.push(performance.now());
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, times, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * Cancel and attempt Updates against a no-op Update on the same worker and the same workflow type: an
 * operator re-check without a reason, which the intent's validator refuses. It costs the worker one workflow
 * task and nothing else; a refused Update's task is not even written to history, so this baseline is, if
 * anything, cheaper than an accepted no-op Update would be.
 */
export async function updateRatios<M extends Measured>(k: RatioKit<M>): Promise<Ratio[]> {
  const rate = num('BENCH_UPDATE_COMPARE_RATE', 10);
  const ms = num('BENCH_UPDATE_COMPARE_S', 5) * 1000;
  const per = Math.ceil((rate * ms) / 1000) + 5;
  say(`\n== Updates vs a no-op Update on the same worker: ${rate}/s for ${ms / 1000} s each, every call on its own fresh intent`);
  // Each set is started just before its phase, so its intents are in the worker's cache like the others':
  // started all at once, the first set was evicted by the later ones under a small cache, and its no-op
  // Updates paid a replay each (runs 8-10 of bench/RESULTS.md measured that baseline).
  const fresh = async (what: string) => {
    const rs = Array.from({ length: per }, () => k.record());
    await inBatches(rs, 8, k.insertAndStart);
    await k.settle(`${what} intent starts`);
    return rs;
  };
  const taker = (rs: PaymentIntentRecord[]) => {
    let i = 0;
    return () => {
      const r = rs[i++];
      if (!r) throw new Error('ran out of fresh intents');
      return k.client.workflow.getHandle(r._id);
    };
  };
  const nextNoop = taker(await fresh('no-op'));
  const noop = await k.openLoop(`no-op Update (refused re-check) @ ${rate}/s`, rate, ms, async () => {
    try {
      await nextNoop().executeUpdate(recheckAttemptUpdate, { args: [{ operator: 'bench', reason: ' ', actionId: 'bench' }] });
      throw new Error('the blank-reason re-check was accepted');
    } catch (err) {
      if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    }
  });
  k.report(noop);
  await k.settle('no-op');
  const nextCancel = taker(await fresh('cancel'));
  const cancel = await k.openLoop(`cancel Update @ ${rate}/s`, rate, ms, async () => {
    const v = await nextCancel().executeUpdate(cancelUpdate);
    if (v.status !== 'canceled') throw new Error(`cancel answered ${v.status}`);
  });
  k.report(cancel);
  await k.settle('cancel');
  const nextAttempt = taker(await fresh('attempt'));
  const attempt = await k.openLoop(`attempt Update (sandbox charge) @ ${rate}/s`, rate, ms, async () => {
    const v = await nextAttempt().executeUpdate(attemptUpdate, { args: [{ token: 'tok_success', connector: k.connector, gatewayQueues: { [k.connector]: k.gatewayQueue } }] });
    if (v.status !== 'success') throw new Error(`attempt answered ${v.status}`);
  });
  k.report(attempt);
  await k.settle('attempt');
  const base = pct(noop.lat, 50);
  return [
    { name: 'cancel Update p50 / no-op Update p50', value: pct(cancel.lat, 50) / base, aim: '<= 2', met: pct(cancel.lat, 50) / base <= 2, detail: `${f1(pct(cancel.lat, 50))} vs ${f1(base)} ms` },
    {
      name: 'attempt Update p50 / no-op Update p50',
      value: pct(attempt.lat, 50) / base,
      aim: '<= 2',
      met: pct(attempt.lat, 50) / base <= 2,
      detail: `${f1(pct(attempt.lat, 50))} vs ${f1(base)} ms (the attempt includes the sandbox charge on the gateway queue)`,
    },
  ];
}

/**
 * Deliveries/s to a 200 sink against creates/s: `n` pending intents, each with a webhook endpoint on the
 * sink, are canceled as fast as 16 callers can; the rate is the deliveries received over the time from the
 * first cancel to the last delivery.
 */
export async function deliveryRatio<M extends Measured>(k: RatioKit<M>, createRate: number): Promise<Ratio[]> {
  const n = num('BENCH_DELIVERIES', 400);
  if (n <= 0) return [];
  const s = await sink();
  try {
    // 50 endpoint URLs on the one sink: deliveries to one endpoint are capped at WEBHOOK_ENDPOINT_MAX_IN_FLIGHT
    // (10) over all workers, so one URL would measure that cap, not the delivery path.
    say(`\n== webhook deliveries to a local 200 sink: ${n} payment.canceled events, one delivery each, over 50 endpoint URLs`);
    const rs = Array.from({ length: n }, (_, i) => k.record({ webhooks: [{ url: `${s.url}/${i % 50}`, events: ['payment.canceled'] }] }));
    await inBatches(rs, 8, k.insertAndStart);
    await k.settle('intent starts');
    const t0 = performance.now();
    await inBatches(rs, 16, async (r) => void (await k.client.workflow.getHandle(r._id).executeUpdate(cancelUpdate)));
    const canceled = performance.now();
    say(`  ${n} cancels answered in ${f1((canceled - t0) / 1000)} s (${f1(n / ((canceled - t0) / 1000))}/s), ${s.times.length} delivered by then`);
    const deadline = Date.now() + 300_000;
    while (s.times.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const last = s.times.length ? Math.max(...s.times) : NaN;
    const rate = s.times.length / ((last - t0) / 1000);
    say(`  ${s.times.length} of ${n} delivered in ${f1((last - t0) / 1000)} s from the first cancel: ${f1(rate)} deliveries/s (API creates: ${f1(createRate)}/s)`);
    await k.settle('deliveries');
    return [{ name: 'webhook deliveries/s / API creates/s', value: rate / createRate, aim: '>= 1', met: rate / createRate >= 1, detail: `${f1(rate)} vs ${f1(createRate)} /s` }];
  } finally {
    await s.close();
  }
}

/**
 * `n` intents open at once, each with its expiry timer, all due at the same instant: the worker's RSS while
 * they wait, then how late each expiry was. Ours: the expiry's `canceled_at`, the time the workflow observed
 * its timer, minus the due time. Raw Temporal's: the TimerFired event's time in the history of a sample,
 * minus the same due time (the server's part alone, before any worker ran).
 */
export async function openIntentRatios<M extends Measured>(k: RatioKit<M>): Promise<Ratio[]> {
  const n = num('BENCH_OPEN_INTENTS', 10_000);
  if (n <= 0) return [];
  const rssBefore = rssMb(k.workerPids());
  say(`\n== ${n} open intents with expiry timers all due at one instant`);
  // Long enough to start them all and let the worker finish their first tasks (about 30/s sustained on 2
  // shared cores, bench/RESULTS.md) before any falls due: the expiries must not meet the starts' backlog.
  const due = new Date(Date.now() + Math.max(60_000, (n / 30) * 1000 + 60_000));
  due.setMilliseconds(0);
  const ids: string[] = [];
  const t0 = performance.now();
  let late = 0;
  await inBatches(
    Array.from({ length: n }, (_, i) => i),
    16,
    async () => {
      const r = k.record({ expiresAt: due });
      await k.insertAndStart(r);
      ids.push(r._id);
      if (Date.now() > due.getTime()) late++;
    },
  );
  const startS = (performance.now() - t0) / 1000;
  say(`  started ${ids.length} in ${f1(startS)} s (${f1(ids.length / startS)}/s); due at ${due.toISOString()}${late ? `; ${late} started after it (raise the margin)` : ''}`);
  await k.settle('starts');
  const early = Date.now() < due.getTime();
  const rssOpen = rssMb(k.workerPids());
  if (!early) say('  NOTE: the starts and their backlog ran past the due time: RSS and lateness below include that backlog');
  say(`  worker RSS: ${f1(rssBefore)} MB before, ${f1(rssOpen)} MB with ${ids.length} open (${rssLine(k.workerPids())})`);
  while (Date.now() < due.getTime()) await new Promise((r) => setTimeout(r, 100));
  const cpuAtDue = k.cpuNow();
  while (Date.now() < due.getTime() + 1000) await new Promise((r) => setTimeout(r, 250));
  const coll = k.db.collection<{ _id: string; status: string; expires_at: Date; canceled_at?: Date }>('payment_intents');
  const deadline = Date.now() + 1_800_000;
  let done = 0;
  // These intents are the only ones due at this instant. The poll names them by it, not by their ids: FerretDB
  // pushes equalities down but not `$in`, and a count over 10,000 ids each second (runs 5 to 8) cost FerretDB a
  // scan and 10,000-id checks of every intent, on the cores the expiries need.
  while (Date.now() < deadline) {
    done = await coll.countDocuments({ expires_at: due, status: 'canceled' });
    if (done >= ids.length) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  const docs = await coll.find({ expires_at: due }, { projection: { canceled_at: 1 } }).toArray();
  const ours = docs.filter((d) => d.canceled_at).map((d) => new Date(d.canceled_at!).getTime() - due.getTime()).sort((a, b) => a - b);
  // The server's part: TimerFired of a sample of the same runs.
  const sample = ids.filter((_, i) => i % Math.max(1, Math.floor(ids.length / 300)) === 0);
  const raw: number[] = [];
  await inBatches(sample, 8, async (id) => {
    const h = await k.client.workflow.getHandle(id).fetchHistory();
    const fired = h.events?.find((e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_TIMER_FIRED);
    const t = fired?.eventTime;
    if (t) raw.push(Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) - due.getTime());
  });
  raw.sort((a, b) => a - b);
  say(`  expired: ${ours.length} of ${ids.length}; lateness ours p50 ${f1(pct(ours, 50) / 1000)} s / p99 ${f1(pct(ours, 99) / 1000)} s / max ${f1(ours.at(-1)! / 1000)} s; raw Temporal TimerFired (sample of ${raw.length}) p50 ${f1(pct(raw, 50) / 1000)} s / p99 ${f1(pct(raw, 99) / 1000)} s`);
  await k.settle('expiries');
  const cpuAfter = k.cpuNow();
  say(`  CPU ms per expiry, from the due time until idle: ${Object.keys(cpuAfter).map((name) => `${name} ${f1((cpuAfter[name]! - (cpuAtDue[name] ?? 0)) / ids.length)}`).join(', ')}`);
  return [
    { name: `worker RSS with ${ids.length} open intents (MB)`, value: rssOpen, aim: '<= 1024', met: rssOpen <= 1024, detail: `${f1(rssOpen)} MB vs ${f1(rssBefore)} MB with none open` },
    {
      name: `timer lateness p99, ${ids.length} expiries due together (s)`,
      value: pct(ours, 99) / 1000,
      aim: '<= 2',
      met: pct(ours, 99) <= 2000 && ours.length === ids.length,
      detail: `ours ${f1(pct(ours, 99) / 1000)} s vs raw Temporal's TimerFired p99 ${f1(pct(raw, 99) / 1000)} s`,
    },
  ];
}

/**
 * CPU-ms of every component for one full lifecycle through the API: create (with a webhook endpoint on a
 * local sink), pay with the sandbox card, refund in full, and both events delivered. The baseline is the CPU
 * of one raw start of the same workflow (the workflow's first task and record write included), measured the
 * same way just before: the same number of starts, then the wait until every process is idle again.
 */
export async function lifecycleCpu<M extends Measured>(k: RatioKit<M>): Promise<Ratio[]> {
  const n = num('BENCH_LIFECYCLES', 100);
  if (n <= 0) return [];
  const s = await sink();
  try {
    const server = (a: Record<string, number>, b: Record<string, number>) =>
      Object.keys(b).filter((name) => name !== 'bench').reduce((sum, name) => sum + (b[name]! - (a[name] ?? 0)), 0);
    say(`\n== CPU per raw start (baseline): ${n} starts, 8 callers, then idle`);
    await k.settle('before raw starts');
    const r0 = k.cpuNow();
    await inBatches(Array.from({ length: n }, (_, j) => j), 8, () => k.rawStart());
    await k.settle('raw starts');
    const rawStartCpuMs = server(r0, k.cpuNow()) / n;
    say(`  ${f1(rawStartCpuMs)} CPU ms per raw start over every server process`);
    say(`\n== CPU per full lifecycle: ${n} x (create, pay, refund, 2 deliveries), 8 callers`);
    const c0 = k.cpuNow();
    let i = 0;
    const errors: string[] = [];
    await inBatches(
      Array.from({ length: n }, (_, j) => j),
      8,
      async () => {
        const key = `bench-lc-${process.pid}-${i++}`;
        const c = await k.request(k.apiUrl, 'POST', '/v202607/payment-intents', {
          key: k.secretKey,
          body: { amount: 1000, currency: 'EUR', idempotency_key: key, webhooks: [{ url: s.url, events: ['payment.success'] }] },
        });
        if (c.status !== 201) return void errors.push(`create ${c.status} ${c.text.slice(0, 120)}`);
        const pi = (JSON.parse(c.text) as { payment_intent: string }).payment_intent;
        const a = await k.request(k.apiUrl, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: k.publishableKey, body: { token: 'tok_success' } });
        if (a.status >= 300) return void errors.push(`attempt ${a.status} ${a.text.slice(0, 120)}`);
        const r = await k.request(k.apiUrl, 'POST', '/v202607/refunds', {
          key: k.secretKey,
          body: { payment_intent: pi, amount: 1000, currency: 'EUR', idempotency_key: `${key}-r`, webhooks: [{ url: s.url, events: ['refund.success'] }] },
        });
        if (r.status >= 300) errors.push(`refund ${r.status} ${r.text.slice(0, 120)}`);
      },
    );
    const want = (n - errors.length) * 2;
    const deadline = Date.now() + 300_000;
    while (s.times.length < want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await k.settle('lifecycles');
    const c1 = k.cpuNow();
    const parts = Object.keys(c1).map((name) => [name, (c1[name]! - (c0[name] ?? 0)) / n] as const);
    const total = parts.filter(([name]) => name !== 'bench').reduce((sum, [, v]) => sum + v, 0);
    say(`  ${n - errors.length} lifecycles, ${s.times.length} of ${want} deliveries; CPU ms per lifecycle: ${parts.map(([name, v]) => `${name} ${f1(v)}`).join(', ')}; total (without the load generator) ${f1(total)}`);
    if (errors.length) say(`  ERRORS ${errors.length} (first: ${errors[0]})`);
    return [
      {
        name: 'CPU-ms per full lifecycle / CPU-ms per raw start',
        value: total / rawStartCpuMs,
        aim: '(recorded)',
        met: errors.length === 0 && s.times.length >= want,
        detail: `${f1(total)} vs ${f1(rawStartCpuMs)} ms, over every server process (api, worker, temporal, mongo side, sandbox)`,
      },
    ];
  } finally {
    await s.close();
  }
}
