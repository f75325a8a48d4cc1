import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  type ExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { clockAdvanceLimit } from '../../domain/billing/periods';
import { historyIsLong } from '../history';
import { serialWriter } from '../serial-writer';
import {
  advanceClockUpdate,
  CLOCK_CATCH_UP_WAIT_MS,
  clockAdvancedSignal,
  clockCaughtUpSignal,
  clockDeletedSignal,
  clockStateQuery,
  clockSubscriptionWorkflowId,
  deleteClockUpdate,
  type TestClockInput,
  type TestClockState,
} from './messages';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/** A deleted clock cancels its subscriptions (before it, they waited for a time that never came). */
const DELETE_CANCELS_SUBSCRIPTIONS_PATCH = 'clock-delete-cancels-subscriptions';

/** How many ended subscriptions a clock remembers (a clock has a handful; this only bounds the memory). */
const ENDED_KEPT = 1000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One workflow per test clock (id = `clock_...`): the one owner of its time and status, and the one writer of
 * its record once it runs. An advance is admitted by an Update (refused while one runs, or for a time not
 * after the clock's); the loop then tells every subscription on the clock the new time and waits until each
 * has run what was due up to it (or has ended), then the clock is `ready` at the new time. It waits on
 * conditions only, so an idle clock costs no timers; it continues as new between advances.
 */
export async function testClockWorkflow(input: TestClockInput): Promise<void> {
  let frozenTime = input.carried?.frozenTime ?? input.frozenTime;
  let status: TestClockState['status'] = 'ready';
  /** Where the admitted advance goes; null while the clock is ready. Decides the validator's refusals. */
  let target: number | null = null;
  let deleted = false;
  /** The subscriptions the running advance still waits for. */
  const waiting = new Set<string>();
  /** Subscriptions that said they ended, oldest first (at most ENDED_KEPT): never waited for again. */
  const ended = new Set<string>();

  const state = (): TestClockState => ({ frozenTime, status, deleted });
  const describe = () =>
    setCurrentDetails(
      deleted
        ? 'deleted'
        : target === null
          ? `ready at ${iso(frozenTime)}`
          : `advancing from ${iso(frozenTime)} to ${iso(target)}; waiting for ${waiting.size} subscription(s)`,
    );
  const writer = serialWriter(input.carried?.version ?? 0, store.saveTestClock);
  const write = (s: { frozenTime: number; status: TestClockState['status']; deleted: boolean }) => writer.write({ tenantId: input.tenantId, id: input.id, ...s });
  /** An Update answers once its write is done: what it changed is then what a read of the record sees. */
  const persisted = async () => {
    void write(state());
    await writer.flushed();
  };

  setHandler(
    advanceClockUpdate,
    async ({ frozenTime: to }) => {
      if (deleted) return state(); // deleted between validator and handler: nothing to advance (the API answers 404)
      target = to;
      status = 'advancing';
      describe();
      await persisted();
      return state();
    },
    {
      validator: ({ frozenTime: to, subscriptionIntervals }) => {
        if (deleted) return;
        if (target !== null) throw ApplicationFailure.nonRetryable('The test clock is still advancing: advance it again once its status is ready', 'test_clock_advancing');
        if (!Number.isSafeInteger(to) || to <= frozenTime)
          throw ApplicationFailure.nonRetryable(`frozen_time must be after the clock's current time (${Math.floor(frozenTime / 1000)})`, 'test_clock_time_backwards');
        // A validator's refusal writes no history, so this bound needs no patch.
        const limit = subscriptionIntervals ? clockAdvanceLimit(frozenTime, subscriptionIntervals) : Infinity;
        if (to > limit) {
          const of = subscriptionIntervals?.length ? 'two intervals of the shortest subscription on the clock' : 'two years when no subscription is on it';
          throw ApplicationFailure.nonRetryable(
            `frozen_time may be at most ${Math.floor(limit / 1000)}: one advance goes at most ${of}; advance in steps`,
            'test_clock_advance_too_far',
          );
        }
      },
    },
  );
  setHandler(deleteClockUpdate, async () => {
    if (!deleted) {
      deleted = true;
      describe();
      await persisted();
    } else await writer.flushed();
    return state();
  });
  setHandler(clockCaughtUpSignal, ({ subscription, frozenTime: at, ended: gone }) => {
    if (gone) {
      ended.delete(subscription);
      ended.add(subscription);
      if (ended.size > ENDED_KEPT) ended.delete(ended.values().next().value!);
      waiting.delete(subscription);
    } else if (target !== null && at >= target) waiting.delete(subscription);
    if (target !== null) describe();
  });
  setHandler(clockStateQuery, state);
  describe();

  /**
   * Signals each subscription's workflow at once; one that is not there (never started, or closed) has ended:
   * `gone` says what that means here (the log line).
   */
  const tellEach = (subscriptions: string[], send: (h: ExternalWorkflowHandle) => Promise<void>, gone: (subscription: string) => string) =>
    Promise.all(
      subscriptions.map(async (subscription) => {
        try {
          await send(getExternalWorkflowHandle(clockSubscriptionWorkflowId(subscription)));
        } catch (err) {
          if (isCancellation(err)) throw err;
          log.info(gone(subscription), { clock: input.id, subscription, error: String(err) });
        }
      }),
    );

  /** Runs one admitted advance to `to`: every subscription on the clock caught up (or ended, or timed out). */
  const advance = async (to: number) => {
    const subscriptions = await store.subscriptionsOnClock({ tenantId: input.tenantId, clock: input.id });
    waiting.clear();
    for (const s of subscriptions) if (!ended.has(s)) waiting.add(s);
    describe();
    // One signal each, straight to the target: each subscription runs its own due work in order up to it
    // (subscriptions of one clock are independent). A subscription whose workflow is not there has ended.
    await tellEach([...waiting], (h) => h.signal(clockAdvancedSignal, { clock: input.id, frozenTime: to }), (subscription) => {
      waiting.delete(subscription);
      return 'subscription workflow not found; counted as ended';
    });
    if (waiting.size > 0 && !deleted) {
      const caughtUp = await condition(() => waiting.size === 0 || deleted, CLOCK_CATCH_UP_WAIT_MS);
      if (!caughtUp)
        log.warn('subscriptions did not catch up with the test clock in time; the clock is ready anyway', {
          clock: input.id,
          frozenTime: iso(to),
          waitingFor: [...waiting].slice(0, 20),
          count: waiting.size,
        });
    }
    if (deleted) return;
    // The record first, then the state the query answers: a read after `ready` finds the record ready too.
    await write({ frozenTime: to, status: 'ready', deleted: false });
    frozenTime = to;
    status = 'ready';
    target = null;
    waiting.clear();
    describe();
  };

  for (;;) {
    await condition(() => deleted || target !== null || historyIsLong());
    if (deleted) break;
    if (target !== null) {
      await advance(target);
      continue;
    }
    // A long history while idle: hand over once nothing is in flight (no Update unanswered, no write
    // unissued; a write is an await, during which new messages can arrive, so check again after each).
    for (;;) {
      await condition(allHandlersFinished);
      const version = writer.version();
      await writer.flushed();
      if (allHandlersFinished() && writer.version() === version) break;
    }
    if (deleted || target !== null) continue; // an Update came in meanwhile: its work first
    await continueAsNew<typeof testClockWorkflow>({ ...input, carried: { frozenTime, version: writer.version() } });
  }
  // Deleted: its subscriptions will never see their time move again, so each is told to cancel now (one
  // whose workflow is gone has ended already). Asked only at a delete: clocks deleted before ended without it.
  if (patched(DELETE_CANCELS_SUBSCRIPTIONS_PATCH)) {
    const subscriptions = await store.subscriptionsOnClock({ tenantId: input.tenantId, clock: input.id });
    await tellEach(
      subscriptions.filter((s) => !ended.has(s)),
      (h) => h.signal(clockDeletedSignal, { clock: input.id }),
      () => 'subscription workflow not found at the clock delete; ended already',
    );
  }
  // The record is gone once the delete's write is done; answer every Update before ending.
  await condition(allHandlersFinished);
  await writer.flushed();
}
