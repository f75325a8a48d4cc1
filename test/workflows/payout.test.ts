import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { PayoutOutcome } from '../../gateways/types';
import type { PayoutPatch } from '../../activities/payouts';
import { PAYOUT_WORKFLOW, payoutInitiatedUpdate, payoutOutcomeSignal, type PayoutInput, type PayoutSnapshot } from '../../workflows/payout/messages';
import { pollCapMs } from '../../domain/polling';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';
import { payoutInput } from './payout-fixtures';

// The payout workflow in virtual time: each sub-status path, its window to the second, a lost answer, and
// restarts around the gateway call. The gateway is a fake that keeps one transfer per idempotency key, as a
// real gateway does, and counts how often it was asked to make one.

const testEnv = useWorkflowTestEnv({ perTest: true });

interface FakeGateway {
  /** What a transfer request (or a later question) is answered while the transfer is open. */
  initiation: PayoutOutcome;
  /** What the gateway says when asked about an existing transfer. */
  status: () => PayoutOutcome;
  cancel: () => PayoutOutcome;
}

function fakes(g: FakeGateway) {
  const rec = {
    patches: [] as PayoutPatch[],
    events: [] as string[],
    webhookBodies: [] as Record<string, unknown>[],
    /** Transfer requests received, and transfers made, per idempotency key. */
    requests: 0,
    transfers: new Map<string, number>(),
    finds: 0,
    cancels: 0,
  };
  const activities = {
    initiatePayout: async (req: { idempotencyKey: string }) => {
      rec.requests += 1;
      if (!rec.transfers.has(req.idempotencyKey)) rec.transfers.set(req.idempotencyKey, 1);
      return g.initiation;
    },
    findPayout: async (req: { idempotencyKey: string }) => {
      rec.finds += 1;
      return rec.transfers.has(req.idempotencyKey) ? g.status() : { status: 'not_found' };
    },
    cancelPayout: async () => {
      rec.cancels += 1;
      return g.cancel();
    },
    savePayout: async (p: PayoutPatch) => {
      rec.patches.push(p);
      return 'applied';
    },
    recordEvent: async (e: { type: string; body: string }) => {
      rec.events.push(e.type);
      rec.webhookBodies.push(JSON.parse(e.body));
    },
  };
  return { rec, activities };
}

/**
 * With RECORD_HISTORIES=1, a run's history is kept as a fixture that test/workflows/replay-recorded-histories
 * replays against later code (`npx jest test/workflows/payout.test.ts` with the variable set).
 */
function keep(name: string | undefined, history: temporal.api.history.v1.IHistory) {
  if (name) keepHistory(`payout-${name}`, history);
}

let queues = 0;
interface RunOptions {
  /** Keep the run's history as this fixture. */
  recordAs?: string;
}

async function run(timeoutSeconds: number, activities: object, during: (h: any, inp: PayoutInput) => Promise<void> = async () => undefined, opts: RunOptions = {}) {
  const taskQueue = `po-${++queues}-${Date.now()}`;
  const inp = payoutInput(timeoutSeconds, new Date(await testEnv().currentTimeMs()));
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  const runs: number[] = [];
  let result!: PayoutSnapshot;
  await worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(PAYOUT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const done = handle.result();
    await during(handle, inp);
    result = await done;
    await keep(opts.recordAs, await handle.fetchHistory());
    let runId: string | undefined = handle.firstExecutionRunId;
    while (runId) {
      const events: any[] = (await testEnv().client.workflow.getHandle(inp.id, runId).fetchHistory()).events ?? [];
      runs.push(events.length);
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
  });
  return { inp, result, runs };
}

const statuses = (patches: PayoutPatch[]) => patches.map((p) => p.sub_status);
const succeeded: PayoutOutcome = { status: 'succeeded', payoutId: 'po_1' };
const pending: PayoutOutcome = { status: 'pending', payoutId: 'po_1' };

test('a transfer completed at once: pending_created is announced, then success, with one transfer', async () => {
  const { rec, activities } = fakes({ initiation: succeeded, status: () => succeeded, cancel: () => succeeded });
  const { result } = await run(259_200, activities, undefined, { recordAs: 'success-at-once' });
  expect(result).toMatchObject({ status: 'success', gateway_payout_id: 'po_1', failure_reason: null });
  expect(statuses(rec.patches)).toEqual(['success']);
  expect(rec.events).toEqual(['payout.pending_created', 'payout.success']);
  expect(rec.webhookBodies[1]).toMatchObject({ webhook_type: 'payout', status: 'success', sub_status: 'success', amount: 5000, currency: 'NGN', gateway_payout_id: 'po_1', tenant_id: 7 });
  expect(rec.requests).toBe(1);
});

