import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../platform/free-port';
import { connectMongo, ensureIndexes } from '../platform/mongo';
import { searchAttributeFlags } from '../platform/search-attributes';

// Starts the real stack as child processes on loopback: Temporal dev server, FerretDB, the gateway
// sandbox, the worker and the API. Shared by `npm run dev`, the integration tests and the benchmark.
//
// Nothing it starts outlives it by accident: a start that fails stops whatever it had already started
// (startStack), a launcher that exits sends SIGTERM to the children still running, and a launcher killed
// outright (SIGKILL) is noticed by the children themselves: the TypeScript processes stop when their IPC
// channel closes, the Temporal and FerretDB binaries get SIGTERM from the kernel (Linux parent-death signal).

export const ROOT = path.join(__dirname, '..');
export const TOOLS = path.join(ROOT, '.tools', 'bin');

export { freePort };

/** `npm run dev`'s sandbox port: the one docs/docker-compose.md names (4010), as the API's and UI's are; SANDBOX_PORT moves it. */
export function devSandboxPort(): number {
  const given = Number(process.env.SANDBOX_PORT || 4010);
  return Number.isInteger(given) && given > 0 && given < 65536 ? given : 4010;
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: Proc, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted) throw abandoned(what, signal);
    if (proc?.exited) throw new Error(`${what} exited with ${proc.exitCode} before it was ready; see ${proc.logFile}\n${proc.tail()}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs} ms; see ${proc?.logFile ?? 'its log'}\n${proc?.tail() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function abandoned(what: string, signal: AbortSignal): Error {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
  return new Error(`${what}: start abandoned (${reason.split('\n')[0]})`);
}

/** Throws a clear error naming each port of `ports` that something already listens on (127.0.0.1). */
export async function assertPortsFree(ports: Record<string, number>): Promise<void> {
  const taken: string[] = [];
  for (const [what, port] of Object.entries(ports)) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (!free) taken.push(`${port} (${what})`);
  }
  if (taken.length) throw new Error(`port ${taken.join(' and ')} ${taken.length > 1 ? 'are' : 'is'} already in use`);
}

const tcpOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const httpOk = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok;

export interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: boolean;
  exitCode: number | null;
  tail(): string;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

// Children of this process that are still running. A launcher that exits without stopping them (an
// uncaught error, process.exit) sends them SIGTERM on the way out, so none keeps holding its port.
const running = new Set<Proc>();
let exitHookInstalled = false;
function markRunning(proc: Proc): void {
  running.add(proc);
  proc.child.once('exit', () => running.delete(proc));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of running) p.child.kill('SIGTERM');
  });
}

let pdeathsig: boolean | undefined;
/**
 * Spawns a server binary that dies with this process, even when this process is killed outright: on Linux
 * util-linux `setpriv --pdeathsig` sets the parent-death signal and execs the binary (same pid, no wrapper
 * process). Elsewhere a plain spawn.
 */
function spawnServer(bin: string, args: string[]): ChildProcess {
  if (pdeathsig === undefined) {
    try {
      execFileSync('setpriv', ['--pdeathsig', 'SIGTERM', '--', 'true'], { stdio: 'ignore' });
      pdeathsig = true;
    } catch {
      pdeathsig = false;
    }
  }
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  return pdeathsig ? spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', bin, ...args], { stdio }) : spawn(bin, args, { stdio });
}

/** Logs a child to `logFile` (echoed with its name when asked), keeps its last lines, and stops it on exit. */
export function track(name: string, child: ChildProcess, logFile: string, echo: boolean, stopTimeoutMs = 10_000): Proc {
  const log = createWriteStream(logFile, { flags: 'a' });
  const recent: string[] = [];
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    const text = chunk.toString();
    recent.push(text);
    if (recent.length > 40) recent.shift();
    if (echo) process.stdout.write(text.split('\n').filter(Boolean).map((l) => `[${name}] ${l}\n`).join(''));
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const proc: Proc = {
    name,
    child,
    logFile,
    exited: false,
    exitCode: null,
    tail: () => recent.join('').split('\n').slice(-20).join('\n'),
    stop: (signal = 'SIGTERM', timeoutMs = stopTimeoutMs) =>
      new Promise<void>((resolve) => {
        if (proc.exited) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.once('exit', () => (clearTimeout(timer), resolve()));
        child.kill(signal);
      }),
  };
  child.on('exit', (code) => {
    proc.exited = true;
    proc.exitCode = code;
    log.end();
  });
  markRunning(proc);
  return proc;
}

export interface StackOptions {
  dataDir: string;
  logDir: string;
  /** File-backed Temporal database (dev); tests use a throwaway file with fast pragmas. */
  temporalDb: 'durable' | 'fast';
  temporalUiPort?: number | null;
  echo?: boolean;
  env?: Record<string, string>;
  temporalAddress?: string;
  mongoUri?: string;
  apiPort?: number;
  /** The sandbox's port (default: a free one). */
  sandboxPort?: number;
  /** The namespace our own dev server makes and waits for (default `default`). */
  temporalNamespace?: string;
  /** Abandons the start: startStack stops what it started and rejects (e.g. Ctrl-C while starting). */
  signal?: AbortSignal;
}

export interface Stack {
  temporalAddress: string;
  temporalUiUrl: string | null;
  mongoUri: string;
  sandboxUrl: string;
  apiUrl: string;
  apiPort: number;
  adminToken: string;
  env: Record<string, string>;
  procs: Record<string, Proc>;
  workerMetricsUrl: string | null;
  /** Starts a worker as `procs[name]` (default `worker`); another name runs one more beside it (scale drill). */
  startWorker(extraEnv?: Record<string, string>, name?: string): Promise<Proc>;
  /** Starts an API as `procs[name]` (default `api`); a second one needs its own PORT in `extraEnv`. */
  startApi(extraEnv?: Record<string, string>, name?: string): Promise<Proc>;
  /**
   * Starts the stack's Temporal dev server again on the same port and database file (after its process
   * stopped or was killed). Only for a stack that started its own Temporal.
   */
  restartTemporal(): Promise<Proc>;
  /** Starts the stack's FerretDB again on the same port and data directory. Only for a stack that started its own. */
  restartFerret(): Promise<Proc>;
  stop(): Promise<void>;
}

interface ChildStartOptions {
  dataDir: string;
  logDir: string;
  echo?: boolean;
  port?: number;
  signal?: AbortSignal;
  onSpawn?: (proc: Proc) => void;
}

/** Waits until `proc` is ready; if it never gets there, stops it before rethrowing: a failed start leaves no process. */
async function readyOrStopped(proc: Proc, ready: () => Promise<void>): Promise<void> {
  try {
    await ready();
  } catch (err) {
    await proc.stop('SIGTERM', 5000);
    throw err;
  }
}

/** How often a dev server on a port we chose ourselves is started again after it died at start. */
const TEMPORAL_START_TRIES = 3;

/**
 * The dev server binds more ports than the one we give it (its HTTP API and internal services, derived from
 * it), and one of those may be taken by another process: it then exits at start (seen once in CI, exit 2).
 * On a port of our own choosing that is retried on another port; a port the caller asked for is not.
 */
export async function startTemporal(opts: ChildStartOptions & { fast: boolean; uiPort: number | null; namespace?: string }) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startTemporalOnce(opts);
    } catch (err) {
      const diedAtStart = err instanceof Error && err.message.includes('exited with') && err.message.includes('before it was ready');
      if (opts.port !== undefined || !diedAtStart || attempt >= TEMPORAL_START_TRIES || opts.signal?.aborted) throw err;
    }
  }
}

async function startTemporalOnce(opts: ChildStartOptions & { fast: boolean; uiPort: number | null; namespace?: string }) {
  const port = opts.port ?? (await freePort());
  const namespace = opts.namespace ?? 'default';
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn', '--namespace', namespace];
  args.push('--db-filename', path.join(opts.dataDir, 'temporal.sqlite'));
  // Dev keeps WAL with synchronous=NORMAL: durable across process crashes at a fraction of the default's
  // fsync cost. Tests throw the database away, so they skip fsync entirely.
  args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', `synchronous=${opts.fast ? 'off' : 'normal'}`);
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort), '--ui-ip', '127.0.0.1');
  else args.push('--headless');
  args.push(...searchAttributeFlags());
  const child = spawnServer(path.join(TOOLS, 'temporal'), args);
  const proc = track('temporal', child, path.join(opts.logDir, 'temporal.log'), opts.echo ?? false);
  opts.onSpawn?.(proc);
  const address = `127.0.0.1:${port}`;
  await readyOrStopped(proc, () => waitFor('Temporal dev server', async () => {
    if (!(await tcpOpen(port))) return false;
    // The frontend accepts connections a moment before the namespace is registered.
    const { Connection } = await import('@temporalio/client');
    const conn = await Connection.connect({ address, connectTimeout: '1s' });
    try {
      await conn.workflowService.describeNamespace({ namespace });
      return true;
    } finally {
      await conn.close();
    }
  }, 60_000, proc, opts.signal));
  return { proc, address, port };
}

/** `busyTimeoutMs`: how long a write waits for SQLite's one writer before it fails (FerretDB's default: 10 s). */
export async function startFerret(opts: ChildStartOptions & { busyTimeoutMs?: number }) {
  const port = opts.port ?? (await freePort());
  const dir = path.join(opts.dataDir, 'ferretdb');
  mkdirSync(dir, { recursive: true });
  const pragmas = opts.busyTimeoutMs !== undefined ? `?_pragma=busy_timeout(${opts.busyTimeoutMs})` : '';
  const child = spawnServer(path.join(TOOLS, 'ferretdb'), [
    '--handler=sqlite',
    `--sqlite-url=file:${dir}/${pragmas}`,
    `--state-dir=${dir}`,
    `--listen-addr=127.0.0.1:${port}`,
    '--telemetry=disable',
    '--debug-addr=-',
    '--log-level=warn',
  ]);
  const proc = track('ferretdb', child, path.join(opts.logDir, 'ferretdb.log'), opts.echo ?? false);
  opts.onSpawn?.(proc);
  await readyOrStopped(proc, () => waitFor('FerretDB', () => tcpOpen(port), 30_000, proc, opts.signal));
  return { proc, uri: `mongodb://127.0.0.1:${port}/payorch`, port };
}

