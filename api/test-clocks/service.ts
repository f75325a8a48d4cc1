import type { WorkflowHandle } from '@temporalio/client';
import { notFound } from '../../domain/errors';
import { unixSeconds } from '../../domain/billing/snapshots';
import { testClockData } from '../../data/test-clocks';
import type { PageQuery } from '../../data/list';
import type { TestClockRecord } from '../../platform/billing-records';
import { newId } from '../../platform/ids';
import { START_DEADLINE_MS } from '../../platform/temporal';
import {
  advanceClockUpdate,
  clockStateQuery,
  deleteClockUpdate,
  TEST_CLOCK_WORKFLOW,
  testClockWorkflowId,
  type TestClockInput,
  type TestClockState,
} from '../../workflows/test-clock/messages';
import type { testClockWorkflow } from '../../workflows/test-clock/workflow';
import { SA } from '../../workflows/search-attributes';
import type { AppDeps, AuthContext } from '../deps';
import { QUERY_DEADLINE_MS, runUpdate, withDeadline } from '../http/workflow-calls';
import type { TestClockCreateBody, TestClockView } from './schemas';

// Test clocks: each one is a workflow (workflows/test-clock), the owner of its time and status and the writer
// of its record. Reads come from the record; an advance is the workflow's Update, and its answer the
// workflow's state once the subscriptions on the clock caught up (or the wait ran out).

/** How often the advance asks the clock whether it is ready. */
const ADVANCE_POLL_MS = 100;


/** A clock in its public shape: the record's, or with `live` the time and status its workflow answers now. */
export function testClockView(r: TestClockRecord, live?: TestClockState): TestClockView {
  return {
    test_clock: r._id,
    object: 'test_clock',
    frozen_time: unixSeconds(live ? live.frozenTime : r.frozen_time.getTime()),
    status: live ? live.status : r.status,
    name: r.name,
    created: unixSeconds(r.created_at.getTime()),
  };
}

const missing = (id: string) => notFound('test clock', id, 'test_clock');

export async function getTestClock(deps: AppDeps, tenantId: string, id: string): Promise<TestClockRecord> {
  const r = await testClockData(deps.mongo).find(tenantId, id);
  if (!r) throw missing(id);
  return r;
}

export function listTestClocks(deps: AppDeps, tenantId: string, page: PageQuery) {
  return testClockData(deps.mongo).list(tenantId, page);
}

/**
 * Inserts the clock's record, then starts its workflow (id = the clock's id, TenantId search attribute). A
 * clock whose workflow cannot be started is taken back, so no record lives without its owner.
 */
export async function createTestClock(deps: AppDeps, auth: AuthContext, body: TestClockCreateBody): Promise<TestClockRecord> {
  const clocks = testClockData(deps.mongo);
  const id = newId('clock', auth.region);
  const record: TestClockRecord = {
    _id: id,
    tenant_id: auth.tenantId,
    name: body.name ?? null,
    frozen_time: new Date(body.frozen_time * 1000),
    status: 'ready',
    created_at: new Date(),
    version: 0,
  };
  await clocks.insert(record);
  const input: TestClockInput = { id, tenantId: auth.tenantId, frozenTime: record.frozen_time.getTime() };
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start<typeof testClockWorkflow>(TEST_CLOCK_WORKFLOW, {
        workflowId: testClockWorkflowId(id),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        typedSearchAttributes: [{ key: SA.TenantId, value: auth.tenantId }],
        staticSummary: `Test clock ${id}`,
      }),
    );
  } catch (err) {
    await clocks.takeBack(id).catch(() => undefined);
    throw err;
  }
  return record;
}

/**
 * Advances a clock: the workflow admits the new time (or refuses: 409 `test_clock_advancing`, 400
 * `test_clock_time_backwards`, or 400 `test_clock_advance_too_far` past two intervals of the shortest
 * subscription on the clock, two years without one, as Stripe's), then the answer waits up to TEST_CLOCK_ADVANCE_WAIT_MS for the clock to be
 * ready, asking its state every 100 ms. It answers `ready` at the new time, or `advancing` when the wait ran
 * out (a later retrieve shows `ready` once the subscriptions caught up).
 */