test('a rejected transfer is canceled_rejected with the gateway reason; a technical failure is canceled_failure', async () => {
  const rejected = fakes({ initiation: { status: 'rejected', payoutId: 'po_1', failureCode: 'invalid_account', failureMessage: 'no such account' }, status: () => pending, cancel: () => pending });
  const r1 = await run(259_200, rejected.activities);
  expect(r1.result).toMatchObject({ status: 'canceled_rejected', failure_reason: 'invalid_account: no such account' });
  expect(rejected.rec.events).toEqual(['payout.pending_created', 'payout.canceled_rejected']);
  expect(rejected.rec.webhookBodies[1]).toMatchObject({ status: 'canceled', sub_status: 'canceled_rejected', failure_reason: 'invalid_account: no such account' });

  const failed = fakes({ initiation: { status: 'failed', payoutId: 'po_2', failureCode: 'processing_error', failureMessage: 'bank down' }, status: () => pending, cancel: () => pending });
  const r2 = await run(259_200, failed.activities);
  expect(r2.result).toMatchObject({ status: 'canceled_failure', failure_reason: 'processing_error: bank down' });
  expect(failed.rec.events).toEqual(['payout.pending_created', 'payout.canceled_failure']);
});

test('a gateway that refuses the request itself makes the payout canceled_rejected, and it is never asked again', async () => {
  const { rec, activities } = fakes({ initiation: pending, status: () => pending, cancel: () => pending });
  const refusing = {
    ...activities,
    initiatePayout: async () => {
      rec.requests += 1;
      throw ApplicationFailure.nonRetryable('sandbox POST /v1/payouts answered 400 (parameter_invalid: currency)', 'GatewayRequestRejected');
    },
  };
  const { result } = await run(259_200, refusing);
  expect(result.status).toBe('canceled_rejected');
  expect(result.failure_reason).toMatch(/^gateway_refused: .*answered 400/);
  expect(rec.requests).toBe(1);
});

test('in flight: pending_promise, then a callback confirmed by the gateway makes it success', async () => {
  let gatewaySays: PayoutOutcome = pending;
  const { rec, activities } = fakes({ initiation: pending, status: () => gatewaySays, cancel: () => pending });
  const { result } = await run(259_200, activities, async (h) => {
    await waitFor(() => rec.patches.some((p) => p.sub_status === 'pending_promise'));
    gatewaySays = succeeded;
    await h.signal(payoutOutcomeSignal, { outcome: succeeded });
  }, { recordAs: 'pending-then-callback-success' });
  expect(result.status).toBe('success');
  expect(statuses(rec.patches)).toEqual(['pending_promise', 'success']);
  expect(rec.events).toEqual(['payout.pending_created', 'payout.pending_promise', 'payout.success']);
  expect(rec.requests).toBe(1);
});

test('a callback the gateway does not confirm changes nothing: pending_promise is not final', async () => {
  const { rec, activities } = fakes({ initiation: pending, status: () => pending, cancel: () => ({ status: 'canceled', payoutId: 'po_1' }) });
  const { result } = await run(7_200, activities, async (h) => {
    await waitFor(() => rec.patches.some((p) => p.sub_status === 'pending_promise'));
    await h.signal(payoutOutcomeSignal, { outcome: succeeded });
  });
  expect(result.status).toBe('canceled_timeout');
  expect(statuses(rec.patches)).not.toContain('success');
});

test('a lost callback is found by polling the gateway', async () => {
  let asked = 0;
  const { rec, activities } = fakes({ initiation: pending, status: () => (++asked >= 3 ? succeeded : pending), cancel: () => pending });
  const { result } = await run(259_200, activities);
  expect(result.status).toBe('success');
  expect(rec.finds).toBe(3);
  expect(statuses(rec.patches)).toEqual(['pending_promise', 'success']);
});

test('not complete within the default 72 hours: canceled at the gateway, canceled_timeout to the second', async () => {
  const { rec, activities } = fakes({ initiation: pending, status: () => pending, cancel: () => ({ status: 'canceled', payoutId: 'po_1' }) });
  const { inp, result } = await run(259_200, activities, undefined, { recordAs: 'timeout-canceled' });
  expect(result.status).toBe('canceled_timeout');
  expect(result.failure_reason).toMatch(/^timeout: not completed within 259200 seconds/);
  const last = rec.patches.at(-1)!;
  const late = new Date(last.updated_at).getTime() - (new Date(inp.createdAt).getTime() + 259_200_000);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(1000);
  expect(rec.cancels).toBe(1);
  expect(rec.finds).toBeGreaterThan(0); // the polling fallback ran meanwhile
  expect(rec.events).toEqual(['payout.pending_created', 'payout.pending_promise', 'payout.canceled_timeout']);
});

