import { ConfigError, loadConfig } from '../../../platform/config';
import { describePlan, planWorkers, WorkerConfigError } from '../../../worker/worker-options';
import { gatewayTaskQueue } from '../../../workflows/task-queues';

// The worker's configuration from the environment to one Worker's options per task queue (worker/main.ts
// adds the connection, bundle and activities). Parsed by the real config schema, as the process does.

const DEV = { NODE_ENV: 'development' };
const GATEWAYS = ['sandbox'];
const plan = (env: Record<string, string>, gateways: string[] = GATEWAYS) => planWorkers(loadConfig({ ...DEV, ...env }), gateways);

function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ ...DEV, ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

test('by default a worker polls payments, webhooks and each registered gateway queue, with the documented defaults', () => {
  const p = plan({});
  expect(p.map((q) => [q.kind, q.options.taskQueue, q.runsWorkflows])).toEqual([
    ['payments', 'payments', true],
    ['webhooks', 'webhooks', true],
    ['gateway', 'payments-gateway-sandbox', false],
  ]);
  const [payments, webhooks, gateway] = p.map((q) => q.options);
  expect(payments).toEqual({
    namespace: 'default',
    taskQueue: 'payments',
    maxConcurrentWorkflowTaskExecutions: 40,
    maxCachedWorkflows: 500,
    maxConcurrentActivityTaskExecutions: 100,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
  });
  expect(webhooks!.maxConcurrentActivityTaskExecutions).toBe(200);
  // An activity-only worker: no workflow options at all, and no rate limit unless one is configured.
  expect(gateway).toEqual({
    namespace: 'default',
    taskQueue: 'payments-gateway-sandbox',
    maxConcurrentActivityTaskExecutions: 100,
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 10 },
  });
});

test('separate deployments: a webhook-only worker polls nothing of payments, a payments worker brings the gateway queues', () => {
  expect(plan({ WORKER_QUEUES: 'webhooks' }).map((q) => q.options.taskQueue)).toEqual(['webhooks']);
  expect(plan({ WORKER_QUEUES: 'payments' }, ['sandbox', 'acme']).map((q) => q.options.taskQueue)).toEqual([
    'payments',
    'payments-gateway-sandbox',
    'payments-gateway-acme',
  ]);
  // A gateway-only worker (scales one gateway's calls apart) runs no workflows.
  const only = plan({ WORKER_QUEUES: 'gateway:sandbox' });
  expect(only.map((q) => [q.kind, q.gateway, q.options.taskQueue, q.runsWorkflows])).toEqual([['gateway', 'sandbox', 'payments-gateway-sandbox', false]]);
  // Named queues follow TEMPORAL_TASK_QUEUE / TEMPORAL_WEBHOOK_TASK_QUEUE.
  expect(plan({ TEMPORAL_TASK_QUEUE: 'pay-eu', TEMPORAL_WEBHOOK_TASK_QUEUE: 'hooks-eu' }).map((q) => q.options.taskQueue)).toEqual([
    'pay-eu',
    'hooks-eu',
    'pay-eu-gateway-sandbox',
  ]);
});

test('GATEWAY_RATE_LIMITS becomes the task-queue rate limit of that gateway queue only', () => {
  const p = plan({ GATEWAY_RATE_LIMITS: 'sandbox=50, acme=2.5' }, ['sandbox', 'acme', 'other']);
  const rate = Object.fromEntries(p.map((q) => [q.options.taskQueue, q.options.maxTaskQueueActivitiesPerSecond]));
  expect(rate).toEqual({
    payments: undefined,
    webhooks: undefined,
    'payments-gateway-sandbox': 50,
    'payments-gateway-acme': 2.5,
    'payments-gateway-other': undefined,
  });
  expect(describePlan(p)[2]).toEqual({ kind: 'gateway', taskQueue: 'payments-gateway-sandbox', activitySlots: 100, queueRatePerSecond: 50 });
});

