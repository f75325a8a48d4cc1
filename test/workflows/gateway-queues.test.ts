import { Worker } from '@temporalio/worker';
import { admitRefundUpdate, attemptUpdate, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { gatewayTaskQueue } from '../../workflows/task-queues';
import { getWorkflowBundle, useWorkflowTestEnv } from './env';
import { intentFixtures } from './payment-intent-fixtures';

// Each gateway's calls run on its own task queue (its server-side rate limit, GATEWAY_RATE_LIMITS) when the
// API names the queue with the attempt: the charge, and the refund the paid intent starts, are taken by a
// worker that polls only the gateway's queue; the payments worker here has no gateway activity at all.

const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input, waitUntil } = intentFixtures(testEnv);

const GATEWAY_CALLS = ['charge', 'chargeStatus', 'findCharge', 'refundCharge', 'refundStatus', 'findRefund', 'cancelRefund'] as const;

test("a paid intent's charge and its refund run on the gateway's task queue", async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_q' }));
  const onGatewayQueue: string[] = [];
  const gatewayActivities = Object.fromEntries(
    GATEWAY_CALLS.map((name) => [
      name,
      async (...args: unknown[]) => {
        onGatewayQueue.push(name);
        return (activities as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
      },
    ]),
  );
  const storeActivities = Object.fromEntries(Object.entries(activities).filter(([name]) => !(GATEWAY_CALLS as readonly string[]).includes(name)));
  const taskQueue = `gq-${Date.now()}`;
  const gatewayQueue = gatewayTaskQueue(taskQueue, 'sandbox');
  const payments = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: storeActivities });
  const gateway = await Worker.create({ connection: testEnv().nativeConnection, taskQueue: gatewayQueue, activities: gatewayActivities });
  const inp = await input(3600);
  await gateway.runUntil(
    payments.runUntil(async () => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      const paid = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success', connector: 'con_eu_test', gatewayQueues: { con_eu_test: gatewayQueue } }] });
      expect(paid.status).toBe('success');
      const refund = await handle.executeUpdate(admitRefundUpdate, { args: [{ amount: 500, currency: 'EUR', idempotencyKey: null, webhooks: [], slaSeconds: 3600 }] });
      expect(refund).toMatchObject({ ok: true });
      await waitUntil(async () => rec.events.some((e) => e.type === 'refund.success'));
      await handle.terminate('test done');
    }),
  );
  expect(onGatewayQueue).toContain('charge');
  expect(onGatewayQueue.some((n) => n.startsWith('refund') || n === 'findRefund')).toBe(true);
});
