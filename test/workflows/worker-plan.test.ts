import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { loadConfig } from '../../platform/config';
import { planWorkers } from '../../worker/worker-options';
import { PAYOUT_LIKE_WORKFLOW, payoutLikeActivities } from './fixtures/versioning/activities';
import { useWorkflowTestEnv } from './env';

// The options planWorkers() makes from the environment are ones the SDK accepts (it refuses, say, more pollers
// than slots), and the queues line up: a workflow on the payments queue that sends its gateway call to
// gatewayTaskQueue(...) has it run by the gateway queue's activity-only Worker of the same plan. If the
// gateway Worker did not poll that queue, the workflow would never finish.

const testEnv = useWorkflowTestEnv();

test('a plan with every knob set starts, and a gateway call sent to its gateway queue runs there', async () => {
  const config = loadConfig({
    NODE_ENV: 'development',
    TEMPORAL_TASK_QUEUE: 'plan-payments',
    TEMPORAL_WEBHOOK_TASK_QUEUE: 'plan-webhooks',
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '4',
    WORKER_MAX_CACHED_WORKFLOWS: '10',
    WORKER_MAX_CONCURRENT_ACTIVITIES: '3',
    WORKER_GATEWAY_MAX_CONCURRENT_ACTIVITIES: '2',
    WORKER_WORKFLOW_POLLERS: 'auto',
    WORKER_ACTIVITY_POLLERS: '5',
    GATEWAY_RATE_LIMITS: 'sandbox=50',
  });
  const plan = planWorkers(config, ['sandbox']);
  expect(plan.map((q) => q.options.taskQueue)).toEqual(['plan-payments', 'plan-webhooks', 'plan-payments-gateway-sandbox']);
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, 'fixtures', 'versioning', 'v1-gateway-queue.ts'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  const env = testEnv();
  // The payments Worker runs the workflow and its own activities, but not `transfer`: only the gateway
  // Worker has it, so the test fails if the call went anywhere else.
  const { transfer, ...paymentsActivities } = payoutLikeActivities;
  const workers = await Promise.all(
    plan.map((q) =>
      Worker.create({
        connection: env.nativeConnection,
        ...q.options,
        ...(q.runsWorkflows ? { workflowBundle: { code } } : {}),
        activities: q.kind === 'gateway' ? { transfer } : paymentsActivities,
      }),
    ),
  );
  const [payments, webhooks, gateway] = workers;
  const history = await payments!.runUntil(
    webhooks!.runUntil(
      gateway!.runUntil(async () => {
        const handle = await env.client.workflow.start(PAYOUT_LIKE_WORKFLOW, { workflowId: `plan-${Date.now()}`, taskQueue: 'plan-payments', args: [900] });
        expect(await handle.result()).toBe('tr_res_900');
        return handle.fetchHistory();
      }),
    ),
  );
  const scheduled = (history.events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a ? [[a.activityType?.name, a.taskQueue?.name]] : [];
  });
  expect(scheduled).toEqual([
    ['reserve', 'plan-payments'],
    ['transfer', 'plan-payments-gateway-sandbox'],
  ]);
});
