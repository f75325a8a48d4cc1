import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ChargeOutcome } from '../../activities/gateway/types';
import type { PaymentIntentPatch } from '../../activities/store';
import type { PaymentIntentInput } from '../../workflows/definitions';
import { getWorkflowBundle } from './env';

// What the payment-intent workflow tests share: recording activities, an input, a worker per test.

export function intentFixtures(testEnv: () => TestWorkflowEnvironment) {
  interface Recorded {
    patches: PaymentIntentPatch[];
    events: { type: string; createdAt: string }[];
    charges: number;
    voids: { chargeId: string; amount: number }[];
    polls: number;
  }

  function recorders(charge: () => Promise<ChargeOutcome>, chargeStatus: () => Promise<ChargeOutcome> = async () => ({ status: 'pending', chargeId: 'unused' })) {
    const rec: Recorded = { patches: [], events: [], charges: 0, voids: [], polls: 0 };
    const activities = {
      savePaymentIntent: async (p: PaymentIntentPatch) => {
        rec.patches.push(p);
        return 'applied';
      },
      recordEvent: async (e: { type: string; createdAt: string }) => {
        rec.events.push({ type: e.type, createdAt: e.createdAt });
      },
      charge: async () => {
        rec.charges += 1;
        return charge();
      },
      refundCharge: async (r: { chargeId: string; amount: number }) => {
        rec.voids.push({ chargeId: r.chargeId, amount: r.amount });
        return { status: 'succeeded', refundId: 'rf_void' };
      },
      recordVoidedCharge: async () => undefined,
      chargeStatus: async () => {
        rec.polls += 1;
        return chargeStatus();
      },
      savePaymentMethod: async () => undefined,
    };
    return { rec, activities };
  }

  let n = 0;
  async function input(timeoutSeconds: number): Promise<PaymentIntentInput> {
    const now = new Date(await testEnv().currentTimeMs());
    const id = `pi_eu_test${++n}${Date.now()}`;
    return {
      id,
      tenantId: 'ten_eu_test',
      region: 'eu',
      amount: 2500,
      currency: 'EUR',
      customer: null,
      metadata: {},
      webhooks: [],
      connectors: ['con_eu_test'],
      returnUrl: null,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + timeoutSeconds * 1000).toISOString(),
      callbackUrl: 'http://127.0.0.1:1/callbacks/sandbox/' + id,
      hostedPageUrl: 'http://127.0.0.1:1/pay/' + id,
      webhookTaskQueue: 'webhooks-test',
    };
  }

  async function withWorker<T>(activities: object, fn: (taskQueue: string) => Promise<T>): Promise<T> {
    const taskQueue = `pi-${++n}`;
    const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
    return worker.runUntil(fn(taskQueue));
  }

  async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  return { recorders, input, withWorker, waitUntil };
}
