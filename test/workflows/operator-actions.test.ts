import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { PayoutOutcome } from '../../gateways/types';
import type { PayoutPatch } from '../../activities/payouts';
import {
  attemptUpdate,
  forceCancelUpdate,
  intentStateQuery,
  PAYMENT_INTENT_WORKFLOW,
  recheckAttemptUpdate,
  type OperatorActionInput,
} from '../../workflows/payment-intent/messages';
import { confirmPayoutUpdate, PAYOUT_WORKFLOW, retryPayoutStepUpdate } from '../../workflows/payout/messages';
import { REFUND_WORKFLOW, retryRefundStepUpdate, type RefundInput } from '../../workflows/refund/messages';
import { SA } from '../../workflows/search-attributes';
import { gate, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures } from './payment-intent-fixtures';
import { payoutInput } from './payout-fixtures';

// Operator actions in virtual time: each is an Update that names who acted and why (kept in the history),
// acts through the loops that own the asking, and is refused where it does not apply.

const testEnv = useWorkflowTestEnv({ perTest: true });

/** A 3-day payout run on a worker of its own with `activities`; `during` drives it through its handle. */
async function withPayout(tag: string, activities: object, during: (handle: WorkflowHandle) => Promise<void>): Promise<void> {
  const taskQueue = `${tag}-${Date.now()}`;
  const inp = payoutInput(259_200, new Date(await testEnv().currentTimeMs()));
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  await worker.runUntil(async () => during(await testEnv().client.workflow.start(PAYOUT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] })));
}
const { recorders, input, withWorker } = intentFixtures(testEnv);

const noAnswer = () => ApplicationFailure.retryable('sandbox POST /v1/charges timed out after 10000 ms', 'GatewayUnavailable');
let actions = 0;
const stamp = (extra: Partial<OperatorActionInput> = {}): OperatorActionInput => ({
  operator: 'samira@ops.example.com',
  reason: 'INC-2291: answers lost at the gateway',
  actionId: `opa_eu_test${++actions}`,
  ...extra,
});

/** The inputs of the Updates the workflow accepted, as the history keeps them. */
async function acceptedUpdates(handle: { fetchHistory(): Promise<{ events?: any[] | null }> }): Promise<Array<{ name: string; input: any }>> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
    .map((e) => {
      const req = e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest;
      const payload = req.input.args.payloads[0];
      return { name: req.input.name, input: JSON.parse(Buffer.from(payload.data).toString('utf8')) };
    });
}

const refusalOf = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e) => e);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  return (err as WorkflowUpdateFailedError).cause as ApplicationFailure;
};

const pending: PayoutOutcome = { status: 'pending', payoutId: 'po_1' };
/** Payout activities that record each patch, event and gateway call; `steps` hold a step at the gateway or slow a write. */
function payoutFakes(steps: { initiatePayout?: () => Promise<unknown>; findPayout?: () => Promise<unknown>; onSave?: (p: PayoutPatch) => Promise<void> } = {}) {
  const rec = { patches: [] as PayoutPatch[], events: [] as string[], initiates: 0, finds: 0 };
  const activities = {
    initiatePayout: async () => {
      rec.initiates += 1;
      return steps.initiatePayout ? steps.initiatePayout() : pending;
    },
    findPayout: async () => {
      rec.finds += 1;
      return steps.findPayout ? steps.findPayout() : pending;
    },
    cancelPayout: async () => ({ status: 'canceled' }),
    savePayout: async (p: PayoutPatch) => {
      rec.patches.push(p);
      await steps.onSave?.(p);
      return 'applied';
    },
    recordEvent: async (e: { type: string }) => void rec.events.push(e.type),
  };
  return { rec, activities };
}

