import { spawn } from 'node:child_process';
import path from 'node:path';
import { startCluster, type Cluster } from './cluster';
import { assertPortsFree, ROOT, devSandboxPort } from './stack';

// `npm run dev:cluster`: `npm run dev` on the production-shaped servers: the Temporal server in cluster mode
// and FerretDB, both on PostgreSQL (scripts/cluster.ts), instead of the dev server and FerretDB on SQLite.
// Data is kept under .data/cluster/ (DEV_DATA_DIR names another directory), apart from `npm run dev`'s.
// scripts/dev.ts then runs unchanged with TEMPORAL_ADDRESS and MONGODB_URI pointing at these servers.
// Ctrl-C stops the application first, then the servers. No Temporal UI: the dev server bundles it, the
// cluster does not (`temporal workflow list --address <printed address>` works).

const DATA = process.env.DEV_DATA_DIR ? path.resolve(process.env.DEV_DATA_DIR) : path.join(ROOT, '.data', 'cluster');
let cluster: Cluster | null = null;
let child: ReturnType<typeof spawn> | null = null;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  await cluster?.stop();
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    // A terminal's Ctrl-C reaches dev.ts too; a signal sent to us alone is passed on. The servers stop once it has.
    if (child) return void child.kill(signal);
    if (!stopping) {
      stopping = true;
      void shutdown(130);
    }
  });
}

async function main() {
  // The ports dev.ts will need, before the slow cluster start (it checks them again).
  await assertPortsFree({ 'API, PORT': Number(process.env.PORT ?? 3000), 'gateway sandbox, SANDBOX_PORT': devSandboxPort() });
  const started = Date.now();
  cluster = await startCluster({ dataDir: DATA, logDir: path.join(DATA, 'logs'), fast: false, echo: process.env.DEV_ECHO_LOGS === '1', ...(process.env.TEMPORAL_NAMESPACE ? { namespace: process.env.TEMPORAL_NAMESPACE } : {}) });
  process.stdout.write(`[cluster] ${cluster.describe}: up in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (stopping) return;
  // setpriv: dev.ts gets SIGTERM from the kernel if we are killed outright, and stops its stack as on Ctrl-C.
  child = spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', process.execPath, '--import', 'tsx', path.join(ROOT, 'scripts', 'dev.ts')], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TEMPORAL_ADDRESS: cluster.temporalAddress, MONGODB_URI: cluster.mongoUri, DEV_DATA_DIR: DATA },
  });
  child.on('exit', (code, signal) => void shutdown(code ?? (signal ? 130 : 1)));
}

main().catch(async (err: unknown) => {
  process.stderr.write(`\ndev:cluster could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  await shutdown(1);
});
