import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
  ParentClosePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChargeOutcome } from '../activities/gateway/types';
import { transition, type IntentStatus, type IntentTrigger } from '../domain/payment-intent';
import { admit, refundableLeft, release, restore, type RefundBalance } from '../domain/refund-balance';
import { formatMoney } from '../domain/money';
import { typedIdFromUuid } from '../domain/ids';
import { HISTORY_EVENT_BOUND, openPollDelayMs, unknownOutcomeDelayMs } from '../domain/polling';
import {
  admitRefundUpdate,
  attemptUpdate,
  cancelUpdate,
  chargeOutcomeSignal,
  intentStateQuery,
  refundSettledSignal,
  SA,
  type AttemptResult,
  type CarriedAttempt,
  type CarriedState,
  type IntentView,
  type PaymentIntentInput,
  type RefundInput,
} from './definitions';
import { emitEvent } from './emit-event';
import { refundWorkflow } from './refund';
import { serialWriter } from './serial-writer';

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

/** After a deadline passes, how long we keep watching an open attempt for a late capture to give back. */
const LATE_OUTCOME_GRACE_MS = 24 * 3600 * 1000;
/** How often, at most, a charge we no longer wait on is asked about within the grace period. */
const LATE_CHARGE_POLL_MS = 10 * 60 * 1000;
/** How long a cancel waits for a charge on the wire (or one being reconciled) to be decided. */
const CANCEL_WAITS_FOR_CHARGE_MS = 20_000;
/** How long a successful payment's workflow stays open to own its refundable balance. */
export const REFUND_WINDOW_MS = 180 * 24 * 3600 * 1000;
export const DEFAULT_MAX_ATTEMPTS = 20;

type Attempt = CarriedAttempt;
/** The gateway's answer about a charge: an outcome, `not_found` (it has none), or null (no answer). */
type GatewayWord = ChargeOutcome | 'not_found' | null;

