import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Interval } from '../../domain/billing/periods';

// A test clock (`clock_...`, v202607) is one workflow, id = the clock id. Advancing it tells every
// subscription on the clock the new time and waits until each has run everything due up to it (renewals,
// invoices, charges, dunning), so `advance` can answer `ready` with the work done.

export const TEST_CLOCK_WORKFLOW = 'testClockWorkflow';

export interface TestClockInput {
  id: string;
  tenantId: string;
  /** Unix milliseconds. */
  frozenTime: number;
  /** Carried across continue-as-new. */
  carried?: { frozenTime: number; version: number };
}

export interface TestClockState {
  frozenTime: number;
  status: 'ready' | 'advancing';
  deleted: boolean;
}

export interface AdvanceClockInput {
  /** Unix milliseconds. */
  frozenTime: number;
  /**
   * The intervals of the subscriptions on the clock not ended, as the API read them: the advance may go at most
   * two of the shortest ahead (clockAdvanceLimit). Absent (callers before it): not bounded.
   */
  subscriptionIntervals?: { interval: Interval; intervalCount: number }[];
}

/**
 * Refused (409 `test_clock_advancing`, 400 `test_clock_time_backwards` or `test_clock_advance_too_far`) by the
 * validator, before history.
 */
export const advanceClockUpdate = defineUpdate<TestClockState, [AdvanceClockInput]>('advance');
export const deleteClockUpdate = defineUpdate<TestClockState, []>('delete');
export const clockStateQuery = defineQuery<TestClockState>('state');

/** Clock -> subscription: the clock now reads `frozenTime` (Unix ms); run everything due up to it. */
export const clockAdvancedSignal = defineSignal<[{ clock: string; frozenTime: number }]>('clockAdvanced');

/**
 * Subscription -> clock: everything due up to `frozenTime` has run (or the subscription has ended:
 * `ended`), so the clock need not wait for it.
 */
export const clockCaughtUpSignal = defineSignal<[{ subscription: string; frozenTime: number; ended: boolean }]>('clockCaughtUp');

/**
 * Clock -> subscription: the clock was deleted, so its time never moves again; the subscription is canceled
 * now (Stripe deletes a clock's subscriptions with it).
 */
export const clockDeletedSignal = defineSignal<[{ clock: string }]>('clockDeleted');

/** A clock's workflow id is the clock's id (`clock_...`). */
export const testClockWorkflowId = (clock: string) => clock;

/**
 * The workflow id the clock signals for a subscription on it: the subscription's id (`sub_...`). A
 * subscription whose workflow is not there (never started, or closed) counts as ended.
 */
export const clockSubscriptionWorkflowId = (subscription: string) => subscription;

/** How long (real time) an advance waits for its subscriptions before the clock is `ready` anyway. */
export const CLOCK_CATCH_UP_WAIT_MS = 10 * 60_000;
