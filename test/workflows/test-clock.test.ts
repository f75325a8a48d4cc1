import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TestClockWrite } from '../../activities/test-clocks';
import {
  advanceClockUpdate,
  CLOCK_CATCH_UP_WAIT_MS,
  clockCaughtUpSignal,
  clockStateQuery,
  deleteClockUpdate,
  TEST_CLOCK_WORKFLOW,
  type TestClockInput,
  type TestClockState,
} from '../../workflows/test-clock/messages';
import { expectRising, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';

// A test clock's workflow on the time-skipping server, with fake activities: an advance admitted (or refused
// while one runs, or backwards), the subscriptions on the clock told the new time and waited for, a missing
// subscription workflow counted as ended, a subscription that never answers given up on after the wait, the
// delete, and the hand-over to a new run. Only the bundle's workflows can run, so a subscription is a stand-in:
// another running workflow under the subscription's id (it keeps the clock's signal unhandled, which Temporal
// allows), and the test sends its `clockCaughtUp` itself.

const testEnv = useWorkflowTestEnv();

const TENANT = 'ten_eu_t';
const T0 = Date.UTC(2026, 7, 14, 9); // 14 August 2026, 09:00 UTC
const MONTH_LATER = Date.UTC(2026, 8, 14, 9);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Recording fakes of the clock's activities; `subscriptions` is what the listing answers. */
function fakes(subscriptions: string[] = []) {
  const rec = { writes: [] as TestClockWrite[], listings: 0 };
  const activities = {
    saveTestClock: async (w: TestClockWrite) => {
      rec.writes.push(w);
    },
    subscriptionsOnClock: async (q: { tenantId: string; clock: string }) => {
      expect(q.tenantId).toBe(TENANT);
      rec.listings += 1;
      return subscriptions;
    },
  };
  return { rec, activities };
}

let n = 0;

/** Runs `fn` with a worker for the bundle's workflows and the fakes, on a task queue of its own. */
async function withWorker<T>(activities: object, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  n += 1;
  const taskQueue = `test-clock-${n}`;
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  return worker.runUntil(() => fn(taskQueue));
}

async function startClock(taskQueue: string, extra: Partial<TestClockInput> = {}): Promise<WorkflowHandle> {
  n += 1;
  const id = `clock_eu_test${n}`;
  const input: TestClockInput = { id, tenantId: TENANT, frozenTime: T0, ...extra };
  return testEnv().client.workflow.start(TEST_CLOCK_WORKFLOW, { workflowId: id, taskQueue, args: [input] });
}

/** A running workflow under a subscription's id: the clock's signal reaches it (and stays unhandled). */
async function standInSubscription(taskQueue: string, id: string): Promise<WorkflowHandle> {
  const input: TestClockInput = { id, tenantId: TENANT, frozenTime: 0 };
  return testEnv().client.workflow.start(TEST_CLOCK_WORKFLOW, { workflowId: id, taskQueue, args: [input] });
}

/** The `clockAdvanced` signals a workflow received, in order. */
async function advancedSignals(handle: WorkflowHandle): Promise<{ clock: string; frozenTime: number }[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'clockAdvanced')
    .map((a) => defaultPayloadConverter.fromPayload(a!.input!.payloads![0]!));
}

const stateOf = (h: WorkflowHandle): Promise<TestClockState> => h.query(clockStateQuery);
const advance = (h: WorkflowHandle, frozenTime: number) => h.executeUpdate(advanceClockUpdate, { args: [{ frozenTime }] });

async function refusal(p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return (err as WorkflowUpdateFailedError & { cause: { type?: string } }).cause.type;
}

test('an advance with no subscriptions: admitted as advancing, then ready at the new time, written in order', async () => {
  const f = fakes();
  await withWorker(f.activities, async (taskQueue) => {
    const clock = await startClock(taskQueue);
    expect(await stateOf(clock)).toEqual({ frozenTime: T0, status: 'ready', deleted: false });
    expect(await advance(clock, MONTH_LATER)).toEqual({ frozenTime: T0, status: 'advancing', deleted: false });
    // The Update answered once its write was done: the record says advancing already.
    expect(f.rec.writes[0]).toEqual({ tenantId: TENANT, id: clock.workflowId, frozenTime: T0, status: 'advancing', deleted: false, version: expect.any(Number) });
    await waitFor(async () => (await stateOf(clock)).status === 'ready');
    expect(await stateOf(clock)).toEqual({ frozenTime: MONTH_LATER, status: 'ready', deleted: false });
    // The record was ready before the query said so.
    expect(f.rec.writes).toEqual([
      { tenantId: TENANT, id: clock.workflowId, frozenTime: T0, status: 'advancing', deleted: false, version: expect.any(Number) },
      { tenantId: TENANT, id: clock.workflowId, frozenTime: MONTH_LATER, status: 'ready', deleted: false, version: expect.any(Number) },
    ]);
    expectRising(f.rec.writes.map((w) => w.version));
    expect(f.rec.listings).toBe(1);
    await clock.terminate('test done');
  });
});

