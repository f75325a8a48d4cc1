import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { RefundOutcome } from '../../gateways/types';
import { formatMoney } from '../../domain/money';
import { HISTORY_EVENT_BOUND } from '../../domain/polling';
import { cancelRetryDelayMs, pollDelayMs, type RefundStatus } from '../../domain/refund';
import { emitEvent } from '../emit-event';
import { serialWriter } from '../serial-writer';
import { refundOutcomeSignal, refundStateQuery, type RefundCarried, type RefundInput, type RefundState } from './messages';
import { refundSettledSignal } from '../payment-intent/messages';
import { SA } from '../search-attributes';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumInterval: '10s' } });
// The submission retries until it is answered (the idempotency key makes that safe) or the SLA cuts it off.
const gatewaySubmit = proxyActivities<Activities>({ startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumInterval: '1m' } });
// Questions (status, cancel): a few quick tries; the workflow's own backoff decides when to ask again, so a
// gateway error never fails the workflow and never holds its timers.
const gatewayCheck = proxyActivities<Activities>({ startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumAttempts: 3 } });

/**
 * One workflow per refund; its id is the `re_` id. It owns the refund's state and its SLA timer. Money moves
 * only on what the gateway says when asked: a callback is a hint that makes it ask at once. At the SLA it
 * asks the gateway to cancel and releases the reservation only when the gateway confirms.
 */
