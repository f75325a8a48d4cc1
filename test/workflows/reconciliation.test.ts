import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { scheduledWindow, zeroCounts, type ReconcileObjectResult } from '../../domain/reconciliation';
import type { ReconcileObjectInput } from '../../activities/reconciliation';
import { SA } from '../../workflows/search-attributes';
import { RECONCILIATION_WORKFLOW, reconciliationStateQuery, type ReconciliationInput, type ReconciliationRunState } from '../../workflows/reconciliation/messages';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// The reconciliation run in the time-skipping server: one activity per object type in order, the window a
// scheduled run derives from its time, the run's status in PaymentStatus and its summary, and history that
// holds counts only. The comparison itself runs against the real stack in test/integration/reconciliation.test.ts;
// here the activity is a stand-in that answers what a real one returns.

const testEnv = useWorkflowTestEnv();

function tally(object: ReconcileObjectResult['object'], opened: Partial<ReconcileObjectResult['opened']> = {}): ReconcileObjectResult {
  const counts = { ...zeroCounts(), ...opened };
  const n = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    object,
    ledgerRows: 1200,
    reportRows: 1201,
    matched: 1200,
    opened: counts,
    alreadyOpen: 0,
    sample: Array.from({ length: n }, (_, i) => ({ id: `dsc_eu_${object}${i}aaaaaaaa`, kind: 'amount_mismatch' as const, ourId: null, gatewayId: null })),
  };
}

let n = 0;
async function run(input: ReconciliationInput, reconcileObject: (i: ReconcileObjectInput) => Promise<ReconcileObjectResult>, recordAs?: string) {
  n += 1;
  const taskQueue = `rec-${n}-${Date.now()}`;
  const workflowId = `rec_eu_test${n}${Date.now()}`;
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: { reconcileObject } });
  return worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(RECONCILIATION_WORKFLOW, {
      workflowId,
      taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: SA.PaymentStatus, value: 'running' }],
    });
    const outcome = await handle.result().then(
      (r) => ({ ok: true as const, result: r as ReconciliationRunState }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    const described = await handle.describe();
    const state = await handle.query(reconciliationStateQuery);
    const history = await handle.fetchHistory();
    if (recordAs) keepHistory(recordAs, history);
    return { outcome, state, status: described.typedSearchAttributes.get(SA.PaymentStatus), events: history.events?.length ?? 0, workflowId };
  });
}

const manual: ReconciliationInput = {
  trigger: 'manual',
  from: '2026-11-22T00:00:00.000Z',
  to: '2026-11-23T00:00:00.000Z',
  operator: 'amina@ops.example',
  reason: 'test',
  region: 'eu',
  graceSeconds: 900,
};

test('a manual run reconciles captures, refunds and payouts of its window in turn, and says it found discrepancies', async () => {
  const calls: ReconcileObjectInput[] = [];
  const r = await run(
    manual,
    async (i) => {
      calls.push(i);
      return i.object === 'capture' ? tally('capture', { amount_mismatch: 1, missing_in_ledger: 2 }) : i.object === 'payout' ? tally('payout', { status_mismatch: 1 }) : tally('refund');
    },
    'reconciliation-manual-discrepancies',
  );
  expect(calls.map((c) => c.object)).toEqual(['capture', 'refund', 'payout']);
  expect(calls.every((c) => c.from === manual.from && c.to === manual.to && c.graceSeconds === 900 && c.runId === r.workflowId)).toBe(true);
  expect(r.outcome.ok).toBe(true);
  expect(r.state).toMatchObject({ status: 'discrepancies', trigger: 'manual', operator: 'amina@ops.example', window: { from: manual.from, to: manual.to } });
  expect(r.state.opened).toEqual({ missing_at_gateway: 0, missing_in_ledger: 2, amount_mismatch: 1, status_mismatch: 1 });
  expect(r.state.objects.map((o) => o.ledgerRows)).toEqual([1200, 1200, 1200]);
  expect(r.status).toBe('discrepancies');
  // Three activities and the search-attribute upserts: a few dozen events however many rows the window holds.
  expect(r.events).toBeLessThan(40);
});

test('a scheduled run covers the day before its start, and a run that finds nothing is clean', async () => {
  const calls: ReconcileObjectInput[] = [];
  const before = await testEnv().currentTimeMs();
  const r = await run({ trigger: 'schedule', windowSeconds: 86_400, region: 'eu', graceSeconds: 900 }, async (i) => {
    calls.push(i);
    return tally(i.object);
  });
  const expected = scheduledWindow(before, 86_400);
  expect(calls.map((c) => [c.from, c.to])).toEqual([[expected.from, expected.to], [expected.from, expected.to], [expected.from, expected.to]]);
  expect(r.state).toMatchObject({ status: 'clean', trigger: 'schedule', operator: null, window: expected });
  expect(r.status).toBe('clean');
});

test('a run whose report cannot be read fails and says so', async () => {
  const r = await run(manual, async (i) => {
    if (i.object === 'refund') throw ApplicationFailure.nonRetryable('sandbox settlement report answered 500', 'ReportUnavailable');
    return tally(i.object);
  });
  expect(r.outcome.ok).toBe(false);
  expect(r.state.status).toBe('failed');
  expect(r.state.error).toMatch(/settlement report answered 500/);
  expect(r.state.objects.map((o) => o.object)).toEqual(['capture']);
  expect(r.status).toBe('failed');
});
