// `npm run bench:workers`: what the worker knobs (WORKER_* in platform/config.ts) do to the
// payment-intent workflow, measured side by side on one Temporal dev server. The workflow is the real one
// (the bundle npm run build makes); its activities are stand-ins with fixed latencies (a MongoDB write 2 ms,
// a gateway charge 50 ms), so the figures isolate the worker: slots, pollers and cache, not MongoDB or the
// sandbox. Each setting runs in a fresh worker process (its RSS is its own), configured through the same
// env -> planWorkers() path as worker/main.ts. Figures recorded in docs/workers.md.
//
// Knobs: BENCH_OPEN=3000 (open intents for the cache phase), BENCH_PAY=400 (intents paid per setting),
// BENCH_CONCURRENCY=32 (attempt Updates in flight), BENCH_GATEWAY_MS=50, BENCH_RATE_N=300 (gateway calls in the
// rate phase), BENCH_ONLY=cache|pay|rate, BENCH_CACHES=60,600 (cache sizes; default a tenth of BENCH_OPEN and all),
// BENCH_PRELOAD=zod (modules the bundle shares across cached workflows: the bundler's preloadModules).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startTemporal } from '../scripts/stack';
import { attemptUpdate, intentStateQuery, PAYMENT_INTENT_WORKFLOW, type PaymentIntentInput } from '../workflows/payment-intent/messages';

const env = process.env;
const num = (name: string, d: number) => (env[name] ? Number(env[name]) : d);
const OPEN = num('BENCH_OPEN', 3000);
const PAY = num('BENCH_PAY', 400);
const CONCURRENCY = num('BENCH_CONCURRENCY', 32);
const GATEWAY_MS = num('BENCH_GATEWAY_MS', 50);
const ONLY = env.BENCH_ONLY;
const RATE_N = num('BENCH_RATE_N', 300);
const PRELOAD = (env.BENCH_PRELOAD ?? '').split(',').filter(Boolean);
const QUEUE = 'bench-payments';

// ---- the worker process ---------------------------------------------------------------------------------

async function workerMain(): Promise<void> {
  const { NativeConnection, Worker, Runtime, DefaultLogger } = await import('@temporalio/worker');
  const { loadConfig } = await import('../platform/config');
  const { planWorkers } = await import('../worker/worker-options');
  const { loadWorkflowBundle } = await import('../worker/bundle');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const config = loadConfig({ ...process.env, NODE_ENV: 'development', TEMPORAL_TASK_QUEUE: QUEUE, WORKER_QUEUES: 'payments' });
  const payments = planWorkers(config, [])[0]!;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const activities = {
    savePaymentIntent: async () => (await sleep(2), 'applied'),
    recordEvent: async () => void (await sleep(2)),
    charge: async () => (await sleep(GATEWAY_MS), { status: 'succeeded', chargeId: `ch_${Math.random().toString(36).slice(2)}` }),
  };
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const workflowBundle = await loadWorkflowBundle(process.env.BENCH_BUNDLE);
  const worker = await Worker.create({ connection, ...payments.options, workflowBundle, activities });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'rss') process.send!({ type: 'rss', rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed });
  });
  process.once('disconnect', () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  });
  process.send!({ type: 'ready' });
  await worker.run();
  await connection.close();
  process.exit(0); // the IPC channel would keep the process alive
}

// ---- the driver ------------------------------------------------------------------------------------------

interface WorkerProc {
  child: ChildProcess;
  rss(): Promise<number>;
  stop(): Promise<void>;
}

async function startWorker(address: string, bundle: string, settings: Record<string, string>): Promise<WorkerProc> {
  const child = fork(__filename, ['worker'], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...settings, TEMPORAL_ADDRESS: address, BENCH_BUNDLE: bundle },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    child.on('message', (m: { type: string }) => m.type === 'ready' && resolve());
  });
  return {
    child,
    rss: () =>
      new Promise((resolve) => {
        const on = (m: { type: string; rss: number }) => {
          if (m.type !== 'rss') return;
          child.off('message', on);
          resolve(m.rss);
        };
        child.on('message', on);
        child.send({ type: 'rss' });
      }),
    stop: async () => {
      child.removeAllListeners('exit');
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // A worker holding thousands of cached runs can take long to drain; the figures are taken by then.
      const hard = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(hard);
    },
  };
}

