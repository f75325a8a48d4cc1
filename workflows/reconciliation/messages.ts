import { defineQuery } from '@temporalio/workflow';
import type { KindCounts, ReconcileObjectResult } from '../../domain/reconciliation';

// Messages of the reconciliation workflow: its name, the Schedule's id, its input and the state it answers.
// The API, the worker's Schedule setup and tests import this module; it pulls in no Node or I/O module.

export const RECONCILIATION_WORKFLOW = 'reconciliationWorkflow';
/** The Temporal Schedule that starts a run each day (worker/reconciliation-schedule.ts). */
export const RECONCILIATION_SCHEDULE_ID = 'reconciliation-daily';

interface Common {
  /** Region of ids made for discrepancies nothing of ours names (the deployment's default region). */
  region: string;
  /** RECONCILIATION_GRACE_SECONDS: the report is read this far around the window. */
  graceSeconds: number;
}

/**
 * A scheduled run covers the `windowSeconds` period that ended at or before its scheduled time (a late
 * start still covers the right day); an on-demand run the window it was given, with who asked.
 */
export type ReconciliationInput =
  | (Common & { trigger: 'schedule'; windowSeconds: number })
  | (Common & { trigger: 'manual'; from: string; to: string; operator: string | null; reason: string | null });

export type ReconciliationRunStatus = 'running' | 'clean' | 'discrepancies' | 'failed';

export interface ReconciliationRunState {
  runId: string;
  trigger: ReconciliationInput['trigger'];
  operator: string | null;
  window: { from: string; to: string };
  status: ReconciliationRunStatus;
  /** One entry per object type done (capture, refund, payout, in that order). */
  objects: ReconcileObjectResult[];
  /** Discrepancies this run opened, by kind, over every object type. */
  opened: KindCounts;
  alreadyOpen: number;
  startedAt: string;
  finishedAt: string | null;
  /** Why the run failed (an activity gave up: the report or the database stayed unreachable). */
  error: string | null;
}

export const reconciliationStateQuery = defineQuery<ReconciliationRunState>('state');
