// `npm run bench:anatomy`: where an attempt Update's time goes, read from the histories of the
// intents it paid. Starts the bench's stack (FerretDB on PostgreSQL, the dev server), sends attempt Updates
// at a steady rate, each on a fresh intent, and prints the median of each gap between the history events
// of the Update (task scheduled, started, completed, the charge's activity, the second task).
// Knobs: ANATOMY_N=60 (Updates of each kind), ANATOMY_RATE=10 (per s), ANATOMY_ENV=K=V,K=V (more worker and API env).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { MongoClient } from 'mongodb';
import type { AppDeps } from '../api/deps';
import { startOptions } from '../api/payment-intents/service';
import { DEFAULT_TIMEOUT_SECONDS } from '../domain/payment-intent';
import { loadConfig } from '../platform/config';
import { newId } from '../platform/ids';
import { parseKey } from '../platform/keys';
import type { PaymentIntentRecord } from '../platform/records';
import { startStack } from '../scripts/stack';
import { attemptUpdate, PAYMENT_INTENT_WORKFLOW, recheckAttemptUpdate } from '../workflows/payment-intent/messages';
import { gatewayTaskQueue } from '../workflows/task-queues';
import { startPgFerret } from './postgres';

const N = Number(process.env.ANATOMY_N ?? 60);
const RATE = Number(process.env.ANATOMY_RATE ?? 10);
const E = temporal.api.enums.v1.EventType;

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};