describe('payment intent', () => {
  test('an attempt in unknown is flagged by AttemptUnknown; a re-check asks the gateway and the flag clears', async () => {
    let gatewayUp = false;
    const { rec, activities } = recorders(
      async () => {
        throw noAnswer();
      },
      undefined,
      async () => {
        if (!gatewayUp) throw noAnswer();
        return { status: 'succeeded', chargeId: 'ch_kept' };
      },
    );
    const inp = await input(86_400);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect(await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_capture_no_answer' }] })).toMatchObject({ status: 'pending' });
      expect((await handle.describe()).typedSearchAttributes.get(SA.AttemptUnknown)).toBe(true);
      gatewayUp = true;
      const before = rec.lookups.length;
      const answer = await handle.executeUpdate(recheckAttemptUpdate, { args: [stamp()] });
      expect(rec.lookups.length).toBeGreaterThan(before);
      expect(answer).toMatchObject({ outcome: 'rechecked', status: 'success' });
      expect((await handle.describe()).typedSearchAttributes.get(SA.AttemptUnknown)).toBe(false);
      keepHistory('payment-intent-unknown-operator-recheck', await handle.fetchHistory());
      // The operator and the reason are in the workflow's own history.
      expect(await acceptedUpdates(handle)).toContainEqual({
        name: 'operatorRecheckAttempt',
        input: expect.objectContaining({ operator: 'samira@ops.example.com', reason: 'INC-2291: answers lost at the gateway' }),
      });
      await handle.terminate('test done');
    });
    expect(rec.patches.at(-1)).toMatchObject({ status: 'success', gateway_charge_id: 'ch_kept' });
  });

  test('a re-check with nothing waiting on the gateway is refused; so is an action without a reason', async () => {
    const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_1' }));
    const inp = await input(3600);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await refusalOf(handle.executeUpdate(recheckAttemptUpdate, { args: [stamp()] }))).type).toBe('nothing_to_recheck');
      expect((await refusalOf(handle.executeUpdate(forceCancelUpdate, { args: [stamp({ reason: ' ' })] }))).type).toBe('update_rejected');
      expect((await handle.query(intentStateQuery)).status).toBe('pending');
      await handle.terminate('test done');
    });
  });

  test('force-cancel of a pending intent cancels it (the workflow then ends: the API answers a repeat from the record)', async () => {
    const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_1' }));
    const inp = await input(3600);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect(await handle.executeUpdate(forceCancelUpdate, { args: [stamp()] })).toEqual({ outcome: 'canceled', status: 'canceled' });
      expect((await handle.result()).status).toBe('canceled');
    });
    expect(rec.events.map((e) => e.type)).toEqual(['payment.canceled']);
  });

  test('force-cancel of a paid intent refunds all that is left, through a refund workflow; then there is nothing to refund', async () => {
    const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_paid' }));
    const inp = await input(3600);
    await withWorker(activities, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
      const action = stamp({ refundSlaSeconds: 3600 });
      const answer = await handle.executeUpdate(forceCancelUpdate, { args: [action] });
      expect(answer).toMatchObject({ outcome: 'refunded', status: 'success', refund: expect.stringMatching(/^re_eu_/) });
      expect((await handle.query(intentStateQuery)).refundable_amount_left).toBe(0);
      // The same action retried (its audit id) answers the same refund; another action finds nothing left.
      expect((await handle.executeUpdate(forceCancelUpdate, { args: [action] })).refund).toBe(answer.refund);
      expect((await refusalOf(handle.executeUpdate(forceCancelUpdate, { args: [stamp()] }))).type).toBe('nothing_to_refund');
      await waitFor(async () => rec.events.some((e) => e.type === 'refund.success'));
      await handle.terminate('test done');
    });
  });
});

describe('payout', () => {
  test('pending_promise: a retry asks the gateway now; a confirmation with evidence makes it success, kept on the record', async () => {
    const { rec, activities } = payoutFakes();
    await withPayout('ops-po', activities, async (handle) => {
      await waitFor(async () => rec.patches.some((p) => p.sub_status === 'pending_promise'));
      const before = rec.finds;
      expect(await handle.executeUpdate(retryPayoutStepUpdate, { args: [stamp()] })).toMatchObject({ status: 'pending_promise' });
      expect(rec.finds).toBeGreaterThan(before);
      expect((await refusalOf(handle.executeUpdate(confirmPayoutUpdate, { args: [stamp()] }))).type).toBe('update_rejected'); // no evidence
      const confirmed = await handle.executeUpdate(confirmPayoutUpdate, { args: [stamp({ evidence: 'Bank statement line 2026-11-23 FT2611230042' })] });
      expect(confirmed).toMatchObject({ status: 'success' });
      expect((await handle.result()).status).toBe('success');
      keepHistory('payout-operator-confirmed', await handle.fetchHistory());
    });
    expect(rec.events).toEqual(['payout.pending_created', 'payout.pending_promise', 'payout.success']);
    expect(rec.patches.at(-1)).toMatchObject({
      sub_status: 'success',
      operator_confirmation: { operator: 'samira@ops.example.com', evidence: 'Bank statement line 2026-11-23 FT2611230042' },
    });
  });
});

describe('payout confirmation racing a status write', () => {
  test('an operator confirms while the pending_promise write is in flight: each status announced once, success last', async () => {
    const written = gate();
    // The pending_promise write is slow: the operator's Update lands meanwhile.
    const { rec, activities } = payoutFakes({ onSave: async (p) => (p.sub_status === 'pending_promise' ? written.p : undefined) });
    await withPayout('ops-po-race', activities, async (handle) => {
      try {
        await waitFor(async () => rec.patches.some((p) => p.sub_status === 'pending_promise'));
        const confirming = handle.executeUpdate(confirmPayoutUpdate, { args: [stamp({ evidence: 'Bank statement line FT2611240007' })] });
        await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes));
        written.open();
        expect(await confirming).toMatchObject({ status: 'success' });
        expect((await handle.result()).status).toBe('success');
      } finally {
        written.open(); // never leave the activity hanging: the worker waits for it to shut down
      }
    });
    expect(rec.events).toEqual(['payout.pending_created', 'payout.pending_promise', 'payout.success']);
    expect(rec.patches.at(-1)).toMatchObject({ sub_status: 'success', operator_confirmation: { evidence: 'Bank statement line FT2611240007' } });
  });
});