test('the gateway executed it at the window: the payout stands as success, never canceled with money gone', async () => {
  const { rec, activities } = fakes({ initiation: pending, status: () => pending, cancel: () => succeeded });
  const { result } = await run(3_600, activities);
  expect(result.status).toBe('success');
  expect(rec.patches.at(-1)).toMatchObject({ sub_status: 'success', late_outcome: { status: 'succeeded' } });
  expect(statuses(rec.patches)).not.toContain('canceled_timeout');
});

test('while the gateway cannot cancel, the payout stays pending_promise until it says what happened', async () => {
  let cancelAnswer: PayoutOutcome = pending;
  const { rec, activities } = fakes({ initiation: pending, status: () => pending, cancel: () => cancelAnswer });
  const { result } = await run(3_600, activities, async () => {
    await waitFor(() => rec.cancels >= 3);
    expect(statuses(rec.patches)).toEqual(['pending_promise']);
    cancelAnswer = { status: 'canceled', payoutId: 'po_1' };
  });
  expect(result.status).toBe('canceled_timeout');
});

test('an answer lost on the wire: the workflow finds the transfer by its key and never asks for a second one', async () => {
  const { rec, activities } = fakes({ initiation: succeeded, status: () => succeeded, cancel: () => succeeded });
  const lossy = {
    ...activities,
    // The gateway makes the transfer, and the answer never arrives (both attempts).
    initiatePayout: async (req: { idempotencyKey: string }) => {
      await activities.initiatePayout(req);
      throw ApplicationFailure.retryable('sandbox POST /v1/payouts timed out after 4000 ms', 'GatewayUnavailable');
    },
  };
  const { result } = await run(259_200, lossy);
  expect(result.status).toBe('success');
  expect(rec.finds).toBe(1);
  expect([...rec.transfers.values()]).toEqual([1]);
  expect(rec.requests).toBe(2); // the activity's one retry, under the same key
});

test('a gateway with no record of the request is asked again under the same key, once it is reachable', async () => {
  let reachable = false;
  const { rec, activities } = fakes({ initiation: succeeded, status: () => succeeded, cancel: () => succeeded });
  const flaky = {
    ...activities,
    initiatePayout: async (req: { idempotencyKey: string }) => {
      if (!reachable) {
        rec.requests += 1;
        throw ApplicationFailure.retryable('connect ECONNREFUSED', 'GatewayUnavailable');
      }
      return activities.initiatePayout(req);
    },
  };
  const { result } = await run(259_200, flaky, async () => {
    await waitFor(() => rec.finds >= 2);
    reachable = true;
  });
  expect(result.status).toBe('success');
  expect([...rec.transfers.values()]).toEqual([1]);
});

test('a gateway unreachable for the whole window: the key is canceled at the gateway, canceled_timeout', async () => {
  const { rec, activities } = fakes({ initiation: succeeded, status: () => succeeded, cancel: () => ({ status: 'canceled' }) });
  const down = {
    ...activities,
    initiatePayout: async () => {
      rec.requests += 1;
      throw ApplicationFailure.retryable('connect ECONNREFUSED', 'GatewayUnavailable');
    },
  };
  const { result, runs } = await run(3_600, down);
  expect(result.status).toBe('canceled_timeout');
  expect(rec.transfers.size).toBe(0);
  expect(rec.cancels).toBe(1);
  for (const length of runs) expect(length).toBeLessThan(2_100);
});

