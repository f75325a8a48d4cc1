import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { transition, type IntentTrigger } from '../../domain/payment-intent';
import { formatMoney } from '../../domain/money';
import { typedIdFromUuid } from '../../domain/ids';
import { emitEvent, prepareEvent, startDeliveries, startDeliveriesTogether, type EmittedEvent } from '../emit-event';
import { refundWorkflow } from '../refund/workflow';
import { intentOutcomeSignal } from '../checkout/messages';
import type { RefundInput } from '../refund/messages';
import { SA } from '../search-attributes';
import { recordWrites } from '../record-writes';
import { serialWriter } from '../serial-writer';
import { isBillingSessionOwner, type AttemptResult, type CancellationReason, type MitAttempt, type PaymentIntentInput } from './messages';
import type { ChargedCard } from '../../gateways/types';
import { claimContradicted, PaymentIntentState, type Attempt, type GatewayWord } from './state';

// The effects the state's decisions name: activities, events, search attributes, child workflows. Each is a
// plain function of the run, with the await points the workflow always had (workflow.ts keeps the loop).

// A billing session's side of its paid intent: the API's code, which waits on Temporal and MongoDB; retried a while.
const sessions = proxyActivities<Activities>({ startToCloseTimeout: '2m', retry: { initialInterval: '2s', maximumInterval: '1m', maximumAttempts: 30 } });
// A credit note this intent admitted is issued by it: tried for a day, since the note and its credit must not
// depend on the API request that asked still being there; bounded, since the admission's handler (and so the
// run's end or continue-as-new) waits for it.
const creditNotes = proxyActivities<Activities>({ startToCloseTimeout: '1m', scheduleToCloseTimeout: '1 day', retry: { initialInterval: '1s', maximumInterval: '1m' } });
const store = proxyActivities<Activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', maximumInterval: '10s' },
});
// A charge is tried twice at most: the gateway idempotency key makes the retry safe, and a customer is
// waiting on the other end of the Update.
const gatewayOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '500ms', maximumAttempts: 2 } } as const;
// Status questions: a few quick tries, then the workflow's own backoff decides when to ask again, so a
// gateway that is down never holds the loop (or its timers) inside one activity.
const gatewayCheckOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumAttempts: 3 } } as const;
// The one question asked inside a payment attempt whose charge call lost its answer: the customer waits.
const gatewayQuickOptions = { startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } } as const;
const gatewayPatientOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumInterval: '1m' } } as const;

/**
 * The gateway calls of an attempt, on its gateway's task queue (workflows/task-queues.ts: each gateway's
 * rate limit) when the API named one, else on the workflow's own queue (attempts of older API processes).
 */
function gatewayOf(a: Pick<Attempt, 'taskQueue'>) {
  const on = a.taskQueue ? { taskQueue: a.taskQueue } : {};
  return {
    gateway: proxyActivities<Activities>({ ...gatewayOptions, ...on }),
    gatewayCheck: proxyActivities<Activities>({ ...gatewayCheckOptions, ...on }),
    gatewayQuick: proxyActivities<Activities>({ ...gatewayQuickOptions, ...on }),
    gatewayPatient: proxyActivities<Activities>({ ...gatewayPatientOptions, ...on }),
  };
}

/** One run of an intent's workflow: its input, its state, and the writer of its MongoDB record. */
export function startRun(input: PaymentIntentInput) {
  const s = new PaymentIntentState(input, Date.now());
  // What the AttemptUnknown search attribute says now (a continued run inherits its predecessor's).
  const shown = { attemptUnknown: workflowInfo().typedSearchAttributes.get(SA.AttemptUnknown) ?? false };
  // Gateway questions in flight (an operator's re-check answers once none is).
  const checking = { count: 0 };
  // Delivery starts not waited for where they were asked (patch DELIVERIES_TOGETHER_PATCH), until the run ends.
  const deliveryStarts: Promise<void>[] = [];
  // Whether this run asks about attempts let go while the intent is still pending (patch in workflow.ts).
  const lateWhilePending = { on: false };
  return { input, s, shown, checking, deliveryStarts, lateWhilePending, writer: serialWriter(input.carried?.version ?? 0, recordWrites().savePaymentIntent) };
}

