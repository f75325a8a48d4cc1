import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { RefundOutcome } from '../../gateways/types';
import { historyIsLong } from '../history';
import { cancelRetryDelayMs, pollDelayMs } from '../../domain/refund';
import { RefundLifecycle } from './state';
import { emitEvent } from '../emit-event';
import { serialWriter } from '../serial-writer';
import { refundOutcomeSignal, refundStateQuery, retryRefundStepUpdate, type RefundInput, type RefundState } from './messages';
import { refundSettledSignal } from '../payment-intent/messages';
import { SA } from '../search-attributes';
import { olderRefundEvent, olderRefundWebhookBody } from '../../domain/older-refund-progress';
import { assertStamped, noteOperatorAction } from '../operator-stamps';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumInterval: '10s' } });
// The submission retries until it is answered (the idempotency key makes that safe) or the SLA cuts it off.
const gatewaySubmitOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumInterval: '1m' } } as const;
// Questions (status, cancel): a few quick tries; the workflow's own backoff decides when to ask again, so a
// gateway error never fails the workflow and never holds its timers.
const gatewayCheckOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumAttempts: 3 } } as const;

/**
 * Runs started by code with this patch write the older sub-status's one move that is no status change
 * (pending_created -> pending_promise) to the record; runs recorded before it replay without that write.
 */
const SUB_STATUS_WRITES_PATCH = 'refund-sub-status-writes';
/** Runs that take the gateway's refund id only from the gateway; older ones took it from a callback too. */
const GATEWAY_ID_FROM_GATEWAY_PATCH = 'refund-id-from-gateway-only';
/** Runs that act on an answer or a hint before continuing as new; older ones continued and lost them. */
const CONTINUE_AFTER_WORD_PATCH = 'refund-continue-after-word';
/**
 * Runs that record an older refund's events once, in the older body its webhook_urls are sent; runs before it
 * also recorded the envelope refund.success / refund.canceled, sent nowhere (listed twice by GET /v202607/events).
 */
const OLDER_EVENT_ALONE_PATCH = 'older-refund-event-alone';

/** How long an operator's retry waits for the gateway's answer before answering with the state as it is. */
const OPERATOR_WAITS_MS = 20_000;

/**
 * One workflow per refund; its id is the `re_` id. It owns the refund's state and its SLA timer. Money moves
 * only on what the gateway says when asked: a callback is a hint that makes it ask at once. At the SLA it
 * asks the gateway to cancel and releases the reservation only when the gateway confirms.
 */