function intentInput(id: string): PaymentIntentInput {
  const now = Date.now();
  return {
    id,
    tenantId: 'ten_eu_bench',
    region: 'eu',
    amount: 1000,
    currency: 'EUR',
    customer: null,
    metadata: {},
    webhooks: [],
    connectors: ['con_eu_bench'],
    returnUrl: null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 1800_000).toISOString(),
    hostedPageUrl: 'http://127.0.0.1:1/pay',
    webhookTaskQueue: 'bench-webhooks',
  };
}

/** Runs `op` over `items` with `concurrency` in flight; latencies in ms, sorted. */
async function pool<T>(items: T[], concurrency: number, op: (t: T) => Promise<void>): Promise<{ seconds: number; lat: number[]; errors: number }> {
  const lat: number[] = [];
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const s = performance.now();
        try {
          await op(item);
          lat.push(performance.now() - s);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, lat: lat.sort((a, b) => a - b), errors };
}
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN);
const mb = (b: number) => `${Math.round(b / 1048576)} MB`;

async function startIntents(client: Client, prefix: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `pi_eu_${prefix}${i}`);
  await pool(ids, 32, async (id) => void (await client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: id, taskQueue: QUEUE, args: [intentInput(id)] })));
  // Started is not yet run: wait until every intent's first task has been processed (its state answers).
  await pool(ids, 32, async (id) => void (await client.workflow.getHandle(id).query(intentStateQuery)));
  return ids;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'worker') return workerMain();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-wbench-'));
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  const bundleFile = path.join(dir, 'bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quiet, preloadModules: PRELOAD });
  writeFileSync(bundleFile, code);
  const temporal = await startTemporal({ dataDir: dir, logDir: dir, fast: true, uiPort: null });
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`worker-settings bench: bundle ${(code.length / 1e6).toFixed(1)} MB${PRELOAD.length ? `, preloaded: ${PRELOAD.join(',')}` : ''}; ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; gateway ${GATEWAY_MS} ms, write 2 ms`);
  try {
    if (!ONLY || ONLY === 'pay') {
      out(`\n# pay path: ${PAY} intents started, then paid by attempt Updates, ${CONCURRENCY} in flight`);
      const settings: Array<[string, Record<string, string>]> = [
        ['wft=4 pollers=2 act=10', { WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '4', WORKER_WORKFLOW_POLLERS: '2', WORKER_MAX_CONCURRENT_ACTIVITIES: '10', WORKER_ACTIVITY_POLLERS: '2' }],
        ['wft=40 pollers=10 act=100 (default)', {}],
        ['wft=100 pollers=auto act=100 auto', { WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '100', WORKER_WORKFLOW_POLLERS: 'auto', WORKER_ACTIVITY_POLLERS: 'auto' }],
      ];
      for (const [name, s] of settings) {
        const w = await startWorker(temporal.address, bundleFile, s);
        try {
          const t0 = performance.now();
          const ids = await startIntents(client, `pay${Math.random().toString(36).slice(2, 7)}_`, PAY);
          const startS = (performance.now() - t0) / 1000;
          const r = await pool(ids, CONCURRENCY, async (id) => {
            const res = await client.workflow.getHandle(id).executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
            if (res.status !== 'success') throw new Error(res.status);
          });
          out(`${name.padEnd(40)} start ${(PAY / startS).toFixed(0)}/s | pay ${(r.lat.length / r.seconds).toFixed(1)}/s p50 ${pct(r.lat, 50).toFixed(0)} ms p99 ${pct(r.lat, 99).toFixed(0)} ms errors ${r.errors} | rss ${mb(await w.rss())}`);
        } finally {
          await w.stop();
        }
      }
    }
    if (!ONLY || ONLY === 'cache') {
      // The cost of a cached intent is the difference between the two settings' RSS (the rest is the V8 heap's
      // own growth, which both pay).
      out(`\n# cache: ${OPEN} open intents (30-minute expiry timers), then a query to each (an evicted one is replayed)`);
      const caches = env.BENCH_CACHES ? env.BENCH_CACHES.split(',').map(Number) : [Math.round(OPEN / 10), OPEN];
      for (const cache of caches) {
        const w = await startWorker(temporal.address, bundleFile, { WORKER_MAX_CACHED_WORKFLOWS: String(cache) });
        try {
          const rss0 = await w.rss();
          const t0 = performance.now();
          const ids = await startIntents(client, `open${cache}_`, OPEN);
          const startS = (performance.now() - t0) / 1000;
          const rss1 = await w.rss();
          const q = await pool(ids, 32, async (id) => void (await client.workflow.getHandle(id).query(intentStateQuery)));
          out(
            `cache ${String(cache).padEnd(6)} idle rss ${mb(rss0)} -> ${mb(rss1)} with ${OPEN} open | start ${(OPEN / startS).toFixed(0)}/s | query all ${(q.lat.length / q.seconds).toFixed(0)}/s p50 ${pct(q.lat, 50).toFixed(0)} ms p99 ${pct(q.lat, 99).toFixed(0)} ms | rss after ${mb(await w.rss())}`,
          );
        } finally {
          // The intents stay open (their timers are 30 minutes away); the dev server is thrown away at the end.
          await w.stop();
        }
      }
    }
    if (!ONLY || ONLY === 'rate') {
      out(`\n# gateway queue rate limit: ${RATE_N} gateway calls scheduled at once on payments-gateway-sandbox, 10 ms each`);
      for (const limit of ['', 'sandbox=20']) out(await ratePhase(client, temporal.address, limit));
    }
  } finally {
    await connection.close();
    await temporal.proc.stop('SIGTERM', 5000);
  }
}

