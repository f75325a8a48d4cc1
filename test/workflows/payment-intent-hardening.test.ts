import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ChargeOutcome } from '../../gateways/types';
import { reopenedState } from '../../api/refunds/reopen';
import { serviceRefundKey } from '../../domain/refund';
import type { PaymentIntentRecord, RefundRecord } from '../../platform/records';
import {
  admitRefundUpdate,
  attemptUpdate,
  cancelUpdate,
  chargeOutcomeSignal,
  intentStateQuery,
  PAYMENT_INTENT_WORKFLOW,
  recheckAttemptUpdate,
  refundSettledSignal,
  type OperatorActionInput,
  type RefundAdmissionInput,
} from '../../workflows/payment-intent/messages';
import { gate, keepHistory, useWorkflowTestEnv, waitFor } from './env';
import { heldCharge, intentFixtures } from './payment-intent-fixtures';

// Money paths under faults and hostile input, in virtual time: callbacks are hints the gateway must
// confirm, a lost answer is reconciled by idempotency key (never guessed), a capture nobody owns is given
// back, histories stay bounded, and merchant-chosen keys are data.

const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input, withWorker, runLengths } = intentFixtures(testEnv);

/** A charge the gateway holds in a 3DS challenge. */
const challenge = (chargeId: string): ChargeOutcome => ({ status: 'requires_action', chargeId, challengeUrl: `http://sandbox/3ds/${chargeId}` });
const noAnswer = () => ApplicationFailure.retryable('sandbox POST /v1/charges timed out after 10000 ms', 'GatewayUnavailable');
const refund = (amount: number, idempotencyKey: string | null = null): RefundAdmissionInput => ({
  amount,
  currency: 'EUR',
  idempotencyKey,
  webhooks: [],
  slaSeconds: 3600,
  callbackBaseUrl: 'http://127.0.0.1:1/callbacks/sandbox',
});

test('a forged but correctly signed "succeeded" callback the gateway does not confirm leaves the intent pending', async () => {
  const { rec, activities, gateway } = recorders(async () => challenge('ch_3ds'));
  gateway.set('ch_3ds', challenge('ch_3ds'));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_3ds', outcome: { status: 'succeeded', chargeId: 'ch_3ds' } });
    await waitFor(async () => rec.polls === 1);
    expect(await handle.query(intentStateQuery)).toMatchObject({ status: 'pending', attempt: { phase: 'awaiting_action' } });
    await handle.terminate('test done');
  });
  expect(rec.events).toEqual([]);
  expect(rec.patches.some((p) => p.status === 'success')).toBe(false);
});

test('a charge whose answer is lost while the gateway captured it: a retry is refused, the capture is found by key, one capture', async () => {
  let gatewayUp = false;
  const { rec, activities } = recorders(
    async () => {
      throw noAnswer();
    },
    undefined,
    async (key) => {
      if (!gatewayUp) throw noAnswer();
      return key.endsWith(':attempt:1') ? { status: 'succeeded', chargeId: 'ch_kept' } : { status: 'not_found' };
    },
  );
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    // No answer is not a decline: the customer is told to wait, not that the card failed.
    expect(await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_capture_no_answer' }] })).toEqual({ payment_intent: inp.id, status: 'pending' });
    expect((await handle.query(intentStateQuery)).attempt).toMatchObject({ number: 1, phase: 'unknown' });
    const retry = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] }).catch((e) => e);
    expect(retry).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(retry.cause.type).toBe('attempt_in_progress');
    gatewayUp = true;
    await waitFor(async () => rec.events.some((e) => e.type === 'payment.success'));
    await handle.terminate('test done');
  });
  expect(rec.charges).toBe(2); // the one attempt's call and its retry under the same idempotency key
  expect(rec.voids).toEqual([]);
  expect(rec.patches.at(-1)).toMatchObject({ status: 'success', gateway_charge_id: 'ch_kept' });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});