export async function paymentIntentWorkflow(input: PaymentIntentInput): Promise<IntentView> {
  const carried: CarriedState = input.carried ?? {
    status: 'pending',
    version: 0,
    paid: null,
    reserved: {},
    refundKeys: [],
    refundStarted: [],
    refundSettled: [],
    succeededAt: null,
    canceledAt: null,
    cancellationReason: null,
    amountRefunded: 0,
  };
  let status: IntentStatus = carried.status;
  let paid = carried.paid;
  let balance: RefundBalance | null = paid ? { paid: paid.amount, currency: paid.currency, reserved: carried.reserved } : null;
  // Keys come from merchants: a Map, so `constructor` or `__proto__` is a key like any other.
  const refundKeys = new Map<string, string>(Array.isArray(carried.refundKeys) ? carried.refundKeys : Object.entries(carried.refundKeys));
  let amountRefunded = carried.amountRefunded;
  let succeededAt = carried.succeededAt;
  let canceledAt = carried.canceledAt;
  let cancellationReason = carried.cancellationReason;
  let attempt: Attempt | null = carried.pending?.attempt ?? null;
  let attemptsMade = carried.pending?.attemptsMade ?? 0;
  let lastFailureCode: string | null = carried.pending?.lastFailureCode ?? null;
  const expiresAt = new Date(input.expiresAt).getTime();
  const lifetimeMs = expiresAt - new Date(input.createdAt).getTime();
  const maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  // Attempts no longer waited on (abandoned, superseded, cut off by a cancel, or given up as never made),
  // by idempotency key: a capture among them is refunded.
  const lateAttempts = new Map<string, Attempt>(
    (carried.lateCharges ?? []).map((c) => {
      const key = c.idempotencyKey ?? `${input.id}:attempt:${c.number}`;
      return [key, { number: c.number, phase: 'awaiting_callback', connector: c.connector, chargeId: c.chargeId, idempotencyKey: key, saveMethod: false, checks: 0 }];
    }),
  );
  // Callbacks are hints: charge ids and idempotency keys the gateway said something about (and what it
  // claimed), not yet confirmed by asking it.
  const hints = new Map<string, string>(carried.pending?.hints ?? []);
  // Until when attempts we let go are watched for a late capture.
  let lateWatchUntil = carried.lateWatchUntil ? new Date(carried.lateWatchUntil).getTime() : Date.now() + LATE_OUTCOME_GRACE_MS;
  const voided = new Set<string>();
  // Refunds this payment started, those settled, and those the gateway executed after their SLA cancel.
  const startedRefunds = new Set<string>(carried.refundStarted);
  const settledRefunds = new Set<string>(carried.refundSettled);
  const lateRefunds = new Set<string>(carried.lateRefunds ?? []);
  let closeAt = carried.closeAt ? new Date(carried.closeAt).getTime() : succeededAt ? new Date(succeededAt).getTime() + REFUND_WINDOW_MS : 0;

  const view = (): IntentView => ({
    payment_intent: input.id,
    status,
    amount: input.amount,
    currency: input.currency,
    url: input.hostedPageUrl,
    expires_at: input.expiresAt,
    ...(input.customer ? { customer: input.customer } : {}),
    created_at: input.createdAt,
  });

  const writer = serialWriter(carried.version, store.savePaymentIntent);
  const persist = (): Promise<unknown> =>
    writer.write({
      id: input.id,
      status,
      succeeded_at: succeededAt,
      canceled_at: canceledAt,
      cancellation_reason: cancellationReason,
      amount_paid: paid?.amount ?? 0,
      amount_refunded: amountRefunded,
      connector_used: paid?.connector ?? attempt?.connector ?? null,
      gateway_charge_id: paid?.chargeId ?? null,
      last_failure_code: lastFailureCode,
      updated_at: new Date().toISOString(),
    });

  const describe = () => {
    setCurrentDetails(
      `**${formatMoney(input.amount, input.currency)}** · ${status}` +
        (attempt ? ` · attempt ${attempt.number} ${attempt.phase}` : '') +
        `\n\ntenant ${input.tenantId}${input.customer ? ` · customer ${input.customer}` : ''} · expires ${input.expiresAt}` +
        (paid ? `\n\nrefunded ${formatMoney(amountRefunded, input.currency)}, left ${formatMoney(refundableLeft(balance!), input.currency)}` : '') +
        (lateAttempts.size ? `\n\nwatching ${lateAttempts.size} abandoned charge(s) for a late capture` : '') +
        (voided.size ? `\n\nrefunded ${voided.size} capture(s) that matched no live attempt` : ''),
    );
  };

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

  const apply = async (trigger: IntentTrigger): Promise<boolean> => {
    const t = transition(status, trigger);
    if (!t.ok) return false;
    const changed = t.status !== status;
    status = t.status;
    if (changed) {
      upsertSearchAttributes([{ key: SA.PaymentStatus, value: status }]);
      describe();
    }
    // The event describes the state this transition committed, not whatever a later handler changes in
    // the meantime; it is persisted before it is emitted, so the read model is never behind an event.
    const data = { ...view(), metadata: input.metadata };
    await persist();
    for (const type of t.events) await emit(type, data);
    return true;
  };

  /** The open attempt stops being waited on; a capture of it later is refunded. */
  const letGo = (a: Attempt) => {
    if (attempt === a) attempt = null;
    a.checks = 0;
    if (lateAttempts.size === 0) lateWatchUntil = Date.now() + LATE_OUTCOME_GRACE_MS;
    else lateWatchUntil = Math.max(lateWatchUntil, Date.now() + LATE_OUTCOME_GRACE_MS);
    lateAttempts.set(a.idempotencyKey, a);
  };

  const cancel = async (reason: 'requested' | 'expired') => {
    if (attempt) letGo(attempt);
    canceledAt = new Date().toISOString();
    cancellationReason = reason;
    await apply({ type: reason === 'requested' ? 'cancel_requested' : 'expired' });
  };

  /** A capture that matches no live attempt: give the money back, once. Never keep it. */
  const voidCapture = async (a: Attempt, chargeId: string) => {
    if (voided.has(chargeId)) return;
    voided.add(chargeId);
    log.error('a capture matches no live attempt of this payment intent; refunding it (operator alert)', {
      paymentIntent: input.id,
      chargeId,
      attempt: a.number,
      intentStatus: status,
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
        callbackUrl: input.callbackUrl,
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
    attempt = null;
    paid = { amount: input.amount, currency: input.currency, connector: a.connector, chargeId };
    balance = { paid: input.amount, currency: input.currency, reserved: {} };
    succeededAt = new Date().toISOString();
    closeAt = new Date(succeededAt).getTime() + REFUND_WINDOW_MS;
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
    if (attempt === a) attempt = null;
    lastFailureCode = failureCode;
    describe();
    if (status === 'pending') await apply({ type: 'attempt_failed' });
    return { payment_intent: input.id, status: 'failed', failure_code: failureCode };
  };

  /**
   * What the gateway said about an attempt, applied. Only the open attempt of a pending intent can pay it;
   * a capture of anything else (a superseded challenge, an attempt given up on, a second capture) is
   * refunded. A word about an attempt already settled changes nothing.
   */
  const resolve = async (a: Attempt, word: ChargeOutcome | 'not_found'): Promise<AttemptResult | null> => {
    const base = { payment_intent: input.id };
    if (attempt === a && status === 'pending') {
      if (word === 'not_found') {
        // The gateway never took this charge. Watch its key for a while: a request held up in the network
        // may still arrive, and its capture would then be refunded.
        letGo(a);
        return failAttempt(a, 'processing_error');
      }
      switch (word.status) {
        case 'succeeded':
          return succeed(a, word.chargeId);
        case 'declined':
          return failAttempt(a, word.failureCode);
        case 'requires_action':
          a.phase = 'awaiting_action';
          a.chargeId = word.chargeId;
          describe();
          return { ...base, status: 'requires_action', next_action: { type: 'redirect_to_url', url: word.challengeUrl } };
        case 'pending':
          a.phase = 'awaiting_callback';
          a.chargeId = word.chargeId;
          describe();
          return { ...base, status: 'pending' };
      }
    }
    if (word === 'not_found') return null;
    if (attempt === a) {
      // The intent was final before this attempt's word came (it cannot be: a final intent has no attempt).
      attempt = null;
    }
    if (word.status === 'succeeded') {
      lateAttempts.delete(a.idempotencyKey);
      if (paid?.chargeId !== word.chargeId) await voidCapture(a, word.chargeId);
      return { ...base, status: 'failed', failure_code: 'payment_intent_canceled' };
    }
    if (word.status === 'declined') lateAttempts.delete(a.idempotencyKey);
    else if (word.chargeId) a.chargeId = word.chargeId;
    return null;
  };

  /** The gateway's own word on an attempt: by charge id when we know it, else by idempotency key. */
  const ask = async (a: Attempt, quick = false): Promise<GatewayWord> => {
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
  const isHinted = (a: Attempt) => hints.has(a.idempotencyKey) || (a.chargeId !== null && hints.has(a.chargeId));
  const clearHints = (a: Attempt) => {
    hints.delete(a.idempotencyKey);
    if (a.chargeId) hints.delete(a.chargeId);
  };
  /** Asks about an attempt and applies the answer; a null answer leaves everything as it was. */
  const check = async (a: Attempt): Promise<void> => {
    const claimed = hints.get(a.idempotencyKey) ?? (a.chargeId !== null ? hints.get(a.chargeId) : undefined);
    clearHints(a);
    a.checks += 1;
    const word = await ask(a);
    if (claimed !== undefined && word !== null && (word === 'not_found' || word.status !== claimed))
      log.warn('a gateway callback was not confirmed by the gateway; it changed nothing', { attempt: a.number, claimed, gateway: word === 'not_found' ? word : word.status });
    if (word !== null && (word !== 'not_found' || attempt === a)) await resolve(a, word);
  };

  setHandler(chargeOutcomeSignal, ({ chargeId, idempotencyKey, outcome }) => {
    // A signed callback is a hint, never a verdict: a leaked or default secret must not move money. The
    // loops below ask the gateway about the charge before anything changes.
    if (hints.size >= 50) hints.delete(hints.keys().next().value!); // a flood of forged hints stays bounded
    hints.set(chargeId, outcome.status);
    if (idempotencyKey) hints.set(idempotencyKey, outcome.status);
    log.info('gateway callback received; confirming with the gateway', { chargeId, claimed: outcome.status });
  });

  setHandler(
    attemptUpdate,
    async (req): Promise<AttemptResult> => {
      attemptsMade += 1;
      // The abandoned challenge may still be completed at the gateway: a late capture of it is refunded.
      if (attempt) letGo(attempt);
      const a: Attempt = {
        number: attemptsMade,
        phase: 'charging',
        connector: req.connector ?? input.connectors[0]!,
        chargeId: null,
        idempotencyKey: `${input.id}:attempt:${attemptsMade}`,
        saveMethod: req.save_payment_method === true,
        checks: 0,
      };
      attempt = a;
      describe();
      let word: GatewayWord;
      try {
        word = await gateway.charge({
          tenantId: input.tenantId,
          connectorId: a.connector,
          token: req.token,
          amount: input.amount,
          currency: input.currency,
          idempotencyKey: a.idempotencyKey,
          callbackUrl: input.callbackUrl,
          returnUrl: `${input.hostedPageUrl}${input.hostedPageUrl.includes('?') ? '&' : '?'}attempt=${a.number}`,
          reference: input.id,
        });
      } catch (err) {
        if (refusedOutright(err)) {
          // The gateway refused the request itself (4xx, unknown connector): no charge can exist.
          log.warn('the gateway refused the charge request', { error: String(err) });
          word = { status: 'declined', failureCode: 'processing_error', failureMessage: String(err) };
          return (await resolve(a, word)) ?? { payment_intent: input.id, status: 'failed', failure_code: 'payment_intent_canceled' };
        }
        // No answer is not a decline: the charge may exist. Ask by its key once now (the customer waits);
        // if that is not conclusive either, the attempt is `unknown` and the main loop asks until it knows.
        log.warn('the charge call ended without an answer; reconciling by idempotency key', { attempt: a.number, error: String(err) });
        a.checks += 1;
        word = await ask(a, true);
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
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${status}`, 'not_mutable');
        if (Date.now() >= expiresAt) throw ApplicationFailure.nonRetryable('This payment intent has expired', 'not_mutable');
        // A 3DS challenge the customer walked away from must not lock the intent: a new attempt replaces it.
        // A charge on the wire, one whose outcome is being reconciled, or an async one decides first.
        if (attempt && attempt.phase !== 'awaiting_action')
          throw ApplicationFailure.nonRetryable(
            attempt.phase === 'unknown' ? 'The previous payment attempt is being checked with the gateway; retry shortly' : 'Another payment attempt is in progress',
            'attempt_in_progress',
          );
        if (attemptsMade >= maxAttempts)
          throw ApplicationFailure.nonRetryable(`This payment intent has reached its limit of ${maxAttempts} payment attempts`, 'attempt_limit_reached');
        if (req.connector && !input.connectors.includes(req.connector))
          throw ApplicationFailure.nonRetryable('This connector cannot be used for this payment intent', 'connector_not_allowed');
        if (input.connectors.length === 0)
          throw ApplicationFailure.nonRetryable('The merchant has no live connector', 'no_connector');
      },
    },
  );

  setHandler(
    cancelUpdate,
    async () => {
      // A charge on the wire (or being reconciled) decides first: wait for it, boundedly.
      const deciding = () => attempt?.phase === 'charging' || attempt?.phase === 'unknown';
      if (deciding()) await condition(() => status !== 'pending' || !deciding(), CANCEL_WAITS_FOR_CHARGE_MS);
      if (status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${status}`, 'not_mutable');
      if (attempt?.phase === 'charging')
        throw ApplicationFailure.nonRetryable('A payment attempt is still being processed; retry shortly', 'attempt_in_progress');
      // An attempt still unknown is let go: if the gateway captured it, the capture is refunded.
      await cancel('requested');
      return view();
    },
    {
      validator: () => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${status}`, 'not_mutable');
      },
    },
  );

  setHandler(
    admitRefundUpdate,
    async (req) => {
      // Check and reserve happen here, before the first await: the workflow runs one task at a time, so
      // no other refund can be admitted against the same balance in between.
      const known = req.idempotencyKey !== null ? refundKeys.get(req.idempotencyKey) : undefined;
      if (known !== undefined) {
        await condition(() => startedRefunds.has(known));
        return { ok: true, refund: known, created: false, refundable_amount_left: balance ? refundableLeft(balance) : 0 };
      }
      const refundId = typedIdFromUuid('re', input.region, uuid4());
      const decision = status === 'success' ? admit(balance, { refundId, amount: req.amount, currency: req.currency }) : admit(null, { refundId, amount: req.amount, currency: req.currency });
      if (!decision.ok) return { ok: false, code: decision.code, message: decision.message };
      balance = decision.balance;
      if (req.idempotencyKey !== null) refundKeys.set(req.idempotencyKey, refundId);
      describe();
      const refundInput: RefundInput = {
        id: refundId,
        tenantId: input.tenantId,
        region: input.region,
        paymentIntent: input.id,
        connector: paid!.connector,
        chargeId: paid!.chargeId,
        amount: req.amount,
        currency: req.currency,
        idempotencyKey: req.idempotencyKey,
        webhooks: req.webhooks,
        slaSeconds: req.slaSeconds,
        createdAt: new Date().toISOString(),
        callbackUrl: `${req.callbackBaseUrl}/${refundId}`,
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
        balance = release(balance!, refundId);
        if (req.idempotencyKey !== null) refundKeys.delete(req.idempotencyKey);
        describe();
        const cause = err instanceof ActivityFailure ? err.cause : err;
        if (cause instanceof ApplicationFailure && cause.type === 'idempotency_key_in_use')
          return { ok: false, code: 'idempotency_key_in_use', message: cause.message };
        throw err;
      }
      startedRefunds.add(refundId);
      return { ok: true, refund: refundId, created: true, refundable_amount_left: decision.left };
    },
    {
      validator: (req) => {
        if (!Number.isInteger(req.amount) || req.amount < 1) throw ApplicationFailure.nonRetryable('amount must be a positive integer', 'invalid_amount');
      },
    },
  );

  setHandler(refundSettledSignal, async ({ refundId, status: refundStatus, amount }) => {
    if (!balance) return;
    if (refundStatus === 'late_success') {
      // A refund canceled at its SLA that the gateway executed after all: the money left, so the balance
      // takes it back out, once. If it was already refunded again meanwhile, operators are told.
      if (lateRefunds.has(refundId) || refundId in balance.reserved || amount === undefined) return;
      lateRefunds.add(refundId);
      balance = restore(balance, refundId, amount);
      amountRefunded += amount;
      if (refundableLeft(balance) < 0)
        log.error('a late gateway refund overdrew the payment; operator action needed', { refundId, overdrawnBy: -refundableLeft(balance) });
      describe();
      await persist();
      return;
    }
    if (!(refundId in balance.reserved)) return;
    if (settledRefunds.has(refundId)) return; // a repeated or late word changes nothing
    settledRefunds.add(refundId);
    if (refundStatus === 'canceled') balance = release(balance, refundId);
    else amountRefunded += balance.reserved[refundId]!;
    describe();
    await persist();
  });

  const unsettledRefunds = () => (balance ? Object.keys(balance.reserved).filter((id) => !settledRefunds.has(id)) : []);

  setHandler(intentStateQuery, () => ({
    ...view(),
    version: writer.version(),
    attempt: attempt ? { number: attempt.number, phase: attempt.phase, connector: attempt.connector } : null,
    attempts: attemptsMade,
    amount_paid: paid?.amount ?? 0,
    amount_refunded: amountRefunded,
    refundable_amount_left: balance ? refundableLeft(balance) : 0,
    refunds_pending: unsettledRefunds(),
  }));

  describe();

  const historyIsLong = () => workflowInfo().historyLength > HISTORY_EVENT_BOUND || workflowInfo().continueAsNewSuggested;
  const carry = (): CarriedState => ({
    status,
    version: writer.version(),
    paid,
    reserved: balance?.reserved ?? {},
    refundKeys: [...refundKeys],
    refundStarted: [...startedRefunds],
    refundSettled: [...settledRefunds],
    lateRefunds: [...lateRefunds],
    lateCharges: [...lateAttempts.values()].map((a) => ({ chargeId: a.chargeId, connector: a.connector, number: a.number, idempotencyKey: a.idempotencyKey })),
    ...(status === 'pending' ? { pending: { attempt, attemptsMade, lastFailureCode, hints: [...hints] } } : {}),
    ...(lateAttempts.size ? { lateWatchUntil: new Date(lateWatchUntil).toISOString() } : {}),
    ...(closeAt ? { closeAt: new Date(closeAt).toISOString() } : {}),
    succeededAt,
    canceledAt,
    cancellationReason,
    amountRefunded,
  });
  /** Continues as new when the history is long and nothing is mid-flight (no Update, no charge on the wire). */
  const continueIfLong = async () => {
    if (!historyIsLong() || !allHandlersFinished() || attempt?.phase === 'charging') return;
    await writer.flushed();
    await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: carry() });
  };

  // Handlers change `attempt` between awaits; read it through a function so the compiler does not narrow it.
  const current = (): Attempt | null => attempt;
  const charging = (a: Attempt) => a.phase === 'charging';
  if (status === 'pending') {
    if (writer.version() === 0) await persist(); // the workflow has taken the record over from the API's create
    while (status === 'pending') {
      await continueIfLong();
      const open = current();
      if (open?.phase === 'charging') {
        // A charge is on the wire: its outcome wins over the clock (late success is kept).
        await condition(() => current() !== open || open.phase !== 'charging' || status !== 'pending');
        continue;
      }
      // The deadline is a durable timer: exact, and it survives restarts of every process.
      const remaining = expiresAt - Date.now();
      if (remaining <= 0) {
        await cancel('expired');
        break;
      }
      if (!open) {
        await condition(() => status !== 'pending' || current() !== null, remaining);
        continue;
      }
      // An open attempt (3DS, async, or a lost answer): ask the gateway on a callback hint, else on a
      // backoff clock, in case the callback is lost. Only the gateway's answer moves money.
      const delay = open.phase === 'unknown' ? unknownOutcomeDelayMs(open.checks) : openPollDelayMs(open.checks, lifetimeMs);
      await condition(() => status !== 'pending' || current() !== open || charging(open) || isHinted(open), Math.min(remaining, delay));
      if (status !== 'pending' || current() !== open || charging(open)) continue;
      if (Date.now() >= expiresAt && !isHinted(open)) continue;
      await check(open);
    }
  }

  // Attempts we no longer wait on (abandoned, cut off by a cancel, given up as never made) may still be
  // captured at the gateway: ask about them on hints and now and then for a day; a capture is refunded.
  // `mayContinue`: only the workflow's main path may continue as new (a floating promise must not).
  const watchLateAttempts = async (mayContinue: boolean) => {
    const hinted = () => [...lateAttempts.values()].some(isHinted);
    while (lateAttempts.size > 0 && Date.now() < lateWatchUntil) {
      if (mayContinue) await continueIfLong();
      const checks = Math.min(...[...lateAttempts.values()].map((a) => a.checks));
      const delay = Math.min(LATE_CHARGE_POLL_MS, openPollDelayMs(checks, lifetimeMs), lateWatchUntil - Date.now());
      await condition(() => lateAttempts.size === 0 || hinted(), delay);
      for (const late of [...lateAttempts.values()]) {
        if (lateAttempts.get(late.idempotencyKey) === late) await check(late);
      }
    }
    if (lateAttempts.size > 0) {
      log.warn('stopped watching abandoned charges after the grace period', { keys: [...lateAttempts.keys()] });
      lateAttempts.clear();
    }
  };

  if (status === 'canceled') {
    await watchLateAttempts(true);
    await condition(allHandlersFinished);
    await writer.flushed();
    return view();
  }
  // Success: a superseded challenge may still be completed; watch it beside the refund window.
  const watching = watchLateAttempts(false);

  // Success: the workflow owns the refundable balance for the refund window, and past it for as long as a
  // refund it started is unsettled. It continues as new when its history grows.
  const done = () => Date.now() >= closeAt && unsettledRefunds().length === 0 && lateAttempts.size === 0;
  while (!done()) {
    const left = closeAt - Date.now();
    if (left > 0) await condition(() => historyIsLong() || done(), left);
    else await condition(() => historyIsLong() || done());
    if (historyIsLong()) {
      await condition(allHandlersFinished);
      await writer.flushed();
      await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: carry() });
    }
  }
  await watching;
  await condition(allHandlersFinished);
  await writer.flushed();
  return view();
}

/** A non-retryable failure (a 4xx, an unknown connector): the gateway never took the request. */
function refusedOutright(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}
