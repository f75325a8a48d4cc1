import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ChargeOutcome } from '../../gateways/types';
import type { PaymentIntentPatch } from '../../activities/store';
import type { OlderIntentInput, PaymentIntentInput } from '../../workflows/payment-intent/messages';
import { gate, getWorkflowBundle } from './env';

// What the payment-intent workflow tests share: recording activities, an input, a worker per test.

/** An intent's older-interface part (its UUID view, older webhooks), under checkout intent `checkoutIntent` if given. */
export const olderPart = (checkoutIntent: string | null): OlderIntentInput => ({
  view: { payment_intent: '0b6f6a8e-6c1e-4d84-9a55-0c1f3d2b7e01', payment_intent_secret: 7 } as never,
  transactionId: 70,
  payloadJson: '{"order":"A-1"}',
  webhooks: [{ url: 'http://127.0.0.1:1/older', events: [] }],
  checkoutIntent,
});

export function intentFixtures(testEnv: () => TestWorkflowEnvironment) {
  interface Recorded {
    patches: PaymentIntentPatch[];
    events: { type: string; createdAt: string }[];
    /** Each write of a record with its events in one activity: the status written, then the events' types. */
    combined: { status: string; events: string[] }[];
    charges: number;
    voids: { chargeId: string; amount: number }[];
    polls: number;
    lookups: string[];
  }

  function recorders(
    charge: () => Promise<ChargeOutcome>,
    chargeStatus?: (chargeId: string) => Promise<ChargeOutcome>,
    findCharge: (key: string) => Promise<ChargeOutcome | { status: 'not_found' }> = async () => ({ status: 'not_found' }),
  ) {
    const rec: Recorded = { patches: [], events: [], combined: [], charges: 0, voids: [], polls: 0, lookups: [] };
    // What the gateway itself says about a charge when asked; tests set it. Unset: still pending.
    const gateway = new Map<string, ChargeOutcome>();
    const statusOf = chargeStatus ?? (async (chargeId: string) => gateway.get(chargeId) ?? { status: 'pending', chargeId });
    const savePaymentIntent = async (p: PaymentIntentPatch) => {
      rec.patches.push(p);
      return 'applied';
    };
    const recordEvent = async (e: { type: string; createdAt: string }) => {
      rec.events.push({ type: e.type, createdAt: e.createdAt });
    };
    const activities = {
      savePaymentIntent,
      recordEvent,
      // A transition's record and its events in one write, in that order (activities/store.ts).
      savePaymentIntentAndEvents: async (w: { patch: PaymentIntentPatch; events: { type: string; createdAt: string }[] }) => {
        rec.combined.push({ status: w.patch.status, events: w.events.map((e) => e.type) });
        const saved = await savePaymentIntent(w.patch);
        for (const e of w.events) await recordEvent(e);
        return saved;
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
      chargeStatus: async (r: { chargeId: string }) => {
        rec.polls += 1;
        return statusOf(r.chargeId);
      },
      findCharge: async (r: { idempotencyKey: string }) => {
        rec.lookups.push(r.idempotencyKey);
        return findCharge(r.idempotencyKey);
      },
      savePaymentMethod: async () => undefined,
      // What a refund started by the intent needs (its own workflow runs on the same worker).
      createRefundRecord: async () => undefined,
      saveRefund: async () => 'applied',
      refundStatus: async () => ({ status: 'succeeded', refundId: 'rf_x' }),
      findRefund: async () => ({ status: 'succeeded', refundId: 'rf_x' }),
      cancelRefund: async () => ({ status: 'canceled', refundId: 'rf_x' }),
    };
    return { rec, activities, gateway };
  }

  let n = 0;
  async function input(timeoutSeconds: number, extra: Partial<PaymentIntentInput> = {}): Promise<PaymentIntentInput> {
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
      ...extra,
    };
  }

  async function withWorker<T>(activities: object, fn: (taskQueue: string) => Promise<T>): Promise<T> {
    const taskQueue = `pi-${++n}`;
    const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
    return worker.runUntil(fn(taskQueue));
  }

  /** The length of every run of a workflow's continue-as-new chain, first to last. */
  async function runLengths(workflowId: string, firstRunId: string): Promise<number[]> {
    const lengths: number[] = [];
    let runId: string | undefined = firstRunId;
    while (runId) {
      const history: { events?: any[] | null } = await testEnv().client.workflow.getHandle(workflowId, runId).fetchHistory();
      const events: any[] = history.events ?? [];
      lengths.push(events.length);
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    return lengths;
  }

  return { recorders, input, withWorker, runLengths };
}

/** A charge the gateway answers with `outcome` only when `release()` is called: `onWire()` says its activity has started. */
export function heldCharge(outcome: ChargeOutcome) {
  const held = gate();
  let started = false;
  return {
    charge: async (): Promise<ChargeOutcome> => {
      started = true;
      await held.p;
      return outcome;
    },
    release: () => held.open(),
    onWire: () => started,
  };
}