test('a charge request that reaches the gateway late: not found, the customer pays with another card, the late capture is refunded', async () => {
  let firstArrived = false;
  const outcomes: (() => ChargeOutcome)[] = [
    () => {
      throw noAnswer();
    },
    () => ({ status: 'succeeded', chargeId: 'ch_second' }),
  ];
  const { rec, activities } = recorders(
    async () => {
      const next = rec.charges <= 2 ? outcomes[0]! : outcomes[1]!;
      return next();
    },
    undefined,
    async (key) => (key.endsWith(':attempt:1') && firstArrived ? { status: 'succeeded', chargeId: 'ch_late' } : { status: 'not_found' }),
  );
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect(await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_late_arrival' }] })).toMatchObject({ status: 'failed', failure_code: 'processing_error' });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
    // The first request arrives after all and is captured; the gateway announces it.
    firstArrived = true;
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_late', idempotencyKey: `${inp.id}:attempt:1`, outcome: { status: 'succeeded', chargeId: 'ch_late' } });
    await waitFor(async () => rec.voids.length === 1);
    await handle.terminate('test done');
  });
  expect(rec.voids).toEqual([{ chargeId: 'ch_late', amount: 2500 }]);
  expect(rec.patches.at(-1)).toMatchObject({ status: 'success', gateway_charge_id: 'ch_second' });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.attempt_failed', 'payment.success']);
});

test('cancel while an attempt is being reconciled waits for the gateway: not found, and the cancel proceeds', async () => {
  let asked = 0;
  const { rec, activities } = recorders(
    async () => {
      throw noAnswer();
    },
    undefined,
    async () => {
      asked += 1;
      if (asked === 1) throw noAnswer();
      return { status: 'not_found' };
    },
  );
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_timeout' }] })).status).toBe('pending');
    expect((await handle.executeUpdate(cancelUpdate)).status).toBe('canceled');
    await handle.terminate('test done');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.attempt_failed', 'payment.canceled']);
});

test('the attempt cap refuses more attempts than allowed with a clear error', async () => {
  const { activities } = recorders(async () => ({ status: 'declined', failureCode: 'card_declined', failureMessage: 'declined' }));
  const inp = await input(1800, { maxAttempts: 3 });
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    for (let i = 0; i < 3; i++) expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_decline' }] })).status).toBe('failed');
    const err = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] }).catch((e) => e);
    expect(err.cause).toMatchObject({ type: 'attempt_limit_reached', message: expect.stringContaining('limit of 3') });
    await handle.terminate('test done');
  });
});

test('a refund asked while the charge is on the wire waits for it: admitted once the charge captures, not refused as unpaid', async () => {
  const held = heldCharge({ status: 'succeeded', chargeId: 'ch_wire' });
  const { rec, activities } = recorders(held.charge);
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const attempt = handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    await waitFor(async () => held.onWire());
    const refunded = handle.executeUpdate(admitRefundUpdate, { args: [refund(700, 'during-charge')] });
    // The refund's Update is in the workflow, waiting, before the charge answers.
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'admitRefund'));
    held.release();
    expect((await attempt).status).toBe('success');
    expect(await refunded).toMatchObject({ ok: true, created: true, refundable_amount_left: 2500 - 700 });
    keepHistory('payment-intent-refund-waited-for-charge', await handle.fetchHistory());
    await handle.terminate('test done');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});

test('refund idempotency keys that are property names work like any other key', async () => {
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    const keys = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
    const first = [];
    for (const key of keys) {
      const r = await handle.executeUpdate(admitRefundUpdate, { args: [refund(100, key)] });
      expect(r).toMatchObject({ ok: true, created: true });
      first.push(r);
    }
    for (const [i, key] of keys.entries()) {
      const again = await handle.executeUpdate(admitRefundUpdate, { args: [refund(100, key)] });
      expect(again).toMatchObject({ ok: true, created: false, refund: (first[i] as { refund: string }).refund });
    }
    expect((await handle.query(intentStateQuery)).refundable_amount_left).toBe(2500 - 5 * 100);
    await handle.terminate('test done');
  });
});