/** The SDK's latency histograms of the worker (sum and count, in ms), by metric and task queue. */
async function workerMetrics(url: string | null): Promise<Record<string, { sum: number; count: number }>> {
  if (!url) return {};
  const text = await (await fetch(url)).text();
  const out: Record<string, { sum: number; count: number }> = {};
  for (const line of text.split('\n')) {
    const m = /^(temporal_[a-z_]+_latency(?:_seconds)?)_(sum|count)\{([^}]*)\} ([\d.e+-]+)$/.exec(line);
    if (!m) continue;
    const queue = /task_queue="([^"]*)"/.exec(m[3]!)?.[1] ?? '';
    const kind = /(?:activity_type|workflow_type)="([^"]*)"/.exec(m[3]!)?.[1] ?? '';
    const key = `${m[1]} ${queue} ${kind}`;
    const o = (out[key] ??= { sum: 0, count: 0 });
    const v = Number(m[4]);
    if (m[2] === 'sum') o.sum += m[1]!.endsWith('_seconds') ? v * 1000 : v;
    else o.count += v;
  }
  return out;
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'payorch-anatomy-'));
  const logDir = path.join(tmp, 'logs');
  mkdirSync(logDir, { recursive: true });
  const pg = await startPgFerret({ logDir });
  const stack = await startStack({
    dataDir: path.join(tmp, 'data'),
    logDir,
    temporalDb: 'fast',
    temporalUiPort: null,
    mongoUri: pg.uri,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_SECRET_PER_SEC: '0', RATE_LIMIT_PUBLISHABLE_PER_SEC: '0', RATE_LIMIT_ATTEMPTS_PER_SEC: '0', ...(process.env.ANATOMY_ENV ? Object.fromEntries(process.env.ANATOMY_ENV.split(',').map((kv) => kv.split('=') as [string, string])) : {}) },
  });
  try {
    const config = loadConfig(stack.env);
    const post = async (p: string, body: unknown) => {
      const r = await fetch(`${stack.apiUrl}${p}`, { method: 'POST', headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return (await r.json()) as Record<string, string>;
    };
    const tenant = await post('/admin/tenants', { name: 'Anatomy shop', region: 'eu' });
    await post(`/admin/tenants/${tenant.tenant}/connectors`, { gateway: 'sandbox', live: true, payment_methods: ['card'] });
    const client = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }), namespace: config.TEMPORAL_NAMESPACE });
    const mongo = new MongoClient(stack.mongoUri);
    await mongo.connect();
    const db = mongo.db();
    const keyDoc = await db.collection('api_keys').findOne({ _id: parseKey(tenant.secret_key!)!.lookupId as never });
    const tenantId = String(keyDoc?.tenant_id);
    const connectors = (await db.collection('connectors').find({ tenant_id: tenantId }).toArray()).map((c) => String(c._id));
    const deps = { config } as AppDeps;
    const fresh = async () => {
      const now = new Date();
      const r: PaymentIntentRecord = {
        _id: newId('pi', 'eu'), tenant_id: tenantId, region: 'eu', status: 'pending', amount: 1000, currency: 'EUR', customer: null,
        metadata: {}, webhooks: [], return_url: null, pin: null, connectors, timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
        idempotency_key: null, idempotency_scope: '', api_version: 'v202607',
        expires_at: new Date(now.getTime() + DEFAULT_TIMEOUT_SECONDS * 1000), created_at: now, updated_at: now, version: 0,
      };
      r.idempotency_scope = r._id;
      await db.collection('payment_intents').insertOne(r as never);
      await client.workflow.start(PAYMENT_INTENT_WORKFLOW, startOptions(r, deps));
      return r._id;
    };
    const ids = { noop: [] as string[], attempt: [] as string[] };
    for (let i = 0; i < N; i++) {
      ids.noop.push(await fresh());
      ids.attempt.push(await fresh());
    }
    await new Promise((r) => setTimeout(r, 3000));
    const loop = async (list: string[], op: (id: string) => Promise<void>) => {
      const lat: number[] = [];
      const t0 = performance.now();
      await Promise.all(
        list.map(async (id, i) => {
          const due = t0 + (i * 1000) / RATE;
          await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
          await op(id);
          lat.push(performance.now() - due);
        }),
      );
      return lat;
    };
    const before = await workerMetrics(stack.workerMetricsUrl);
    const noop = await loop(ids.noop, async (id) => {
      await client.workflow
        .getHandle(id)
        .executeUpdate(recheckAttemptUpdate, { args: [{ operator: 'bench', reason: ' ', actionId: 'bench' }] })
        .catch((err) => {
          if (!(err instanceof WorkflowUpdateFailedError)) throw err;
        });
    });
    const gq = gatewayTaskQueue(config.TEMPORAL_TASK_QUEUE, 'sandbox');
    const attempt = await loop(ids.attempt, async (id) => {
      const v = await client.workflow.getHandle(id).executeUpdate(attemptUpdate, { args: [{ token: 'tok_success', connector: connectors[0]!, gatewayQueues: { [connectors[0]!]: gq } }] });
      if (v.status !== 'success') throw new Error(v.status);
    });
    const after = await workerMetrics(stack.workerMetricsUrl);
    for (const [k, v] of Object.entries(after)) {
      const b = before[k] ?? { sum: 0, count: 0 };
      if (v.count - b.count > 0) console.log(`  worker: ${k.padEnd(70)} mean ${((v.sum - b.sum) / (v.count - b.count)).toFixed(2)} ms over ${v.count - b.count}`);
    }
    console.log(`no-op Update p50 ${median(noop).toFixed(1)} ms; attempt Update p50 ${median(attempt).toFixed(1)} ms (${N} each at ${RATE}/s)`);

    // The attempt's history, from its Update's acceptance on.
    const gaps = new Map<string, number[]>();
    const add = (k: string, v: number) => gaps.set(k, [...(gaps.get(k) ?? []), v]);
    for (const id of ids.attempt) {
      const h = await client.workflow.getHandle(id).fetchHistory();
      const ev = h.events ?? [];
      const at = ev.findIndex((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
      if (at < 0) continue;
      // the task that accepted it: the events before it back to its Scheduled
      let sched = at;
      while (sched > 0 && ev[sched]!.eventType !== E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) sched--;
      const seq = ev.slice(sched).map((e) => ({ type: E[e.eventType!]!.replace('EVENT_TYPE_', ''), t: ms(e.eventTime) }));
      const t0 = seq[0]!.t;
      const names: string[] = [];
      for (const [i, s] of seq.entries()) {
        if (s.type === 'WORKFLOW_EXECUTION_UPDATE_COMPLETED') {
          names.push('UPDATE_COMPLETED');
          add(`${String(i).padStart(2)} UPDATE_COMPLETED`, s.t - t0);
          break;
        }
        names.push(s.type);
        add(`${String(i).padStart(2)} ${s.type}`, s.t - t0);
      }
    }
    console.log('median ms from the accepting task\'s WorkflowTaskScheduled, per event of the attempt:');
    for (const [k, v] of [...gaps.entries()].sort()) console.log(`  ${k.padEnd(50)} ${median(v).toFixed(1)} (n=${v.length})`);
    // The two writes of the second task, straight through the driver, one at a time.
    const timed = async (op: () => Promise<unknown>) => {
      const t = performance.now();
      await op();
      return performance.now() - t;
    };
    const saves: number[] = [];
    const inserts: number[] = [];
    for (const id of ids.noop) {
      saves.push(await timed(() => db.collection('payment_intents').updateOne({ _id: id as never, version: { $lt: 1000 } }, { $set: { version: 1000, updated_at: new Date(), status: 'pending' } })));
      inserts.push(await timed(() => db.collection('events').insertOne({ _id: `evt_probe_${id}` as never, tenant_id: tenantId, type: 'probe', created_at: new Date(), data: {}, object_id: id, body: '{}', format: 'envelope', source: { kind: 'payment_intent', id }, endpoints: [] })));
    }
    console.log(`driver alone: versioned save of an intent p50 ${median(saves).toFixed(1)} ms; event insert p50 ${median(inserts).toFixed(1)} ms`);
    await mongo.close();
  } finally {
    await stack.stop();
    await pg.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
