import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../../scripts/stack';
import { startCluster, type Cluster } from '../../scripts/cluster';

// One real stack for the whole integration run: Temporal dev server, FerretDB, sandbox, worker, API, on
// free loopback ports with throwaway data. Tests read its addresses from the file named in PAYORCH_STACK.
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-it-'));
  const started = Date.now();
  // PAYORCH_IT_STACK=cluster (npm run test:cluster): the Temporal server in cluster mode and FerretDB, both on
  // PostgreSQL (scripts/cluster.ts), instead of the dev server and FerretDB on SQLite. The rest is the same.
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to reach its directory in ours.
  if (process.env.PAYORCH_IT_STACK === 'cluster') chmodSync(dir, 0o711);
  const cluster: Cluster | null =
    process.env.PAYORCH_IT_STACK === 'cluster' ? await startCluster({ dataDir: path.join(dir, 'cluster'), logDir: path.join(dir, 'logs'), fast: true }) : null;
  (globalThis as unknown as { __payorchCluster: Cluster | null }).__payorchCluster = cluster;
  const stack = await startStack({
    ...(cluster ? { temporalAddress: cluster.temporalAddress, mongoUri: cluster.mongoUri } : {}),
    dataDir: path.join(dir, 'data'),
    logDir: path.join(dir, 'logs'),
    temporalDb: 'fast',
    // Gateway calls time out after 4 s (not 10) so the lost-answer drills run in seconds.
    env: { WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s', LOG_LEVEL: 'info', REGIONS: 'eu,us', GATEWAY_TIMEOUT_MS: '4000' },
  }).catch(async (err: unknown) => {
    await cluster?.stop();
    throw err;
  });
  const info = {
    dir,
    apiUrl: stack.apiUrl,
    adminToken: stack.adminToken,
    sandboxUrl: stack.sandboxUrl,
    mongoUri: stack.mongoUri,
    temporalAddress: stack.temporalAddress,
    env: stack.env,
    workerMetricsUrl: stack.workerMetricsUrl,
    pids: Object.fromEntries(Object.entries(stack.procs).map(([k, p]) => [k, p.child.pid])),
    ...(cluster ? { cluster: cluster.describe } : {}),
  };
  const file = path.join(dir, 'stack.json');
  writeFileSync(file, JSON.stringify(info, null, 2));
  process.env.PAYORCH_STACK = file;
  (globalThis as unknown as { __payorchStack: Stack }).__payorchStack = stack;
  process.stdout.write(`\n[integration] ${cluster ? `${cluster.describe}; ` : ''}stack up in ${Date.now() - started} ms; logs in ${path.join(dir, 'logs')}\n`);
}