test('a credit note the intent admits is issued by the intent before it answers: to the balance with its amount, or with the refund that returns it', async () => {
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
  const issued: unknown[] = [];
  let tries = 0;
  const acts = {
    ...activities,
    issueCreditNote: async (p: unknown) => {
      // The database was away on the first try: the intent tries again, and the admission waits for it.
      if (++tries === 1) throw new Error('connection to the database closed');
      issued.push(p);
      return 'issued';
    },
  };
  const inp = await input(1800);
  await withWorker(acts, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    const toBalance = await handle.executeUpdate(admitRefundUpdate, { args: [{ ...refund(300, serviceRefundKey.ofCreditNote('cn_eu_tobalance')), creditNote: 'cn_eu_tobalance' }] });
    expect(toBalance).toMatchObject({ ok: true, refund: 'cn_eu_tobalance', created: true, refundable_amount_left: 2200 });
    expect(issued).toEqual([{ tenantId: inp.tenantId, creditNote: 'cn_eu_tobalance', refund: null, creditToBalance: 300 }]);
    const toCard = await handle.executeUpdate(admitRefundUpdate, { args: [refund(400, serviceRefundKey.ofCreditNote('cn_eu_tocard'))] });
    expect(toCard).toMatchObject({ ok: true, refund: expect.stringMatching(/^re_eu_/), created: true });
    expect(issued[1]).toEqual({ tenantId: inp.tenantId, creditNote: 'cn_eu_tocard', refund: (toCard as { refund: string }).refund, creditToBalance: 0 });
    // Asked again, neither is issued twice; a merchant's own refund names no credit note.
    await handle.executeUpdate(admitRefundUpdate, { args: [{ ...refund(300, serviceRefundKey.ofCreditNote('cn_eu_tobalance')), creditNote: 'cn_eu_tobalance' }] });
    await handle.executeUpdate(admitRefundUpdate, { args: [refund(400, serviceRefundKey.ofCreditNote('cn_eu_tocard'))] });
    expect(await handle.executeUpdate(admitRefundUpdate, { args: [refund(100, 'merchant-key')] })).toMatchObject({ ok: true, created: true });
    expect(issued).toHaveLength(2);
    expect(tries).toBe(3);
    keepHistory('payment-intent-credit-notes-issued', await handle.fetchHistory());
    await handle.terminate('test done');
  });
});

test('a flood of forged callbacks continues the workflow as new while pending; the open 3DS attempt survives and completes', async () => {
  const { rec, activities, gateway } = recorders(async () => challenge('ch_open'));
  gateway.set('ch_open', challenge('ch_open'));
  const inp = await input(3600);
  let lengths: number[] = [];
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] });
    // Each forged callback makes the workflow ask the gateway once (about ten history events).
    for (let i = 1; i <= 230; i++) {
      await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_open', outcome: { status: 'succeeded', chargeId: 'ch_open' } });
      await waitFor(async () => rec.polls >= i);
    }
    await waitFor(async () => (await handle.describe()).runId !== handle.firstExecutionRunId, 30_000);
    expect(await handle.query(intentStateQuery)).toMatchObject({ status: 'pending', attempts: 1, attempt: { number: 1, phase: 'awaiting_action' } });
    gateway.set('ch_open', { status: 'succeeded', chargeId: 'ch_open' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_open', outcome: { status: 'succeeded', chargeId: 'ch_open' } });
    await waitFor(async () => rec.events.some((e) => e.type === 'payment.success'), 30_000);
    lengths = await runLengths(inp.id, handle.firstExecutionRunId);
    await handle.terminate('test done');
  });
  expect(lengths.length).toBeGreaterThan(1);
  for (const length of lengths.slice(0, -1)) expect(length).toBeLessThan(2_100);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
  expect(rec.voids).toEqual([]);
}, 120_000);

test('an intent pending for its whole 90-day timeout with an open 3DS charge ends canceled, with bounded runs', async () => {
  const { rec, activities, gateway } = recorders(async () => challenge('ch_long'));
  gateway.set('ch_long', challenge('ch_long'));
  const inp = await input(90 * 86_400);
  let lengths: number[] = [];
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] });
    expect((await handle.result()).status).toBe('canceled');
    lengths = await runLengths(inp.id, handle.firstExecutionRunId);
  });
  expect(rec.patches.at(-1)).toMatchObject({ status: 'canceled', cancellation_reason: 'expired' });
  for (const length of lengths) expect(length).toBeLessThan(2_100);
  process.stdout.write(`90-day pending intent: ${rec.polls} status polls, runs of ${lengths.join(', ')} history events\n`);
}, 180_000);

