import { ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { ensureSchedule, ensureScheduleAtStart, type ScheduleOutcome } from './schedules';
import { SA } from '../workflows/search-attributes';
import { STRANDED_SWEEP_SCHEDULE_ID, STRANDED_SWEEP_WORKFLOW, type StrandedSweepInput } from '../workflows/stranded-sweep/messages';

// The Temporal Schedule that runs the stranded-records sweep (`stranded-records-sweep`), kept in step with
// STRANDED_SWEEP_SCHEDULE at every worker start (worker/schedules.ts); `off` deletes it.

export type StrandedSweepScheduleConfig = Pick<Config, 'STRANDED_SWEEP_SCHEDULE' | 'STRANDED_AFTER_SECONDS' | 'TEMPORAL_TASK_QUEUE'>;

export function strandedSweepScheduleOptions(config: StrandedSweepScheduleConfig): ScheduleOptions {
  const input: StrandedSweepInput = { olderThanSeconds: config.STRANDED_AFTER_SECONDS };
  return {
    scheduleId: STRANDED_SWEEP_SCHEDULE_ID,
    spec: { cronExpressions: [config.STRANDED_SWEEP_SCHEDULE] },
    action: {
      type: 'startWorkflow',
      workflowType: STRANDED_SWEEP_WORKFLOW,
      workflowId: STRANDED_SWEEP_SCHEDULE_ID,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      typedSearchAttributes: [{ key: SA.PaymentStatus, value: 'running' }],
      staticSummary: `Take back intents, payouts, checkouts, test clocks and subscriptions left at version 0 without a workflow for over ${config.STRANDED_AFTER_SECONDS}s (cron ${config.STRANDED_SWEEP_SCHEDULE} UTC)`,
    },
    // Runs missed during an outage are not made up one by one: the next one covers them.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
  };
}

export function ensureStrandedSweepScheduleWith(client: Client, config: StrandedSweepScheduleConfig, logger: Logger): Promise<ScheduleOutcome> {
  const options = config.STRANDED_SWEEP_SCHEDULE === 'off' ? 'off' : strandedSweepScheduleOptions(config);
  return ensureSchedule(client, STRANDED_SWEEP_SCHEDULE_ID, options, logger, config.STRANDED_SWEEP_SCHEDULE);
}

/** The worker's one call at start. */
export function ensureStrandedSweepSchedule(config: Config, logger: Logger): Promise<void> {
  return ensureScheduleAtStart(config, logger, STRANDED_SWEEP_SCHEDULE_ID, (client) => ensureStrandedSweepScheduleWith(client, config, logger));
}
