import { Worker } from '@temporalio/worker';
import type { StrandedSweepRequest, StrandedSweepResult } from '../../activities/stranded-records';
import type { StrandedKind } from '../../domain/stranded-kinds';
import { SA } from '../../workflows/search-attributes';
import { STRANDED_SWEEP_WORKFLOW, type StrandedSweepOutcome } from '../../workflows/stranded-sweep/messages';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// The stranded-records sweep's run in the time-skipping server: kind by kind, batches until one finds less
// than a full batch or takes nothing back; the totals, the first ids named, and PaymentStatus. The activity's
// own work (version-0 records, Temporal's answer, the delete) runs on the real stack in
// test/integration/stranded-records.test.ts; here it is a stand-in that answers as a backlog would.

const testEnv = useWorkflowTestEnv();

const none: StrandedSweepResult = { found: 0, takenBack: [], kept: 0, unknown: 0 };

let n = 0;
async function run(batches: Partial<Record<StrandedKind, StrandedSweepResult[]>>, recordAs?: string) {
  n += 1;
  const taskQueue = `stranded-${n}-${Date.now()}`;
  const asked: StrandedSweepRequest[] = [];
  const sweepStrandedRecords = async (req: StrandedSweepRequest) => {
    const k = asked.filter((a) => a.kind === req.kind).length;
    asked.push(req);
    return batches[req.kind]?.[k] ?? none;
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: { sweepStrandedRecords } });
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
const clean = { found: 0, takenBack: 0, kept: 0, unknown: 0, named: [] };

test('a backlog is swept in full batches until one comes back short, intents then payouts; totals add up and the first 20 ids are named', async () => {
  const r = await run(
    {
      payment_intent: [
        { found: 200, takenBack: ids('a', 198), kept: 2, unknown: 0 },
        { found: 200, takenBack: ids('b', 200), kept: 0, unknown: 0 },
        { found: 37, takenBack: ids('c', 35), kept: 2, unknown: 0 },
        { found: 200, takenBack: ids('d', 200), kept: 0, unknown: 0 }, // never asked: the third batch was short
      ],
      payout: [{ found: 1, takenBack: ['5b7c3a4e-0000-4000-8000-000000000001'], kept: 0, unknown: 0 }],
    },
    'stranded-sweep-backlog-taken-back',
  );
  expect(r.asked.map((a) => a.kind)).toEqual(['payment_intent', 'payment_intent', 'payment_intent', 'payout']);
  expect(r.asked.every((a) => a.olderThanSeconds === 300 && a.limit === 200)).toBe(true);
  expect(r.outcome).toEqual({
    payment_intent: { found: 437, takenBack: 433, kept: 4, unknown: 0, named: ids('a', 20) },
    payout: { found: 1, takenBack: 1, kept: 0, unknown: 0, named: ['5b7c3a4e-0000-4000-8000-000000000001'] },
  });
  expect(r.status).toBe('taken_back');
});

test('a full batch with nothing taken back (every workflow exists, or Temporal did not answer) ends that kind: it would only be found again', async () => {
  const r = await run({
    payment_intent: [
      { found: 200, takenBack: [], kept: 150, unknown: 50 },
      { found: 200, takenBack: ids('x', 200), kept: 0, unknown: 0 },
    ],
  });
  expect(r.asked.map((a) => a.kind)).toEqual(['payment_intent', 'payout']);
  expect(r.outcome).toEqual({ payment_intent: { found: 200, takenBack: 0, kept: 150, unknown: 50, named: [] }, payout: clean });
  expect(r.status).toBe('clean');
});