export async function refundWorkflow(input: RefundInput): Promise<RefundState> {
  const r = new RefundLifecycle(input);
  let hinted = false;
  // The gateway's own task queue (its rate limit, workflows/task-queues.ts) when the intent knew it.
  const onGatewayQueue = input.gatewayTaskQueue ? { taskQueue: input.gatewayTaskQueue } : {};
  const gatewaySubmit = proxyActivities<Activities>({ ...gatewaySubmitOptions, ...onGatewayQueue });
  const gatewayCheck = proxyActivities<Activities>({ ...gatewayCheckOptions, ...onGatewayQueue });
  // Asked once, before the first command: a run keeps one behaviour from its start to its end.
  const writesProgress = patched(SUB_STATUS_WRITES_PATCH);
  // Only refunds of the older interface have `older`, so no history recorded before it takes these branches.
  const olderHooks = input.older?.webhooks ?? [];

  setHandler(refundOutcomeSignal, ({ outcome }) => {
    hinted = true;
    // The refund's id at the gateway comes from the gateway's own answers (the submission's, or a search by our
    // key), never from a callback: a signed callback naming another refund would settle this one on its status.
    if (!r.gatewayRefundId && 'refundId' in outcome && outcome.refundId && !patched(GATEWAY_ID_FROM_GATEWAY_PATCH)) r.gatewayRefundId = outcome.refundId;
    log.info('gateway callback received; confirming with the gateway', { refund: input.id, claimed: outcome.status });
  });
  setHandler(refundStateQuery, () => r.snapshot());
  const operatorNotes: string[] = [];
  const describe = () => setCurrentDetails([r.summary(), ...operatorNotes].join('\n\n'));
  describe();
  // Questions put to the gateway so far (status or cancel): an operator's retry answers after the next one.
  let asked = 0;
  setHandler(
    retryRefundStepUpdate,
    async (req) => {
      log.warn('operator action: retry the refund step', { refund: input.id, operator: req.operator, reason: req.reason, actionId: req.actionId });
      noteOperatorAction(operatorNotes, req.operator, `retry the ${r.phase} step`, req.reason);
      describe();
      const before = asked;
      hinted = true; // the loops ask (or cancel) now, as on a callback
      await condition(() => asked > before || r.phase === 'done', OPERATOR_WAITS_MS);
      return r.snapshot();
    },
    {
      validator: (req) => {
        assertStamped(req);
        if (r.phase === 'done') throw ApplicationFailure.nonRetryable(`This refund is settled (${r.status}): nothing to retry`, 'refund_settled');
      },
    },
  );

  const writer = serialWriter(r.version, store.saveRefund);
  const persist = () => writer.write({ ...r.record(new Date().toISOString()), ...r.olderRecord() });

  const tellPayment = async (word: 'success' | 'canceled') => {
    try {
      await getExternalWorkflowHandle(input.paymentIntent).signal(refundSettledSignal, { refundId: input.id, status: word, amount: input.amount });
    } catch (err) {
      // The payment's workflow stays open while a refund it started is unsettled; this is an operator matter.
      log.error('payment intent workflow is gone; balance not updated (operator action needed)', { paymentIntent: input.paymentIntent, error: String(err) });
    }
  };

  /**
   * An event of the refund: in the envelope to its `webhooks`, or (`legacyBody`) in the older interface's
   * body to every one of its webhook_urls (format `legacy`, with Service-Webhook-Secret when it has a secret).
   */
  const emit = (type: string, data: Record<string, unknown>, legacyBody?: Record<string, unknown>) =>
    emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type,
      objectId: input.id,
      source: { kind: 'refund', id: input.id },
      data,
      ...(legacyBody ? { endpoints: olderHooks, format: 'legacy' as const, legacyBody } : { endpoints: input.webhooks }),
    });

  const announce = async (type: 'refund.success' | 'refund.canceled') => {
    // An older refund's change is announced by its older event: an envelope no endpoint takes would be its twin.
    const unsent = olderHooks.length > 0 && !input.webhooks.some((w) => w.events.includes(type));
    if (unsent && patched(OLDER_EVENT_ALONE_PATCH)) return;
    await emit(type, r.view()); // the refund as retrieve answers it, at the moment of the event
  };

  /** An older refund's webhook_urls hear of each new sub-status once, with the refund as GET /refunds lists it. */
  const announceOlder = async () => {
    if (olderHooks.length === 0) return;
    const sub = r.subStatus();
    if (r.olderAnnounced === sub) return;
    const row = r.olderRow(new Date().toISOString());
    if (!row) return;
    r.olderAnnounced = sub;
    const type = olderRefundEvent(sub);
    const body = olderRefundWebhookBody(row, type);
    await emit(type, body, body);
  };

  /** Before the SLA (status pending): a sub-status that moved (the gateway has it now) is recorded and sent. */
  const progressed = async () => {
    if (r.subStatus() === r.recordedSubStatus) return;
    if (writesProgress) {
      describe();
      await persist();
    }
    await announceOlder();
  };

  /** The status the merchant sees changed: search attribute, summary, record. */
  const publishStatus = async () => {
    upsertSearchAttributes([{ key: SA.RefundStatus, value: r.status }]);
    describe();
    await persist();
  };

  /** The gateway executed the refund: the reserved amount is spent. */
  const succeed = async (refundId: string, afterSla: boolean) => {
    r.succeed(refundId, afterSla, Date.now());
    await publishStatus();
    await tellPayment('success');
    await announce('refund.success');
    await announceOlder();
  };

  /** The gateway will never execute it (rejected, or canceled at our request): the amount is released. */
  const release = async (code: string) => {
    const wasCanceled = r.status === 'canceled';
    r.release(code);
    if (!wasCanceled) await publishStatus();
    else {
      describe(); // the details said "asking the gateway to cancel; amount still reserved": now released
      await persist();
    }
    await tellPayment('canceled');
    if (!r.canceledAnnounced) {
      r.canceledAnnounced = true;
      await announce('refund.canceled');
    }
    await announceOlder();
  };

  /** The gateway's word on this refund: by its id when known, else by our idempotency key. */
  const ask = async (): Promise<RefundOutcome | 'not_found' | null> => {
    try {
      if (r.gatewayRefundId) return await gatewayCheck.refundStatus({ tenantId: input.tenantId, connectorId: input.connector, refundId: r.gatewayRefundId });
      const found = await gatewayCheck.findRefund({ tenantId: input.tenantId, connectorId: input.connector, idempotencyKey: input.id });
      return found.status === 'not_found' ? 'not_found' : found;
    } catch (err) {
      log.warn('the gateway did not answer about the refund; asking again later', { refund: input.id, error: String(err) });
      return null;
    }
  };

  const continueIfLong = async () => {
    if (!historyIsLong() || !allHandlersFinished()) return;
    // While waiting, the submission's answer or a callback's hint not yet acted on is acted on first: neither is
    // carried. (Past the SLA the cancel loop asks the gateway itself and never reads them.)
    if (r.phase === 'waiting' && (answer !== null || hinted) && patched(CONTINUE_AFTER_WORD_PATCH)) return;
    await writer.flushed();
    await continueAsNew<typeof refundWorkflow>({ ...input, carried: r.carry(writer.version()) });
  };

  // An older refund with webhook_urls: its row's fixed fields (read once, carried on), and its first
  // webhook, pending_created, before the gateway is asked (so it is the first the merchant is sent).
  if (olderHooks.length > 0 && !r.olderFacts) r.olderFacts = await store.olderRefundFacts({ tenantId: input.tenantId, id: input.id });
  if (!input.carried) await announceOlder();

  // Before the SLA: submit, then wait for the outcome (a callback hint, or the polling clock).
  let answer: RefundOutcome | null = null;
  const submitScope = new CancellationScope();
  let submission: Promise<unknown> = Promise.resolve();
  if (r.phase === 'waiting' && !r.submitted) {
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
          r.answered(o);
          answer = o;
        },
        (err: unknown) => {
          if (isCancellation(err)) return;
          // A gateway that refuses the request outright (a non-retryable failure) has rejected the refund.
          const refused: RefundOutcome = { status: 'rejected', failureCode: 'gateway_rejected', failureMessage: String(err) };
          r.answered(refused);
          answer = refused;
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
  const phase = () => r.phase;

  while (phase() === 'waiting' && Date.now() < r.deadline) {
    await continueIfLong();
    const wait = Math.min(pollDelayMs(r.polls, r.slaMs), r.deadline - Date.now());
    const woke = await condition(() => answer !== null || wasHinted(), Math.max(0, wait));
    let word: RefundOutcome | 'not_found' | null = takeAnswer();
    if (word && word.status === 'pending') {
      r.gatewayRefundId = word.refundId;
      word = null;
    }
    if (!word && (wasHinted() || (!woke && Date.now() < r.deadline))) {
      hinted = false;
      r.polls += 1;
      word = await ask();
      asked += 1;
      r.heard(word);
    }
    if (!word || word === 'not_found') {
      await progressed();
      continue;
    }
    const m = r.meaning(word, false);
    if (m.kind === 'spent') await succeed(m.refundId, false);
    else if (m.kind === 'released') await release(m.failureCode);
    else await progressed();
  }

  if (phase() === 'waiting') {
    // The SLA passed: stop submitting, and ask the gateway not to execute the refund. Only its answer moves
    // the reservation: canceled or rejected releases it, executed spends it. Until it answers, the refund
    // reads `canceled` as the spec has it, and the amount stays reserved.
    submitScope.cancel();
    r.slaPassed();
    describe();
  }
  let tries = 0;
  while (phase() === 'canceling') {
    await continueIfLong();
    let word: RefundOutcome | null = null;
    try {
      word = await gatewayCheck.cancelRefund({ tenantId: input.tenantId, connectorId: input.connector, idempotencyKey: input.id });
    } catch (err) {
      log.warn('the gateway did not answer the cancel of a refund past its SLA; the amount stays reserved', { refund: input.id, error: String(err) });
    }
    asked += 1;
    const m = word ? r.meaning(word, true) : ({ kind: 'open' } as const);
    if (m.kind === 'spent') {
      log.warn('the gateway executed the refund at or after its SLA; it stands as success', { refund: input.id });
      await succeed(m.refundId, true);
      break;
    }
    if (m.kind === 'released') {
      await release(m.failureCode);
      break;
    }
    // No answer, or the gateway cannot cancel it now (pending): visible as canceled, still reserved.
    if (r.status !== 'canceled') {
      r.status = 'canceled';
      await publishStatus();
      r.canceledAnnounced = true;
      await announce('refund.canceled');
      await announceOlder();
    }
    hinted = false;
    await condition(wasHinted, cancelRetryDelayMs(tries++));
  }

  submitScope.cancel(); // a submission still retrying has nothing left to do
  await submission;
  await condition(allHandlersFinished);
  await writer.flushed();
  return r.snapshot();
}