test('a refund after the 180-day window reopens the payment from its stored balance (Update-with-Start)', async () => {
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_old' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    const first = await handle.executeUpdate(admitRefundUpdate, { args: [refund(500, 'early')] });
    expect(first).toMatchObject({ ok: true, created: true });
    // The refund window runs out: the workflow closes once its refund has settled.
    expect((await handle.result()).status).toBe('success');
    const now = new Date(await testEnv().currentTimeMs());
    const record = {
      _id: inp.id, tenant_id: inp.tenantId, region: 'eu', status: 'success', amount: 2500, currency: 'EUR', amount_paid: 2500,
      connector_used: 'con_eu_test', gateway_charge_id: 'ch_old', succeeded_at: new Date(inp.createdAt), updated_at: now, version: 3,
    } as unknown as PaymentIntentRecord;
    const refunds = [
      { _id: (first as { refund: string }).refund, payment_intent: inp.id, status: 'success', amount: 500, idempotency_key: 'early' },
    ] as unknown as RefundRecord[];
    const reopen = () =>
      new WithStartWorkflowOperation(PAYMENT_INTENT_WORKFLOW, {
        workflowId: inp.id,
        taskQueue,
        args: [{ ...inp, carried: reopenedState(record, refunds, now) }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    const late = await testEnv().client.workflow.executeUpdateWithStart(admitRefundUpdate, { args: [refund(2000, 'late')], startWorkflowOperation: reopen() });
    expect(late).toMatchObject({ ok: true, created: true, refundable_amount_left: 0 });
    const again = await testEnv().client.workflow.executeUpdateWithStart(admitRefundUpdate, { args: [refund(2000, 'early')], startWorkflowOperation: reopen() });
    expect(again).toMatchObject({ ok: true, created: false, refund: (first as { refund: string }).refund });
    const over = await testEnv().client.workflow.executeUpdateWithStart(admitRefundUpdate, { args: [refund(1)], startWorkflowOperation: reopen() });
    expect(over).toMatchObject({ ok: false, code: 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT' });
    await testEnv().client.workflow.getHandle(inp.id).terminate('test done');
  });
}, 120_000);

test("a refund admitted while a paid intent's run closes, its window over, keeps it open: the next run hears the refund settle", async () => {
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_closing' }));
  // The record write of the last settle is held, so the run has left its loop and waits for it when the next
  // refund comes; that refund stays pending at the gateway until its SLA cancels it (released, 700 back).
  const held = gate();
  let holding = false;
  let lateRecorded = false;
  const hold =
    <A extends unknown[], R>(write: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      if (holding) await held.p;
      return write(...a);
    };
  Object.assign(activities, {
    savePaymentIntent: hold(activities.savePaymentIntent),
    savePaymentIntentAndEvents: hold(activities.savePaymentIntentAndEvents),
    createRefundRecord: async (r: { amount: number }) => void (lateRecorded ||= r.amount === 700),
    refundCharge: async (r: { amount: number }) => ({ status: 'pending', refundId: `rf_${r.amount}` }),
    refundStatus: async (r: { refundId: string }) => ({ status: 'pending', refundId: r.refundId }),
  });
  // A paid intent reopened for a refund: its window is the reopened run's day (a paid run's is 180 days).
  const now = new Date(await testEnv().currentTimeMs());
  const paid = {
    _id: 'pi_eu_closing', tenant_id: 'ten_eu_test', region: 'eu', status: 'success', amount: 2500, currency: 'EUR', amount_paid: 2500,
    connector_used: 'con_eu_test', gateway_charge_id: 'ch_closing', succeeded_at: now, updated_at: now, version: 3,
  } as unknown as PaymentIntentRecord;
  const inp = await input(1800, { carried: reopenedState(paid, [], now) });
  await withWorker(activities, async (taskQueue) => {
    // The held write holds the workflow task; the next refund reaches the run when the worker heartbeats it (at
    // 80% of this timeout).
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp], workflowTaskTimeout: '2s' });
    const first = await handle.executeUpdate(admitRefundUpdate, { args: [{ ...refund(500, 'first'), slaSeconds: 30 * 86_400 }] });
    expect(first).toMatchObject({ ok: true, refundable_amount_left: 2000 });
    await testEnv().sleep('25 hours');
    holding = true;
    // The first refund settles after the window: nothing is left to wait for, and the run starts to close.
    await handle.signal(refundSettledSignal, { refundId: (first as { refund: string }).refund, status: 'success', amount: 500 });
    const late = handle.executeUpdate(admitRefundUpdate, { args: [refund(700, 'late')] });
    await waitFor(() => lateRecorded);
    holding = false;
    held.open();
    expect(await late).toMatchObject({ ok: true, created: true, refundable_amount_left: 1300 });
    // Before, the run ended here with the late refund unsettled: its cancel at the SLA told nobody, and the
    // balance stayed reserved. Now the next run hears it and gives the 700 back.
    await handle.result();
    expect((await handle.query(intentStateQuery)).refundable_amount_left).toBe(2000);
  });
}, 120_000);