/**
 * Every write asked for is done and every delivery asked for has started: the run may end or continue as new
 * (its caller has waited for the handlers). Temporal drops the start of a child whose parent closed before it
 * started (ABANDON or not). Waiting for starts takes activations, in which a signal or an Update may arrive:
 * their handlers and writes are waited for too. Without deliveries in flight (every run before the patch)
 * this is the one `writer.flushed()` it always was.
 */
export async function settled(run: IntentRun): Promise<void> {
  await run.writer.flushed();
  while (run.deliveryStarts.length) {
    await run.deliveryStarts.shift();
    await condition(allHandlersFinished);
    await run.writer.flushed();
  }
}

/**
 * Runs started by code with this patch keep the AttemptUnknown search attribute (the runbook's "attempts in
 * unknown" query) in step with the open attempt; runs recorded before it replay without those upserts.
 */
const ATTEMPT_UNKNOWN_PATCH = 'attempt-unknown-search-attribute';
export type IntentRun = ReturnType<typeof startRun>;

/** Writes the record as the state is now; `saveWith`: through another activity that writes more beside it. */
export function persist(run: IntentRun, saveWith?: Parameters<IntentRun['writer']['write']>[1]): Promise<unknown> {
  return run.writer.write(run.s.record(new Date().toISOString()), saveWith);
}

/**
 * An attempt moved (started, challenged, waiting, unknown): the record follows, so the older interface's
 * sub_status reads it. Not awaited: the writer keeps writes in order and the workflow flushes it before it
 * ends or continues. Runs from before this write replay without it.
 */
export function persistProgress(run: IntentRun): void {
  if (patched('older-progress-writes')) void persist(run);
}

/**
 * Issues a credit note whose amount this intent admitted (to the customer's balance, or `refund` returning it
 * to the card). Awaited by the admission, so its answer finds the note issued; should the worker be unable
 * to (a failure not retried), the API's create still issues it, as it did before the intent did.
 */
export async function issueCreditNote(run: IntentRun, creditNote: string, refund: string | null, creditToBalance: number): Promise<void> {
  try {
    const r = await creditNotes.issueCreditNote({ tenantId: run.input.tenantId, creditNote, refund, creditToBalance });
    if (r === 'missing') log.warn('an admitted credit note has no record to issue', { creditNote });
  } catch (err) {
    // Operators: the note stays pending (unlisted) and its credit unadded; the activity's input names it.
    log.error('the credit note could not be issued in a day of tries; only its create (if still running) issues it', { creditNote, error: String(err) });
  }
}

/** The summary operators read in the Temporal UI. */
export function describe(run: IntentRun): void {
  const { s, shown } = run;
  setCurrentDetails(s.summary());
  const unknown = s.status === 'pending' && s.attempt?.phase === 'unknown';
  if (unknown !== shown.attemptUnknown && patched(ATTEMPT_UNKNOWN_PATCH)) {
    upsertSearchAttributes([{ key: SA.AttemptUnknown, value: unknown }]);
    shown.attemptUnknown = unknown;
  }
}

/**
 * An event of the intent: in the envelope to its `webhooks`, or (`legacyBody`) in the older interface's body
 * to every one of its older endpoints.
 */
function eventOf(run: IntentRun, type: string, data: Record<string, unknown>, legacyBody?: Record<string, unknown>): EmittedEvent {
  const { input } = run;
  return {
    webhookTaskQueue: input.webhookTaskQueue,
    tenantId: input.tenantId,
    region: input.region,
    type,
    objectId: input.id,
    source: { kind: 'payment_intent', id: input.id },
    data,
    ...(legacyBody ? { endpoints: input.older!.webhooks, format: 'legacy' as const, legacyBody } : { endpoints: input.webhooks }),
  };
}