/**
 * GATEWAY_RATE_LIMITS through planWorkers(): the gateway queue's Worker with the plan's options, a workflow
 * that schedules RATE_N calls on it at once, and the rate they started at (first to last start).
 */
async function ratePhase(client: Client, address: string, limit: string): Promise<string> {
  const { NativeConnection, Worker, Runtime, DefaultLogger } = await import('@temporalio/worker');
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* installed by the first phase */
  }
  const { loadConfig } = await import('../platform/config');
  const { planWorkers } = await import('../worker/worker-options');
  const paymentsQueue = `rate-${limit ? 'limited' : 'free'}-${Date.now()}`;
  const config = loadConfig({ ...process.env, NODE_ENV: 'development', TEMPORAL_TASK_QUEUE: paymentsQueue, WORKER_QUEUES: 'payments', GATEWAY_RATE_LIMITS: limit });
  const [payments, gateway] = planWorkers(config, ['sandbox']);
  const { code } = await (await import('@temporalio/worker')).bundleWorkflowCode({ workflowsPath: require.resolve('./worker-settings-workflows'), logger: quiet });
  const connection = await NativeConnection.connect({ address });
  const starts: number[] = [];
  const probe = async (i: number) => {
    starts.push(performance.now());
    await new Promise((r) => setTimeout(r, 10));
    return i;
  };
  const workers = await Promise.all([
    Worker.create({ connection, ...payments!.options, workflowBundle: { code }, activities: {} }),
    Worker.create({ connection, ...gateway!.options, activities: { probe } }),
  ]);
  try {
    await workers[0]!.runUntil(
      workers[1]!.runUntil(() =>
        client.workflow.execute('rateProbeWorkflow', { workflowId: paymentsQueue, taskQueue: paymentsQueue, args: [RATE_N, gateway!.options.taskQueue] }),
      ),
    );
  } finally {
    await connection.close();
  }
  const span = (Math.max(...starts) - Math.min(...starts)) / 1000;
  return `${(limit || 'no limit').padEnd(12)} ${starts.length} calls started over ${span.toFixed(1)} s: ${((starts.length - 1) / span).toFixed(1)} calls/s`;
}

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error, log: noop };

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
