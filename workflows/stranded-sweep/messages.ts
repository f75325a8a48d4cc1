// Messages of the stranded-records sweep: its name, the Schedule's id and its input. The worker's Schedule
// setup and tests import this module; it pulls in no Node or I/O module.

import type { StrandedKind } from '../../domain/stranded-kinds';

export const STRANDED_SWEEP_WORKFLOW = 'strandedSweepWorkflow';
/** The Temporal Schedule that starts a sweep (worker/stranded-sweep-schedule.ts). */
export const STRANDED_SWEEP_SCHEDULE_ID = 'stranded-records-sweep';

export interface StrandedSweepInput {
  /** STRANDED_AFTER_SECONDS: how old a version-0 record must be before it is looked at. */
  olderThanSeconds: number;
  /** How long after deleting records the sweep looks again for workflows started meanwhile (default 30 s: past any start's deadline). */
  recheckAfterMs?: number;
}

/** A run's counts of one kind (see activities/stranded-records.ts), and the first ids it took back. */
export interface StrandedKindOutcome {
  found: number;
  takenBack: number;
  kept: number;
  unknown: number;
  /** Deleted, then put back: their workflow had started meanwhile. */
  putBack: number;
  /** Coupon redemptions of subscriptions taken back, given back by the coupon's owner (started again if it had closed). */
  released: number;
  /** ... and those given back already (by a sweep that died, or by the create), or whose coupon is gone. */
  notGivenBack: number;
  /** Runs from before the give-back through the owner's start: those whose owner had closed, the count left as it was. */
  ownerClosed: number;
  named: string[];
}

/** By kind; a run from before the sweep took subscriptions has no `subscription`. */
export type StrandedSweepOutcome = Record<StrandedKind, StrandedKindOutcome>;