/**
 * Runs started by code with this patch write a transition's record and its events in one local activity
 * (savePaymentIntentAndEvents), then start the events' deliveries: one activation and one local-activity
 * dispatch fewer per event (bench/RESULTS.md, run 10). Runs recorded before it replay with a write per record
 * and per event.
 */
const RECORD_WITH_EVENTS_PATCH = 'intent-record-with-events';
// The deliveries of a transition's events all start at once, and nothing waits for them until the run ends.
const DELIVERIES_TOGETHER_PATCH = 'intent-deliveries-together';

/**
 * Runs started by code with this patch record an event of an intent with webhook_urls once, in the older body
 * its URLs are sent, unless an endpoint in its `webhooks` subscribes to the envelope too. Runs before it
 * recorded an envelope twin beside each older event, sent nowhere: listed twice by GET /v202607/events.
 */
const OLDER_EVENT_ALONE_PATCH = 'older-intent-event-alone';

/**
 * The envelope events of a transition. An occurrence the older body announces needs no envelope sent nowhere:
 * the events list shows the older event (its `data` is the body delivered), one event per occurrence.
 */
function envelopeTypes(run: IntentRun, types: readonly string[], announcedOlder: boolean): string[] {
  const sent = types.filter((type) => run.input.webhooks.some((w) => w.events.includes(type)));
  if (!announcedOlder || sent.length === types.length || !patched(OLDER_EVENT_ALONE_PATCH)) return [...types];
  return sent;
}

/** A transition of the spec's state machine: persisted, then its events emitted. */
export async function apply(run: IntentRun, trigger: IntentTrigger, extra: Record<string, unknown> = {}): Promise<boolean> {
  const { s } = run;
  const t = transition(s.status, trigger);
  if (!t.ok) return false;
  const changed = t.status !== s.status;
  s.status = t.status;
  if (changed) {
    upsertSearchAttributes([{ key: SA.PaymentStatus, value: s.status }]);
    describe(run);
  }
  // The event describes the state this transition committed, not whatever a later handler changes in
  // the meantime; it is persisted before it is emitted, so the read model is never behind an event.
  const data = { ...s.eventData(), ...extra };
  const now = new Date().toISOString();
  const olderEvents = run.input.older?.webhooks.length ? t.events.map((type) => [type, s.olderWebhookBody(type, now)!] as const) : [];
  const events = [
    ...envelopeTypes(run, t.events, olderEvents.length > 0).map((type) => eventOf(run, type, data)),
    ...olderEvents.map(([type, body]) => {
      // The payload is the merchant's free JSON (any keys): it travels in the body's text, not in a stored object.
      const { payload: _payload, ...stored } = body;
      return eventOf(run, type, stored, body);
    }),
  ];
  if (patched(RECORD_WITH_EVENTS_PATCH)) {
    const prepared = events.map(prepareEvent);
    const records = prepared.map((p) => p.record);
    await persist(run, (patch) => recordWrites().savePaymentIntentAndEvents({ patch, events: records }));
    if (patched(DELIVERIES_TOGETHER_PATCH)) {
      // Their start commands leave with this task: an Update that caused them answers without waiting.
      run.deliveryStarts.push(
        startDeliveriesTogether(prepared).catch((err: unknown) => log.error('a webhook delivery could not be started', { events: records.map((r) => r.id), error: String(err) })),
      );
    } else for (const p of prepared) await startDeliveries(p);
  } else {
    await persist(run);
    for (const e of events) await emitEvent(e);
  }
  if (changed && run.input.owner && (s.status === 'success' || s.status === 'canceled')) await tellOwner(run, run.input.owner, s.status);
  return true;
}

/**
 * The workflow that made this intent (a checkout, a subscription) learns its end; one that has ended already
 * cannot. A billing session is no workflow: its side of a paid intent is finished by succeed(), once the card
 * the payment saved exists.
 */
