import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { connectTemporalClient } from '../platform/temporal';

// The worker's Temporal Schedules, made to match the configuration at every worker start: created when
// missing, updated when present (two workers starting together: one creates, the other updates to the
// same), deleted when configured `off`. A failure is logged, never fatal: payments do not wait for them.

export type ScheduleOutcome = 'created' | 'updated' | 'deleted' | 'off';

/** Makes the Schedule `id` match `options`, or deletes it when `options` is `off`. */
export async function ensureSchedule(client: Client, id: string, options: ScheduleOptions | 'off', logger: Logger, cron: string): Promise<ScheduleOutcome> {
  const handle = client.schedule.getHandle(id);
  if (options === 'off') {
    try {
      await handle.delete();
      logger.info({ schedule: id }, 'schedule deleted (configured off)');
      return 'deleted';
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'off';
      throw err;
    }
  }
  try {
    await client.schedule.create(options);
    logger.info({ schedule: id, cron }, 'schedule created');
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await handle.update((prev) => ({ ...prev, spec: options.spec, action: options.action, policies: { ...prev.policies, ...options.policies } }));
  logger.info({ schedule: id, cron }, 'schedule up to date');
  return 'updated';
}

/** The worker's one call per Schedule: its own short-lived client, errors logged. */
export async function ensureScheduleAtStart(config: Config, logger: Logger, id: string, make: (client: Client) => Promise<ScheduleOutcome>): Promise<void> {
  let client: Client | undefined;
  try {
    client = await connectTemporalClient(config);
    await make(client);
  } catch (err) {
    logger.error({ err, schedule: id }, 'schedule could not be set up; runs on demand still work');
  } finally {
    await client?.connection.close().catch(() => undefined);
  }
}
