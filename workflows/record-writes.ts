import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * Runs started by code with this patch write their own records (an intent's record, every event record) as
 * local activities: the write runs inside the workflow task that asked for it, so an Update that changes a
 * record answers after one task instead of one task and one activity round trip per write (bench/RESULTS.md
 * has the figures). The writes are idempotent (versioned saves, inserts keyed by a replay-stable id), so a
 * local activity run again after a crash changes nothing. Runs recorded before the patch replay with the
 * activities they scheduled.
 */
export const LOCAL_RECORD_WRITES_PATCH = 'local-record-writes';

const retry = { initialInterval: '200ms', maximumInterval: '10s' } as const;
const remote = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry });
const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '10s', retry });

export type RecordWrites = Pick<Activities, 'savePaymentIntent' | 'savePaymentIntentAndEvents' | 'recordEvent'>;

/** The record writes of this run: local in runs with the patch, scheduled activities in older ones. */
export function recordWrites(): RecordWrites {
  return patched(LOCAL_RECORD_WRITES_PATCH) ? local : remote;
}
