import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { transition, type IntentTrigger } from '../../domain/payment-intent';
import { formatMoney } from '../../domain/money';
import { typedIdFromUuid } from '../../domain/ids';
import { HISTORY_EVENT_BOUND, openPollDelayMs, unknownOutcomeDelayMs } from '../../domain/polling';
import { emitEvent } from '../emit-event';
import { refundWorkflow } from '../refund/workflow';
import type { RefundInput } from '../refund/messages';
import { SA } from '../search-attributes';
import { serialWriter } from '../serial-writer';
import {
  admitRefundUpdate,
  attemptUpdate,
  cancelUpdate,
  chargeOutcomeSignal,
  intentStateQuery,
  refundSettledSignal,
  type AttemptResult,
  type IntentView,
  type PaymentIntentInput,
} from './messages';
import { PaymentIntentState, type Attempt, type GatewayWord } from './state';


const store = proxyActivities<Activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumInterval: '10s' },
});
// A charge is tried twice at most: the gateway idempotency key makes the retry safe, and a customer is
// waiting on the other end of the Update.
const gateway = proxyActivities<Activities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '500ms', maximumAttempts: 2 },
});
// Status questions: a few quick tries, then the workflow's own backoff decides when to ask again, so a
// gateway that is down never holds the loop (or its timers) inside one activity.
const gatewayCheck = proxyActivities<Activities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});
// The one question asked inside a payment attempt whose charge call lost its answer: the customer waits.
const gatewayQuick = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } });
const gatewayPatient = proxyActivities<Activities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/** How often, at most, a charge we no longer wait on is asked about within the grace period. */
const LATE_CHARGE_POLL_MS = 10 * 60 * 1000;
/** How long a cancel waits for a charge on the wire (or one being reconciled) to be decided. */
const CANCEL_WAITS_FOR_CHARGE_MS = 20_000;

/**
 * One workflow per payment intent; its id is the `pi_` id. It owns the intent's state machine (state.ts),
 * its deadline, its attempts (and their reconciliation with the gateway) and, once paid, its refundable
 * balance. This file wires messages to the state and performs the effects its decisions name.
 */
