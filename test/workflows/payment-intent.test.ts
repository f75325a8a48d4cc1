import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ChargeOutcome } from '../../gateways/types';
import { attemptUpdate, cancelUpdate, chargeOutcomeSignal, checkoutCompletedUpdate, intentStateQuery, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { useWorkflowTestEnv, waitFor } from './env';
import { heldCharge, intentFixtures } from './payment-intent-fixtures';

// The payment-intent workflow in virtual time. Activities are recorders here: this layer pins down the
// workflow's decisions (timers, races, what it writes and emits); the activities themselves are tested
// against the real gateway sandbox and MongoDB in the integration layer.

const testEnv = useWorkflowTestEnv();

const { recorders, input, withWorker } = intentFixtures(testEnv);

test('an unpaid intent is canceled exactly at the default timeout of 1800 s', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_1' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const view = await handle.result();
    expect(view.status).toBe('canceled');
  });
  const cancel = rec.patches.find((p) => p.status === 'canceled')!;
  expect(cancel.cancellation_reason).toBe('expired');
  expectToTheSecond(cancel.canceled_at!, inp.expiresAt);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.canceled']);
  expectToTheSecond(rec.events[0]!.createdAt, inp.expiresAt);
});

test('a short custom timeout is honoured to the second', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_1' }));
  const inp = await input(7);
  await withWorker(activities, async (taskQueue) => {
    await testEnv().client.workflow.execute(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
  });
  const cancel = rec.patches.find((p) => p.status === 'canceled')!;
  expectToTheSecond(cancel.canceled_at!, new Date(new Date(inp.createdAt).getTime() + 7000).toISOString());
});

test('a paid intent does not expire, and stays open to own its refundable balance', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const result = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    expect(result).toEqual({ payment_intent: inp.id, status: 'success' });
    await testEnv().sleep('2 days');
    const state = await handle.query(intentStateQuery);
    expect(state).toMatchObject({ status: 'success', amount_paid: 2500, refundable_amount_left: 2500 });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('test done');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
  expect(rec.patches.some((p) => p.status === 'canceled')).toBe(false);
});

test('a declined attempt keeps the intent pending and emits payment.attempt_failed', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'declined', failureCode: 'card_declined', failureMessage: 'declined' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const result = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_decline' }] });
    expect(result).toEqual({ payment_intent: inp.id, status: 'failed', failure_code: 'card_declined' });
    expect((await handle.query(intentStateQuery)).status).toBe('pending');
    await handle.executeUpdate(cancelUpdate);
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.attempt_failed', 'payment.canceled']);
  expect(rec.patches.at(-1)).toMatchObject({ status: 'canceled', last_failure_code: 'card_declined', cancellation_reason: 'requested' });
  // Each transition writes its record and its event together, in one local activity.
  expect(rec.combined).toEqual([
    { status: 'pending', events: ['payment.attempt_failed'] },
    { status: 'canceled', events: ['payment.canceled'] },
  ]);
});

test('cancel during a charge on the wire waits for it: a capture wins and the cancel is a conflict', async () => {
  const held = heldCharge({ status: 'succeeded', chargeId: 'ch_race' });
  const { rec, activities } = recorders(held.charge);
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const attempt = handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    await waitFor(async () => (await handle.query(intentStateQuery)).attempt?.phase === 'charging');
    const cancel = handle.executeUpdate(cancelUpdate).catch((e) => e);
    held.release();
    expect((await attempt).status).toBe('success');
    const err = await cancel;
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(err.cause.type).toBe('not_mutable');
    await handle.terminate('test done');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});

/** A charge held on the wire and then declined, while `landing` sends an Update that cancels the intent. */
async function declinedWhile(landing: (handle: WorkflowHandle) => Promise<{ status: string }>) {
  const held = heldCharge({ status: 'declined', failureCode: 'card_declined', failureMessage: 'declined' });
  const { rec, activities } = recorders(held.charge);
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const attempt = handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_decline' }] });
    await waitFor(async () => (await handle.query(intentStateQuery)).attempt?.phase === 'charging');
    const landed = landing(handle);
    held.release();
    expect((await attempt).status).toBe('failed');
    expect((await landed).status).toBe('canceled');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.attempt_failed', 'payment.canceled']);
  return rec;
}

test('cancel during a charge on the wire waits for it: after a decline the cancel proceeds', async () => {
  const rec = await declinedWhile((handle) => handle.executeUpdate(cancelUpdate));
  expect(rec.patches.find((p) => p.status === 'canceled')?.cancellation_reason).toBe('requested');
});

test("another intent of its checkout intent paid while this one's charge is on the wire: declined, the intent is canceled as checkout_completed", async () => {
  const rec = await declinedWhile((handle) => handle.executeUpdate(checkoutCompletedUpdate));
  expect(rec.patches.find((p) => p.status === 'canceled')?.cancellation_reason).toBe('checkout_completed');
});

test('a charge in flight when the deadline passes: its late success wins', async () => {
  const held = heldCharge({ status: 'succeeded', chargeId: 'ch_late' });
  const { rec, activities } = recorders(held.charge);
  // 3 s, not 1: while an activity runs the test server's clock runs in real time, and on a loaded machine a
  // 1 s deadline passed before the attempt was admitted. (Under the charge's 15 s activity timeout.)
  const inp = await input(3);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const attempt = handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    await waitFor(async () => (await handle.query(intentStateQuery)).attempt?.phase === 'charging');
    await testEnv().sleep('4 seconds'); // past the deadline while the charge is still on the wire
    expect((await handle.query(intentStateQuery)).status).toBe('pending');
    held.release();
    expect((await attempt).status).toBe('success');
    expect((await handle.query(intentStateQuery)).status).toBe('success');
    await handle.terminate('test done');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
  expect(rec.voids).toEqual([]);
});

