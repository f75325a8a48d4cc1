import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../platform/free-port';
import { SEARCH_ATTRIBUTES } from '../platform/search-attributes';
import { PG_BIN_CANDIDATES, findPgBin as pgBinDir, runAs as pgUser } from '../bench/postgres';
import { installIdIndex } from '../bench/ferretdb-id-index';
import { track, waitFor, type Proc } from './stack';

// The production-shaped stack without Docker: PostgreSQL 15 from the machine, the real Temporal server in
// cluster mode (all four services in one process, as the Helm chart's pods would run them) on it, and
// FerretDB's `postgresql` handler on the same PostgreSQL. `startCluster` hands back the two addresses;
// the sandbox, worker and API are then started by scripts/stack.ts exactly as for the dev server.
// Installed by scripts/cluster-provision.sh (npm run provision:cluster).

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const TOOLS = path.join(ROOT, '.tools');
const BIN = path.join(TOOLS, 'bin');

/**
 * History shards are fixed when the cluster's database is created. The reference config has 4; a shard is
 * the unit of history-service parallelism (one lock per shard), so more shards let more starts run at once.
 * Production clusters use 512 or more; 16 is plenty for one machine.
 */
export const HISTORY_SHARDS = 16;
const DB_USER = 'payorch';
const NAMESPACE_RETENTION = '72h';

export interface ClusterOptions {
  /** Holds PostgreSQL's data directory and Temporal's generated config; kept across starts unless throwaway. */
  dataDir: string;
  logDir: string;
  /** Throwaway data (tests, benchmark): PostgreSQL without fsync, `dataDir` removed at stop. Durable otherwise. */
  fast: boolean;
  namespace?: string;
  echo?: boolean;
}

/** A server of the cluster: scripts/stack.ts's process handle. */
export type ClusterProc = Proc;

export interface Cluster {
  temporalAddress: string;
  mongoUri: string;
  postgresUrl: string;
  describe: string;
  procs: Record<'postgres' | 'temporal' | 'ferretdb', ClusterProc>;
  stop(): Promise<void>;
}

const log = (msg: string) => process.stdout.write(`[cluster] ${msg}\n`);

/**
 * Spawns a server that dies with this process (Linux parent-death signal through util-linux `setpriv`, an
 * exec: the child's pid is the server's), optionally as another user. setpriv sets the death signal after
 * changing the user, so it survives the change.
 */
