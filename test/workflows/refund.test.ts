import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { RefundOutcome } from '../../gateways/types';
import type { RefundPatch } from '../../activities/store';
import type { DeliveryPlan, SendWebhookResult } from '../../activities/webhooks';
import { DEFAULT_RETRY_WAITS_MS, DELIVERY_WINDOW_MS } from '../../domain/webhook-schedule';
import type { OlderRefundInput } from '../../workflows/payment-intent/messages';
import { REFUND_WORKFLOW, refundOutcomeSignal, type RefundInput } from '../../workflows/refund/messages';
import { gate, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';

// The refund workflow in virtual time: its SLA timer to the second, success before it, and a gateway's
// word that comes after the cancel. The parent intent is stood in for by a workflow that records signals.

// A fresh test server per case: one whose clock a previous case moved days ahead does not skip reliably.
const testEnv = useWorkflowTestEnv({ perTest: true });

let n = 0;
function recorders(submit: RefundOutcome, status: () => RefundOutcome, cancel: () => RefundOutcome = () => ({ status: 'canceled', refundId: 'rf_1' })) {
  const rec = { patches: [] as RefundPatch[], events: [] as { type: string; createdAt: string; body: Record<string, unknown> }[], polls: 0, cancels: 0 };
  const activities = {
    refundCharge: async () => submit,
    refundStatus: async () => {
      rec.polls += 1;
      return status();
    },
    findRefund: async () => {
      rec.polls += 1;
      return status();
    },
    cancelRefund: async () => {
      rec.cancels += 1;
      return cancel();
    },
    saveRefund: async (p: RefundPatch) => {
      rec.patches.push(p);
      return 'applied';
    },
    // Only the refund's own events: once the refund is done the test server may skip to the stand-in
    // parent's expiry before the test terminates it, and its payment.canceled is not this test's subject.
    recordEvent: async (e: { type: string; createdAt: string; body: string }) => {
      if (e.type.startsWith('refund.')) rec.events.push({ type: e.type, createdAt: e.createdAt, body: JSON.parse(e.body) });
    },
    olderRefundFacts: async () => FACTS,
    // Webhook deliveries (children on the same worker, see run()): each delivered at once.
    deliveryPlan: async (): Promise<DeliveryPlan> => ({ waitsMs: [...DEFAULT_RETRY_WAITS_MS], windowMs: DELIVERY_WINDOW_MS, attemptTimeoutMs: 10_000 }),
    sendWebhook: async (): Promise<SendWebhookResult> => ({ attemptedAt: new Date().toISOString(), statusCode: 204, latencyMs: 1, error: null, outcome: 'delivered', permanent: false, retryAfterMs: null }),
    recordDeliveryAttempt: async () => undefined,
  };
  return { rec, activities };
}

/** An older refund's fixed row fields, as the olderRefundFacts activity reads them from its record. */
const FACTS = { id: 41, uuid: '0b6f7c1e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', gateway: 'sandbox', transaction_id: 12, payment_intent: '1a2b3c4d-1c2d-4e5f-8a9b-0c1d2e3f4a5b' };

/**
 * With RECORD_HISTORIES=1, a run's history is kept as a fixture that test/workflows/replay-recorded-histories
 * replays against later code (`npx jest test/workflows/refund.test.ts` with the variable set).
 */
/** Keeps a run's history (RECORD_HISTORIES=1) for test/workflows/replay-recorded-histories. */
function keep(name: string | undefined, history: temporal.api.history.v1.IHistory) {
  if (name) keepHistory(`refund-${name}`, history);
}

async function run(
  slaSeconds: number,
  activities: object,
  during: (h: any, inp: RefundInput) => Promise<void>,
  opts: { older?: OlderRefundInput; recordAs?: string } = {},
) {
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
    // An older refund's webhooks are child workflows: they run on this worker, as a workflow task left
    // waiting for a worker would stop the test server from skipping time.
    ...(opts.older ? { older: opts.older, webhookTaskQueue: taskQueue } : {}),
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  const out: { result?: { status: string; late_outcome: string | null }; runs: number[]; settled: string[] } = { runs: [], settled: [] };
  await worker.runUntil(async () => {
    // The parent, unpaid: it ignores the settle signals, which the test reads from the refund's history.
    const parent = await testEnv().client.workflow.start('paymentIntentWorkflow', {
      workflowId: parentId,
      taskQueue,
      args: [
        {
          id: parentId, tenantId: 'ten_eu_t', region: 'eu', amount: 1000, currency: 'EUR', customer: null, metadata: {}, webhooks: [],
          connectors: ['con_eu_t'], returnUrl: null, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + 400 * 86400e3).toISOString(),
          callbackUrl: 'http://127.0.0.1:1/cb', hostedPageUrl: 'http://127.0.0.1:1/pay', webhookTaskQueue: 'webhooks-test',
        },
      ],
    });
    const handle = await testEnv().client.workflow.start(REFUND_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    // Awaiting the result is what lets the test server skip time; `during` acts meanwhile.
    const result = handle.result();
    await during(handle, inp);
    out.result = await result;
    keep(opts.recordAs, await handle.fetchHistory());
    // Every run of the chain (continue-as-new), its length, and what it told the payment.
    let runId: string | undefined = handle.firstExecutionRunId;
    while (runId) {
      const history: { events?: any[] | null } = await testEnv().client.workflow.getHandle(inp.id, runId).fetchHistory();
      const events: any[] = history.events ?? [];
      out.runs.push(events.length);
      out.settled.push(...settledIn(events));
      runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    await parent.terminate('test done').catch(() => undefined); // a year later it may have expired by itself
  });
  return { inp, result: out.result!, settled: out.settled, runs: out.runs, history: Math.max(...out.runs) };
}

/** The refundSettled words a run sent to the payment intent's workflow. */
function settledIn(events: any[]): string[] {
  return events
    .map((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)
    .filter((a) => a?.signalName === 'refundSettled')
    .map((a) => JSON.parse(Buffer.from(a.input.payloads[0].data).toString()).status);
}

async function signalsSent(h: any): Promise<string[]> {
  return settledIn((await h.fetchHistory()).events ?? []);
}

const pending: RefundOutcome = { status: 'pending', refundId: 'rf_1' };

test('a refund not finished is canceled exactly at the default SLA of 3 days', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { inp } = await run(259_200, { ...activities, savePaymentIntent: async () => 'applied' }, async () => {
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
  const { inp } = await run(86_400, { ...activities, savePaymentIntent: async () => 'applied' }, async () => {
  });
  const cancel = rec.patches.find((p) => p.status === 'canceled')!;
  const late = new Date(cancel.updated_at).getTime() - (new Date(inp.createdAt).getTime() + 86_400_000);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(1000);
});

test('a callback before the deadline, confirmed by the gateway, settles it as success', async () => {
  let gatewaySays: RefundOutcome = pending;
  const { rec, activities } = recorders(pending, () => gatewaySays);
  const { result } = await run(259_200, { ...activities, savePaymentIntent: async () => 'applied' }, async (h) => {
    gatewaySays = { status: 'succeeded', refundId: 'rf_1' };
    await h.signal(refundOutcomeSignal, { outcome: { status: 'succeeded', refundId: 'rf_1' } });
  });
  expect(result.status).toBe('success');
  expect(rec.patches.at(-1)).toMatchObject({ status: 'success', gateway_transaction_id: 'rf_1' });
  expect(rec.events.map((e) => e.type)).toEqual(['refund.success']);
});

test('a signed callback the gateway does not confirm changes nothing: the refund runs to its SLA', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { result, settled } = await run(7_200, { ...activities, savePaymentIntent: async () => 'applied' }, async (h) => {
    await h.signal(refundOutcomeSignal, { outcome: { status: 'succeeded', refundId: 'rf_1' } });
  });
  expect(result.status).toBe('canceled');
  expect(rec.patches.some((p) => p.status === 'success')).toBe(false);
  expect(settled).toEqual(['canceled']);
});

test('at the SLA the gateway cancels the refund: canceled, and only then is the amount released', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { result, settled } = await run(3_600, { ...activities, savePaymentIntent: async () => 'applied' }, async () => undefined);
  expect(result).toMatchObject({ status: 'canceled', late_outcome: null });
  expect(rec.cancels).toBe(1);
  // The gateway took the request (pending): the record reads pending_promise from then on, once.
  expect(rec.patches.map((p) => [p.status, p.sub_status])).toEqual([
    ['pending', 'pending_promise'],
    ['canceled', 'canceled_timeout_e2e_manual'],
  ]);
  expect(rec.patches.at(-1)).toMatchObject({ status: 'canceled', failure_code: 'sla_timeout' });
  expect(settled).toEqual(['canceled']);
  expect(rec.events.map((e) => e.type)).toEqual(['refund.canceled']);
});

test('at the SLA the gateway says it already executed the refund: it stands as success and keeps its amount', async () => {
  const { rec, activities } = recorders(pending, () => pending, () => ({ status: 'succeeded', refundId: 'rf_1' }));
  const { result, settled } = await run(7_200, { ...activities, savePaymentIntent: async () => 'applied' }, async () => undefined);
  expect(result).toMatchObject({ status: 'success', late_outcome: 'succeeded' });
  expect(rec.patches.at(-1)).toMatchObject({ status: 'success', gateway_transaction_id: 'rf_1' });
  expect(settled).toEqual(['success']);
  expect(rec.events.map((e) => e.type)).toEqual(['refund.success']);
});

test('while the gateway does not answer the cancel, the refund reads canceled but its amount stays reserved', async () => {
  let cancelAnswers = false;
  const { rec, activities } = recorders(pending, () => pending);
  const flaky = {
    ...activities,
    savePaymentIntent: async () => 'applied',
    cancelRefund: async () => {
      rec.cancels += 1;
      if (!cancelAnswers) throw new Error('gateway unreachable');
      return { status: 'canceled', refundId: 'rf_1' };
    },
  };
  const { result, settled, history } = await run(3_600, flaky, async (h) => {
    await waitFor(() => rec.patches.some((p) => p.status === 'canceled'));
    expect(await signalsSent(h)).toEqual([]); // visible as canceled, nothing released yet
    cancelAnswers = true;
  });
  expect(result.status).toBe('canceled');
  expect(settled).toEqual(['canceled']);
  expect(history).toBeLessThan(2_100);
  expect(rec.events.map((e) => e.type)).toEqual(['refund.canceled']);
  // The record says the cancel is unconfirmed while it is (a return waiting on it keeps waiting), then settled.
  const canceled = rec.patches.filter((p) => p.status === 'canceled');
  expect(canceled[0]).toMatchObject({ cancel_unconfirmed: true });
  expect(canceled.at(-1)).toMatchObject({ cancel_unconfirmed: false });
});

test('gateway errors while polling never fail the workflow: it retries, then takes the SLA path', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const failing = {
    ...activities,
    savePaymentIntent: async () => 'applied',
    refundStatus: async () => {
      rec.polls += 1;
      throw ApplicationFailure.nonRetryable('sandbox GET /v1/refunds/rf_1 answered 404', 'GatewayRequestRejected');
    },
  };
  const { result, settled } = await run(86_400, failing, async () => undefined);
  expect(result.status).toBe('canceled');
  expect(rec.polls).toBeGreaterThan(3);
  expect(settled).toEqual(['canceled']);
});

test('a refund pending at the gateway for a 365-day SLA runs to the end with every run under the history bound', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const { result, settled, runs } = await run(365 * 86_400, { ...activities, savePaymentIntent: async () => 'applied' }, async () => undefined);
  expect(result.status).toBe('canceled');
  expect(settled).toEqual(['canceled']);
  // Polling backs off to a day for a year-long SLA: a few hundred questions in all, none of them lost.
  expect(rec.polls).toBeGreaterThan(300);
  expect(rec.polls).toBeLessThan(500);
  for (const length of runs) expect(length).toBeLessThan(2_100);
  process.stdout.write(`365-day refund: ${rec.polls} status polls, runs of ${runs.join(', ')} history events\n`);
}, 240_000);

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