export async function advanceTestClock(deps: AppDeps, tenantId: string, id: string, frozenTimeSeconds: number): Promise<TestClockView> {
  const record = await getTestClock(deps, tenantId, id);
  const handle = deps.temporal.workflow.getHandle<typeof testClockWorkflow>(testClockWorkflowId(id));
  const subscriptionIntervals = await testClockData(deps.mongo).subscriptionIntervalsOn(tenantId, id);
  // A refusal becomes 409 test_clock_advancing, or 400 test_clock_time_backwards or test_clock_advance_too_far
  // (api/http/workflow-calls.ts).
  const admitted: TestClockState = await runUpdate(
    deps,
    () => handle.executeUpdate(advanceClockUpdate, { args: [{ frozenTime: frozenTimeSeconds * 1000, subscriptionIntervals }] }),
    () => missing(id),
  );
  if (admitted.deleted) throw missing(id);
  const settled = await untilReady(deps, handle, admitted, Date.now() + deps.config.TEST_CLOCK_ADVANCE_WAIT_MS);
  if (settled.deleted) throw missing(id);
  return testClockView(record, settled);
}

/** Asks the clock's state every ADVANCE_POLL_MS until it is ready (or deleted), or `deadline` (epoch ms) passed. */
async function untilReady(deps: AppDeps, handle: WorkflowHandle<typeof testClockWorkflow>, admitted: TestClockState, deadline: number): Promise<TestClockState> {
  let last = admitted;
  while (last.status !== 'ready' && !last.deleted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, ADVANCE_POLL_MS));
    try {
      last = await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.query(clockStateQuery));
    } catch {
      // No answer this time (a busy worker): ask again until the wait runs out; the answer is then `advancing`.
    }
  }
  return last;
}

/**
 * Deletes a clock through its workflow, which removes the record, tells each subscription on it to cancel now and
 * ends; from then on every call on the clock is a 404. A clock whose workflow is gone (ended by an operator) has
 * its record removed here. The answer waits (as an advance does, up to TEST_CLOCK_ADVANCE_WAIT_MS, reading the
 * records every ADVANCE_POLL_MS) until those subscriptions read canceled and their open invoices are closed, so a
 * read right after it sees them so; one whose invoice's charge is still being decided keeps it open for longer.
 */
export async function deleteTestClock(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  await getTestClock(deps, tenantId, id);
  const deadline = Date.now() + deps.config.TEST_CLOCK_ADVANCE_WAIT_MS;
  const handle = deps.temporal.workflow.getHandle<typeof testClockWorkflow>(testClockWorkflowId(id));
  await runUpdate(
    deps,
    () => handle.executeUpdate(deleteClockUpdate),
    async () => {
      await testClockData(deps.mongo).remove(tenantId, id);
      return { frozenTime: 0, status: 'ready', deleted: true } satisfies TestClockState;
    },
  );
  await untilSubscriptionsEnded(deps, tenantId, id, deadline);
}

/** Until no subscription on the clock is live and none of theirs has an open invoice, or `deadline` (epoch ms). */
async function untilSubscriptionsEnded(deps: AppDeps, tenantId: string, clock: string, deadline: number): Promise<void> {
  const settled = async () => {
    if ((await testClockData(deps.mongo).subscriptionsOn(tenantId, clock)).length > 0) return false;
    return (await testClockData(deps.mongo).openInvoicesOn(tenantId, clock)) === 0;
  };
  while (Date.now() < deadline) {
    try {
      if (await settled()) return;
    } catch {
      // A read that failed: ask again until the wait runs out; the delete itself is done.
    }
    await new Promise((r) => setTimeout(r, ADVANCE_POLL_MS));
  }
}