test('a worker that dies after the gateway call and before the record write: the next worker makes no second transfer', async () => {
  const { rec, activities } = fakes({ initiation: succeeded, status: () => succeeded, cancel: () => succeeded });
  const taskQueue = `po-restart-${Date.now()}`;
  const inp = payoutInput(259_200, new Date(await testEnv().currentTimeMs()));
  let stuck = false;
  // The first worker: the transfer is made and answered; its record write never finishes (the process dies).
  const first = await Worker.create({
    connection: testEnv().nativeConnection,
    taskQueue,
    workflowBundle: getWorkflowBundle(),
    // No sticky cache: a dead worker's sticky queue would hold the next workflow task until its timeout.
    maxCachedWorkflows: 0,
    activities: {
      ...activities,
      // The process dies during the write: the attempt fails, and the worker is gone.
      savePayout: async () => {
        stuck = true;
        throw ApplicationFailure.retryable('worker process died', 'WorkerLost');
      },
    },
  });
  const handle = await testEnv().client.workflow.start(PAYOUT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
  await first.runUntil(waitFor(() => stuck));
  expect(first.getState()).toBe('STOPPED');
  expect(rec.requests).toBe(1);

  const second = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities, maxCachedWorkflows: 0 });
  const result = await second.runUntil(handle.result());
  expect(result.status).toBe('success');
  expect(rec.requests).toBe(1);
  expect([...rec.transfers.values()]).toEqual([1]);
  expect(statuses(rec.patches)).toEqual(['success']);
});

test('an activity retried after the gateway made the transfer (the worker died mid-call) makes no second transfer', async () => {
  const { rec, activities } = fakes({ initiation: succeeded, status: () => succeeded, cancel: () => succeeded });
  let attempt = 0;
  const dying = {
    ...activities,
    initiatePayout: async (req: { idempotencyKey: string }) => {
      const answer = await activities.initiatePayout(req);
      if (++attempt === 1) throw ApplicationFailure.retryable('worker lost', 'WorkerLost');
      return answer;
    },
  };
  const { result } = await run(259_200, dying);
  expect(result.status).toBe('success');
  expect(rec.requests).toBe(2);
  expect([...rec.transfers.values()]).toEqual([1]);
});

test('the initiated Update answers once the gateway has answered the transfer request', async () => {
  const { activities } = fakes({ initiation: pending, status: () => succeeded, cancel: () => pending });
  await run(259_200, activities, async (h) => {
    const snap: PayoutSnapshot = await h.executeUpdate(payoutInitiatedUpdate, { args: [{ waitMs: 10_000 }] });
    expect(snap).toMatchObject({ status: 'pending_promise', gateway_payout_id: 'po_1', initiated: true });
  });
});

test('a payout pending for a 365-day window runs to the end with every run under the history bound', async () => {
  const { rec, activities } = fakes({ initiation: pending, status: () => pending, cancel: () => ({ status: 'canceled', payoutId: 'po_1' }) });
  const { result, runs } = await run(365 * 86_400, activities);
  expect(result.status).toBe('canceled_timeout');
  expect(rec.finds).toBeGreaterThan(300);
  for (const length of runs) expect(length).toBeLessThan(2_100);
  expect(runs.length).toBeGreaterThan(1);
  process.stdout.write(`365-day payout: ${rec.finds} status checks, runs of ${runs.join(', ')} history events\n`);
}, 240_000);

test('a payout still in flight keeps its polling backoff across continue-as-new', async () => {
  const { activities } = fakes({ initiation: pending, status: () => pending, cancel: () => ({ status: 'canceled', payoutId: 'po_1' }) });
  const asked: { at: number; run: string }[] = [];
  const acts = {
    ...activities,
    findPayout: async (req: { idempotencyKey: string }) => {
      const info = Context.current().info;
      asked.push({ at: Number(info.currentAttemptScheduledTimestampMs), run: info.workflowExecution!.runId });
      return activities.findPayout(req);
    },
  };
  // A 365-day window: the poll cap is a day, which the backoff (1, 2, 4 … minutes) reaches within 2 days; its
  // daily asks alone fill a run's history, so it continues as new while the payout is still in flight.
  const capMinutes = pollCapMs(365 * 86_400_000) / 60_000;
  const { runs } = await run(365 * 86_400, acts);
  expect(runs.length).toBeGreaterThan(1);
  const firstRun = asked[0]!.run;
  const gaps = asked.slice(1).map((a, i) => ({ minutes: Math.round((a.at - asked[i]!.at) / 60_000), continued: a.run !== firstRun }));
  const first = gaps.filter((g) => !g.continued).map((g) => g.minutes);
  expect(first.slice(0, 4)).toEqual([2, 4, 8, 16]); // the first ask, a minute after the request, is not a gap
  expect(first.at(-1)).toBe(capMinutes);
  // The next runs wait the cap from their first ask: one that started its backoff again would wait 1, 2, 4 … minutes.
  const continued = gaps.filter((g) => g.continued).map((g) => g.minutes);
  expect(continued.length).toBeGreaterThan(50);
  expect(continued.filter((g) => g !== capMinutes)).toEqual([]);
}, 240_000);
