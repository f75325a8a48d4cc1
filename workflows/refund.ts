import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RefundOutcome } from '../activities/gateway/types';
import { formatMoney } from '../domain/money';
import { LATE_OUTCOME_WINDOW_SECONDS, pollDelayMs, type RefundStatus } from '../domain/refund';
import { emitEvent } from './emit-event';
import { serialWriter } from './serial-writer';
import { refundOutcomeSignal, refundSettledSignal, refundStateQuery, SA, type RefundInput, type RefundState } from './definitions';

const LATE_POLL_MS = 3_600_000;

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumInterval: '10s' } });
const gateway = proxyActivities<Activities>({ startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumInterval: '1m' } });

/** One workflow per refund; its id is the `re_` id. It owns the refund's state and its SLA timer. */
export async function refundWorkflow(input: RefundInput): Promise<RefundState> {
  let status: RefundStatus = 'pending';
  let gatewayTransactionId: string | null = null;
  let failureCode: string | null = null;
  let lateOutcome: { status: string; at: string; gateway_transaction_id?: string } | null = null;
  let pushed: RefundOutcome | null = null;
  const deadline = new Date(input.createdAt).getTime() + input.slaSeconds * 1000;

  setHandler(refundOutcomeSignal, ({ outcome }) => {
    pushed = outcome;
  });
  const state = (): RefundState => ({
    refund: input.id,
    status,
    amount: input.amount,
    currency: input.currency,
    gateway_transaction_id: gatewayTransactionId,
    sla_expires_at: new Date(deadline).toISOString(),
    late_outcome: lateOutcome?.status ?? null,
  });
  setHandler(refundStateQuery, state);
  const describe = () =>
    setCurrentDetails(
      `**${formatMoney(input.amount, input.currency)}** refund of ${input.paymentIntent} · ${status}` +
        `\n\nSLA ends ${new Date(deadline).toISOString()}${gatewayTransactionId ? ` · gateway ${gatewayTransactionId}` : ''}` +
        (lateOutcome ? `\n\nlate gateway outcome after cancel: ${lateOutcome.status} at ${lateOutcome.at}` : ''),
    );
  describe();

  // Version 1 was written by the payment intent's workflow when it admitted the refund.
  const writer = serialWriter(1, store.saveRefund);
  const persist = () =>
    writer.write({
      id: input.id,
      status,
      gateway_transaction_id: gatewayTransactionId,
      failure_code: failureCode,
      late_outcome: lateOutcome,
      updated_at: new Date().toISOString(),
    });

  const tellPayment = async (word: 'success' | 'canceled' | 'late_success') => {
    try {
      await getExternalWorkflowHandle(input.paymentIntent).signal(refundSettledSignal, { refundId: input.id, status: word, amount: input.amount });
    } catch (err) {
      // Its refund window has closed: there is no balance left to settle. The refund's own record stands.
      log.warn('payment intent workflow is gone; balance not updated', { paymentIntent: input.paymentIntent, error: String(err) });
    }
  };

  const finish = async (next: 'success' | 'canceled') => {
    status = next;
    upsertSearchAttributes([{ key: SA.RefundStatus, value: status }]);
    describe();
    await persist();
    // The payment's workflow owns the balance: tell it whether the reserved amount is spent or free again.
    await tellPayment(next);
    const retrieved = {
      refund: input.id,
      payment_intent: input.paymentIntent,
      status,
      amount: input.amount,
      currency: input.currency,
      created_at: input.createdAt,
      gateway_transaction_id: gatewayTransactionId,
    };
    await emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type: next === 'success' ? 'refund.success' : 'refund.canceled',
      objectId: input.id,
      source: { kind: 'refund', id: input.id },
      data: retrieved,
      endpoints: input.webhooks,
    });
  };

  const request = {
    tenantId: input.tenantId,
    connectorId: input.connector,
    chargeId: input.chargeId,
    amount: input.amount,
    currency: input.currency,
    idempotencyKey: input.id,
    callbackUrl: input.callbackUrl,
    reference: input.id,
  };

  // Submit, then wait for the outcome: the callback when it comes, a status poll when it does not.
  let outcome: RefundOutcome | null = null;
  // The submission may still be retrying when the SLA passes: it runs in its own scope, canceled then, so
  // nothing reaches the gateway after the refund was declared canceled.
  const submitScope = new CancellationScope();
  const submitted = submitScope
    .run(() => gateway.refundCharge(request))
    .then(
      (o: RefundOutcome) => (outcome = o),
      (err: unknown) => {
        // A gateway that refuses the request outright (a non-retryable failure) has rejected the refund.
        if (!isCancellation(err)) outcome = { status: 'rejected', failureCode: 'gateway_rejected', failureMessage: String(err) };
      },
    );
  await condition(() => outcome !== null || pushed !== null, Math.max(0, deadline - Date.now()));
  // Signals and the submit promise change these between awaits: read them through a function.
  const latest = (): RefundOutcome | null => pushed ?? outcome;
  const first = latest();
  let gatewayRefundId: string | null = first ? refundIdOf(first) : null;
  let polls = 0;
  while (status === 'pending' && Date.now() < deadline) {
    const current: RefundOutcome | null = latest();
    if (current && current.status === 'succeeded') {
      gatewayTransactionId = current.refundId;
      await finish('success');
      break;
    }
    if (current && current.status === 'rejected') {
      failureCode = current.failureCode;
      await finish('canceled');
      break;
    }
    if (current && current.status === 'pending') gatewayRefundId = current.refundId;
    pushed = null;
    outcome = null;
    const wait = Math.min(pollDelayMs(polls), deadline - Date.now());
    if (await condition(() => pushed !== null, Math.max(0, wait))) continue;
    if (gatewayRefundId && Date.now() < deadline) {
      polls += 1;
      outcome = await gateway.refundStatus({ tenantId: input.tenantId, connectorId: input.connector, refundId: gatewayRefundId });
    }
  }

  if (status === 'pending') {
    // The SLA passed: stop submitting, cancel, give the amount back to the payment, tell the merchant.
    submitScope.cancel();
    failureCode = 'sla_timeout';
    await finish('canceled');
    // Keep listening for a while: a late success is money that left, and operators must see it.
    const until = Date.now() + LATE_OUTCOME_WINDOW_SECONDS * 1000;
    while (Date.now() < until && lateOutcome === null) {
      // Hourly: this is bookkeeping for operators, not a customer waiting.
      const got = await condition(() => pushed !== null, Math.min(LATE_POLL_MS, until - Date.now()));
      let late: RefundOutcome | null = got ? latest() : null;
      if (!late && gatewayRefundId) {
        late = await gateway.refundStatus({ tenantId: input.tenantId, connectorId: input.connector, refundId: gatewayRefundId });
      }
      pushed = null;
      if (late && late.status !== 'pending') {
        lateOutcome = {
          status: late.status,
          at: new Date().toISOString(),
          ...(late.status === 'succeeded' ? { gateway_transaction_id: late.refundId } : {}),
        };
        log.warn('gateway outcome arrived after the refund was canceled', { refund: input.id, outcome: late.status });
        describe();
        await persist();
        // The money left after all: the payment takes the amount back out of its balance, exactly once.
        if (late.status === 'succeeded') await tellPayment('late_success');
      }
    }
  }
  submitScope.cancel(); // a submission still retrying has nothing left to do
  await submitted;
  await writer.flushed();
  return state();
}

function refundIdOf(o: RefundOutcome): string | null {
  return 'refundId' in o && o.refundId ? o.refundId : null;
}