/** A TypeScript entry point as a child process with an IPC channel (it reports 'listening'/'ready'). */
export function forkTs(name: string, entry: string, env: Record<string, string>, logDir: string, echo = false): Proc {
  const child = fork(path.join(ROOT, entry), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    cwd: ROOT,
  });
  return track(name, child, path.join(logDir, `${name}.log`), echo);
}

function waitForMessage(proc: Proc, type: string, timeoutMs: number, signal?: AbortSignal): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      proc.child.off('message', onMessage);
      proc.child.off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error) => {
      done();
      reject(err);
    };
    const onMessage = (m: Record<string, unknown>) => {
      if (m?.type !== type) return;
      done();
      resolve(m);
    };
    const onExit = (code: number | null) => fail(new Error(`${proc.name} exited with ${code} during start; see ${proc.logFile}\n${proc.tail()}`));
    const onAbort = () => fail(abandoned(proc.name, signal!));
    const timer = setTimeout(() => fail(new Error(`${proc.name} did not report '${type}' within ${timeoutMs} ms; see ${proc.logFile}\n${proc.tail()}`)), timeoutMs);
    proc.child.on('message', onMessage);
    proc.child.once('exit', onExit);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Promise.all for starts that run side by side, except that the first failure abandons the others (through
 * `abort`) and waits until each has settled, so nothing is still being spawned while the caller cleans up.
 * Rejects with that first failure, the cause, not with the abandonments it led to.
 */