test('refused: a time not after the clock, and a second advance while one runs', async () => {
  const sub = 'sub_eu_refusals';
  const f = fakes([sub]);
  await withWorker(f.activities, async (taskQueue) => {
    const standIn = await standInSubscription(taskQueue, sub);
    const clock = await startClock(taskQueue);
    expect(await refusal(advance(clock, T0))).toBe('test_clock_time_backwards');
    expect(await refusal(advance(clock, T0 - 1000))).toBe('test_clock_time_backwards');
    expect(f.rec.writes).toEqual([]); // a refused request writes nothing

    expect((await advance(clock, MONTH_LATER)).status).toBe('advancing');
    await waitFor(async () => (await advancedSignals(standIn)).length === 1);
    expect(await refusal(advance(clock, MONTH_LATER + 1000))).toBe('test_clock_advancing');
    expect(await stateOf(clock)).toEqual({ frozenTime: T0, status: 'advancing', deleted: false });

    await clock.signal(clockCaughtUpSignal, { subscription: sub, frozenTime: MONTH_LATER, ended: false });
    await waitFor(async () => (await stateOf(clock)).status === 'ready');
    expect(await refusal(advance(clock, MONTH_LATER))).toBe('test_clock_time_backwards');
    await Promise.all([clock.terminate('test done').catch(() => undefined), standIn.terminate('test done').catch(() => undefined)]);
  });
});

test('a subscription on the clock is told the target and waited for until it caught up to it', async () => {
  const [a, b] = ['sub_eu_waitA', 'sub_eu_waitB'];
  const f = fakes([a, b]);
  await withWorker(f.activities, async (taskQueue) => {
    const standInA = await standInSubscription(taskQueue, a);
    const standInB = await standInSubscription(taskQueue, b);
    const clock = await startClock(taskQueue);
    const year = Date.UTC(2027, 7, 14, 9);
    await advance(clock, year);
    // One signal each, straight to the target.
    await waitFor(async () => (await advancedSignals(standInA)).length === 1 && (await advancedSignals(standInB)).length === 1);
    expect(await advancedSignals(standInA)).toEqual([{ clock: clock.workflowId, frozenTime: year }]);
    expect(await advancedSignals(standInB)).toEqual([{ clock: clock.workflowId, frozenTime: year }]);

    // Caught up only part of the way: still waiting. Someone the clock does not wait for: ignored.
    await clock.signal(clockCaughtUpSignal, { subscription: a, frozenTime: MONTH_LATER, ended: false });
    await clock.signal(clockCaughtUpSignal, { subscription: 'sub_eu_stranger', frozenTime: year, ended: false });
    await clock.signal(clockCaughtUpSignal, { subscription: b, frozenTime: year, ended: false });
    await pause(300);
    expect(await stateOf(clock)).toEqual({ frozenTime: T0, status: 'advancing', deleted: false });
    expect(f.rec.writes.map((w) => w.status)).toEqual(['advancing']);

    // A caught up (past the target counts too): ready at the target.
    await clock.signal(clockCaughtUpSignal, { subscription: a, frozenTime: year + 1, ended: false });
    await waitFor(async () => (await stateOf(clock)).status === 'ready');
    expect(await stateOf(clock)).toEqual({ frozenTime: year, status: 'ready', deleted: false });
    expect(f.rec.writes.map((w) => w.status)).toEqual(['advancing', 'ready']);
    expect(f.rec.writes.at(-1)).toMatchObject({ frozenTime: year, status: 'ready' });
    expectRising(f.rec.writes.map((w) => w.version));
    keepHistory('test-clock-advanced-two-caught-up', await clock.fetchHistory());
    await Promise.all([clock.terminate('test done').catch(() => undefined), standInA.terminate('test done').catch(() => undefined), standInB.terminate('test done').catch(() => undefined)]);
  });
});

