import { ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { ensureSchedule, ensureScheduleAtStart, type ScheduleOutcome } from './schedules';
import { SA } from '../workflows/search-attributes';
import { RECONCILIATION_SCHEDULE_ID, RECONCILIATION_WORKFLOW, type ReconciliationInput } from '../workflows/reconciliation/messages';

// The Temporal Schedule that runs reconciliation (`reconciliation-daily`), kept in step with
// RECONCILIATION_SCHEDULE at every worker start (worker/schedules.ts); `off` deletes it.

export type ReconciliationScheduleConfig = Pick<
  Config,
  'RECONCILIATION_SCHEDULE' | 'RECONCILIATION_WINDOW_SECONDS' | 'RECONCILIATION_GRACE_SECONDS' | 'TEMPORAL_TASK_QUEUE' | 'DEFAULT_REGION'
>;

export function reconciliationScheduleOptions(config: ReconciliationScheduleConfig): ScheduleOptions {
  const input: ReconciliationInput = {
    trigger: 'schedule',
    windowSeconds: config.RECONCILIATION_WINDOW_SECONDS,
    graceSeconds: config.RECONCILIATION_GRACE_SECONDS,
    region: config.DEFAULT_REGION,
  };
  return {
    scheduleId: RECONCILIATION_SCHEDULE_ID,
    // Cron in UTC (no time zone given).
    spec: { cronExpressions: [config.RECONCILIATION_SCHEDULE] },
    action: {
      type: 'startWorkflow',
      workflowType: RECONCILIATION_WORKFLOW,
      // The Schedule appends the action's nominal time: reconciliation-daily-2026-11-23T02:00:00Z.
      workflowId: RECONCILIATION_SCHEDULE_ID,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      typedSearchAttributes: [{ key: SA.PaymentStatus, value: 'running' }],
      staticSummary: `Scheduled reconciliation of the ${config.RECONCILIATION_WINDOW_SECONDS}s period before its start (cron ${config.RECONCILIATION_SCHEDULE} UTC)`,
    },
    // A run still going when the next is due is not doubled; a day of outage is caught up once.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
}

export function ensureReconciliationScheduleWith(client: Client, config: ReconciliationScheduleConfig, logger: Logger): Promise<ScheduleOutcome> {
  const options = config.RECONCILIATION_SCHEDULE === 'off' ? 'off' : reconciliationScheduleOptions(config);
  return ensureSchedule(client, RECONCILIATION_SCHEDULE_ID, options, logger, config.RECONCILIATION_SCHEDULE);
}

/** The worker's one call at start. */
export function ensureReconciliationSchedule(config: Config, logger: Logger): Promise<void> {
  return ensureScheduleAtStart(config, logger, RECONCILIATION_SCHEDULE_ID, (client) => ensureReconciliationScheduleWith(client, config, logger));
}
