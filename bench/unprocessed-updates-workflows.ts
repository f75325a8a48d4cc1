import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

// Bench-only workflow for bench/unprocessed-updates.ts: one Update whose handler runs a local activity (as
// the payment intent's transitions write their record), and one that answers at once.

const local = proxyLocalActivities<{ pause(ms: number): Promise<void> }>({ startToCloseTimeout: '1 minute' });

export const withLocalActivity = defineUpdate<string, [number]>('withLocalActivity');
export const withoutLocalActivity = defineUpdate<string, [number]>('withoutLocalActivity');

export async function updateTargetWorkflow(): Promise<void> {
  setHandler(withLocalActivity, async (ms) => {
    await local.pause(ms);
    return 'done';
  });
  setHandler(withoutLocalActivity, async () => 'done');
  await condition(() => false, '1 hour');
}