export async function paymentIntentWorkflow(input: PaymentIntentInput): Promise<IntentView> {
  const s = new PaymentIntentState(input, Date.now());
  const writer = serialWriter(input.carried?.version ?? 0, store.savePaymentIntent);
  const persist = (): Promise<unknown> => writer.write(s.record(new Date().toISOString()));
  const describe = () => setCurrentDetails(s.summary());

  const emit = (type: string, data: Record<string, unknown>) =>
    emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type,
      objectId: input.id,
      source: { kind: 'payment_intent', id: input.id },
      data,
      endpoints: input.webhooks,
    });

  /** A transition of the spec's state machine: persisted, then its events emitted. */
  const apply = async (trigger: IntentTrigger): Promise<boolean> => {
    const t = transition(s.status, trigger);
    if (!t.ok) return false;
    const changed = t.status !== s.status;
    s.status = t.status;
    if (changed) {
      upsertSearchAttributes([{ key: SA.PaymentStatus, value: s.status }]);
      describe();
    }
    // The event describes the state this transition committed, not whatever a later handler changes in
    // the meantime; it is persisted before it is emitted, so the read model is never behind an event.
    const data = { ...s.view(), metadata: input.metadata };
    await persist();
    for (const type of t.events) await emit(type, data);
    return true;
  };

  const cancel = async (reason: 'requested' | 'expired') => {
    s.cancel(reason, Date.now());
    await apply({ type: reason === 'requested' ? 'cancel_requested' : 'expired' });
  };

  /** A capture that matches no live attempt: give the money back, once. Never keep it. */
  const voidCapture = async (a: Attempt, chargeId: string) => {
    log.error('a capture matches no live attempt of this payment intent; refunding it (operator alert)', {
      paymentIntent: input.id,
      chargeId,
      attempt: a.number,
      intentStatus: s.status,
    });
    describe();
    let outcome: 'refunded' | 'failed' = 'refunded';
    let error: string | null = null;
    try {
      const r = await gatewayPatient.refundCharge({
        tenantId: input.tenantId,
        connectorId: a.connector,
        chargeId,
        amount: input.amount,
        currency: input.currency,
        idempotencyKey: `${input.id}:void:${a.number}`,
        reference: input.id,
      });
      if (r.status === 'rejected') [outcome, error] = ['failed', r.failureCode];
    } catch (err) {
      // The gateway refused the refund outright: an operator must act. Never fail the intent's workflow for it.
      [outcome, error] = ['failed', String(err)];
      log.error('refunding an unowned capture failed; operator action needed', { chargeId, error });
    }
    await store.recordVoidedCharge({ id: input.id, chargeId, attempt: a.number, at: new Date().toISOString(), outcome, error });
  };

  const succeed = async (a: Attempt, chargeId: string): Promise<AttemptResult> => {
    s.succeed(a, chargeId, Date.now());
    upsertSearchAttributes([{ key: SA.Connector, value: a.connector }]);
    // The status flips before the first await below, so no cancel can slip in between capture and success.
    const applied = apply({ type: 'payment_succeeded' });
    let pmId: string | undefined;
    if (a.saveMethod) {
      pmId = typedIdFromUuid('pm', input.region, uuid4());
      await store.savePaymentMethod({
        id: pmId,
        tenantId: input.tenantId,
        customer: input.customer,
        paymentIntent: input.id,
        connectorId: a.connector,
        chargeId,
        createdAt: new Date().toISOString(),
      });
    }
    await applied;
    return { payment_intent: input.id, status: 'success', ...(pmId ? { payment_method_uuid: pmId } : {}) };
  };

  const failAttempt = async (a: Attempt, failureCode: string): Promise<AttemptResult> => {
    s.failAttempt(a, failureCode);
    describe();
    if (s.status === 'pending') await apply({ type: 'attempt_failed' });
    return { payment_intent: input.id, status: 'failed', failure_code: failureCode };
  };

  /** Applies what a gateway's word about an attempt means (state.ts decides). */
  const resolve = async (a: Attempt, word: GatewayWord): Promise<AttemptResult | null> => {
    const r = s.resolve(a, word, Date.now());
    describe();
    switch (r.kind) {
      case 'succeed':
        return succeed(a, r.chargeId);
      case 'fail':
        return failAttempt(a, r.failureCode);
      case 'open':
        return r.result;
      case 'void':
        await voidCapture(a, r.chargeId);
        return { payment_intent: input.id, status: 'failed', failure_code: 'payment_intent_canceled' };
      case 'nothing':
        return null;
    }
  };

  /** The gateway's own word on an attempt: by charge id when we know it, else by idempotency key. */
  const ask = async (a: Attempt, quick = false): Promise<GatewayWord | null> => {
    const ref = { tenantId: input.tenantId, connectorId: a.connector };
    const asker = quick ? gatewayQuick : gatewayCheck;
    try {
      if (a.chargeId) return await asker.chargeStatus({ ...ref, chargeId: a.chargeId });
      const found = await asker.findCharge({ ...ref, idempotencyKey: a.idempotencyKey });
      return found.status === 'not_found' ? 'not_found' : found;
    } catch (err) {
      log.warn('the gateway did not answer a status question', { attempt: a.number, chargeId: a.chargeId, error: String(err) });
      return null;
    }
  };
  /** Asks about an attempt and applies the answer; no answer leaves everything as it was. */
  const check = async (a: Attempt): Promise<void> => {
    const claimed = s.takeClaim(a);
    a.checks += 1;
    const word = await ask(a);
    if (claimed !== undefined && word !== null && (word === 'not_found' || word.status !== claimed))
      log.warn('a gateway callback was not confirmed by the gateway; it changed nothing', { attempt: a.number, claimed, gateway: word === 'not_found' ? word : word.status });
    if (word !== null && (word !== 'not_found' || s.attempt === a)) await resolve(a, word);
  };

  setHandler(chargeOutcomeSignal, ({ chargeId, idempotencyKey, outcome }) => {
    // A signed callback is a hint, never a verdict: a leaked or default secret must not move money. The
    // loops below ask the gateway about the charge before anything changes.
    s.hint(chargeId, idempotencyKey, outcome.status);
    log.info('gateway callback received; confirming with the gateway', { chargeId, claimed: outcome.status });
  });

  setHandler(
    attemptUpdate,
    async (req): Promise<AttemptResult> => {
      const a = s.startAttempt(req, Date.now());
      describe();
      let word: GatewayWord | null;
      try {
        word = await gateway.charge({
          tenantId: input.tenantId,
          connectorId: a.connector,
          token: req.token,
          amount: input.amount,
          currency: input.currency,
          idempotencyKey: a.idempotencyKey,
          returnUrl: `${input.hostedPageUrl}${input.hostedPageUrl.includes('?') ? '&' : '?'}attempt=${a.number}`,
          reference: input.id,
        });
      } catch (err) {
        if (refusedOutright(err)) {
          // The gateway refused the request itself (4xx, unknown connector): no charge can exist.
          log.warn('the gateway refused the charge request', { error: String(err) });
          word = { status: 'declined', failureCode: 'processing_error', failureMessage: String(err) };
        } else {
          // No answer is not a decline: the charge may exist. Ask by its key once now (the customer waits);
          // if that is not conclusive either, the attempt is `unknown` and the main loop asks until it knows.
          log.warn('the charge call ended without an answer; reconciling by idempotency key', { attempt: a.number, error: String(err) });
          a.checks += 1;
          word = await ask(a, true);
        }
      }
      if (word === null) {
        a.phase = 'unknown';
        describe();
        return { payment_intent: input.id, status: 'pending' };
      }
      return (await resolve(a, word)) ?? { payment_intent: input.id, status: 'failed', failure_code: 'payment_intent_canceled' };
    },
    {
      validator: (req) => {
        const refusal = s.attemptRefusal(req, Date.now());
        if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
      },
    },
  );

  setHandler(
    cancelUpdate,
    async () => {
      // A charge on the wire (or being reconciled) decides first: wait for it, boundedly.
      const deciding = () => s.attempt?.phase === 'charging' || s.attempt?.phase === 'unknown';
      if (deciding()) await condition(() => s.status !== 'pending' || !deciding(), CANCEL_WAITS_FOR_CHARGE_MS);
      if (s.status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${s.status}`, 'not_mutable');
      if (s.attempt?.phase === 'charging')
        throw ApplicationFailure.nonRetryable('A payment attempt is still being processed; retry shortly', 'attempt_in_progress');
      // An attempt still unknown is let go: if the gateway captured it, the capture is refunded.
      await cancel('requested');
      return s.view();
    },
    {
      validator: () => {
        if (s.status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${s.status}`, 'not_mutable');
      },
    },
  );

  setHandler(
    admitRefundUpdate,
    async (req) => {
      // Check and reserve happen here, before the first await: the workflow runs one task at a time, so
      // no other refund can be admitted against the same balance in between.
      const known = s.knownRefund(req.idempotencyKey);
      if (known !== undefined) {
        await condition(() => s.startedRefunds.has(known));
        return { ok: true, refund: known, created: false, refundable_amount_left: s.refundableLeft() };
      }
      const refundId = typedIdFromUuid('re', input.region, uuid4());
      const decision = s.admitRefund(refundId, req);
      if (!decision.ok) return { ok: false, code: decision.code, message: decision.message };
      describe();
      const refundInput: RefundInput = {
        id: refundId,
        tenantId: input.tenantId,
        region: input.region,
        paymentIntent: input.id,
        connector: s.paid!.connector,
        chargeId: s.paid!.chargeId,
        amount: req.amount,
        currency: req.currency,
        idempotencyKey: req.idempotencyKey,
        webhooks: req.webhooks,
        slaSeconds: req.slaSeconds,
        createdAt: new Date().toISOString(),
        webhookTaskQueue: input.webhookTaskQueue,
      };
      try {
        // The refund's record exists before we answer, so a retrieve right after create finds it.
        await store.createRefundRecord(refundInput);
        await startChild(refundWorkflow, {
          workflowId: refundId,
          args: [refundInput],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: [
            { key: SA.TenantId, value: input.tenantId },
            { key: SA.RefundStatus, value: 'pending' },
            { key: SA.AmountMinor, value: req.amount },
            { key: SA.Currency, value: req.currency },
            { key: SA.PaymentIntentId, value: input.id },
          ],
          staticSummary: `Refund ${formatMoney(req.amount, req.currency)} of ${input.id}`,
        });
      } catch (err) {
        // Nothing was started: give the reservation and the key back, so a retry is admitted afresh.
        s.undoAdmission(refundId, req.idempotencyKey);
        describe();
        const cause = err instanceof ActivityFailure ? err.cause : err;
        if (cause instanceof ApplicationFailure && cause.type === 'idempotency_key_in_use')
          return { ok: false, code: 'idempotency_key_in_use', message: cause.message };
        throw err;
      }
      s.startedRefunds.add(refundId);
      return { ok: true, refund: refundId, created: true, refundable_amount_left: decision.left };
    },
    {
      validator: (req) => {
        if (!Number.isInteger(req.amount) || req.amount < 1) throw ApplicationFailure.nonRetryable('amount must be a positive integer', 'invalid_amount');
      },
    },
  );

  setHandler(refundSettledSignal, async ({ refundId, status: word, amount }) => {
    const r = s.settleRefund(refundId, word, amount);
    if (!r.changed) return;
    if (r.overdrawnBy) log.error('a late gateway refund overdrew the payment; operator action needed', { refundId, overdrawnBy: r.overdrawnBy });
    describe();
    await persist();
  });

  setHandler(intentStateQuery, () => s.snapshot(writer.version()));

  describe();

  const historyIsLong = () => workflowInfo().historyLength > HISTORY_EVENT_BOUND || workflowInfo().continueAsNewSuggested;
  /** Continues as new when the history is long and nothing is mid-flight (no Update, no charge on the wire). */
  const continueIfLong = async () => {
    if (!historyIsLong() || !allHandlersFinished() || s.attempt?.phase === 'charging') return;
    await writer.flushed();
    await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: s.carry(writer.version()) });
  };

  // Handlers change the open attempt between awaits; read it through functions so the compiler does not narrow.
  const current = (): Attempt | null => s.attempt;
  const charging = (a: Attempt) => a.phase === 'charging';
  const pending = () => s.status === 'pending';
  if (pending()) {
    if (writer.version() === 0) await persist(); // the workflow has taken the record over from the API's create
    while (pending()) {
      await continueIfLong();
      const open = current();
      if (open && charging(open)) {
        // A charge is on the wire: its outcome wins over the clock (late success is kept).
        await condition(() => current() !== open || !charging(open) || !pending());
        continue;
      }
      // The deadline is a durable timer: exact, and it survives restarts of every process.
      const remaining = s.expiresAt - Date.now();
      if (remaining <= 0) {
        await cancel('expired');
        break;
      }
      if (!open) {
        await condition(() => !pending() || current() !== null, remaining);
        continue;
      }
      // An open attempt (3DS, async, or a lost answer): ask the gateway on a callback hint, else on a
      // backoff clock, in case the callback is lost. Only the gateway's answer moves money.
      const delay = open.phase === 'unknown' ? unknownOutcomeDelayMs(open.checks) : openPollDelayMs(open.checks, s.lifetimeMs);
      await condition(() => !pending() || current() !== open || charging(open) || s.isHinted(open), Math.min(remaining, delay));
      if (!pending() || current() !== open || charging(open)) continue;
      if (Date.now() >= s.expiresAt && !s.isHinted(open)) continue;
      await check(open);
    }
  }

  // Attempts we no longer wait on may still be captured at the gateway: ask about them on hints and now and
  // then until the grace period ends; a capture is refunded. `mayContinue`: only the workflow's main path
  // may continue as new (a floating promise must not).
  const watchLateAttempts = async (mayContinue: boolean) => {
    const late = s.lateAttempts;
    const hinted = () => [...late.values()].some((a) => s.isHinted(a));
    while (late.size > 0 && Date.now() < s.lateWatchUntil) {
      if (mayContinue) await continueIfLong();
      const checks = Math.min(...[...late.values()].map((a) => a.checks));
      const delay = Math.min(LATE_CHARGE_POLL_MS, openPollDelayMs(checks, s.lifetimeMs), s.lateWatchUntil - Date.now());
      await condition(() => late.size === 0 || hinted(), delay);
      for (const a of [...late.values()]) {
        if (late.get(a.idempotencyKey) === a) await check(a);
      }
    }
    if (late.size > 0) {
      log.warn('stopped watching abandoned charges after the grace period', { keys: [...late.keys()] });
      late.clear();
    }
  };

  if (s.status === 'canceled') {
    await watchLateAttempts(true);
    await condition(allHandlersFinished);
    await writer.flushed();
    return s.view();
  }
  // Success: a superseded challenge may still be completed; watch it beside the refund window.
  const watching = watchLateAttempts(false);

  // Success: the workflow owns the refundable balance for the refund window, and past it for as long as a
  // refund it started is unsettled. It continues as new when its history grows.
  const done = () => s.mayClose(Date.now());
  while (!done()) {
    const left = s.closeAt - Date.now();
    if (left > 0) await condition(() => historyIsLong() || done(), left);
    else await condition(() => historyIsLong() || done());
    if (historyIsLong()) {
      await condition(allHandlersFinished);
      await writer.flushed();
      await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: s.carry(writer.version()) });
    }
  }
  await watching;
  await condition(allHandlersFinished);
  await writer.flushed();
  return s.view();
}

/** A non-retryable failure (a 4xx, an unknown connector): the gateway never took the request. */
function refusedOutright(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}