async function allOrAbandon<T extends readonly unknown[]>(abort: AbortController, starts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  let first: { err: unknown } | null = null;
  const settled = await Promise.allSettled(
    starts.map((p: Promise<unknown>) =>
      p.catch((err: unknown) => {
        first ??= { err };
        abort.abort(err);
        throw err;
      }),
    ),
  );
  if (first) throw (first as { err: unknown }).err;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Stops processes: the application ones first (they drain against servers still up), then the servers. */
async function stopAll(procs: Proc[]): Promise<void> {
  const isServer = (p: Proc) => p.name === 'temporal' || p.name === 'ferretdb';
  await Promise.all(procs.filter((p) => !isServer(p)).map((p) => p.stop('SIGTERM', 5000)));
  await Promise.all(procs.filter(isServer).map((p) => p.stop('SIGTERM', 5000)));
}

/**
 * Starts the stack. If any part fails to start (or `opts.signal` aborts), every process started so far is
 * stopped before the returned promise rejects with the first failure.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const started: Proc[] = [];
  const abort = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
  const onSpawn = (proc: Proc) => void started.push(proc);
  try {
    if (opts.signal?.aborted) throw abandoned('stack', opts.signal);
    return await launch(opts, { abort, signal, onSpawn });
  } catch (err) {
    abort.abort(err);
    await stopAll(started);
    throw err;
  }
}

async function launch(
  opts: StackOptions,
  { abort, signal, onSpawn }: { abort: AbortController; signal: AbortSignal; onSpawn: (proc: Proc) => void },
): Promise<Stack> {
  mkdirSync(opts.dataDir, { recursive: true });
  mkdirSync(opts.logDir, { recursive: true });
  const procs: Record<string, Proc> = {};
  const echo = opts.echo ?? false;
  const common = { dataDir: opts.dataDir, logDir: opts.logDir, echo, signal, onSpawn };
  const [temporal, ferret] = await allOrAbandon(abort, [
    opts.temporalAddress
      ? Promise.resolve(null)
      : startTemporal({ ...common, fast: opts.temporalDb === 'fast', uiPort: opts.temporalUiPort ?? null, ...(opts.temporalNamespace ? { namespace: opts.temporalNamespace } : {}) }),
    opts.mongoUri ? Promise.resolve(null) : startFerret(common),
  ] as const);
  if (temporal) procs.temporal = temporal.proc;
  if (ferret) procs.ferretdb = ferret.proc;
  const temporalAddress = opts.temporalAddress ?? temporal!.address;
  const mongoUri = opts.mongoUri ?? ferret!.uri;

  const sandboxPort = opts.sandboxPort ?? (await freePort());
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const apiPort = opts.apiPort ?? (await freePort());
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const adminToken = opts.env?.ADMIN_API_TOKEN ?? `admin_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    TEMPORAL_ADDRESS: temporalAddress,
    MONGODB_URI: mongoUri,
    SANDBOX_URL: sandboxUrl,
    SANDBOX_PORT: String(sandboxPort),
    SANDBOX_HOST: '127.0.0.1',
    SANDBOX_PUBLIC_URL: sandboxUrl,
    PUBLIC_BASE_URL: apiUrl,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    ADMIN_API_TOKEN: adminToken,
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    ...opts.env,
  };

  // The indexes are made once here, before the API and the worker start and ensure them again: FerretDB 1.24
  // registers an index twice when two connections create it at the same moment, and every write then keeps
  // both up to date (8 of payment_intents' 21 indexes were such twins after a 5-process start).
  const indexed = indexOnce(env.MONGODB_URI!).then(() => null, (err: unknown) => err);
  procs.sandbox = forkTs('sandbox', 'sandbox/main.ts', env, opts.logDir, echo);
  onSpawn(procs.sandbox);
  await waitFor('gateway sandbox', () => httpOk(`${sandboxUrl}/healthz`), 30_000, procs.sandbox, signal);
  const indexFailure = await indexed;
  if (indexFailure) throw indexFailure;

  // Each start stops its own process if it fails; later restarts (tests) are not tied to the first start's signal.
  const workerMetrics: { url: string | null } = { url: null };
  const startWorkerWith = async (extraEnv: Record<string, string>, startSignal?: AbortSignal, name = 'worker') => {
    const p = forkTs(name, 'worker/main.ts', { ...env, ...extraEnv }, opts.logDir, echo);
    if (startSignal) onSpawn(p);
    let ready: Record<string, unknown> = {};
    await readyOrStopped(p, async () => void (ready = await waitForMessage(p, 'ready', 90_000, startSignal)));
    workerMetrics.url = `http://127.0.0.1:${String(ready.metricsPort)}/metrics`;
    procs[name] = p;
    return p;
  };
  const startApiWith = async (extraEnv: Record<string, string>, startSignal?: AbortSignal, name = 'api') => {
    const p = forkTs(name, 'api/main.ts', { ...env, ...extraEnv }, opts.logDir, echo);
    if (startSignal) onSpawn(p);
    await readyOrStopped(p, async () => void (await waitForMessage(p, 'listening', 60_000, startSignal)));
    procs[name] = p;
    return p;
  };
  const startWorker = (extraEnv: Record<string, string> = {}, name?: string) => startWorkerWith(extraEnv, undefined, name);
  const startApi = (extraEnv: Record<string, string> = {}, name?: string) => startApiWith(extraEnv, undefined, name);
  await allOrAbandon(abort, [startWorkerWith({}, signal), startApiWith({}, signal)] as const);

  const restartTemporal = async () => {
    if (!temporal) throw new Error('this stack uses an external Temporal (temporalAddress); it cannot restart it');
    if (!procs.temporal!.exited) throw new Error('Temporal is still running: stop it first');
    const again = await startTemporal({
      dataDir: opts.dataDir,
      logDir: opts.logDir,
      fast: opts.temporalDb === 'fast',
      uiPort: opts.temporalUiPort ?? null,
      ...(opts.temporalNamespace ? { namespace: opts.temporalNamespace } : {}),
      echo,
      port: temporal.port,
    });
    procs.temporal = again.proc;
    return again.proc;
  };
  const restartFerret = async () => {
    if (!ferret) throw new Error('this stack uses an external MongoDB (mongoUri); it cannot restart it');
    if (!procs.ferretdb!.exited) throw new Error('FerretDB is still running: stop it first');
    const again = await startFerret({ dataDir: opts.dataDir, logDir: opts.logDir, echo, port: ferret.port });
    procs.ferretdb = again.proc;
    return again.proc;
  };

  return {
    temporalAddress,
    temporalUiUrl: opts.temporalUiPort ? `http://localhost:${opts.temporalUiPort}` : null,
    mongoUri,
    sandboxUrl,
    apiUrl,
    apiPort,
    adminToken,
    env,
    procs,
    get workerMetricsUrl() {
      return workerMetrics.url;
    },
    startWorker,
    startApi,
    restartTemporal,
    restartFerret,
    // Application processes first, so they drain against servers that are still up.
    stop: async () => {
      const order = ['api', 'worker', 'sandbox', 'temporal', 'ferretdb'];
      for (const kind of order) await Promise.all(Object.entries(procs).filter(([name]) => name === kind || name.startsWith(`${kind}-`)).map(([, p]) => p.stop()));
    },
  };
}

async function indexOnce(mongoUri: string): Promise<void> {
  const mongo = await connectMongo(mongoUri, { maxPoolSize: 4 });
  try {
    await ensureIndexes(mongo);
  } finally {
    await mongo.close();
  }
}