async function tellOwner(run: IntentRun, owner: string, status: 'success' | 'canceled'): Promise<void> {
  if (isBillingSessionOwner(owner)) return;
  try {
    await getExternalWorkflowHandle(owner).signal(intentOutcomeSignal, { paymentIntent: run.input.id, status });
  } catch (err) {
    // A paid intent whose owner is gone (a checkout that let its stock go) has no order: operators must act.
    const say = status === 'success' ? log.error : log.warn;
    say('the owner of this payment intent could not be told its outcome (operator alert when paid)', { owner, status, error: String(err) });
  }
}

/** Runs with this patch watch the attempts they let go for the grace period from the intent's end (state.watchLateFromEnd). */
const LATE_WATCH_FROM_END_PATCH = 'late-watch-from-end';

/** The intent ended: the attempts it let go are watched from now (asked only when there are any). */
function watchLateFromEnd(run: IntentRun): void {
  if (run.s.lateAttempts.size > 0 && patched(LATE_WATCH_FROM_END_PATCH)) run.s.watchLateFromEnd(Date.now());
}

export async function cancelIntent(run: IntentRun, reason: CancellationReason): Promise<void> {
  run.s.cancel(reason, Date.now());
  watchLateFromEnd(run);
  await apply(run, { type: reason === 'expired' ? 'expired' : 'cancel_requested' });
}

/**
 * The charge call of an attempt (a 3DS challenge returns the customer to the hosted page): a customer's
 * card token, asking for a reusable token when the card is to be saved; or a saved card's reusable token,
 * merchant-initiated, under its agreement.
 */
export function charge(run: IntentRun, a: Attempt, token: string): Promise<GatewayWord> {
  const { input } = run;
  const mit = a.mit;
  return gatewayOf(a).gateway.charge({
    tenantId: input.tenantId,
    connectorId: a.connector,
    token,
    amount: input.amount,
    currency: input.currency,
    idempotencyKey: a.idempotencyKey,
    returnUrl: run.s.returnUrl(a),
    reference: input.id,
    ...(a.saveMethod ? { savePaymentMethod: true } : {}),
    ...(mit
      ? {
          savedCard: mit.paymentMethod,
          merchantInitiated: true,
          agreement: {
            reference: mit.agreement.id,
            type: mit.agreement.type,
            ...(mit.agreement.networkTransactionId ? { networkTransactionId: mit.agreement.networkTransactionId } : {}),
          },
        }
      : {}),
  });
}

/** A capture that matches no live attempt: give the money back, once. Never keep it. */
async function voidCapture(run: IntentRun, a: Attempt, chargeId: string, why = 'a capture matches no live attempt of this payment intent'): Promise<void> {
  const { input, s } = run;
  log.error(`${why}; refunding it (operator alert)`, {
    paymentIntent: input.id,
    chargeId,
    attempt: a.number,
    intentStatus: s.status,
  });
  describe(run);
  let outcome: 'refunded' | 'failed' = 'refunded';
  let error: string | null = null;
  try {
    const r = await gatewayOf(a).gatewayPatient.refundCharge({
      tenantId: input.tenantId,
      connectorId: a.connector,
      chargeId,
      amount: input.amount,
      currency: input.currency,
      idempotencyKey: `${input.id}:void:${a.number}`,
      reference: input.id,
      voidsCapture: true,
    });
    if (r.status === 'rejected') [outcome, error] = ['failed', r.failureCode];
  } catch (err) {
    // The gateway refused the refund outright: an operator must act. Never fail the intent's workflow for it.
    [outcome, error] = ['failed', String(err)];
    log.error('refunding an unowned capture failed; operator action needed', { chargeId, error });
  }
  await store.recordVoidedCharge({ id: input.id, chargeId, attempt: a.number, at: new Date().toISOString(), outcome, error });
}