test('a 3DS challenge completed after the deadline: the intent is canceled and the late capture refunded', async () => {
  const { rec, activities, gateway } = recorders(async () => ({ status: 'requires_action', chargeId: 'ch_3ds', challengeUrl: 'http://sandbox/3ds/ch_3ds' }));
  const inp = await input(60);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const res = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] });
    expect(res).toMatchObject({ status: 'requires_action', next_action: { type: 'redirect_to_url', url: 'http://sandbox/3ds/ch_3ds' } });
    await testEnv().sleep('61 seconds');
    expect((await handle.query(intentStateQuery)).status).toBe('canceled');
    gateway.set('ch_3ds', { status: 'succeeded', chargeId: 'ch_3ds' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_3ds', outcome: { status: 'succeeded', chargeId: 'ch_3ds' } });
    const view = await handle.result();
    expect(view.status).toBe('canceled');
  });
  expect(rec.voids).toEqual([{ chargeId: 'ch_3ds', amount: 2500 }]);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.canceled']);
});

test('a 3DS challenge completed before the deadline whose callback was lost: the gateway is asked once at the deadline, and the intent is paid, not expired', async () => {
  const { rec, activities, gateway } = recorders(async () => ({ status: 'requires_action', chargeId: 'ch_3ds_intime', challengeUrl: 'http://sandbox/3ds/ch_3ds_intime' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
    // Past the last status question before the deadline (about 15 min), the customer completes the challenge.
    await testEnv().sleep('20 minutes');
    gateway.set('ch_3ds_intime', { status: 'succeeded', chargeId: 'ch_3ds_intime' });
    const asked = rec.polls;
    await testEnv().sleep('11 minutes');
    expect((await handle.query(intentStateQuery)).status).toBe('success');
    expect(rec.polls - asked).toBe(1); // the one question at the deadline
    await handle.terminate('test done');
  });
  expect(rec.voids).toEqual([]);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});

/** The timer fires at the deadline; what it writes carries the time of that workflow task, a few ms on. */
function expectToTheSecond(actual: string, deadline: string) {
  const lateBy = new Date(actual).getTime() - new Date(deadline).getTime();
  expect(lateBy).toBeGreaterThanOrEqual(0);
  expect(lateBy).toBeLessThan(1000);
}

test('a 3DS challenge the customer abandons does not lock the intent: a new attempt replaces it', async () => {
  const outcomes: ChargeOutcome[] = [
    { status: 'requires_action', chargeId: 'ch_abandoned', challengeUrl: 'http://sandbox/3ds/ch_abandoned' },
    { status: 'succeeded', chargeId: 'ch_second' },
  ];
  const { rec, activities, gateway } = recorders(async () => outcomes.shift()!);
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
    // the abandoned challenge is completed after all: that capture is given back
    gateway.set('ch_abandoned', { status: 'succeeded', chargeId: 'ch_abandoned' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_abandoned', outcome: { status: 'succeeded', chargeId: 'ch_abandoned' } });
    await waitFor(async () => rec.voids.length === 1);
    await handle.terminate('test done');
  });
  expect(rec.voids).toEqual([{ chargeId: 'ch_abandoned', amount: 2500 }]);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});

test('a merchant cancel while a 3DS challenge is open: a capture that follows is refunded', async () => {
  const { rec, activities, gateway } = recorders(async () => ({ status: 'requires_action', chargeId: 'ch_open', challengeUrl: 'http://sandbox/3ds/ch_open' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] });
    expect((await handle.executeUpdate(cancelUpdate)).status).toBe('canceled');
    gateway.set('ch_open', { status: 'succeeded', chargeId: 'ch_open' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_open', outcome: { status: 'succeeded', chargeId: 'ch_open' } });
    expect((await handle.result()).status).toBe('canceled');
  });
  expect(rec.voids).toEqual([{ chargeId: 'ch_open', amount: 2500 }]);
});

test('a callback that overtakes the charge call makes the workflow ask the gateway as soon as the call returns', async () => {
  const held = heldCharge({ status: 'pending', chargeId: 'ch_fast' });
  const { rec, activities, gateway } = recorders(held.charge);
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const attempt = handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_async' }] });
    await waitFor(async () => (await handle.query(intentStateQuery)).attempt?.phase === 'charging');
    gateway.set('ch_fast', { status: 'succeeded', chargeId: 'ch_fast' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_fast', outcome: { status: 'succeeded', chargeId: 'ch_fast' } });
    held.release();
    expect((await attempt).status).toBe('pending');
    await waitFor(async () => rec.events.length === 1);
    await handle.terminate('test done');
  });
  expect(rec.polls).toBe(1); // asked once, on the hint, not on the one-minute clock
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});

test("a billing session's paid intent has the session finished only once the card its payment saved exists", async () => {
  const card = { brand: 'visa', last4: '4242', expMonth: 1, expYear: 2030, reusableToken: null };
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_session', card }));
  let saved = false;
  const savedWhenCompleted: boolean[] = [];
  const acts = {
    ...activities,
    savePaymentMethod: async () => {
      await new Promise((r) => setTimeout(r, 1500));
      saved = true;
    },
    completeSessionPayment: async () => {
      savedWhenCompleted.push(saved);
      return 'finished';
    },
  };
  const inp = await input(1800, { owner: 'cs_eu_sessionrace1', customer: 'cus_eu_sessionrace' });
  await withWorker(acts, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success', save_payment_method: true }] });
    await waitFor(async () => savedWhenCompleted.length > 0);
    await handle.terminate('test done');
  });
  expect(savedWhenCompleted).toEqual([true]);
});