test('two refund requests with one key, the first refused at its record (another payment took the key): both are answered, the second afresh', async () => {
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_1' }));
  let inserts = 0;
  Object.assign(activities, {
    // Another payment's refund took the key between the API's check and this insert (activities/store.ts).
    createRefundRecord: async (r: { idempotencyKey: string | null }) => {
      if (r.idempotencyKey !== 'K') return;
      inserts += 1;
      await new Promise((done) => setTimeout(done, 300));
      throw ApplicationFailure.nonRetryable("idempotency_key 'K' is already used by refund re_other", 'idempotency_key_in_use');
    },
  });
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
    const [first, second] = await Promise.all([
      handle.executeUpdate(admitRefundUpdate, { args: [refund(100, 'K')] }),
      handle.executeUpdate(admitRefundUpdate, { args: [refund(100, 'K')] }),
    ]);
    // Before, the second waited for a refund that was never going to start: never answered, and the run
    // could never hand over or close.
    expect(first).toMatchObject({ ok: false, code: 'idempotency_key_in_use' });
    expect(second).toMatchObject({ ok: false, code: 'idempotency_key_in_use' });
    expect(inserts).toBe(2);
    // Nothing stays reserved: the whole amount is still refundable.
    expect(await handle.executeUpdate(admitRefundUpdate, { args: [refund(inp.amount, 'K2')] })).toMatchObject({ ok: true, created: true, refundable_amount_left: 0 });
    await handle.terminate('test done');
  });
});

