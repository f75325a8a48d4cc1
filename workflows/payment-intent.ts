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
import {
  admitRefundUpdate,
  attemptUpdate,
  cancelUpdate,
  chargeOutcomeSignal,
  intentStateQuery,
  refundSettledSignal,
  SA,
  type AttemptPhase,
  type AttemptResult,
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
const gatewayPatient = proxyActivities<Activities>({
  startToCloseTimeout: '15s',
  retry: { initialInterval: '1s', maximumInterval: '1m' },
});

/** After a deadline passes, how long we keep listening for a gateway's late word on an open attempt. */
const LATE_OUTCOME_GRACE_MS = 24 * 3600 * 1000;
/** While a charge is open (3DS, async), how often we ask the gateway in case its callback was lost. */
const OPEN_CHARGE_POLL_MS = 60 * 1000;
/** After that, for charges we no longer wait on, how often we ask within the grace period. */
const LATE_CHARGE_POLL_MS = 10 * 60 * 1000;
/** How long a successful payment stays refundable. */
export const REFUND_WINDOW_MS = 180 * 24 * 3600 * 1000;

interface Attempt {
  number: number;
  phase: AttemptPhase;
  connector: string;
  chargeId: string | null;
  saveMethod: boolean;
}

export async function paymentIntentWorkflow(input: PaymentIntentInput): Promise<IntentView> {
  const carried: CarriedState = input.carried ?? {
    status: 'pending',
    version: 0,
    paid: null,
    reserved: {},
    refundKeys: {},
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
  const refundKeys = carried.refundKeys;
  let amountRefunded = carried.amountRefunded;
  let succeededAt = carried.succeededAt;
  let canceledAt = carried.canceledAt;
  let cancellationReason = carried.cancellationReason;
  let attempt: Attempt | null = null;
  let attemptsMade = 0;
  let lastFailureCode: string | null = null;
  const expiresAt = new Date(input.expiresAt).getTime();
  // Charges no longer waited on (their late capture is refunded), and callbacks that overtook a charge call.
  const lateAttempts = new Map<string, Attempt>(
    (carried.lateCharges ?? []).map((c) => [c.chargeId, { number: c.number, phase: 'awaiting_callback', connector: c.connector, chargeId: c.chargeId, saveMethod: false }]),
  );
  const earlyOutcomes = new Map<string, ChargeOutcome>();
  // Refunds this payment started, those settled, and those the gateway executed after their SLA cancel.
  const startedRefunds = new Set<string>(carried.refundStarted);
  const settledRefunds = new Set<string>(carried.refundSettled);
  const lateRefunds = new Set<string>(carried.lateRefunds ?? []);

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
        (paid ? `\n\nrefunded ${formatMoney(amountRefunded, input.currency)}, left ${formatMoney(refundableLeft(balance!), input.currency)}` : ''),
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

  const cancel = async (reason: 'requested' | 'expired') => {
    // A 3DS challenge or an async charge still open may be confirmed by the gateway later: watch it, and
    // give the money back if it is captured.
    if (attempt?.chargeId) lateAttempts.set(attempt.chargeId, attempt);
    attempt = null;
    canceledAt = new Date().toISOString();
    cancellationReason = reason;
    await apply({ type: reason === 'requested' ? 'cancel_requested' : 'expired' });
  };

  /** A charge that succeeded after the intent was already canceled: give the money back, never keep it. */
  const voidLateCharge = async (a: Attempt, chargeId: string) => {
    log.warn('charge succeeded after the intent was final; refunding it', { chargeId, attempt: a.number });
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
      log.error('voiding a late capture failed; operator action needed', { chargeId, error });
    }
    await store.recordVoidedCharge({ id: input.id, chargeId, attempt: a.number, at: new Date().toISOString(), outcome, error });
  };

  const settle = async (a: Attempt, outcome: ChargeOutcome): Promise<AttemptResult> => {
    const base = { payment_intent: input.id };
    switch (outcome.status) {
      case 'succeeded': {
        if (attempt === a) attempt = null;
        if (status !== 'pending') {
          await voidLateCharge(a, outcome.chargeId);
          return { ...base, status: 'failed', failure_code: 'payment_intent_canceled' };
        }
        paid = { amount: input.amount, currency: input.currency, connector: a.connector, chargeId: outcome.chargeId };
        balance = { paid: input.amount, currency: input.currency, reserved: {} };
        succeededAt = new Date().toISOString();
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
            chargeId: outcome.chargeId,
            createdAt: new Date().toISOString(),
          });
        }
        await applied;
        return { ...base, status: 'success', ...(pmId ? { payment_method_uuid: pmId } : {}) };
      }
      case 'declined':
        if (attempt === a) attempt = null;
        lastFailureCode = outcome.failureCode;
        describe();
        if (status === 'pending') await apply({ type: 'attempt_failed' });
        return { ...base, status: 'failed', failure_code: outcome.failureCode };
      case 'requires_action':
        a.phase = 'awaiting_action';
        a.chargeId = outcome.chargeId;
        if (earlyOutcomes.has(outcome.chargeId)) return settleEarly(a, outcome.chargeId);
        describe();
        return { ...base, status: 'requires_action', next_action: { type: 'redirect_to_url', url: outcome.challengeUrl } };
      case 'pending':
        a.phase = 'awaiting_callback';
        a.chargeId = outcome.chargeId;
        if (earlyOutcomes.has(outcome.chargeId)) return settleEarly(a, outcome.chargeId);
        describe();
        return { ...base, status: 'pending' };
    }
  };
  /** A callback that overtook the charge's own answer: apply it now that we know the charge. */
  const settleEarly = (a: Attempt, chargeId: string) => {
    const early = earlyOutcomes.get(chargeId)!;
    earlyOutcomes.delete(chargeId);
    return settle(a, early);
  };

  /** The gateway's current word on an open charge, for when its callback is lost. */
  const pollCharge = async (a: Attempt): Promise<ChargeOutcome | null> => {
    try {
      return await gatewayPatient.chargeStatus({ tenantId: input.tenantId, connectorId: a.connector, chargeId: a.chargeId! });
    } catch (err) {
      log.warn('charge status poll failed', { chargeId: a.chargeId, error: String(err) });
      return null;
    }
  };

  // Outcomes of a charge the gateway finished later (3DS, async). A late word on an attempt we no longer
  // track (the intent was canceled meanwhile) still has to be honoured: a capture is refunded.
  const settleLate = async (late: Attempt, chargeId: string, outcome: ChargeOutcome) => {
    if (outcome.status === 'succeeded') {
      lateAttempts.delete(chargeId);
      await voidLateCharge(late, chargeId);
    } else if (outcome.status === 'declined') {
      lateAttempts.delete(chargeId);
    }
  };
  setHandler(chargeOutcomeSignal, async ({ chargeId, outcome }) => {
    if (attempt && attempt.chargeId === chargeId && attempt.phase !== 'charging') {
      await settle(attempt, outcome);
      return;
    }
    const late = lateAttempts.get(chargeId);
    if (late) {
      await settleLate(late, chargeId, outcome);
      return;
    }
    // The callback overtook the charge call's own answer: keep it until that answer names the charge.
    if (attempt?.phase === 'charging') earlyOutcomes.set(chargeId, outcome);
  });

  setHandler(
    attemptUpdate,
    async (req): Promise<AttemptResult> => {
      attemptsMade += 1;
      // The abandoned challenge may still be completed at the gateway: a late capture of it is refunded.
      if (attempt?.chargeId) lateAttempts.set(attempt.chargeId, attempt);
      const a: Attempt = {
        number: attemptsMade,
        phase: 'charging',
        connector: req.connector ?? input.connectors[0]!,
        chargeId: null,
        saveMethod: req.save_payment_method === true,
      };
      attempt = a;
      describe();
      let outcome: ChargeOutcome;
      try {
        outcome = await gateway.charge({
          tenantId: input.tenantId,
          connectorId: a.connector,
          token: req.token,
          amount: input.amount,
          currency: input.currency,
          idempotencyKey: `${input.id}:attempt:${a.number}`,
          callbackUrl: input.callbackUrl,
          returnUrl: `${input.hostedPageUrl}${input.hostedPageUrl.includes('?') ? '&' : '?'}attempt=${a.number}`,
          reference: input.id,
        });
      } catch (err) {
        // The gateway did not answer: a failed attempt, not a failed intent. The idempotency key makes a
        // late success at the gateway findable by operators through the sandbox's effect log.
        log.warn('charge did not complete', { error: String(err) });
        outcome = { status: 'declined', failureCode: 'processing_error', failureMessage: 'The gateway did not answer in time' };
      }
      return settle(a, outcome);
    },
    {
      validator: (req) => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${status}`, 'not_mutable');
        if (Date.now() >= expiresAt) throw ApplicationFailure.nonRetryable('This payment intent has expired', 'not_mutable');
        // A 3DS challenge the customer walked away from must not lock the intent: a new attempt replaces it.
        if (attempt && attempt.phase !== 'awaiting_action')
          throw ApplicationFailure.nonRetryable('Another payment attempt is in progress', 'attempt_in_progress');
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
      await cancel('requested');
      return view();
    },
    {
      validator: () => {
        if (status !== 'pending') throw ApplicationFailure.nonRetryable(`This payment intent is ${status}`, 'not_mutable');
        // A charge is being processed right now: its outcome decides. The customer's money comes first.
        if (attempt?.phase === 'charging')
          throw ApplicationFailure.nonRetryable('A payment attempt is being processed', 'attempt_in_progress');
      },
    },
  );

  setHandler(
    admitRefundUpdate,
    async (req) => {
      // Check and reserve happen here, before the first await: the workflow runs one task at a time, so
      // no other refund can be admitted against the same balance in between.
      if (req.idempotencyKey && refundKeys[req.idempotencyKey]) {
        const existing = refundKeys[req.idempotencyKey]!;
        await condition(() => startedRefunds.has(existing));
        return { ok: true, refund: existing, created: false, refundable_amount_left: balance ? refundableLeft(balance) : 0 };
      }
      const refundId = typedIdFromUuid('re', input.region, uuid4());
      const decision = status === 'success' ? admit(balance, { refundId, amount: req.amount, currency: req.currency }) : admit(null, { refundId, amount: req.amount, currency: req.currency });
      if (!decision.ok) return { ok: false, code: decision.code, message: decision.message };
      balance = decision.balance;
      if (req.idempotencyKey) refundKeys[req.idempotencyKey] = refundId;
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
        if (req.idempotencyKey) delete refundKeys[req.idempotencyKey];
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

  setHandler(intentStateQuery, () => ({
    ...view(),
    version: writer.version(),
    attempt: attempt ? { number: attempt.number, phase: attempt.phase, connector: attempt.connector } : null,
    attempts: attemptsMade,
    amount_paid: paid?.amount ?? 0,
    amount_refunded: amountRefunded,
    refundable_amount_left: balance ? refundableLeft(balance) : 0,
    refunds_pending: balance ? Object.keys(balance.reserved).filter((id) => !settledRefunds.has(id)) : [],
  }));

  describe();

  // Handlers change `attempt` between awaits; read it through a function so the compiler does not narrow it.
  const current = (): Attempt | null => attempt;
  if (status === 'pending') {
    if (writer.version() === 0) await persist(); // the workflow has taken the record over from the API's create
    // The deadline is a durable timer: exact, and it survives restarts of every process.
    await condition(() => status !== 'pending' || current()?.phase === 'charging', Math.max(0, expiresAt - Date.now()));
    while (status === 'pending') {
      if (current()?.phase === 'charging') {
        // A charge is on the wire: its outcome wins over the clock (late success is kept).
        await condition(() => current()?.phase !== 'charging' || status !== 'pending');
        continue;
      }
      const remaining = expiresAt - Date.now();
      if (remaining > 0) {
        // An open 3DS or async charge: ask the gateway now and then, in case its callback is lost.
        const open = current();
        const pollable = open !== null && open.phase !== 'charging' && open.chargeId !== null;
        const woke = await condition(
          () => status !== 'pending' || current() !== open || current()?.phase === 'charging',
          pollable ? Math.min(remaining, OPEN_CHARGE_POLL_MS) : remaining,
        );
        if (!woke && pollable && current() === open && status === 'pending') {
          const polled = await pollCharge(open);
          if (polled && (polled.status === 'succeeded' || polled.status === 'declined') && current() === open && status === 'pending')
            await settle(open, polled);
        }
        continue;
      }
      await cancel('expired');
    }
  }

  // Charges we no longer wait on (abandoned or cut off by a cancel) may still be confirmed by the gateway:
  // listen for their callbacks and ask now and then, for a day; a capture among them is refunded.
  const watchLateCharges = async () => {
    const until = Date.now() + LATE_OUTCOME_GRACE_MS;
    while (lateAttempts.size > 0 && Date.now() < until) {
      if (await condition(() => lateAttempts.size === 0, Math.min(LATE_CHARGE_POLL_MS, until - Date.now()))) break;
      for (const [chargeId, late] of [...lateAttempts]) {
        const polled = await pollCharge(late);
        if (polled && lateAttempts.get(chargeId) === late) await settleLate(late, chargeId, polled);
      }
    }
  };

  if (status === 'canceled') {
    await watchLateCharges();
    await condition(allHandlersFinished);
    await writer.flushed();
    return view();
  }
  // Success: a superseded challenge may still be completed; watch it beside the refund window.
  void watchLateCharges();

  // Success: the workflow now owns the refundable balance for the refund window.
  const refundDeadline = new Date(succeededAt!).getTime() + REFUND_WINDOW_MS;
  while (Date.now() < refundDeadline) {
    const timedOut = !(await condition(() => workflowInfo().continueAsNewSuggested, refundDeadline - Date.now()));
    if (timedOut) break;
    await condition(allHandlersFinished);
    await writer.flushed();
    await continueAsNew<typeof paymentIntentWorkflow>({
      ...input,
      carried: {
        status,
        version: writer.version(),
        paid,
        reserved: balance!.reserved,
        refundKeys,
        refundStarted: [...startedRefunds],
        refundSettled: [...settledRefunds],
        lateRefunds: [...lateRefunds],
        lateCharges: [...lateAttempts.values()].map((a) => ({ chargeId: a.chargeId!, connector: a.connector, number: a.number })),
        succeededAt,
        canceledAt,
        cancellationReason,
        amountRefunded,
      },
    });
  }
  await condition(allHandlersFinished);
  await writer.flushed();
  return view();
}
