import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../../scripts/stack';

// One real stack for the whole integration run: Temporal dev server, FerretDB, sandbox, worker, API, on
// free loopback ports with throwaway data. Tests read its addresses from the file named in PAYORCH_STACK.
export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-it-'));
  const started = Date.now();
  const stack = await startStack({
    dataDir: path.join(dir, 'data'),
    logDir: path.join(dir, 'logs'),
    temporalDb: 'fast',
    // Gateway calls time out after 4 s (not 10) so the lost-answer drills run in seconds.
    env: { WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s', LOG_LEVEL: 'info', REGIONS: 'eu,us', GATEWAY_TIMEOUT_MS: '4000' },
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
  };
  const file = path.join(dir, 'stack.json');
  writeFileSync(file, JSON.stringify(info, null, 2));
  process.env.PAYORCH_STACK = file;
  (globalThis as unknown as { __payorchStack: Stack }).__payorchStack = stack;
  process.stdout.write(`\n[integration] stack up in ${Date.now() - started} ms; logs in ${path.join(dir, 'logs')}\n`);
}