async function succeed(run: IntentRun, a: Attempt, paid: { chargeId: string; card?: ChargedCard; networkTransactionId?: string }): Promise<AttemptResult> {
  const { input, s } = run;
  // The saved card's id is drawn first so the success event names it (the same draw as when it came after).
  const pmId = a.saveMethod ? typedIdFromUuid('pm', input.region, uuid4()) : null;
  s.succeed(a, paid.chargeId, Date.now(), pmId);
  watchLateFromEnd(run);
  upsertSearchAttributes([{ key: SA.Connector, value: a.connector }]);
  // The status flips before the first await below, so no cancel can slip in between capture and success.
  const applied = apply(run, { type: 'payment_succeeded' });
  if (pmId) {
    await store.savePaymentMethod({
      id: pmId,
      tenantId: input.tenantId,
      customer: input.customer,
      paymentIntent: input.id,
      connectorId: a.connector,
      chargeId: paid.chargeId,
      createdAt: new Date().toISOString(),
      ...(paid.card ? { card: paid.card } : {}),
    });
  }
  // The first charge under an agreement gives it the network's reference that later charges send.
  if (a.mit && !a.mit.agreement.networkTransactionId && paid.networkTransactionId) await recordAgreement(run, a.mit, paid.networkTransactionId);
  await applied;
  // A billing session's side (a subscription made on the saved card, a card check refunded), once that card
  // exists: beside the answer, which does not wait for it.
  if (input.owner && isBillingSessionOwner(input.owner)) {
    const owner = input.owner;
    run.deliveryStarts.push(
      sessions
        .completeSessionPayment({ tenantId: input.tenantId, owner, paymentIntent: input.id })
        .then(() => undefined)
        .catch((err: unknown) => log.error('the paid billing session could not be finished (its page or a retrieve still can)', { owner, error: String(err) })),
    );
  }
  return s.result('success', pmId ? { payment_method_uuid: pmId } : {});
}

/** The agreement's first charge the network saw: its id is what every later charge under it sends. */
function recordAgreement(run: IntentRun, mit: MitAttempt, networkTransactionId: string): Promise<void> {
  return store.recordAgreementCharge({
    tenantId: run.input.tenantId,
    paymentMethod: mit.paymentMethod,
    agreement: mit.agreement,
    networkTransactionId,
    transaction: mit.transaction,
  });
}

/**
 * An intent under a checkout intent succeeds only if it wins the checkout intent's one claim (a unique
 * insert): of two intents captured at once, one pays the purchase. While the claim is made the intent
 * takes no cancel and no new attempt (state.claiming).
 */
async function claimCheckoutIntent(run: IntentRun, checkoutIntent: string): Promise<boolean> {
  run.s.claiming = true;
  try {
    return await store.claimCheckoutIntent({ checkoutIntent, tenantId: run.input.tenantId, paymentIntent: run.input.id });
  } finally {
    run.s.claiming = false;
  }
}

/** Another intent paid the checkout intent: this capture goes back, and this intent can never be paid. */
async function lostCheckoutIntent(run: IntentRun, a: Attempt, chargeId: string): Promise<AttemptResult> {
  const { s } = run;
  s.failAttempt(a, 'checkout_intent_completed', Date.now());
  s.voided.add(chargeId);
  await voidCapture(run, a, chargeId, 'another payment intent of its checkout intent was paid first');
  await cancelIntent(run, 'checkout_completed');
  return s.result('failed', { failure_code: 'checkout_intent_completed' });
}

async function failAttempt(run: IntentRun, a: Attempt, failureCode: string): Promise<AttemptResult> {
  const { s } = run;
  s.failAttempt(a, failureCode, Date.now());
  describe(run);
  // The event says which connector failed and why (an orchestrator's failover shows each try).
  if (s.status === 'pending')
    await apply(run, { type: 'attempt_failed' }, { failure_code: failureCode, connector: a.connector, ...(a.mit ? { transaction: a.mit.transaction } : {}) });
  return s.result('failed', { failure_code: failureCode });
}

