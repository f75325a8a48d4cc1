import { Worker } from '@temporalio/worker';
import type { StrandedSweepRequest, StrandedSweepResult } from '../../activities/stranded-records';
import { SA } from '../../workflows/search-attributes';
import { STRANDED_SWEEP_WORKFLOW, type StrandedSweepOutcome } from '../../workflows/stranded-sweep/messages';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// The stranded-records sweep's run in the time-skipping server: batches until one finds less than a full
// batch or takes nothing back, the totals, the first ids named, and PaymentStatus. The activity's own work
// (version-0 records, Temporal's answer, the delete) runs on the real stack in
// test/integration/stranded-intents.test.ts; here it is a stand-in that answers as a backlog would.

const testEnv = useWorkflowTestEnv();

let n = 0;
async function run(batches: StrandedSweepResult[], recordAs?: string) {
  n += 1;
  const taskQueue = `stranded-${n}-${Date.now()}`;
  const asked: StrandedSweepRequest[] = [];
  const sweepStrandedIntents = async (req: StrandedSweepRequest) => {
    asked.push(req);
    return batches[asked.length - 1] ?? { found: 0, takenBack: [], kept: 0, unknown: 0 };
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: { sweepStrandedIntents } });
  return worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(STRANDED_SWEEP_WORKFLOW, {
      workflowId: `stranded-sweep-${n}-${Date.now()}`,
      taskQueue,
      args: [{ olderThanSeconds: 300 }],
      typedSearchAttributes: [{ key: SA.PaymentStatus, value: 'running' }],
    });
    const outcome = (await handle.result()) as StrandedSweepOutcome;
    const described = await handle.describe();
    if (recordAs) keepHistory(recordAs, await handle.fetchHistory());
    return { outcome, asked, status: described.typedSearchAttributes.get(SA.PaymentStatus) };
  });
}

const ids = (prefix: string, k: number) => Array.from({ length: k }, (_, i) => `pi_eu_${prefix}${String(i).padStart(4, '0')}`);

test('a backlog is swept in full batches until one comes back short; totals add up and the first 20 ids are named', async () => {
  const r = await run(
    [
      { found: 200, takenBack: ids('a', 198), kept: 2, unknown: 0 },
      { found: 200, takenBack: ids('b', 200), kept: 0, unknown: 0 },
      { found: 37, takenBack: ids('c', 35), kept: 2, unknown: 0 },
      { found: 200, takenBack: ids('d', 200), kept: 0, unknown: 0 }, // never asked: the third batch was short
    ],
    'stranded-sweep-backlog-taken-back',
  );
  expect(r.asked).toEqual([1, 2, 3].map(() => ({ olderThanSeconds: 300, limit: 200 })));
  expect(r.outcome).toEqual({ found: 437, takenBack: 433, kept: 4, unknown: 0, named: ids('a', 20) });
  expect(r.status).toBe('taken_back');
});

test('a full batch with nothing taken back (every workflow exists, or Temporal did not answer) ends the run: it would only be found again', async () => {
  const r = await run([
    { found: 200, takenBack: [], kept: 150, unknown: 50 },
    { found: 200, takenBack: ids('x', 200), kept: 0, unknown: 0 },
  ]);
  expect(r.asked).toHaveLength(1);
  expect(r.outcome).toEqual({ found: 200, takenBack: 0, kept: 150, unknown: 50, named: [] });
  expect(r.status).toBe('clean');
});
