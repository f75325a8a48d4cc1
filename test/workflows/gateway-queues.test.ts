import { WithStartWorkflowOperation } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { reopenedState } from '../../api/refunds/reopen';
import type { PaymentIntentRecord } from '../../platform/records';
import { admitRefundUpdate, attemptUpdate, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { gatewayTaskQueue } from '../../workflows/task-queues';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures } from './payment-intent-fixtures';

// Each gateway's calls run on its own task queue (its server-side rate limit, GATEWAY_RATE_LIMITS) when the
// API names the queue with the attempt: the charge, and the refund the paid intent starts, are taken by a
// worker that polls only the gateway's queue; the payments worker here has no gateway activity at all.

const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input } = intentFixtures(testEnv);

const GATEWAY_CALLS = ['charge', 'chargeStatus', 'findCharge', 'refundCharge', 'refundStatus', 'findRefund', 'cancelRefund'] as const;

/** A payments worker without gateway activities, and a worker on the gateway's queue that records what it ran. */
function splitWorkers(activities: object) {
  const onGatewayQueue: string[] = [];
  const all = activities as Record<string, (...a: unknown[]) => unknown>;
  const gatewayActivities = Object.fromEntries(
    GATEWAY_CALLS.map((name) => [
      name,
      async (...args: unknown[]) => {
        onGatewayQueue.push(name);
        return all[name]!(...args);
      },
    ]),
  );
  const storeActivities = Object.fromEntries(Object.entries(all).filter(([name]) => !(GATEWAY_CALLS as readonly string[]).includes(name)));
  const taskQueue = `gq-${Date.now()}`;
  const gatewayQueue = gatewayTaskQueue(taskQueue, 'sandbox');
  const run = async (fn: () => Promise<void>) => {
    const payments = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: storeActivities });
    const gateway = await Worker.create({ connection: testEnv().nativeConnection, taskQueue: gatewayQueue, activities: gatewayActivities });
    await gateway.runUntil(payments.runUntil(fn));
  };
  return { onGatewayQueue, taskQueue, gatewayQueue, run };
}

test("a paid intent's charge and its refund run on the gateway's task queue", async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_q' }));
  const { onGatewayQueue, taskQueue, gatewayQueue, run } = splitWorkers(activities);
  const inp = await input(3600);
  await run(async () => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const paid = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success', connector: 'con_eu_test', gatewayQueues: { con_eu_test: gatewayQueue } }] });
    expect(paid.status).toBe('success');
    const refund = await handle.executeUpdate(admitRefundUpdate, { args: [{ amount: 500, currency: 'EUR', idempotencyKey: null, webhooks: [], slaSeconds: 3600 }] });
    expect(refund).toMatchObject({ ok: true });
    await waitFor(async () => rec.events.some((e) => e.type === 'refund.success'));
    await handle.terminate('test done');
    // Recorded with local record writes (workflows/record-writes.ts): replayed in npm test from then on.
    keepHistory('payment-intent-local-writes-paid-refunded-on-gateway-queue', await handle.fetchHistory());
  });
  expect(onGatewayQueue).toContain('charge');
  expect(onGatewayQueue.some((n) => n.startsWith('refund') || n === 'findRefund')).toBe(true);
});

test("a closed payment reopened from its record refunds on its connector's gateway queue", async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_r' }));
  const { onGatewayQueue, taskQueue, gatewayQueue, run } = splitWorkers(activities);
  const inp = await input(3600);
  const record = {
    _id: inp.id, tenant_id: inp.tenantId, region: 'eu', status: 'success', amount: inp.amount, currency: inp.currency, amount_paid: inp.amount,
    connector_used: 'con_eu_test', gateway_charge_id: 'ch_r', succeeded_at: new Date(inp.createdAt), updated_at: new Date(inp.createdAt), version: 3,
  } as unknown as PaymentIntentRecord;
  await run(async () => {
    const start = new WithStartWorkflowOperation(PAYMENT_INTENT_WORKFLOW, {
      workflowId: inp.id,
      taskQueue,
      args: [{ ...inp, carried: reopenedState(record, [], new Date(await testEnv().currentTimeMs()), [], gatewayQueue) }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const refund = await testEnv().client.workflow.executeUpdateWithStart(admitRefundUpdate, {
      args: [{ amount: 500, currency: inp.currency, idempotencyKey: null, webhooks: [], slaSeconds: 3600 }],
      startWorkflowOperation: start,
    });
    expect(refund).toMatchObject({ ok: true });
    await waitFor(async () => rec.events.some((e) => e.type === 'refund.success'));
    const handle = testEnv().client.workflow.getHandle(inp.id);
    await handle.terminate('test done');
    keepHistory('payment-intent-reopened-refund-on-gateway-queue', await handle.fetchHistory());
  });
  // Nothing was charged in this run: every gateway call it made is the refund's, on the gateway's queue.
  expect(onGatewayQueue).not.toContain('charge');
  expect(onGatewayQueue.some((n) => n.startsWith('refund') || n === 'findRefund')).toBe(true);
});
