import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster, type Cluster } from '../cluster';
import { freePort, ROOT, startStack, type Stack } from '../stack';
import { roundRobin } from './balancer';
import { createTenant, gatewayEffects, isLive, keyOwner, request, say, until, type GatewayEffect, type Reply } from './lib';

// Scale-out drill: the production-shaped stack (Temporal in cluster mode and FerretDB, both on PostgreSQL;
// scripts/cluster.ts), 2 API processes behind one port and 3 workers. DRILL_SCALE_INTENTS intents (default
// 2,000) are created, paid and refunded (in full, in part, or in two parts) through that port while a random
// worker is SIGKILLed every few seconds and restarted, a kill not waiting for the last restart (up to 2 of
// the 3 down at once; DRILL_SCALE_MAX_DOWN). Then: every intent is `success` with exactly the
// refunds asked for, each `success` with its amount; and the gateway sandbox holds one live charge per intent
// and one refund effect per refund, of the same amounts (0 duplicates; its effect log counts per idempotency
// key). DRILL_SCALE_STACK=dev runs the same on the Temporal dev server and FerretDB on SQLite (a quick check).

const INTENTS = Number(process.env.DRILL_SCALE_INTENTS ?? 2000);
const CONCURRENCY = Number(process.env.DRILL_SCALE_CONCURRENCY ?? 24);
const WORKERS = 3;
const KILL_EVERY_MS: [number, number] = [3000, 9000];
/**
 * Workers that may be down at once (DRILL_SCALE_MAX_DOWN, 1 to 3): by default never all of them, so the load
 * keeps moving; 3 lets every worker be down together, when Updates wait out their deadline and answer 503.
 */
const MAX_DOWN = Math.min(WORKERS, Math.max(1, Number(process.env.DRILL_SCALE_MAX_DOWN ?? 2)));
const WORKER_NAMES = ['worker', ...Array.from({ length: WORKERS - 1 }, (_, i) => `worker-${i + 2}`)];
const EU = 'api-eu.drill.example';

interface Lifecycle {
  n: number;
  amount: number;
  pi: string | null;
  refunds: { id: string; amount: number }[];
  asked: number[];
  error: string | null;
}