test('slots, cache and pollers per queue kind; pollers never exceed slots; auto pollers scale', () => {
  const p = plan({
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '4',
    WORKER_MAX_CACHED_WORKFLOWS: '0',
    WORKER_MAX_CONCURRENT_ACTIVITIES: '3',
    WORKER_WEBHOOK_MAX_CONCURRENT_ACTIVITIES: '500',
    WORKER_GATEWAY_MAX_CONCURRENT_ACTIVITIES: '7',
    WORKER_WORKFLOW_POLLERS: '8',
    WORKER_ACTIVITY_POLLERS: 'auto',
  });
  const [payments, webhooks, gateway] = p.map((q) => q.options);
  expect(payments).toMatchObject({
    maxConcurrentWorkflowTaskExecutions: 4,
    maxCachedWorkflows: 0,
    maxConcurrentActivityTaskExecutions: 3,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 4 },
    activityTaskPollerBehavior: { type: 'autoscaling' },
  });
  expect(webhooks).toMatchObject({ maxConcurrentActivityTaskExecutions: 500 });
  expect(gateway).toMatchObject({ maxConcurrentActivityTaskExecutions: 7, activityTaskPollerBehavior: { type: 'autoscaling' } });
  const capped = plan({ WORKER_MAX_CONCURRENT_ACTIVITIES: '2', WORKER_ACTIVITY_POLLERS: '10' })[0]!.options;
  expect(capped.activityTaskPollerBehavior).toEqual({ type: 'simple-maximum', maximum: 2 });
});

test('wrong values are refused naming the variable', () => {
  expect(refusal({ WORKER_QUEUES: 'payments,refunds' })).toMatch(/WORKER_QUEUES: "refunds" is not payments, webhooks or gateway:<name>/);
  expect(refusal({ WORKER_QUEUES: 'gateway:sandbox,gateway:sandbox' })).toMatch(/WORKER_QUEUES/);
  expect(refusal({ WORKER_QUEUES: ' , ' })).toMatch(/WORKER_QUEUES: must name at least one/);
  expect(refusal({ WORKER_QUEUES: 'gateway:Bad Name' })).toMatch(/WORKER_QUEUES/);
  expect(refusal({ GATEWAY_RATE_LIMITS: 'sandbox' })).toMatch(/GATEWAY_RATE_LIMITS: "sandbox" is not gateway=calls-per-second/);
  expect(refusal({ GATEWAY_RATE_LIMITS: 'sandbox=0' })).toMatch(/GATEWAY_RATE_LIMITS/);
  expect(refusal({ GATEWAY_RATE_LIMITS: 'sandbox=5,sandbox=6' })).toMatch(/GATEWAY_RATE_LIMITS/);
  expect(refusal({ WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '1' })).toMatch(/WORKER_MAX_CONCURRENT_WORKFLOW_TASKS/);
  expect(refusal({ WORKER_WORKFLOW_POLLERS: '1' })).toMatch(/WORKER_WORKFLOW_POLLERS/);
  expect(refusal({ WORKER_ACTIVITY_POLLERS: 'many' })).toMatch(/WORKER_ACTIVITY_POLLERS/);
  expect(refusal({ WORKER_MAX_CACHED_WORKFLOWS: '-1' })).toMatch(/WORKER_MAX_CACHED_WORKFLOWS/);
});

test('a gateway the registry does not know is refused, in WORKER_QUEUES and in GATEWAY_RATE_LIMITS', () => {
  expect(() => plan({ WORKER_QUEUES: 'gateway:acme' })).toThrow(WorkerConfigError);
  expect(() => plan({ GATEWAY_RATE_LIMITS: 'acme=5' })).toThrow(/gateway "acme" .* is not registered; registered: sandbox/);
  // Names are data: `constructor` is parsed as a name like any other, not found on an object's prototype.
  expect(() => plan({ GATEWAY_RATE_LIMITS: 'constructor=5' })).toThrow(/gateway "constructor"/);
});

test('gatewayTaskQueue names a gateway queue after the payments queue, and refuses what is not a gateway name', () => {
  expect(gatewayTaskQueue('payments', 'sandbox')).toBe('payments-gateway-sandbox');
  expect(() => gatewayTaskQueue('payments', '../x')).toThrow(TypeError);
});