function spawnServer(bin: string, args: string[], user: ReturnType<typeof pgUser> = null, cwd?: string): ChildProcess {
  const as = user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'] : [];
  return spawn('setpriv', ['--pdeathsig', 'SIGTERM', ...as, '--', bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
}

const tcpOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/**
 * A free loopback port below 32768. Temporal records each service's membership port in a PostgreSQL
 * `smallint`, so the OS's ephemeral ports (32768 and up on Linux) cannot be used for them.
 */
async function lowFreePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port between 20000 and 32000 on 127.0.0.1');
}

async function tool(bin: string, args: string[], what: string): Promise<string> {
  try {
    const { stdout } = await run(bin, args, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${what} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/** `temporal-server` and its schema files from scripts/cluster-provision.sh; a clear message when missing. */
export function clusterTools(): { server: string; sqlTool: string; cli: string; schema: string; ferretdb: string } {
  const t = {
    server: path.join(BIN, 'temporal-server'),
    sqlTool: path.join(BIN, 'temporal-sql-tool'),
    cli: path.join(BIN, 'temporal'),
    ferretdb: path.join(BIN, 'ferretdb'),
    schema: path.join(TOOLS, 'temporal-schema', 'postgresql', 'v12'),
  };
  const missing = Object.entries(t).filter(([, p]) => !existsSync(p)).map(([k]) => k);
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run \`npm run provision:cluster\` (bash scripts/cluster-provision.sh) first`);
  return t;
}

async function startPostgres(opts: ClusterOptions & { pgBin: string }) {
  const user = pgUser();
  const dir = path.join(opts.dataDir, 'postgres');
  const data = path.join(dir, 'data');
  mkdirSync(dir, { recursive: true });
  if (user) chownSync(dir, user.uid, user.gid);
  if (user) {
    try {
      execFileSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', 'test', '-w', dir]);
    } catch {
      throw new Error(`the '${user.name}' user PostgreSQL runs as cannot write ${dir}: make its parent directories traversable (chmod o+x)`);
    }
  }
  const as = (bin: string, args: string[]): [string, string[]] =>
    user ? ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', bin, ...args]] : [bin, args];
  if (!existsSync(path.join(data, 'PG_VERSION'))) {
    const [cmd, args] = as(path.join(opts.pgBin, 'initdb'), ['-D', data, '-U', DB_USER, '--auth=trust', '-E', 'UTF8', '--no-instructions', ...(opts.fast ? ['--no-sync'] : [])]);
    await tool(cmd, args, 'initdb');
  }
  const port = await freePort();
  // Loopback only, trust auth: this is one machine's cluster. Throwaway data skips fsync (as the dev
  // server's test database does); durable data keeps PostgreSQL's defaults.
  const settings = ['listen_addresses=127.0.0.1', 'max_connections=300', 'shared_buffers=128MB', ...(opts.fast ? ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'] : [])];
  const child = spawnServer(path.join(opts.pgBin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, ...settings.flatMap((s) => ['-c', s])], user, dir);
  const proc = track('postgres', child, path.join(opts.logDir, 'postgres.log'), opts.echo ?? false, 15_000);
  await waitFor('PostgreSQL', async () => {
    await run(path.join(opts.pgBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']);
    return true;
  }, 60_000, proc);
  const version = execFileSync(path.join(opts.pgBin, 'postgres'), ['--version']).toString().trim();
  return { proc, port, version, runAs: user?.name ?? null };
}

async function psql(pgBin: string, port: number, sql: string, db = 'postgres'): Promise<string> {
  return (await tool(path.join(pgBin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', DB_USER, '-d', db, '-tAc', sql], `psql ${sql}`)).trim();
}

/** Creates and migrates Temporal's two databases; a database that exists is only brought up to date. */
async function setupTemporalSchema(t: ReturnType<typeof clusterTools>, pgBin: string, pgPort: number): Promise<void> {
  const common = ['--plugin', 'postgres12', '--endpoint', '127.0.0.1', '--port', String(pgPort), '--user', DB_USER, '--password', ''];
  for (const [db, dir] of [['temporal', 'temporal'], ['temporal_visibility', 'visibility']] as const) {
    const exists = (await psql(pgBin, pgPort, `SELECT 1 FROM pg_database WHERE datname = '${db}'`)) === '1';
    const withDb = [...common, '--database', db];
    if (!exists) {
      await tool(t.sqlTool, [...withDb, 'create-database'], `temporal-sql-tool create-database ${db}`);
      await tool(t.sqlTool, [...withDb, 'setup-schema', '-v', '0.0'], `temporal-sql-tool setup-schema ${db}`);
    }
    // Applies only the versions above the one recorded: a no-op on an up-to-date database, an upgrade after a new server.
    await tool(t.sqlTool, [...withDb, 'update-schema', '-d', path.join(t.schema, dir, 'versioned')], `temporal-sql-tool update-schema ${db}`);
  }
}

/** The module's config/development-postgres12.yaml with our ports, our database user and more history shards. */
function temporalConfig(p: { pgPort: number; ports: Record<string, number>; dynamicConfig: string }): string {
  const store = (db: string, conns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "127.0.0.1:${p.pgPort}"
        connectProtocol: "tcp"
        user: "${DB_USER}"
        password: ""
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const svc = (name: string, grpc: number, membership: number, extra = '') => `
  ${name}:
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${extra}`;
  const { ports } = p;
  return `# Generated by scripts/cluster.ts at each start; edits are overwritten.
log:
  stdout: true
  level: warn

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${HISTORY_SHARDS}
  datastores:
    postgres-default:${store('temporal', 40)}
    postgres-visibility:${store('temporal_visibility', 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
  metrics:
    prometheus:
      framework: "tally"
      timerType: "histogram"
      listenAddress: "127.0.0.1:${ports.metrics}"

services:${svc('frontend', ports.frontend!, ports.frontendMembership!, `\n      httpPort: ${ports.frontendHttp}`)}${svc('matching', ports.matching!, ports.matchingMembership!)}${svc('history', ports.history!, ports.historyMembership!)}${svc('worker', ports.worker!, ports.workerMembership!)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"

dcRedirectionPolicy:
  policy: "noop"

dynamicConfigClient:
  filepath: "${p.dynamicConfig}"
  pollInterval: "5s"
`;
}

// Search attributes registered while the server runs are cached by each service for up to a minute. The
// dev server reads them from the database on every use; we do that only while registering (so every
// service sees them at once), then turn it off: the server re-reads this file every 5 s.
const dynamicConfigText = (forceRefresh: boolean) => `# Generated by scripts/cluster.ts.
system.forceSearchAttributesCacheRefreshOnRead:
  - value: ${forceRefresh}
    constraints: {}
`;

async function startTemporalServer(opts: ClusterOptions & { pgPort: number }, t: ReturnType<typeof clusterTools>) {
  const dir = path.join(opts.dataDir, 'temporal');
  mkdirSync(dir, { recursive: true });
  const names = ['frontend', 'frontendMembership', 'frontendHttp', 'matching', 'matchingMembership', 'history', 'historyMembership', 'worker', 'workerMembership', 'metrics'];
  const ports: Record<string, number> = {};
  const taken = new Set<number>();
  for (const n of names) {
    let port = await lowFreePort();
    while (taken.has(port)) port = await lowFreePort();
    taken.add(port);
    ports[n] = port;
  }
  const dynamicConfig = path.join(dir, 'dynamicconfig.yaml');
  writeFileSync(dynamicConfig, dynamicConfigText(true));
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, temporalConfig({ pgPort: opts.pgPort, ports, dynamicConfig }));
  // No authorizer: loopback only. Production puts TLS and an authorizer (or Temporal Cloud's API keys) here.
  const child = spawnServer(t.server, ['--config-file', configFile, '--allow-no-auth', 'start'], null, dir);
  const proc = track('temporal', child, path.join(opts.logDir, 'temporal-server.log'), opts.echo ?? false);
  const address = `127.0.0.1:${ports.frontend}`;
  await waitFor('Temporal server', async () => {
    if (!(await tcpOpen(ports.frontend!))) return false;
    const { Connection } = await import('@temporalio/client');
    const conn = await Connection.connect({ address, connectTimeout: '1s' });
    try {
      // The system namespace exists once the server has finished its own start.
      await conn.workflowService.describeNamespace({ namespace: 'temporal-system' });
      return true;
    } finally {
      await conn.close();
    }
  }, 120_000, proc);
  return { proc, address, dynamicConfig };
}

/** The namespace and the search attributes of platform/search-attributes.ts, through `temporal operator`; idempotent. */
async function registerNamespace(t: ReturnType<typeof clusterTools>, address: string, namespace: string, proc: ClusterProc, dynamicConfigFile: string): Promise<void> {
  const { Connection } = await import('@temporalio/client');
  const conn = await Connection.connect({ address });
  try {
    const exists = await conn.workflowService.describeNamespace({ namespace }).then(() => true, () => false);
    if (!exists) await tool(t.cli, ['operator', 'namespace', 'create', '--address', address, '--namespace', namespace, '--retention', NAMESPACE_RETENTION], 'temporal operator namespace create');
    // A new namespace reaches every service's registry within its refresh interval (2 s).
    let have: Awaited<ReturnType<typeof conn.operatorService.listSearchAttributes>> | null = null;
    await waitFor(`namespace ${namespace}`, async () => Boolean((have = await conn.operatorService.listSearchAttributes({ namespace }))), 30_000, proc);
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (have!.customAttributes ?? {})));
    if (missing.length) {
      const args = ['operator', 'search-attribute', 'create', '--address', address, '--namespace', namespace];
      for (const [name, type] of missing) args.push('--name', name, '--type', type);
      await tool(t.cli, args, 'temporal operator search-attribute create');
    }
    // Queries name every attribute: accepted once the frontend knows them all (see the dynamic config above).
    const query = Object.keys(SEARCH_ATTRIBUTES).map((n) => `${n} IS NULL`).join(' AND ');
    await waitFor('search attributes', async () => (await conn.workflowService.countWorkflowExecutions({ namespace, query }), true), 30_000, proc);
    // The history service's namespace registry refreshes every 2 s on its own: let it see the attributes too.
    if (missing.length || !exists) await new Promise((r) => setTimeout(r, 3000));
    writeFileSync(dynamicConfigFile, dynamicConfigText(false));
  } finally {
    await conn.close();
  }
}

async function startFerretOnPostgres(opts: ClusterOptions & { pgPort: number; pgBin: string }, t: ReturnType<typeof clusterTools>) {
  if ((await psql(opts.pgBin, opts.pgPort, `SELECT 1 FROM pg_database WHERE datname = 'ferretdb'`)) !== '1') await psql(opts.pgBin, opts.pgPort, 'CREATE DATABASE ferretdb');
  const idIndex = installIdIndex({ bin: opts.pgBin, port: opts.pgPort, user: DB_USER, db: 'ferretdb' });
  const port = await freePort();
  const stateDir = path.join(opts.dataDir, 'ferretdb-state');
  mkdirSync(stateDir, { recursive: true });
  const child = spawnServer(t.ferretdb, [
    '--handler=postgresql',
    `--postgresql-url=postgres://${DB_USER}@127.0.0.1:${opts.pgPort}/ferretdb`,
    `--listen-addr=127.0.0.1:${port}`,
    `--state-dir=${stateDir}`,
    '--telemetry=disable',
    '--debug-addr=-',
    '--log-level=warn',
  ]);
  const proc = track('ferretdb', child, path.join(opts.logDir, 'ferretdb-postgresql.log'), opts.echo ?? false);
  await waitFor('FerretDB (postgresql handler)', () => tcpOpen(port), 30_000, proc);
  return { proc, uri: `mongodb://127.0.0.1:${port}/payorch`, idIndex };
}

/**
 * Starts PostgreSQL, Temporal (schema created or migrated, namespace and search attributes registered) and
 * FerretDB. A start that fails stops whatever it had started before rejecting.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const t = clusterTools();
  const pgBin = pgBinDir();
  if (!pgBin) throw new Error(`no PostgreSQL server binaries in ${PG_BIN_CANDIDATES.join(', ')} (Debian: apt-get install postgresql-15)`);
  const namespace = opts.namespace ?? 'default';
  mkdirSync(opts.dataDir, { recursive: true });
  mkdirSync(opts.logDir, { recursive: true });
  const started: ClusterProc[] = [];
  const stopAll = async () => {
    // Clients of PostgreSQL first; SIGINT is its "fast" shutdown (ends sessions, no wait for clients).
    for (const p of started.filter((s) => s.name !== 'postgres').reverse()) await p.stop('SIGTERM');
    for (const p of started.filter((s) => s.name === 'postgres')) await p.stop('SIGINT', 30_000);
    if (opts.fast) rmSync(opts.dataDir, { recursive: true, force: true });
  };
  try {
    let t0 = Date.now();
    const pg = await startPostgres({ ...opts, pgBin });
    started.push(pg.proc);
    log(`${pg.version} on 127.0.0.1:${pg.port}${pg.runAs ? ` as '${pg.runAs}'` : ''} (${Date.now() - t0} ms)`);
    t0 = Date.now();
    await setupTemporalSchema(t, pgBin, pg.port);
    log(`Temporal schema up to date (${Date.now() - t0} ms)`);
    t0 = Date.now();
    const [temporal, ferret] = await Promise.all([
      startTemporalServer({ ...opts, pgPort: pg.port }, t).then((r) => (started.push(r.proc), r)),
      startFerretOnPostgres({ ...opts, pgPort: pg.port, pgBin }, t).then((r) => (started.push(r.proc), r)),
    ]);
    log(`Temporal server ${temporal.address}, FerretDB ${ferret.uri} (${Date.now() - t0} ms)`);
    t0 = Date.now();
    await registerNamespace(t, temporal.address, namespace, temporal.proc, temporal.dynamicConfig);
    log(`namespace '${namespace}' and ${Object.keys(SEARCH_ATTRIBUTES).length} search attributes registered (${Date.now() - t0} ms)`);
    const version = readFileSync(path.join(ROOT, 'scripts', 'cluster-provision.sh'), 'utf8').match(/TEMPORAL_SERVER_VERSION=(\S+)/)?.[1] ?? '?';
    return {
      temporalAddress: temporal.address,
      mongoUri: ferret.uri,
      postgresUrl: `postgres://${DB_USER}@127.0.0.1:${pg.port}/postgres`,
      describe: `Temporal server ${version} (cluster mode, ${HISTORY_SHARDS} history shards) and FerretDB --handler=postgresql on ${pg.version}${opts.fast ? ' (fsync off)' : ''}${ferret.idIndex ? ', GIN index on _id' : ''}`,
      procs: { postgres: pg.proc, temporal: temporal.proc, ferretdb: ferret.proc },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
