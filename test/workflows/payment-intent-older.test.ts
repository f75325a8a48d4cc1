import { attemptUpdate, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { keepHistory, useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures, olderPart } from './payment-intent-fixtures';

// The payment-intent workflow's older-interface part in virtual time: the progress fields it writes as an
// attempt moves, the older webhook emitted beside each event, and the checkout intent's one claim.

const testEnv = useWorkflowTestEnv();
const { recorders, input, withWorker } = intentFixtures(testEnv);

/** Keeps a run's history (RECORD_HISTORIES=1) for test/workflows/replay-recorded-histories. */
async function keep(name: string, workflowId: string) {
  keepHistory(`payment-intent-older-${name}`, await testEnv().client.workflow.getHandle(workflowId).fetchHistory());
}

test('a paid older intent: progress written as the attempt moves, and each event once, in the older body its webhook_urls are sent', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
  const claims: string[] = [];
  const inp = await input(1800, { older: olderPart('co-1') });
  await withWorker({ ...activities, claimCheckoutIntent: async (c: { paymentIntent: string }) => (claims.push(c.paymentIntent), true) }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    // The workflow takes the record over first (pending_created); an attempt delivered in its very first task
    // would be written first instead (under load), which is right but not what this test pins.
    await waitFor(async () => rec.patches.length > 0);
    expect(await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).toEqual({ payment_intent: inp.id, status: 'success' });
    await keep('record-with-events-checkout-claimed-paid', inp.id);
    await handle.terminate('test done');
  });
  expect(claims).toEqual([inp.id]);
  expect(rec.patches.map((p) => [p.sub_status, p.step_number])).toEqual([
    ['pending_created', 1],
    ['pending_processing', 2],
    ['success', 4],
  ]);
  // One occurrence, one event: no envelope twin sent nowhere beside the older body (GET /v202607/events listed both).
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
  // The success is one write: the record, then its older-body event.
  expect(rec.combined).toEqual([{ status: 'success', events: ['payment.success'] }]);
});

test('losing the checkout intent claim: the capture is refunded and the intent ends canceled_checkout_completed', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_second' }));
  const inp = await input(1800, { older: olderPart('co-2') });
  await withWorker({ ...activities, claimCheckoutIntent: async () => false }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const result = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    expect(result).toEqual({ payment_intent: inp.id, status: 'failed', failure_code: 'checkout_intent_completed' });
    const view = await handle.result();
    expect(view.status).toBe('canceled');
  });
  expect(rec.voids).toEqual([{ chargeId: 'ch_second', amount: 2500 }]);
  const last = rec.patches.at(-1)!;
  expect(last).toMatchObject({ status: 'canceled', cancellation_reason: 'checkout_completed', sub_status: 'canceled_checkout_completed', step_number: 2, last_reason: 'checkout_intent_completed' });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.canceled']);
});

test('an intent without an older part emits only the envelope event and claims nothing', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_plain' }));
  const inp = await input(1800);
  await withWorker({ ...activities, claimCheckoutIntent: async () => { throw new Error('no claim expected'); } }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    await handle.terminate('test done');
  });
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});
