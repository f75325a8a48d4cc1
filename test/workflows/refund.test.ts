import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { RefundOutcome } from '../../activities/gateway/types';
import type { RefundPatch } from '../../activities/store';
import { REFUND_WORKFLOW, refundOutcomeSignal, type RefundInput } from '../../workflows/definitions';
import { getWorkflowBundle, useWorkflowTestEnv } from './env';

// The refund workflow in virtual time: its SLA timer to the second, success before it, and a gateway's
// word that comes after the cancel. The parent intent is stood in for by a workflow that records signals.

// A fresh test server per case: one whose clock a previous case moved days ahead does not skip reliably.
const testEnv = useWorkflowTestEnv({ perTest: true });

let n = 0;
function recorders(submit: RefundOutcome, status: () => RefundOutcome) {
  const rec = { patches: [] as RefundPatch[], events: [] as { type: string; createdAt: string }[], polls: 0 };
  const activities = {
    refundCharge: async () => submit,
    refundStatus: async () => {
      rec.polls += 1;
      return status();
    },
    saveRefund: async (p: RefundPatch) => {
      rec.patches.push(p);
      return 'applied';
    },
    recordEvent: async (e: { type: string; createdAt: string }) => {
      rec.events.push({ type: e.type, createdAt: e.createdAt });
    },
  };
  return { rec, activities };
}

async function run(slaSeconds: number, activities: object, during: (h: any, inp: RefundInput) => Promise<void>) {
  const taskQueue = `re-${++n}`;
  const now = new Date(await testEnv().currentTimeMs());
  const parentId = `pi_eu_parent${n}${Date.now()}`;
  const inp: RefundInput = {
    id: `re_eu_test${n}${Date.now()}`,
    tenantId: 'ten_eu_t',
    region: 'eu',
    paymentIntent: parentId,
    connector: 'con_eu_t',
    chargeId: 'ch_1',
    amount: 300,
    currency: 'EUR',
    idempotencyKey: null,
    webhooks: [],
    slaSeconds,
    createdAt: now.toISOString(),
    callbackUrl: 'http://127.0.0.1:1/cb',
    webhookTaskQueue: 'webhooks-test',
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  const settledSignals: unknown[] = [];
  await worker.runUntil(async () => {
    // The parent: a paymentIntentWorkflow would take this signal; a bare handle records it via describe.
    const parent = await testEnv().client.workflow.start('paymentIntentWorkflow', {
      workflowId: parentId,
      taskQueue,
      args: [
        {
          id: parentId, tenantId: 'ten_eu_t', region: 'eu', amount: 1000, currency: 'EUR', customer: null, metadata: {}, webhooks: [],
          connectors: ['con_eu_t'], returnUrl: null, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + 30 * 86400e3).toISOString(),
          callbackUrl: 'http://127.0.0.1:1/cb', hostedPageUrl: 'http://127.0.0.1:1/pay', webhookTaskQueue: 'webhooks-test',
        },
      ],
    });
    const handle = await testEnv().client.workflow.start(REFUND_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    // Awaiting the result is what lets the test server skip time; `during` acts meanwhile.
    const result = handle.result();
    await during(handle, inp);
    settledSignals.push(await result);
    await parent.terminate('test done');
  });
  return { inp, result: settledSignals[0] as { status: string; late_outcome: string | null } };
}

const pending: RefundOutcome = { status: 'pending', refundId: 'rf_1' };

test('a refund not finished is canceled exactly at the default SLA of 3 days', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { inp } = await run(259_200, { ...activities, savePaymentIntent: async () => 'applied' }, async (h) => {
    await waitFor(() => rec.patches.some((p) => p.status === 'canceled'));
    await h.signal(refundOutcomeSignal, { outcome: { status: 'rejected', refundId: 'rf_1', failureCode: 'x', failureMessage: 'x' } });
  });
  const cancel = rec.patches.find((p) => p.status === 'canceled')!;
  const late = new Date(cancel.updated_at).getTime() - (new Date(inp.createdAt).getTime() + 259_200_000);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(1000);
  expect(cancel.failure_code).toBe('sla_timeout');
  expect(rec.events.map((e) => e.type)).toEqual(['refund.canceled']);
  expect(rec.polls).toBeGreaterThan(0); // the polling fallback ran while no callback came
});

test('a custom SLA of one day is honoured to the second', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { inp } = await run(86_400, { ...activities, savePaymentIntent: async () => 'applied' }, async (h) => {
    await waitFor(() => rec.patches.some((p) => p.status === 'canceled'));
    await h.signal(refundOutcomeSignal, { outcome: { status: 'rejected', refundId: 'rf_1', failureCode: 'x', failureMessage: 'x' } });
  });
  const cancel = rec.patches.find((p) => p.status === 'canceled')!;
  const late = new Date(cancel.updated_at).getTime() - (new Date(inp.createdAt).getTime() + 86_400_000);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(1000);
});

test('a callback before the deadline settles it as success', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { result } = await run(259_200, { ...activities, savePaymentIntent: async () => 'applied' }, async (h) => {
    await h.signal(refundOutcomeSignal, { outcome: { status: 'succeeded', refundId: 'rf_1' } });
  });
  expect(result.status).toBe('success');
  expect(rec.patches.at(-1)).toMatchObject({ status: 'success', gateway_transaction_id: 'rf_1' });
  expect(rec.events.map((e) => e.type)).toEqual(['refund.success']);
});

test('a gateway success after the SLA cancel is recorded for operators; the refund stays canceled', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { result } = await run(7_200, { ...activities, savePaymentIntent: async () => 'applied' }, async (h) => {
    await waitFor(() => rec.patches.some((p) => p.status === 'canceled'));
    await h.signal(refundOutcomeSignal, { outcome: { status: 'succeeded', refundId: 'rf_1' } });
  });
  expect(result).toMatchObject({ status: 'canceled', late_outcome: 'succeeded' });
  expect(rec.patches.at(-1)).toMatchObject({ status: 'canceled', late_outcome: expect.objectContaining({ status: 'succeeded', gateway_transaction_id: 'rf_1' }) });
  expect(rec.events.map((e) => e.type)).toEqual(['refund.canceled']);
});

async function waitFor(check: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}


test('a gateway that refuses the refund request outright cancels the refund at once', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const refusing = {
    ...activities,
    savePaymentIntent: async () => 'applied',
    refundCharge: async () => {
      throw ApplicationFailure.nonRetryable('charge not refundable', 'GatewayRequestRejected');
    },
  };
  const { result } = await run(259_200, refusing, async () => undefined);
  expect(result.status).toBe('canceled');
  expect(rec.patches.at(-1)).toMatchObject({ status: 'canceled', failure_code: 'gateway_rejected' });
  expect(rec.events.map((e) => e.type)).toEqual(['refund.canceled']);
});