describe('a refund of the older interface (webhook_urls)', () => {
  const older: OlderRefundInput = { webhooks: [{ url: 'http://127.0.0.1:1/older', events: [] }] };
  const olderBodies = (rec: ReturnType<typeof recorders>['rec']) => rec.events.filter((e) => e.body.webhook_type === 'refund').map((e) => e.body);

  test('success: each sub-status written and sent once, the row in the body, one event per change (no envelope twin sent nowhere); succeeded_at is when its record was last written', async () => {
    // The gateway takes the request (pending) and has executed it by the second time it is asked.
    const { rec, activities } = recorders(pending, () => (rec.polls >= 2 ? { status: 'succeeded', refundId: 'rf_1' } : pending));
    const { result } = await run(259_200, { ...activities, savePaymentIntent: async () => 'applied' }, async () => undefined, { older, recordAs: 'older-success' });
    expect(result.status).toBe('success');
    expect(rec.patches.map((p) => [p.status, p.sub_status])).toEqual([
      ['pending', 'pending_promise'],
      ['success', 'success'],
    ]);
    expect(rec.events.map((e) => e.type)).toEqual(['refund.pending_created', 'refund.pending_promise', 'refund.success']);
    const bodies = olderBodies(rec);
    expect(bodies.map((b) => [b.event, b.status, b.sub_status])).toEqual([
      ['refund.pending_created', 'pending', 'pending_created'],
      ['refund.pending_promise', 'pending', 'pending_promise'],
      ['refund.success', 'success', 'success'],
    ]);
    expect(bodies.at(-1)).toMatchObject({ ...FACTS, amount: 300, currency: 'EUR', gateway_transaction_id: 'rf_1', succeeded_at: rec.patches.at(-1)!.updated_at });
    expect(bodies.slice(0, 2).every((b) => b.succeeded_at === null)).toBe(true);
  });

  test('held by the gateway past its SLA: canceled_timeout_e2e_manual', async () => {
    const { rec, activities } = recorders(pending, () => pending);
    const { result } = await run(3_600, { ...activities, savePaymentIntent: async () => 'applied' }, async () => undefined, {
      older,
      recordAs: 'older-canceled-timeout-e2e-manual',
    });
    expect(result.status).toBe('canceled');
    expect(rec.patches.map((p) => p.sub_status)).toEqual(['pending_promise', 'canceled_timeout_e2e_manual']);
    expect(olderBodies(rec).map((b) => b.event)).toEqual(['refund.pending_created', 'refund.pending_promise', 'refund.canceled_timeout_e2e_manual']);
    // The cancel is announced by its older event alone: no envelope refund.canceled sent nowhere beside it.
    expect(rec.events.map((e) => e.type)).toEqual(['refund.pending_created', 'refund.pending_promise', 'refund.canceled_timeout_e2e_manual']);
  });
});