test('a subscription that ended is not waited for: said so, or its workflow is gone', async () => {
  const [ending, gone] = ['sub_eu_ending', 'sub_eu_gone_never_started'];
  const f = fakes([ending, gone]);
  await withWorker(f.activities, async (taskQueue) => {
    const standIn = await standInSubscription(taskQueue, ending);
    const clock = await startClock(taskQueue);
    await advance(clock, MONTH_LATER);
    await waitFor(async () => (await advancedSignals(standIn)).length === 1);
    // The signal to the missing workflow failed: that one counts as ended; the other ends while the clock waits.
    expect((await stateOf(clock)).status).toBe('advancing');
    await clock.signal(clockCaughtUpSignal, { subscription: ending, frozenTime: T0 + 5000, ended: true });
    await waitFor(async () => (await stateOf(clock)).status === 'ready');
    expect((await stateOf(clock)).frozenTime).toBe(MONTH_LATER);

    // Next advance: the one that said it ended is not told again; the missing one fails again, ready at once.
    await advance(clock, MONTH_LATER + 60_000);
    await waitFor(async () => (await stateOf(clock)).status === 'ready');
    expect(await advancedSignals(standIn)).toHaveLength(1);
    expect((await stateOf(clock)).frozenTime).toBe(MONTH_LATER + 60_000);
    await Promise.all([clock.terminate('test done').catch(() => undefined), standIn.terminate('test done').catch(() => undefined)]);
  });
});

test('a subscription that never answers does not wedge the clock: ready after the wait', async () => {
  const silent = 'sub_eu_silent';
  const f = fakes([silent]);
  await withWorker(f.activities, async (taskQueue) => {
    const standIn = await standInSubscription(taskQueue, silent);
    const clock = await startClock(taskQueue);
    await advance(clock, MONTH_LATER);
    await waitFor(async () => (await advancedSignals(standIn)).length === 1);
    await testEnv().sleep(CLOCK_CATCH_UP_WAIT_MS - 60_000);
    expect((await stateOf(clock)).status).toBe('advancing');
    await testEnv().sleep(2 * 60_000);
    await waitFor(async () => (await stateOf(clock)).status === 'ready');
    expect(await stateOf(clock)).toEqual({ frozenTime: MONTH_LATER, status: 'ready', deleted: false });
    await Promise.all([clock.terminate('test done').catch(() => undefined), standIn.terminate('test done').catch(() => undefined)]);
  });
});

test('delete, even while advancing: the record is removed, its subscriptions are told, and the workflow ends', async () => {
  const silent = 'sub_eu_delete';
  const f = fakes([silent]);
  await withWorker(f.activities, async (taskQueue) => {
    const standIn = await standInSubscription(taskQueue, silent);
    const clock = await startClock(taskQueue);
    await advance(clock, MONTH_LATER);
    await waitFor(async () => (await advancedSignals(standIn)).length === 1);
    expect(await clock.executeUpdate(deleteClockUpdate)).toEqual({ frozenTime: T0, status: 'advancing', deleted: true });
    expect(f.rec.writes.at(-1)).toEqual({ tenantId: TENANT, id: clock.workflowId, frozenTime: T0, status: 'advancing', deleted: true, version: expect.any(Number) });
    expectRising(f.rec.writes.map((w) => w.version));
    await clock.result();
    expect(f.rec.writes).toHaveLength(2); // nothing after the delete
    // The subscription on the clock is told to cancel now: its time never moves again.
    const told = ((await standIn.fetchHistory()).events ?? []).map((e) => e.workflowExecutionSignaledEventAttributes).filter((a) => a?.signalName === 'clockDeleted');
    expect(told.map((a) => defaultPayloadConverter.fromPayload(a!.input!.payloads![0]!))).toEqual([{ clock: clock.workflowId }]);
    await standIn.terminate('test done').catch(() => undefined);
  });
});

test('continues as new when its history is long, carrying its time and record version', async () => {
  const f = fakes();
  await withWorker(f.activities, async (taskQueue) => {
    const clock = await startClock(taskQueue, { carried: { frozenTime: T0 + 1000, version: 7 } });
    expect((await stateOf(clock)).frozenTime).toBe(T0 + 1000);
    const firstRun = (await clock.describe()).runId;
    let t = T0 + 1000;
    for (let i = 0; i < 110; i++) {
      t += 86_400_000;
      await advance(clock, t);
      await waitFor(async () => (await stateOf(clock)).status === 'ready');
    }
    const latest = testEnv().client.workflow.getHandle(clock.workflowId);
    expect((await latest.describe()).runId).not.toBe(firstRun);
    expect(await stateOf(latest)).toEqual({ frozenTime: t, status: 'ready', deleted: false });
    // Versions go on above the carried one, each write above the last, across the runs.
    expect(f.rec.writes).toHaveLength(220);
    expectRising(f.rec.writes.map((w) => w.version), 7);
    expect(f.rec.writes.at(-1)).toMatchObject({ frozenTime: t, status: 'ready' });
    await latest.terminate('test done');
  });
}, 120_000);
