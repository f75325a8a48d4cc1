import { execFileSync, spawn } from 'node:child_process';
import { chownSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, TOOLS, waitFor, type Proc } from '../scripts/stack';
import { installIdIndex } from './ferretdb-id-index';

// A throwaway PostgreSQL cluster with FerretDB's `postgresql` handler in front of it, for the benchmark.
// Like the Temporal 'fast' database it skips fsync: the data is thrown away, only speed matters.
// PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user (or `nobody`)
// and every binary runs through `setpriv` (an exec, no wrapper process: the child's pid is postgres').

export const PG_BIN_CANDIDATES = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];
export const PG_SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200', 'shared_buffers=128MB'];

export interface PgFerret {
  /** MongoDB URI of FerretDB (postgresql handler). */
  uri: string;
  /** What the database is, for the report. */
  describe: string;
  pids: { postgres: number; ferretdb: number };
  /** Runs SQL through psql in FerretDB's database and answers its unaligned output. */
  psql(sql: string): string;
  stop(): Promise<void>;
}

export function findPgBin(): string | null {
  return PG_BIN_CANDIDATES.find((d) => existsSync(path.join(d, 'postgres')) && existsSync(path.join(d, 'initdb'))) ?? null;
}

/** uid/gid to run PostgreSQL as: ourselves when not root, else `postgres` or `nobody`. */
export function runAs(): { uid: number; gid: number; name: string } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
      if (Number.isInteger(uid) && uid > 0) return { uid, gid, name };
    } catch {
      /* no such user */
    }
  }
  throw new Error('running as root and neither a postgres nor a nobody user exists to own the cluster');
}

function command(user: ReturnType<typeof runAs>, bin: string, args: string[]): [string, string[]] {
  if (!user) return [bin, args];
  return ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', bin, ...args]];
}

function stopChild(child: ReturnType<typeof spawn>, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill(signal);
  });
}

export async function startPgFerret(opts: { logDir: string; baseDir?: string }): Promise<PgFerret> {
  const bin = findPgBin();
  if (!bin) throw new Error(`no PostgreSQL binaries in ${PG_BIN_CANDIDATES.join(', ')}`);
  const user = runAs();
  const dir = mkdtempSync(path.join(opts.baseDir ?? os.tmpdir(), 'payorch-bench-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const dbUser = 'bench';
  const [initCmd, initArgs] = command(user, path.join(bin, 'initdb'), ['-D', data, '-U', dbUser, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  execFileSync(initCmd, initArgs, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

  const pgPort = await freePort();
  const settings = PG_SETTINGS.flatMap((s) => ['-c', s]);
  const [pgCmd, pgArgs] = command(user, path.join(bin, 'postgres'), ['-D', data, '-p', String(pgPort), '-k', dir, '-c', 'listen_addresses=127.0.0.1', ...settings]);
  const pgLog = path.join(opts.logDir, 'postgres.log');
  const pg = spawn(pgCmd, pgArgs, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgOut = createWriteStream(pgLog, { flags: 'a' });
  pg.stdout!.pipe(pgOut);
  pg.stderr!.pipe(pgOut);
  const pgProc = { exited: false, exitCode: null as number | null, logFile: pgLog, tail: () => readFileSync(pgLog, 'utf8').split('\n').slice(-20).join('\n') };
  pg.on('exit', (code) => ((pgProc.exited = true), (pgProc.exitCode = code)));
  const isReady = () => {
    try {
      execFileSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(pgPort), '-q']);
      return true;
    } catch {
      return false;
    }
  };
  await waitFor('PostgreSQL', async () => isReady(), 30_000, pgProc as unknown as Proc);
  const version = execFileSync(path.join(bin, 'postgres'), ['--version']).toString().trim();
  const idIndex = installIdIndex({ bin, port: pgPort, user: dbUser, db: 'postgres' });

  const ferretPort = await freePort();
  const ferretLog = path.join(opts.logDir, 'ferretdb-postgresql.log');
  const stateDir = path.join(dir, 'ferretdb-state');
  mkdirSync(stateDir, { recursive: true });
  const ferret = spawn(
    path.join(TOOLS, 'ferretdb'),
    [
      '--handler=postgresql',
      `--postgresql-url=postgres://${dbUser}@127.0.0.1:${pgPort}/postgres`,
      `--listen-addr=127.0.0.1:${ferretPort}`,
      `--state-dir=${stateDir}`,
      '--telemetry=disable',
      '--debug-addr=-',
      '--log-level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const fOut = createWriteStream(ferretLog, { flags: 'a' });
  ferret.stdout!.pipe(fOut);
  ferret.stderr!.pipe(fOut);
  const fProc = { exited: false, exitCode: null as number | null, logFile: ferretLog, tail: () => readFileSync(ferretLog, 'utf8').split('\n').slice(-20).join('\n') };
  ferret.on('exit', (code) => ((fProc.exited = true), (fProc.exitCode = code)));
  await waitFor(
    'FerretDB (postgresql handler)',
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(ferretPort, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
      }),
    30_000,
    fProc as unknown as Proc,
  );

  return {
    uri: `mongodb://127.0.0.1:${ferretPort}/payorch`,
    describe: `FerretDB 1.24.2 --handler=postgresql on ${version} (throwaway cluster${user ? ` run as '${user.name}'` : ''}; ${PG_SETTINGS.join(', ')}; ${idIndex ? 'GIN index on _id' : 'no GIN index on _id'})`,
    pids: { postgres: pg.pid!, ferretdb: ferret.pid! },
    psql: (sql) => execFileSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(pgPort), '-U', dbUser, '-d', 'postgres', '-tAc', sql]).toString().trim(),
    stop: async () => {
      await stopChild(ferret, 'SIGTERM', 5000);
      // SIGINT is PostgreSQL's "fast" shutdown: backends are ended, no checkpoint wait for clients.
      await stopChild(pg, 'SIGINT', 10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