/** Applies what a gateway's word about an attempt means (state.ts decides). */
export async function resolve(run: IntentRun, a: Attempt, word: GatewayWord): Promise<AttemptResult | null> {
  const r = run.s.resolve(a, word, Date.now());
  describe(run);
  switch (r.kind) {
    case 'succeed':
      if (run.input.older?.checkoutIntent && !(await claimCheckoutIntent(run, run.input.older.checkoutIntent)))
        return lostCheckoutIntent(run, a, r.chargeId);
      return succeed(run, a, r);
    case 'fail':
      return failAttempt(run, a, r.failureCode);
    case 'open':
      persistProgress(run);
      return r.result;
    case 'void':
      await voidCapture(run, a, r.chargeId);
      // Refunded or not, the network saw the agreement's first charge: later charges must name it.
      if (a.mit && !a.mit.agreement.networkTransactionId && r.networkTransactionId) await recordAgreement(run, a.mit, r.networkTransactionId);
      return run.s.result('failed', { failure_code: 'payment_intent_canceled' });
    case 'nothing':
      return null;
  }
}

/** The gateway's own word on an attempt: by charge id when we know it, else by idempotency key. */
export async function ask(run: IntentRun, a: Attempt, quick = false): Promise<GatewayWord | null> {
  const ref = { tenantId: run.input.tenantId, connectorId: a.connector };
  const calls = gatewayOf(a);
  const asker = quick ? calls.gatewayQuick : calls.gatewayCheck;
  try {
    if (a.chargeId) return await asker.chargeStatus({ ...ref, chargeId: a.chargeId });
    const found = await asker.findCharge({ ...ref, idempotencyKey: a.idempotencyKey });
    return found.status === 'not_found' ? 'not_found' : found;
  } catch (err) {
    log.warn('the gateway did not answer a status question', { attempt: a.number, chargeId: a.chargeId, error: String(err) });
    return null;
  }
}

/** Asks about an attempt and applies the answer; no answer leaves everything as it was. */
export async function check(run: IntentRun, a: Attempt): Promise<void> {
  const claimed = run.s.takeClaim(a);
  a.checks += 1;
  run.checking.count += 1;
  try {
    const word = await ask(run, a);
    if (claimContradicted(claimed, word))
      log.warn('a gateway callback was not confirmed by the gateway; it changed nothing', { attempt: a.number, claimed, gateway: word === 'not_found' ? word : word?.status });
    if (word !== null && run.s.worthResolving(a, word)) await resolve(run, a, word);
  } finally {
    run.checking.count -= 1;
  }
}

/** The refund's record, written before the admission is answered so a retrieve right after create finds it. */
export function recordRefund(refund: RefundInput): Promise<void> {
  return store.createRefundRecord(refund);
}

/** The refund's own workflow: it outlives this one (ABANDON) and tells it how the refund settled. */
export function startRefundWorkflow(refund: RefundInput) {
  return startChild(refundWorkflow, {
    workflowId: refund.id,
    args: [refund],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: SA.TenantId, value: refund.tenantId },
      { key: SA.RefundStatus, value: 'pending' },
      { key: SA.AmountMinor, value: refund.amount },
      { key: SA.Currency, value: refund.currency },
      { key: SA.PaymentIntentId, value: refund.paymentIntent },
      // The SLA: the runbook's "refunds near or past their SLA" query reads it.
      { key: SA.ExpiresAt, value: new Date(Date.parse(refund.createdAt) + refund.slaSeconds * 1000) },
    ],
    staticSummary: `Refund ${formatMoney(refund.amount, refund.currency)} of ${refund.paymentIntent}`,
  });
}

/** What an activity or child failed with, through the ActivityFailure that wraps it. */
export function causeOf(err: unknown): unknown {
  return err instanceof ActivityFailure ? err.cause : err;
}

/** The connector refused the connection on the charge's first try: nothing reached its gateway. */
export function connectorUnreachable(err: unknown): boolean {
  const cause = causeOf(err);
  return cause instanceof ApplicationFailure && cause.type === 'GatewayUnreachable' && cause.nonRetryable === true;
}

/** A non-retryable failure (a 4xx, an unknown connector): the gateway never took the request. */
export function refusedOutright(err: unknown): boolean {
  const cause = causeOf(err);
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}