describe('a gateway contradicting a payout an operator confirmed', () => {
  test('an ask in flight when the confirmation lands answers failed: the payout stays success, the word is kept on its record', async () => {
    const answer = gate<PayoutOutcome>();
    const { rec, activities } = payoutFakes({ findPayout: () => answer.p }); // each ask waits at the gateway
    await withPayout('ops-po-contrary', activities, async (handle) => {
      try {
        await waitFor(async () => rec.patches.some((p) => p.sub_status === 'pending_promise'));
        const retrying = handle.executeUpdate(retryPayoutStepUpdate, { args: [stamp()] }); // asks the gateway now
        await waitFor(async () => rec.finds > 0);
        expect(await handle.executeUpdate(confirmPayoutUpdate, { args: [stamp({ evidence: 'Bank statement line FT2611270001' })] })).toMatchObject({ status: 'success' });
        answer.open({ status: 'failed', payoutId: 'po_1', failureCode: 'account_closed', failureMessage: 'the account is closed' });
        expect(await retrying).toMatchObject({ status: 'success' });
        expect((await handle.result()).status).toBe('success');
      } finally {
        answer.open(pending);
      }
    });
    // Success was announced once; the contrary word is on the record for operators, not a webhook.
    expect(rec.events).toEqual(['payout.pending_created', 'payout.pending_promise', 'payout.success']);
    expect(rec.patches.at(-1)).toMatchObject({ sub_status: 'success', late_outcome: { status: 'failed' }, operator_confirmation: { evidence: 'Bank statement line FT2611270001' } });
  });
});

test('a transfer request in flight when the confirmation lands, refused outright afterwards: the payout stays success, the refusal is kept on its record', async () => {
  const request = gate<never>();
  const { rec, activities } = payoutFakes({ initiatePayout: () => request.p }); // the request waits at the gateway
  const refusal = ApplicationFailure.nonRetryable('sandbox POST /v1/payouts answered 400: invalid account', 'GatewayRequestRejected');
  await withPayout('ops-po-refused', activities, async (handle) => {
    try {
      await waitFor(async () => rec.initiates > 0);
      expect(await handle.executeUpdate(confirmPayoutUpdate, { args: [stamp({ evidence: 'Bank statement line FT2611270009' })] })).toMatchObject({ status: 'success' });
    } finally {
      request.fail(refusal); // also when an assertion failed: the held activity must not keep the worker
    }
    expect((await handle.result()).status).toBe('success');
  });
  expect(rec.events).toEqual(['payout.pending_created', 'payout.success']); // created before the request, then the operator's word; no failure announced
  expect(rec.patches.at(-1)).toMatchObject({ sub_status: 'success', late_outcome: { status: 'rejected' }, operator_confirmation: { evidence: 'Bank statement line FT2611270009' } });
});

describe('refund', () => {
  test('a pending refund: a retry asks the gateway now, and the answer it gets settles the refund', async () => {
    let settled = false;
    const rec = { asks: 0, patches: [] as Array<{ status: string }> };
    const activities = {
      refundCharge: async () => ({ status: 'pending', refundId: 'rf_1' }),
      refundStatus: async () => {
        rec.asks += 1;
        return settled ? { status: 'succeeded', refundId: 'rf_1' } : { status: 'pending', refundId: 'rf_1' };
      },
      findRefund: async () => ({ status: 'pending', refundId: 'rf_1' }),
      cancelRefund: async () => ({ status: 'canceled', refundId: 'rf_1' }),
      saveRefund: async (p: { status: string }) => {
        rec.patches.push(p);
        return 'applied';
      },
      recordEvent: async () => undefined,
      olderRefundFacts: async () => null,
    };
    const taskQueue = `ops-re-${Date.now()}`;
    const now = new Date(await testEnv().currentTimeMs());
    const inp: RefundInput = {
      id: `re_eu_ops${Date.now()}`,
      tenantId: 'ten_eu_t',
      region: 'eu',
      paymentIntent: 'pi_eu_gone',
      connector: 'con_eu_t',
      chargeId: 'ch_1',
      amount: 700,
      currency: 'EUR',
      idempotencyKey: null,
      webhooks: [],
      slaSeconds: 7 * 86_400,
      createdAt: now.toISOString(),
      webhookTaskQueue: 'webhooks-test',
    };
    const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
    await worker.runUntil(async () => {
      const handle = await testEnv().client.workflow.start(REFUND_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      await waitFor(async () => (await handle.describe()).historyLength > 8);
      const before = rec.asks;
      expect(await handle.executeUpdate(retryRefundStepUpdate, { args: [stamp()] })).toMatchObject({ status: 'pending' });
      expect(rec.asks).toBeGreaterThan(before);
      settled = true;
      expect(await handle.executeUpdate(retryRefundStepUpdate, { args: [stamp()] })).toMatchObject({ status: 'success' });
      await handle.result();
    });
    expect(rec.patches.at(-1)).toMatchObject({ status: 'success' });
  });
});