interface Calls {
  total: number;
  resent: number;
  byStatus: Map<string, number>;
  /** Milliseconds of each answered call, by what it was (create, attempt, refund, read). */
  ms: Map<string, number[]>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = ([lo, hi]: [number, number]) => lo + Math.floor(Math.random() * (hi - lo));
const ok = (r: Reply) => r.status >= 200 && r.status < 300;

/**
 * An amount the sandbox treats as ordinary: refunds of ...97, ...98 and ...99 are its magic amounts (slow,
 * rejected, pending forever; sandbox/refunds.ts), which the drill does not mean to ask for.
 */
const ordinary = (x: number) => (x % 100 >= 97 ? x - 3 : x);

/** The refunds lifecycle n asks for: a third in full, a third in part, a third in two parts. */
function refundPlan(n: number, amount: number): number[] {
  switch (n % 3) {
    case 0:
      return [amount];
    case 1:
      return [ordinary(1 + Math.floor(Math.random() * (amount - 1)))];
    default: {
      const first = ordinary(1 + Math.floor(Math.random() * (amount / 2)));
      return [first, ordinary(1 + Math.floor(Math.random() * (amount - first - 1)))];
    }
  }
}

export async function scaleDrill(): Promise<number> {
  const useCluster = (process.env.DRILL_SCALE_STACK ?? 'cluster') === 'cluster';
  if (useCluster) execFileSync('bash', [path.join(ROOT, 'scripts', 'cluster-provision.sh')], { stdio: 'inherit' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-drill-scale-'));
  chmodSync(dir, 0o711); // PostgreSQL runs as `postgres` when we are root
  const logDir = path.join(dir, 'logs');
  const t0 = Date.now();
  let cluster: Cluster | null = null;
  let stack: Stack | null = null;
  const findings: string[] = [];
  try {
    if (useCluster) cluster = await startCluster({ dataDir: path.join(dir, 'cluster'), logDir, fast: true });
    stack = await startStack({
      dataDir: path.join(dir, 'data'),
      logDir,
      temporalDb: 'fast',
      ...(cluster ? { temporalAddress: cluster.temporalAddress, mongoUri: cluster.mongoUri } : {}),
      env: {
        REGIONS: 'eu',
        GATEWAY_TIMEOUT_MS: '4000',
        // The drill is one merchant at many calls a second; the rate limits have tests of their own.
        RATE_LIMIT_SECRET_PER_SEC: '0',
        RATE_LIMIT_PUBLISHABLE_PER_SEC: '0',
        RATE_LIMIT_ATTEMPTS_PER_SEC: '0',
        RATE_LIMIT_CLIENT_SECRET_PER_SEC: '0',
      },
    });
    const s = stack;
    const api2Port = await freePort();
    await s.startApi({ PORT: String(api2Port) }, 'api-2');
    for (let w = 2; w <= WORKERS; w++) await s.startWorker({}, `worker-${w}`);
    const lb = await roundRobin([s.apiPort, api2Port]);
    say(`${cluster ? cluster.describe : 'Temporal dev server and FerretDB on SQLite'}; 2 APIs behind ${lb.url}, ${WORKERS} workers; up in ${((Date.now() - t0) / 1000).toFixed(1)} s; logs in ${logDir}`);

    const T = await createTenant(s, 'Drill scale tenant');
    const calls: Calls = { total: 0, resent: 0, byStatus: new Map(), ms: new Map() };
    const count = (label: string) => calls.byStatus.set(label, (calls.byStatus.get(label) ?? 0) + 1);
    const call = async (method: string, p: string, key: string, body?: unknown): Promise<Reply | Error> => {
      calls.total++;
      const t = Date.now();
      const r = await request(lb.url, method, p, { key, host: EU, ...(body === undefined ? {} : { body }), timeoutMs: 90_000 }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      count(r instanceof Error ? 'no answer' : String(r.status));
      const kind = method === 'GET' ? 'read' : p.endsWith('/attempts') ? 'attempt' : p.includes('refunds') ? 'refund' : 'create';
      // 503 (with Retry-After) is the documented answer of a moment without a worker; a 500 never is.
      if (!(r instanceof Error) && r.status >= 500 && r.status !== 503) findings.push(`${kind} ${method} ${p} answered ${r.status}: ${r.text.slice(0, 300)}`);
      if (!(r instanceof Error)) calls.ms.set(kind, calls.ms.get(kind) ?? []).get(kind)!.push(Date.now() - t);
      return r;
    };
    /** A call the API answers the same when sent again (an idempotency key): sent again on 5xx or no answer. */
    const idempotent = async (method: string, p: string, key: string, body?: unknown): Promise<Reply> => {
      for (let i = 0; ; i++) {
        const r = await call(method, p, key, body);
        if (!(r instanceof Error) && r.status < 500) return r;
        if (i >= 8) throw new Error(`${method} ${p}: ${r instanceof Error ? r.message : `${r.status} ${r.text.slice(0, 200)}`}`);
        calls.resent++;
        await sleep(1000 * (i + 1));
      }
    };
    const intentStatus = async (pi: string) => {
      const r = await idempotent('GET', `/v202607/payment-intents/${pi}`, T.secretKey);
      return (r.body as { status?: string }).status;
    };

    // An attempt is not idempotent: after a 5xx, no answer or a refusal, the intent itself says what happened,
    // and a new attempt is sent only when it is still pending with nothing on the wire.
    const pay = async (pi: string) => {
      for (let i = 0; i < 6; i++) {
        const r = await call('POST', `/v202607/payment-intents/${pi}/attempts`, T.publishableKey, { token: 'tok_success' });
        if (!(r instanceof Error) && ok(r) && (r.body as { status?: string }).status === 'success') return;
        if (!(r instanceof Error) && r.status >= 400 && r.status < 500 && r.status !== 409) throw new Error(`attempt refused: ${r.status} ${r.text.slice(0, 200)}`);
        const settled = await until('intent off pending', async () => ((await intentStatus(pi)) === 'pending' ? undefined : true), 20_000).catch(() => false);
        if (settled && (await intentStatus(pi)) === 'success') return;
        calls.resent++;
      }
      throw new Error(`intent ${pi} not paid after 6 attempts`);
    };

    const lives: Lifecycle[] = [];
    const lifecycle = async (n: number) => {
      const amount = ordinary(500 + Math.floor(Math.random() * 9500));
      const life: Lifecycle = { n, amount, pi: null, refunds: [], asked: refundPlan(n, amount), error: null };
      lives.push(life);
      try {
        const c = await idempotent('POST', '/v202607/payment-intents', T.secretKey, { amount, currency: 'EUR', idempotency_key: `scale-${n}` });
        if (!ok(c)) throw new Error(`create: ${c.status} ${c.text.slice(0, 200)}`);
        life.pi = (c.body as { payment_intent: string }).payment_intent;
        await pay(life.pi);
        for (const [k, part] of life.asked.entries()) {
          const r = await idempotent('POST', '/v202607/refunds', T.secretKey, { payment_intent: life.pi, amount: part, currency: 'EUR', idempotency_key: `scale-${n}-refund-${k}` });
          if (!ok(r)) throw new Error(`refund ${k}: ${r.status} ${r.text.slice(0, 200)}`);
          life.refunds.push({ id: (r.body as { refund: string }).refund, amount: part });
        }
      } catch (err) {
        life.error = err instanceof Error ? err.message : String(err);
      }
    };

    // ---- the load, and the chaos beside it
    let done = false;
    const kills: { worker: string; readyMs: number }[] = [];
    // A kill does not wait for the last one's restart: up to MAX_DOWN workers are down at once.
    const down = new Set<string>();
    let maxDownSeen = 0;
    const restarts: Promise<void>[] = [];
    const chaos = (async () => {
      while (!done) {
        await sleep(between(KILL_EVERY_MS));
        if (done) break;
        const up = WORKER_NAMES.filter((n) => !down.has(n));
        if (down.size >= MAX_DOWN || up.length === 0) continue;
        const name = up[Math.floor(Math.random() * up.length)]!;
        down.add(name);
        maxDownSeen = Math.max(maxDownSeen, down.size);
        await s.procs[name]!.stop('SIGKILL');
        restarts.push(
          (async () => {
            await sleep(Math.floor(Math.random() * 2000));
            const t = Date.now();
            await s.startWorker({}, name);
            kills.push({ worker: name, readyMs: Date.now() - t });
            down.delete(name);
          })(),
        );
      }
      await Promise.all(restarts);
    })();
    const started = Date.now();
    let nextN = 0;
    let finished = 0;
    const lane = async () => {
      while (nextN < INTENTS) {
        await lifecycle(++nextN);
        if (++finished % 200 === 0) say(`  ${finished} of ${INTENTS} lifecycles done; ${kills.length} worker kills so far; ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    const loadSeconds = (Date.now() - started) / 1000;
    done = true;
    await chaos;
    const lastKill = Date.now();

    // ---- every intent and refund in its final state
    const states = new Map<string, string>();
    const refundStates = new Map<string, { status: string; amount: number }>();
    const pending = () => lives.filter((l) => l.pi && !l.error).flatMap((l) => l.refunds.filter((r) => refundStates.get(r.id)?.status !== 'success'));
    await until(
      'every refund final',
      async () => {
        for (const r of pending()) {
          const g = await request(lb.url, 'GET', `/v202607/refunds/${r.id}`, { key: T.secretKey, host: EU });
          if (ok(g)) refundStates.set(r.id, g.body as { status: string; amount: number });
        }
        await sleep(1000);
        return pending().length === 0 ? true : undefined;
      },
      300_000,
    ).catch(() => undefined);
    const settleSeconds = (Date.now() - lastKill) / 1000;
    for (const l of lives) if (l.pi) states.set(l.pi, (await intentStatus(l.pi)) ?? 'unknown');

    // ---- the gateway's side: one live charge per intent, one refund effect per refund, the same amounts
    const effects = await gatewayEffects(s.sandboxUrl);
    const liveCharges = new Map<string, GatewayEffect[]>();
    for (const e of effects) if (e.kind === 'charge' && isLive(e)) liveCharges.set(keyOwner(e), [...(liveCharges.get(keyOwner(e)) ?? []), e]);
    const refundsByCharge = new Map<string, GatewayEffect[]>();
    for (const e of effects) if (e.kind === 'refund' && e.charge_id) refundsByCharge.set(e.charge_id, [...(refundsByCharge.get(e.charge_id) ?? []), e]);

    let exactIntents = 0;
    let duplicateCharges = 0;
    let duplicateRefunds = 0;
    for (const l of lives) {
      const where = `intent ${l.pi ?? `#${l.n}`}`;
      if (l.error) {
        findings.push(`${where}: ${l.error}`);
        continue;
      }
      const pi = l.pi!;
      const wrong: string[] = [];
      if (states.get(pi) !== 'success') wrong.push(`status ${states.get(pi)}`);
      for (const r of l.refunds) {
        const st = refundStates.get(r.id);
        if (st?.status !== 'success' || st.amount !== r.amount) wrong.push(`refund ${r.id} ${st?.status ?? 'unread'} ${st?.amount ?? '?'} of ${r.amount}`);
      }
      const charges = liveCharges.get(pi) ?? [];
      if (charges.length !== 1) wrong.push(`${charges.length} live charges at the gateway`);
      if (charges.length > 1) duplicateCharges++;
      const gatewayRefunds = charges.flatMap((c) => refundsByCharge.get(c.id) ?? []);
      if (gatewayRefunds.length > l.refunds.length) duplicateRefunds++;
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const gatewaySum = sum(gatewayRefunds.map((e) => e.amount ?? 0));
      if (gatewayRefunds.length !== l.asked.length || gatewaySum !== sum(l.asked)) wrong.push(`gateway refunded ${gatewaySum} in ${gatewayRefunds.length} refunds, asked ${sum(l.asked)} in ${l.asked.length}`);
      if (wrong.length) findings.push(`${where}: ${wrong.join('; ')}`);
      else exactIntents++;
    }

    const ready = kills.map((k) => k.readyMs).sort((a, b) => a - b);
    const refundCount = lives.reduce((n, l) => n + l.refunds.length, 0);
    const replays = effects.reduce((n, e) => n + e.replays, 0);
    const byStatus = [...calls.byStatus.entries()].sort().map(([k, v]) => `${k}: ${v}`).join(', ');
    say('\nsummary:');
    say(`  stack: ${cluster ? cluster.describe : 'Temporal dev server, FerretDB on SQLite'}; 2 API processes behind one port; ${WORKERS} workers`);
    say(`  lifecycles: ${lives.length} (create, pay, ${refundCount} refunds in all), ${CONCURRENCY} at a time, in ${loadSeconds.toFixed(0)} s: ${(lives.length / loadSeconds).toFixed(1)} lifecycles/s`);
    say(`  API calls: ${calls.total} (${byStatus}); sent again after a 5xx, no answer or an unsettled attempt: ${calls.resent}`);
    const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
    say(`  call latency p50 / p99 / max: ${[...calls.ms.entries()].map(([k, xs]) => `${k} ${pct(xs, 0.5)} / ${pct(xs, 0.99)} / ${pct(xs, 1)} ms`).join('; ')}`);
    say(`  connections per API process: ${[...lb.counts.values()].join(' / ')}`);
    say(`  worker SIGKILLs: ${kills.length} (${WORKERS} workers, one every ${KILL_EVERY_MS[0] / 1000}-${KILL_EVERY_MS[1] / 1000} s, up to ${MAX_DOWN} down at once; most seen down together: ${maxDownSeen}); restart to ready: median ${ready[Math.floor(ready.length / 2)] ?? NaN} ms, max ${ready[ready.length - 1] ?? NaN} ms`);
    say(`  settled ${settleSeconds.toFixed(1)} s after the last kill`);
    say(`  intents in their right state with exact refunds at both ends: ${exactIntents} of ${lives.length}`);
    say(`  gateway effects: ${effects.length}; intents with more than one live charge: ${duplicateCharges}; with more refunds than asked: ${duplicateRefunds}; retries answered from an idempotency key: ${replays}`);
    await lb.close();
    for (const f of findings.slice(0, 50)) say(`FINDING ${f}`);
    if (findings.length > 50) say(`... and ${findings.length - 50} more`);
    say(`\nscale: ${findings.length} findings`);
    return findings.length > 0 ? 1 : 0;
  } finally {
    await stack?.stop();
    await cluster?.stop();
    // The logs stay for a run with findings (or one that failed): they are where the reasons are.
    if (findings.length === 0 && stack) rmSync(dir, { recursive: true, force: true });
    else say(`logs kept in ${logDir}`);
  }
}
