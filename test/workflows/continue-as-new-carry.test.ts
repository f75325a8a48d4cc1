import { ApplicationFailure } from '@temporalio/common';
import type { ChargeOutcome } from '../../gateways/types';
import { attemptUpdate, chargeOutcomeSignal, refundSettledSignal, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { HISTORY_EVENT_BOUND } from '../../domain/polling';
import { useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures } from './payment-intent-fixtures';

// A paid intent's run that reaches its history bound while the refund of a late capture is still being retried
// (the gateway down): the run waits for that check and its refund before it continues as new, since the next
// run carries neither the let-go attempt nor the refund in flight.

const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input, withWorker } = intentFixtures(testEnv);

test('a paid intent whose history fills while the refund of a late capture is retrying still refunds it, then records it', async () => {
  const outcomes: ChargeOutcome[] = [
    { status: 'requires_action', chargeId: 'ch_late', challengeUrl: 'http://sandbox/3ds/ch_late' },
    { status: 'succeeded', chargeId: 'ch_paid' },
  ];
  const { activities, gateway } = recorders(async () => outcomes.shift()!);
  gateway.set('ch_late', { status: 'requires_action', chargeId: 'ch_late', challengeUrl: 'http://sandbox/3ds/ch_late' });
  let gatewayUp = false;
  const refundTries: string[] = [];
  const voidedRecorded: string[] = [];
  const acts = {
    ...activities,
    // The gateway does not answer the refund of the late capture for a while (an outage).
    refundCharge: async (r: { chargeId: string }) => {
      refundTries.push(r.chargeId);
      if (!gatewayUp) throw ApplicationFailure.retryable('gateway down', 'GatewayUnavailable');
      return { status: 'succeeded', refundId: 'rf_void' };
    },
    recordVoidedCharge: async (v: { chargeId: string }) => {
      voidedRecorded.push(v.chargeId);
    },
  };
  const inp = await input(3600);
  await withWorker(acts, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_3ds' }] })).status).toBe('requires_action');
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_ok' }] })).status).toBe('success');
    // The customer finishes the superseded challenge in another tab: the gateway captures it.
    gateway.set('ch_late', { status: 'succeeded', chargeId: 'ch_late' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_late', outcome: { status: 'succeeded', chargeId: 'ch_late' } });
    await waitFor(async () => refundTries.length >= 1, 30_000);
    // Meanwhile the history grows (any signals: here refund words about unknown refunds, which change nothing).
    let sent = 0;
    const beforeBound = async () => {
      const d = await handle.describe();
      return d.runId === handle.firstExecutionRunId && Number(d.historyLength) < HISTORY_EVENT_BOUND + 200;
    };
    while (await beforeBound()) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => handle.signal(refundSettledSignal, { refundId: `re_none_${sent + i}`, status: 'canceled' })));
      sent += 10;
      await new Promise((r) => setTimeout(r, 20));
    }
    // Past its bound, the run has not continued: it waits for the refund in flight.
    expect((await handle.describe()).runId).toBe(handle.firstExecutionRunId);
    gatewayUp = true;
    await testEnv().sleep('2h'); // past the refund's retry backoff
    await waitFor(() => voidedRecorded.length > 0, 30_000);
    // Refunded and recorded, the run goes on as new.
    await waitFor(async () => (await handle.describe()).runId !== handle.firstExecutionRunId, 30_000);
    await handle.terminate('test done');
  });
  expect(voidedRecorded).toEqual(['ch_late']);
  expect(refundTries.every((c) => c === 'ch_late')).toBe(true);
}, 240_000);
