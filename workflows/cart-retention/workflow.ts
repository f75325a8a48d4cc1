import { proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { retentionDueMs, type CartRetentionInput, type CartRetentionResult } from './messages';

// A cart's retention: one durable timer to its due time, then one delete that spares a converted cart.
// The local MongoDB-protocol server has no TTL index; this works the same on MongoDB 7. History: a handful
// of events, whatever the retention.

const store = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: { initialInterval: '1s', maximumInterval: '5m' } });

export async function cartRetentionWorkflow(input: CartRetentionInput): Promise<CartRetentionResult> {
  const due = retentionDueMs(input);
  setCurrentDetails(`Deletes cart \`${input.cartId}\` at ${new Date(due).toISOString()} unless a checkout converted it.`);
  const wait = due - Date.now();
  if (wait > 0) await sleep(wait);
  const outcome = await store.deleteUnconvertedCart({ tenantId: input.tenantId, cartId: input.cartId });
  setCurrentDetails(`Cart \`${input.cartId}\`: ${outcome === 'deleted' ? 'deleted' : outcome === 'converted' ? 'kept (converted)' : 'already gone'}.`);
  return { outcome, at: new Date().toISOString() };
}
