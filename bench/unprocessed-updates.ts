// `npm run bench:unprocessed`: how often the server answers an Update `UnprocessedUpdate` (nothing applied;
// api/http/workflow-calls.ts sends it again), by burst size and by whether the handler runs a local activity.
// Starts a Temporal dev server of its own and a worker in this process; one workflow per case, which gets
// BURSTS bursts of N distinct Updates at once, a burst every GAP_MS. Prints one line per case.
// Knobs: UNPROCESSED_BURSTS=20, UNPROCESSED_GAP_MS=100, UNPROCESSED_SIZES=1,2,5,10, UNPROCESSED_LOCAL_MS=30.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { bundleWorkflowCode, makeTelemetryFilterString, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startTemporal } from '../scripts/stack';
import { withLocalActivity, withoutLocalActivity } from './unprocessed-updates-workflows';

const BURSTS = Number(process.env.UNPROCESSED_BURSTS ?? 20);
const GAP_MS = Number(process.env.UNPROCESSED_GAP_MS ?? 100);
const SIZES = (process.env.UNPROCESSED_SIZES ?? '1,2,5,10').split(',').map(Number);
const LOCAL_MS = Number(process.env.UNPROCESSED_LOCAL_MS ?? 30);
const TASK_QUEUE = 'unprocessed-updates';

/** The SDK core's complaints, counted (its log is forwarded here, not printed). */
const coreSaid = new Map<string, number>();
const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function main() {
  const count = (message: string) => {
    for (const known of ['unprocessed protocol messages', 'a new WFT for a run which already has one', 'Task not found when completing'])
      if (message.includes(known)) coreSaid.set(known, (coreSaid.get(known) ?? 0) + 1);
  };
  Runtime.install({
    logger: { ...quiet, log: (_level: string, message: string) => count(message), warn: (message: string) => count(message), error: (message: string) => count(message) },
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} } },
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-unprocessed-'));
  const server = await startTemporal({ dataDir: dir, logDir: dir, fast: true, uiPort: null });
  try {
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./unprocessed-updates-workflows'), logger: quiet });
    const native = await NativeConnection.connect({ address: server.address });
    const worker = await Worker.create({
      connection: native,
      taskQueue: TASK_QUEUE,
      workflowBundle: { code },
      activities: { pause: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) },
    });
    console.log(`Temporal dev server (CLI) and an SDK worker in this process; ${BURSTS} bursts per case, one every ${GAP_MS} ms; the local activity pauses ${LOCAL_MS} ms`);
    await worker.runUntil(async () => {
      for (const update of [withLocalActivity, withoutLocalActivity]) {
        for (const size of SIZES) {
          coreSaid.clear();
          const handle = await client.workflow.start('updateTargetWorkflow', { taskQueue: TASK_QUEUE, workflowId: `target-${update.name}-${size}-${Date.now()}` });
          const sent: Promise<'applied' | 'unprocessed' | 'other'>[] = [];
          for (let b = 0; b < BURSTS; b++) {
            for (let i = 0; i < size; i++)
              sent.push(
                handle.executeUpdate(update, { args: [LOCAL_MS] }).then(
                  () => 'applied' as const,
                  (err: unknown) =>
                    err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'UnprocessedUpdate' ? ('unprocessed' as const) : ('other' as const),
                ),
              );
            await new Promise((r) => setTimeout(r, GAP_MS));
          }
          const outcomes = await Promise.all(sent);
          const n = (k: string) => outcomes.filter((o) => o === k).length;
          console.log(
            `  ${update.name.padEnd(21)} bursts of ${String(size).padStart(2)}: ${String(n('unprocessed')).padStart(3)} of ${outcomes.length} UnprocessedUpdate (${((100 * n('unprocessed')) / outcomes.length).toFixed(1)}%), ${n('applied')} applied, ${n('other')} other`,
          );
          if (coreSaid.size) console.log(`      the SDK core logged: ${[...coreSaid].map(([k, v]) => `"${k}" ${v}x`).join(', ')}`);
          await handle.terminate('bench done');
        }
      }
    });
    await connection.close();
    await native.close();
  } finally {
    server.proc.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  // The SDK's runtime keeps the process alive after its last worker stopped.
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
