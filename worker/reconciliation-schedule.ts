import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { connectTemporalClient } from '../platform/temporal';
import { SA } from '../workflows/search-attributes';
import { RECONCILIATION_SCHEDULE_ID, RECONCILIATION_WORKFLOW, type ReconciliationInput } from '../workflows/reconciliation/messages';

// The Temporal Schedule that runs reconciliation (`reconciliation-daily`), made to match the configuration at
// every worker start: created when missing, updated when present (two workers starting together: one
// creates, the other updates to the same), deleted when RECONCILIATION_SCHEDULE is `off`. A failure here is
// logged, never fatal: payments do not wait for reconciliation.

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

export async function ensureReconciliationScheduleWith(client: Client, config: ReconciliationScheduleConfig, logger: Logger): Promise<'created' | 'updated' | 'deleted' | 'off'> {
  const handle = client.schedule.getHandle(RECONCILIATION_SCHEDULE_ID);
  if (config.RECONCILIATION_SCHEDULE === 'off') {
    try {
      await handle.delete();
      logger.info({ schedule: RECONCILIATION_SCHEDULE_ID }, 'reconciliation schedule deleted (RECONCILIATION_SCHEDULE=off)');
      return 'deleted';
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'off';
      throw err;
    }
  }
  const options = reconciliationScheduleOptions(config);
  try {
    await client.schedule.create(options);
    logger.info({ schedule: RECONCILIATION_SCHEDULE_ID, cron: config.RECONCILIATION_SCHEDULE }, 'reconciliation schedule created');
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await handle.update((prev) => ({ ...prev, spec: options.spec, action: options.action, policies: { ...prev.policies, ...options.policies } }));
  logger.info({ schedule: RECONCILIATION_SCHEDULE_ID, cron: config.RECONCILIATION_SCHEDULE }, 'reconciliation schedule up to date');
  return 'updated';
}

/** The worker's one call: its own short-lived client, errors logged. */
export async function ensureReconciliationSchedule(config: Config, logger: Logger): Promise<void> {
  let client: Client | undefined;
  try {
    client = await connectTemporalClient(config);
    await ensureReconciliationScheduleWith(client, config, logger);
  } catch (err) {
    logger.error({ err, schedule: RECONCILIATION_SCHEDULE_ID }, 'reconciliation schedule could not be set up; runs on demand still work');
  } finally {
    await client?.connection.close().catch(() => undefined);
  }
}
