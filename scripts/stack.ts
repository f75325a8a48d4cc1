import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../platform/free-port';
import { searchAttributeFlags } from '../platform/search-attributes';

// Starts the real stack as child processes on loopback: Temporal dev server, FerretDB, the gateway
// sandbox, the worker and the API. Shared by `npm run dev`, the integration tests and the benchmark.

export const ROOT = path.join(__dirname, '..');
export const TOOLS = path.join(ROOT, '.tools', 'bin');

export { freePort };

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: Proc): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc?.exited) throw new Error(`${what} exited with ${proc.exitCode} before it was ready; see ${proc.logFile}\n${proc.tail()}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs} ms; see ${proc?.logFile ?? 'its log'}\n${proc?.tail() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
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

function track(name: string, child: ChildProcess, logFile: string, echo: boolean): Proc {
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
    stop: (signal = 'SIGTERM', timeoutMs = 10_000) =>
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
  startWorker(extraEnv?: Record<string, string>): Promise<Proc>;
  startApi(extraEnv?: Record<string, string>): Promise<Proc>;
  /**
   * Starts the stack's Temporal dev server again on the same port and database file (after its process
   * stopped or was killed). Only for a stack that started its own Temporal.
   */
  restartTemporal(): Promise<Proc>;
  /** Starts the stack's FerretDB again on the same port and data directory. Only for a stack that started its own. */
  restartFerret(): Promise<Proc>;
  stop(): Promise<void>;
}

export async function startTemporal(opts: { dataDir: string; logDir: string; fast: boolean; uiPort: number | null; echo?: boolean; port?: number }) {
  const port = opts.port ?? (await freePort());
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn', '--namespace', 'default'];
  args.push('--db-filename', path.join(opts.dataDir, 'temporal.sqlite'));
  // Dev keeps WAL with synchronous=NORMAL: durable across process crashes at a fraction of the default's
  // fsync cost. Tests throw the database away, so they skip fsync entirely.
  args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', `synchronous=${opts.fast ? 'off' : 'normal'}`);
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort), '--ui-ip', '127.0.0.1');
  else args.push('--headless');
  args.push(...searchAttributeFlags());
  const child = spawn(path.join(TOOLS, 'temporal'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = track('temporal', child, path.join(opts.logDir, 'temporal.log'), opts.echo ?? false);
  const address = `127.0.0.1:${port}`;
  await waitFor('Temporal dev server', async () => {
    if (!(await tcpOpen(port))) return false;
    // The frontend accepts connections a moment before the default namespace is registered.
    const { Connection } = await import('@temporalio/client');
    const conn = await Connection.connect({ address, connectTimeout: '1s' });
    try {
      await conn.workflowService.describeNamespace({ namespace: 'default' });
      return true;
    } finally {
      await conn.close();
    }
  }, 60_000, proc);
  return { proc, address, port };
}

export async function startFerret(opts: { dataDir: string; logDir: string; echo?: boolean; port?: number }) {
  const port = opts.port ?? (await freePort());
  const dir = path.join(opts.dataDir, 'ferretdb');
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    path.join(TOOLS, 'ferretdb'),
    ['--handler=sqlite', `--sqlite-url=file:${dir}/`, `--state-dir=${dir}`, `--listen-addr=127.0.0.1:${port}`, '--telemetry=disable', '--debug-addr=-', '--log-level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const proc = track('ferretdb', child, path.join(opts.logDir, 'ferretdb.log'), opts.echo ?? false);
  await waitFor('FerretDB', () => tcpOpen(port), 30_000, proc);
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

function waitForMessage(proc: Proc, type: string, timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${proc.name} did not report '${type}' within ${timeoutMs} ms; see ${proc.logFile}\n${proc.tail()}`)), timeoutMs);
    proc.child.on('message', (m: Record<string, unknown>) => {
      if (m?.type === type) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    proc.child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${proc.name} exited with ${code} during start; see ${proc.logFile}\n${proc.tail()}`));
    });
  });
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  mkdirSync(opts.dataDir, { recursive: true });
  mkdirSync(opts.logDir, { recursive: true });
  const procs: Record<string, Proc> = {};
  const echo = opts.echo ?? false;
  const [temporal, ferret] = await Promise.all([
    opts.temporalAddress
      ? Promise.resolve(null)
      : startTemporal({ dataDir: opts.dataDir, logDir: opts.logDir, fast: opts.temporalDb === 'fast', uiPort: opts.temporalUiPort ?? null, echo }),
    opts.mongoUri ? Promise.resolve(null) : startFerret({ dataDir: opts.dataDir, logDir: opts.logDir, echo }),
  ]);
  if (temporal) procs.temporal = temporal.proc;
  if (ferret) procs.ferretdb = ferret.proc;
  const temporalAddress = opts.temporalAddress ?? temporal!.address;
  const mongoUri = opts.mongoUri ?? ferret!.uri;

  const sandboxPort = await freePort();
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

  procs.sandbox = forkTs('sandbox', 'sandbox/main.ts', env, opts.logDir, echo);
  await waitFor('gateway sandbox', () => httpOk(`${sandboxUrl}/healthz`), 30_000, procs.sandbox);

  const workerMetrics: { url: string | null } = { url: null };
  const startWorker = async (extraEnv: Record<string, string> = {}) => {
    const p = forkTs('worker', 'worker/main.ts', { ...env, ...extraEnv }, opts.logDir, echo);
    const ready = await waitForMessage(p, 'ready', 90_000);
    workerMetrics.url = `http://127.0.0.1:${String(ready.metricsPort)}/metrics`;
    procs.worker = p;
    return p;
  };
  const startApi = async (extraEnv: Record<string, string> = {}) => {
    const p = forkTs('api', 'api/main.ts', { ...env, ...extraEnv }, opts.logDir, echo);
    await waitForMessage(p, 'listening', 60_000);
    procs.api = p;
    return p;
  };
  await Promise.all([startWorker(), startApi()]);

  const restartTemporal = async () => {
    if (!temporal) throw new Error('this stack uses an external Temporal (temporalAddress); it cannot restart it');
    if (!procs.temporal!.exited) throw new Error('Temporal is still running: stop it first');
    const again = await startTemporal({
      dataDir: opts.dataDir,
      logDir: opts.logDir,
      fast: opts.temporalDb === 'fast',
      uiPort: opts.temporalUiPort ?? null,
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
      for (const name of order) await procs[name]?.stop();
    },
  };
}