test("a signed callback naming another refund of the gateway does not settle this one: the refund's gateway id comes from the gateway only", async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const asked: string[] = [];
  const acts = {
    ...activities,
    // The gateway does not answer the submission (it times out) until the SLA.
    refundCharge: async () => {
      throw ApplicationFailure.retryable('timed out', 'GatewayUnavailable');
    },
    // By our key: the gateway has nothing yet. By id: rf_other is another refund, executed long ago.
    findRefund: async () => ({ status: 'not_found' }),
    refundStatus: async (r: { refundId: string }) => {
      asked.push(r.refundId);
      return r.refundId === 'rf_other' ? { status: 'succeeded', refundId: 'rf_other' } : { status: 'pending', refundId: r.refundId };
    },
    savePaymentIntent: async () => 'applied',
  };
  const { result } = await run(7_200, acts, async (h) => {
    await h.signal(refundOutcomeSignal, { outcome: { status: 'succeeded', refundId: 'rf_other' } });
  });
  // Asked by our key only: the callback's id named nothing this refund's gateway answers gave.
  expect(asked).not.toContain('rf_other');
  expect(result.status).toBe('canceled');
  expect(rec.patches.some((p) => p.status === 'success')).toBe(false);
});

test('a refund the gateway refused outright while the workflow was asking, at a continue-as-new, is released at once: the answer is acted on before the run continues', async () => {
  const { rec, activities } = recorders(pending, () => pending);
  const submit = gate();
  const ask = gate();
  let finds = 0;
  let holdNext = false;
  const acts = {
    ...activities,
    refundCharge: async () => {
      await submit.p;
      throw ApplicationFailure.nonRetryable('400 invalid refund', 'GatewayRejected');
    },
    findRefund: async () => {
      finds += 1;
      if (holdNext) await ask.p;
      return { status: 'not_found' };
    },
    savePaymentIntent: async () => 'applied',
  };
  const { runs } = await run(365 * 86_400, acts, async (h) => {
    const len = async () => Number((await h.describe()).historyLength);
    const hint = () => h.signal(refundOutcomeSignal, { outcome: { status: 'pending', refundId: '' } });
    await waitFor(() => finds >= 1); // its first question, by key
    // Callback hints (each makes the workflow ask the gateway once) until the history is near the bound.
    while ((await len()) < 1950) {
      const want = finds + 1;
      await hint();
      await waitFor(() => finds >= want);
    }
    holdNext = true;
    const before = finds;
    await hint();
    await waitFor(() => finds > before);
    // While it asks: the gateway refuses the submission outright, and more signals take the history past the bound.
    submit.open();
    while ((await len()) <= 2010) await hint();
    expect((await h.describe()).runId).toBe(h.firstExecutionRunId);
    ask.open();
  });
  // The refusal is acted on before the history's bound makes the run continue: one run, released at once.
  expect(runs).toHaveLength(1);
  expect(rec.patches.at(-1)).toMatchObject({ status: 'canceled', failure_code: 'gateway_rejected' });
}, 180_000);
