import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { getWorkflowBundle } from './env';

// Histories recorded from earlier code replay against the current code without non-determinism: the
// workflows running in production when a new worker is deployed keep working.

const dir = path.join(__dirname, 'histories');
const recorded = readdirSync(dir).filter((f) => f.endsWith('.bin'));

test('there are recorded histories of every money, commerce, billing and operations workflow', () => {
  for (const prefix of ['payment-intent-', 'refund-', 'payout-', 'checkout-', 'product-stock-', 'return-', 'subscription-', 'test-clock-', 'coupon-redemptions-', 'customer-balance-', 'reconciliation-', 'webhook-delivery-', 'stranded-sweep-'])
    expect([prefix, recorded.some((f) => f.startsWith(prefix))]).toEqual([prefix, true]);
});

test.each(recorded)('%s replays against the current code', async (file) => {
  const history = temporal.api.history.v1.History.decode(readFileSync(path.join(dir, file)));
  await Worker.runReplayHistory({ workflowBundle: getWorkflowBundle() }, history, file);
});
