import { Worker } from '@temporalio/worker';
import { loadWorkflowBundle } from '../../worker/bundle';
import { attemptUpdate, PAYMENT_INTENT_WORKFLOW, type PaymentIntentInput } from '../../workflows/payment-intent/messages';
import { getWorkflowBundle, useWorkflowTestEnv } from './env';

// Production workers load a bundle built ahead of time (WORKFLOW_BUNDLE_PATH); and a recorded history must
// replay against the current code without non-determinism.

const testEnv = useWorkflowTestEnv();

const activities = {
  savePaymentIntent: async () => 'applied',
  recordEvent: async () => undefined,
  savePaymentIntentAndEvents: async () => 'applied',
  charge: async () => ({ status: 'succeeded', chargeId: 'ch_1' }),
};

test('a worker started from a prebuilt bundle file runs the payment-intent workflow, and its history replays', async () => {
  const bundle = await loadWorkflowBundle(process.env.PAYORCH_WORKFLOW_BUNDLE);
  expect(bundle.code).toBe(getWorkflowBundle().code);
  const now = new Date(await testEnv().currentTimeMs());
  const input: PaymentIntentInput = {
    id: `pi_eu_replay${Date.now()}`,
    tenantId: 'ten_eu_t',
    region: 'eu',
    amount: 700,
    currency: 'EUR',
    customer: null,
    metadata: {},
    webhooks: [],
    connectors: ['con_eu_t'],
    returnUrl: null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 60_000).toISOString(),
    callbackUrl: 'http://127.0.0.1:1/cb',
    hostedPageUrl: 'http://127.0.0.1:1/pay',
    webhookTaskQueue: 'webhooks-test',
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue: 'prebuilt', workflowBundle: bundle, activities });
  const history = await worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: input.id, taskQueue: 'prebuilt', args: [input] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
    await handle.terminate('recorded');
    return handle.fetchHistory();
  });
  await Worker.runReplayHistory({ workflowBundle: bundle }, history, input.id);
});

test('the workflow bundle carries no zod: every run evaluates its imports again, and zod cost each start and replay milliseconds', () => {
  const code = getWorkflowBundle().code;
  expect(code).toContain('./workflows/payment-intent/workflow.ts'); // the bundle names its modules by path
  expect(code).not.toMatch(/\.\/node_modules\/zod\//);
});