export async function refundWorkflow(input: RefundInput): Promise<RefundState> {
  const c: RefundCarried = input.carried ?? {
    status: 'pending',
    phase: 'waiting',
    version: 1, // version 1 was written by the payment intent's workflow when it admitted the refund
    submitted: false,
    gatewayRefundId: null,
    gatewayTransactionId: null,
    failureCode: null,
    lateOutcome: null,
    polls: 0,
    canceledAnnounced: false,
  };
  let status: RefundStatus = c.status;
  let phase = c.phase;
  let gatewayRefundId = c.gatewayRefundId;
  let gatewayTransactionId = c.gatewayTransactionId;
  let failureCode = c.failureCode;
  let lateOutcome = c.lateOutcome;
  let polls = c.polls;
  let submitted = c.submitted;
  let canceledAnnounced = c.canceledAnnounced;
  let hinted = false;
  const deadline = new Date(input.createdAt).getTime() + input.slaSeconds * 1000;
  const slaMs = input.slaSeconds * 1000;

  setHandler(refundOutcomeSignal, ({ outcome }) => {
    hinted = true;
    if (!gatewayRefundId && 'refundId' in outcome && outcome.refundId) gatewayRefundId = outcome.refundId;
    log.info('gateway callback received; confirming with the gateway', { refund: input.id, claimed: outcome.status });
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
        (phase === 'canceling' ? ' · asking the gateway to cancel; amount still reserved' : '') +
        `\n\nSLA ends ${new Date(deadline).toISOString()}${gatewayTransactionId ? ` · gateway ${gatewayTransactionId}` : ''}` +
        (lateOutcome ? `\n\ngateway outcome after the SLA: ${lateOutcome.status} at ${lateOutcome.at}` : ''),
    );
  describe();

  const writer = serialWriter(c.version, store.saveRefund);
  const persist = () =>
    writer.write({
      id: input.id,
      status,
      gateway_transaction_id: gatewayTransactionId,
      failure_code: failureCode,
      late_outcome: lateOutcome,
      updated_at: new Date().toISOString(),
    });

  const tellPayment = async (word: 'success' | 'canceled') => {
    try {
      await getExternalWorkflowHandle(input.paymentIntent).signal(refundSettledSignal, { refundId: input.id, status: word, amount: input.amount });
    } catch (err) {
      // The payment's workflow stays open while a refund it started is unsettled; this is an operator matter.
      log.error('payment intent workflow is gone; balance not updated (operator action needed)', { paymentIntent: input.paymentIntent, error: String(err) });
    }
  };

  const announce = async (type: 'refund.success' | 'refund.canceled') => {
    await emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type,
      objectId: input.id,
      source: { kind: 'refund', id: input.id },
      data: {
        refund: input.id,
        payment_intent: input.paymentIntent,
        status,
        amount: input.amount,
        currency: input.currency,
        created_at: input.createdAt,
        gateway_transaction_id: gatewayTransactionId,
      },
      endpoints: input.webhooks,
    });
  };

  const setStatus = async (next: RefundStatus) => {
    status = next;
    upsertSearchAttributes([{ key: SA.RefundStatus, value: status }]);
    describe();
    await persist();
  };

  /** The gateway executed the refund: the reserved amount is spent. */
  const succeed = async (refundId: string, afterSla: boolean) => {
    gatewayTransactionId = refundId;
    if (afterSla) lateOutcome = { status: 'succeeded', at: new Date().toISOString(), gateway_transaction_id: refundId };
    phase = 'done';
    await setStatus('success');
    await tellPayment('success');
    await announce('refund.success');
  };

  /** The gateway will never execute it (rejected, or canceled at our request): the amount is released. */
  const release = async (code: string) => {
    phase = 'done';
    if (status !== 'canceled' || failureCode === null) failureCode = code;
    if (status !== 'canceled') await setStatus('canceled');
    else await persist();
    await tellPayment('canceled');
    if (!canceledAnnounced) {
      canceledAnnounced = true;
      await announce('refund.canceled');
    }
  };

  /** The gateway's word on this refund: by its id when known, else by our idempotency key. */
  const ask = async (): Promise<RefundOutcome | 'not_found' | null> => {
    try {
      if (gatewayRefundId) return await gatewayCheck.refundStatus({ tenantId: input.tenantId, connectorId: input.connector, refundId: gatewayRefundId });
      const found = await gatewayCheck.findRefund({ tenantId: input.tenantId, connectorId: input.connector, idempotencyKey: input.id });
      return found.status === 'not_found' ? 'not_found' : found;
    } catch (err) {
      log.warn('the gateway did not answer about the refund; asking again later', { refund: input.id, error: String(err) });
      return null;
    }
  };

  const historyIsLong = () => workflowInfo().historyLength > HISTORY_EVENT_BOUND || workflowInfo().continueAsNewSuggested;
  const continueIfLong = async () => {
    if (!historyIsLong() || !allHandlersFinished()) return;
    await writer.flushed();
    const carried: RefundCarried = {
      status, phase, version: writer.version(), submitted, gatewayRefundId, gatewayTransactionId, failureCode, lateOutcome, polls, canceledAnnounced,
    };
    await continueAsNew<typeof refundWorkflow>({ ...input, carried });
  };

  // Before the SLA: submit, then wait for the outcome (a callback hint, or the polling clock).
  let answer: RefundOutcome | null = null;
  const submitScope = new CancellationScope();
  let submission: Promise<unknown> = Promise.resolve();
  if (phase === 'waiting' && !submitted) {
    // The submission may still be retrying when the SLA passes: it runs in its own scope, canceled then,
    // and the cancel at the gateway (by the same key) voids a request that arrives later.
    submission = submitScope
      .run(() =>
        gatewaySubmit.refundCharge({
          tenantId: input.tenantId,
          connectorId: input.connector,
          chargeId: input.chargeId,
          amount: input.amount,
          currency: input.currency,
          idempotencyKey: input.id,
          reference: input.id,
        }),
      )
      .then(
        (o: RefundOutcome) => {
          submitted = true;
          answer = o;
        },
        (err: unknown) => {
          if (isCancellation(err)) return;
          // A gateway that refuses the request outright (a non-retryable failure) has rejected the refund.
          submitted = true;
          answer = { status: 'rejected', failureCode: 'gateway_rejected', failureMessage: String(err) };
        },
      );
  }
  // The submit promise and signals change these between awaits: read them through functions.
  const takeAnswer = (): RefundOutcome | null => {
    const a = answer;
    answer = null;
    return a;
  };
  const wasHinted = () => hinted;

  while (phase === 'waiting' && Date.now() < deadline) {
    await continueIfLong();
    const wait = Math.min(pollDelayMs(polls, slaMs), deadline - Date.now());
    const woke = await condition(() => answer !== null || wasHinted(), Math.max(0, wait));
    let word: RefundOutcome | 'not_found' | null = takeAnswer();
    if (word && word.status === 'pending') {
      gatewayRefundId = word.refundId;
      word = null;
    }
    if (!word && (wasHinted() || (!woke && Date.now() < deadline))) {
      hinted = false;
      polls += 1;
      word = await ask();
    }
    if (!word || word === 'not_found') continue;
    if ('refundId' in word && word.refundId) gatewayRefundId = word.refundId;
    if (word.status === 'succeeded') await succeed(word.refundId, false);
    else if (word.status === 'rejected') await release(word.failureCode);
    else if (word.status === 'canceled') await release('gateway_canceled');
  }

  if (phase === 'waiting') {
    // The SLA passed: stop submitting, and ask the gateway not to execute the refund. Only its answer moves
    // the reservation: canceled or rejected releases it, executed spends it. Until it answers, the refund
    // reads `canceled` as the spec has it, and the amount stays reserved.
    submitScope.cancel();
    phase = 'canceling';
    failureCode = 'sla_timeout';
    describe();
  }
  let tries = 0;
  while (phase === 'canceling') {
    await continueIfLong();
    let word: RefundOutcome | null = null;
    try {
      word = await gatewayCheck.cancelRefund({ tenantId: input.tenantId, connectorId: input.connector, idempotencyKey: input.id });
    } catch (err) {
      log.warn('the gateway did not answer the cancel of a refund past its SLA; the amount stays reserved', { refund: input.id, error: String(err) });
    }
    if (word?.status === 'succeeded') {
      log.warn('the gateway executed the refund at or after its SLA; it stands as success', { refund: input.id });
      await succeed(word.refundId, true);
      break;
    }
    if (word?.status === 'canceled' || word?.status === 'rejected') {
      await release('sla_timeout');
      break;
    }
    // No answer, or the gateway cannot cancel it now (pending): visible as canceled, still reserved.
    if (status !== 'canceled') {
      await setStatus('canceled');
      canceledAnnounced = true;
      await announce('refund.canceled');
    }
    hinted = false;
    await condition(wasHinted, cancelRetryDelayMs(tries++));
  }

  submitScope.cancel(); // a submission still retrying has nothing left to do
  await submission;
  await condition(allHandlersFinished);
  await writer.flushed();
  return state();
}