describe('a superseded charge captured while an intent stays pending for days', () => {
  const challengeThenDecline = (): ChargeOutcome[] => [
    challenge('ch_abandoned'),
    { status: 'declined', chargeId: 'ch_2', failureCode: 'card_declined', failureMessage: 'declined' },
  ];

  /**
   * A 3-day intent whose first attempt (a 3DS challenge) is superseded by a declined one; the customer then
   * finishes the first challenge in another tab, and the gateway captures it. `more`: the charges after those two.
   */
  async function supersededThenCaptured(more: ChargeOutcome[], during: (handle: WorkflowHandle, voids: { chargeId: string; amount: number }[]) => Promise<void>) {
    const outcomes = [...challengeThenDecline(), ...more];
    const { rec, activities, gateway } = recorders(async () => outcomes.shift()!);
    const inp = await input(3 * 24 * 3600);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_decline' }] })).status).toBe('failed');
      gateway.set('ch_abandoned', { status: 'succeeded', chargeId: 'ch_abandoned' });
      await during(handle, rec.voids);
    });
    return { rec, inp };
  }

  test('captured only after the intent expired, it is still refunded, though it was let go more than a day before the end', async () => {
    const outcomes = challengeThenDecline();
    const { rec, activities, gateway } = recorders(async () => outcomes.shift()!);
    // Still a challenge at the gateway for as long as the intent is pending: nothing to refund then.
    gateway.set('ch_abandoned', challenge('ch_abandoned'));
    const inp = await input(3 * 24 * 3600);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_decline' }] })).status).toBe('failed');
      await testEnv().sleep('3 days');
      await waitFor(async () => (await handle.query(intentStateQuery)).status === 'canceled');
      expect(rec.voids).toEqual([]);
      gateway.set('ch_abandoned', { status: 'succeeded', chargeId: 'ch_abandoned' });
      await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_abandoned', outcome: { status: 'succeeded', chargeId: 'ch_abandoned' } });
      expect((await handle.result()).status).toBe('canceled');
    });
    // Before, the watch ended a day after the attempt was let go, two days before the intent ended: kept.
    expect(rec.voids).toEqual([{ chargeId: 'ch_abandoned', amount: inp.amount }]);
  });

  test('is refunded on its callback while the intent is still pending; the customer can still pay, and one capture stays', async () => {
    const { rec, inp } = await supersededThenCaptured([{ status: 'succeeded', chargeId: 'ch_3' }], async (handle, voids) => {
      await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_abandoned', outcome: { status: 'succeeded', chargeId: 'ch_abandoned' } });
      await waitFor(() => voids.length === 1);
      // Before, the capture was kept until the intent ended: up to three days here.
      expect(await handle.query(intentStateQuery)).toMatchObject({ status: 'pending' });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
      await testEnv().sleep('2h');
      keepHistory('payment-intent-late-capture-refunded-while-pending', await handle.fetchHistory());
      await handle.terminate('test done');
    });
    expect(rec.voids).toEqual([{ chargeId: 'ch_abandoned', amount: inp.amount }]);
    expect(rec.events.map((e) => e.type)).toEqual(['payment.attempt_failed', 'payment.success']);
  });

  test('is found without a callback within ten minutes while the intent is pending', async () => {
    const { rec } = await supersededThenCaptured([], async (handle, voids) => {
      await testEnv().sleep('11 min');
      expect(voids).toEqual([{ chargeId: 'ch_abandoned', amount: 2500 }]);
      expect(await handle.query(intentStateQuery)).toMatchObject({ status: 'pending' });
      await handle.terminate('test done');
    });
    expect(rec.voids).toHaveLength(1);
  });

  test('a refund of it that the gateway is slow to take does not hold the next payment', async () => {
    const outcomes = [...challengeThenDecline(), { status: 'succeeded', chargeId: 'ch_3' } as ChargeOutcome];
    const { rec, activities, gateway } = recorders(async () => outcomes.shift()!);
    const refundTaken = gate();
    let refundTries = 0;
    const slowRefunds = {
      ...activities,
      refundCharge: async (r: { chargeId: string; amount: number }) => {
        refundTries += 1;
        await refundTaken.p;
        return activities.refundCharge(r);
      },
    };
    const inp = await input(3600);
    await withWorker(slowRefunds, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_decline' }] })).status).toBe('failed');
      gateway.set('ch_abandoned', { status: 'succeeded', chargeId: 'ch_abandoned' });
      await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_abandoned', outcome: { status: 'succeeded', chargeId: 'ch_abandoned' } });
      await waitFor(() => refundTries === 1);
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
      refundTaken.open();
      await waitFor(() => rec.voids.length === 1);
      await handle.terminate('test done');
    });
    expect(rec.voids).toEqual([{ chargeId: 'ch_abandoned', amount: inp.amount }]);
  });

  test('an operator re-check asks about it while the intent is pending', async () => {
    const stamp: OperatorActionInput = { operator: 'samira@ops.example.com', reason: 'INC-2300: customer charged twice', actionId: 'opa_eu_late1' };
    const { rec } = await supersededThenCaptured([], async (handle, voids) => {
      const answer = await handle.executeUpdate(recheckAttemptUpdate, { args: [stamp] });
      expect(answer).toMatchObject({ outcome: 'rechecked', status: 'pending' });
      expect(voids).toEqual([{ chargeId: 'ch_abandoned', amount: 2500 }]);
      await handle.terminate('test done');
    });
    expect(rec.voids).toHaveLength(1);
  });

  test('an open attempt whose callback is lost is still found on its backoff while an attempt let go is watched', async () => {
    const outcomes: ChargeOutcome[] = [
      challenge('ch_abandoned'),
      challenge('ch_open'),
    ];
    const { rec, activities, gateway } = recorders(async () => outcomes.shift()!);
    gateway.set('ch_abandoned', challenge('ch_abandoned'));
    gateway.set('ch_open', challenge('ch_open'));
    const inp = await input(3 * 24 * 3600);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
      await testEnv().sleep('1h');
      // The customer completes the second challenge; its callback is lost.
      gateway.set('ch_open', { status: 'succeeded', chargeId: 'ch_open' });
      // Before, the watch's rounds (every 10 minutes at most) restarted the open attempt's poll delay, which had
      // grown past 10 minutes: it was not asked again until the deadline, three days on.
      await testEnv().sleep('4h');
      expect(await handle.query(intentStateQuery)).toMatchObject({ status: 'success' });
      await handle.terminate('test done');
    });
    expect(rec.voids).toEqual([]);
  });

  test('is refunded after the customer pays again on day 2: one capture stays', async () => {
    const { rec, inp } = await supersededThenCaptured([{ status: 'succeeded', chargeId: 'ch_3' }], async (handle) => {
      await testEnv().sleep('36h');
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
      await testEnv().sleep('2h'); // the watch of the let-go attempts asks the gateway again meanwhile
      await handle.terminate('test done');
    });
    expect(rec.voids).toEqual([{ chargeId: 'ch_abandoned', amount: inp.amount }]);
  });
});
