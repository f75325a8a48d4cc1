import { ApplicationFailure, condition, log, patched, uuid4 } from '@temporalio/workflow';
import { typedIdFromUuid } from '../../domain/ids';
import { creditNoteOfRefundKey } from '../../domain/refund';
import type { AttemptInput, AttemptResult, ChargeOutcomeHint, IntentView, MitChargeInput, MitChargeResult, RefundAdmission, RefundAdmissionInput, RefundSettled } from './messages';
import { refundAmountRefusal, type Attempt, type GatewayWord, type Refusal } from './state';
import { ask, cancelIntent, causeOf, charge, connectorUnreachable, describe, issueCreditNote, persist, persistProgress, recordRefund, refusedOutright, resolve, startRefundWorkflow, type IntentRun } from './effects';

// What each Update and Signal of a payment intent does. workflow.ts registers them; state.ts decides, and
// effects.ts performs what it decides.

/** How long a cancel or a refund waits for a charge on the wire (or one being reconciled) to be decided. */
const WAITS_FOR_CHARGE_MS = 20_000;

/** Marks runs whose refunds wait for a charge being decided; older histories answered at once. */
const REFUND_WAITS_FOR_CHARGE_PATCH = 'refund-waits-for-charge';
/** A merchant-initiated charge that failed for a reason not the card's is charged again on the next call. */
const MIT_RETRY_NOT_THE_CARD_PATCH = 'mit-retry-not-the-card';
/**
 * A charge the caller names (an invoice's attempt, `chargeKey`) is its own charge, never the burst of the last
 * decline: on a test clock a dunning retry comes seconds after the last attempt in real time. Runs before it
 * answered such a retry within a minute with the last decline, charging nothing.
 */
const MIT_NAMED_CHARGE_OWN_PATCH = 'mit-named-charge-own';
/** A repeated refund request whose first one gave its key back (its record refused) is admitted afresh. */
const REFUND_REPEAT_AFTER_UNDO_PATCH = 'refund-repeat-after-undo';
/** A credit note this intent admits is issued by the intent (and credited), not only by the API request that asked. */
const CREDIT_NOTE_ISSUED_BY_INTENT_PATCH = 'credit-note-issued-by-intent';

/** Waits, boundedly, until a charge on the wire (or one being reconciled) has decided, or the intent is no longer pending. */
function chargeDecided(run: IntentRun): Promise<boolean> {
  const { s } = run;
  return condition(() => s.status !== 'pending' || !s.chargeDeciding(), WAITS_FOR_CHARGE_MS);
}

/** A refusal as Temporal carries it back to the caller: not retried, its type the API's error code. */
function refuse(refusal: Refusal | null): void {
  if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
}

export function onChargeOutcome(run: IntentRun, { chargeId, idempotencyKey, outcome }: ChargeOutcomeHint): void {
  // A signed callback is a hint, never a verdict: a leaked or default secret must not move money. The
  // loops ask the gateway about the charge before anything changes.
  run.s.hint(chargeId, idempotencyKey, outcome.status);
  log.info('gateway callback received; confirming with the gateway', { chargeId, claimed: outcome.status });
}

export function validateAttempt(run: IntentRun, req: AttemptInput): void {
  refuse(run.s.attemptRefusal(req, Date.now()));
}

/**
 * A customer's attempt. With failover (an orchestrator's connectors) a connector found unavailable (it
 * refused the connection, or lost the answer and then said it has no such charge) hands the same card to
 * the next one, each try an attempt of its own in the history and in a `payment.attempt_failed` event.
 * A decline or a failed 3DS never fails over.
 */
export async function onAttempt(run: IntentRun, req: AttemptInput): Promise<AttemptResult> {
  const { s } = run;
  const order = s.failoverOrder(req);
  let tried: Tried;
  for (let i = 0; ; i++) {
    const a = s.startAttempt({ ...req, connector: order[i] }, Date.now());
    tried = await tryAttempt(run, a, req.token);
    if (!tried.unavailable || i === order.length - 1 || !s.mayFailOver()) break;
    log.warn('connector unavailable; failing over to the next connector', { attempt: a.number, from: a.connector, to: order[i + 1] });
  }
  return tried.result;
}

interface Tried {
  result: AttemptResult;
  /** The connector was unavailable and certainly made no charge: the next one may be tried. */
  unavailable: boolean;
}

/** One attempt's charge and what the gateway's word about it means. */
async function tryAttempt(run: IntentRun, a: Attempt, token: string): Promise<Tried> {
  const { s } = run;
  describe(run);
  persistProgress(run);
  let word: GatewayWord | null;
  let unavailable = false;
  try {
    word = await charge(run, a, token);
  } catch (err) {
    if (connectorUnreachable(err)) {
      // The connection was refused on the first try: the request never reached the gateway.
      log.warn('the connector refused the connection', { attempt: a.number, connector: a.connector });
      word = { status: 'declined', failureCode: 'connector_unavailable', failureMessage: String(err) };
      unavailable = true;
    } else if (refusedOutright(err)) {
      // The gateway refused the request itself (4xx, unknown connector), or the saved card was detached before
      // it was sent: no charge can exist.
      log.warn('the gateway refused the charge request', { error: String(err) });
      const detached = (causeOf(err) as ApplicationFailure).type === 'payment_method_detached';
      word = { status: 'declined', failureCode: detached ? 'payment_method_detached' : 'processing_error', failureMessage: String(err) };
    } else {
      // No answer is not a decline: the charge may exist. Ask by its key once now (the customer waits);
      // if that is not conclusive either, the attempt is `unknown` and the main loop asks until it knows.
      log.warn('the charge call ended without an answer; reconciling by idempotency key', { attempt: a.number, error: String(err) });
      a.checks += 1;
      word = await ask(run, a, true);
      // The gateway says it has no such charge: only then may another connector be tried.
      unavailable = word === 'not_found';
    }
  }
  if (word === null) {
    a.phase = 'unknown';
    describe(run);
    persistProgress(run);
    return { result: s.result('pending'), unavailable: false };
  }
  const result = (await resolve(run, a, word)) ?? s.result('failed', { failure_code: 'payment_intent_canceled' });
  return { result, unavailable: unavailable && result.status === 'failed' };
}

/** How long a repeated merchant-initiated charge waits for the same charge on the wire before answering. */
const MIT_JOIN_WAITS_MS = 20_000;

export function validateMitCharge(run: IntentRun, req: MitChargeInput): void {
  refuse(run.s.mitRefusal(req, Date.now()));
}

/**
 * POST /cards/mit: the intent's workflow owns the charge. The same call repeated (a retry, or many at once)
 * joins the charge already made and answers its transaction; once the intent is paid by it, it answers the
 * success again. A new call more than a minute after a decline is a new charge (dunning); within it, the
 * decline is answered again.
 */
export async function onMitCharge(run: IntentRun, req: MitChargeInput): Promise<MitChargeResult> {
  const { s, input } = run;
  // The same charge already decided (it paid the intent, or was declined moments ago) is answered again.
  // A failure that was not the card's is tried again (a run before the patch answered it again for a minute).
  const decided = s.paidByMit(req) ?? s.recentMitDecline(req, Date.now(), () => patched(MIT_RETRY_NOT_THE_CARD_PATCH), () => patched(MIT_NAMED_CHARGE_OWN_PATCH));
  if (decided) return s.mitResult(decided.transaction);
  // The caller's charge made already (an invoice's attempt sent again after its answer was lost): its answer,
  // once decided (the open attempt's is joined below).
  const named = s.byChargeKey(req);
  const open = s.attempt;
  if (named && open?.mit?.transaction !== named.transaction) return s.mitResult(named.transaction);
  if (s.isSameMit(open, req)) {
    const deciding = () => s.claiming || (s.attempt === open && (open.phase === 'charging' || open.phase === 'unknown'));
    if (deciding()) await condition(() => !deciding(), MIT_JOIN_WAITS_MS);
    return s.mitResult(open.mit.transaction);
  }
  const transaction = typedIdFromUuid('ti', input.region, uuid4());
  const a = s.startMitAttempt(req, transaction, Date.now());
  await tryAttempt(run, a, '');
  return s.mitResult(transaction);
}

export function validateCancel(run: IntentRun): void {
  refuse(run.s.mutableRefusal());
}

/**
 * Another intent of the checkout intent was paid. One whose capture is claiming the checkout is refused at once:
 * it loses the claim, gives its capture back and cancels itself, and a cancel beside that would only race it.
 * A charge on the wire is waited for (onCheckoutCompleted).
 */
export function validateCheckoutCompleted(run: IntentRun): void {
  refuse(run.s.mutableRefusal());
  if (run.s.claiming) refuse({ type: 'attempt_in_progress', message: 'A capture of this intent is claiming the checkout intent: it settles against it itself' });
}

/**
 * Another intent of the checkout intent was paid: a charge of this one on the wire is waited for (boundedly); paid,
 * it loses the claim, gives its capture back and cancels itself; declined, this cancels the intent. Either way
 * the answer is the intent as it then stands.
 */
export async function onCheckoutCompleted(run: IntentRun): Promise<IntentView> {
  const { s } = run;
  if (s.chargeDeciding()) await chargeDecided(run);
  if (s.cancelRefusal()) return s.view(); // not pending, or a charge still on the wire
  await cancelIntent(run, 'checkout_completed');
  return s.view();
}

export async function onCancel(run: IntentRun): Promise<IntentView> {
  const { s } = run;
  // A charge on the wire (or being reconciled) decides first: wait for it, boundedly.
  if (s.chargeDeciding()) await chargeDecided(run);
  refuse(s.cancelRefusal());
  // An attempt still unknown is let go: if the gateway captured it, the capture is refunded.
  await cancelIntent(run, 'requested');
  return s.view();
}

export function validateAdmitRefund(req: RefundAdmissionInput): void {
  refuse(refundAmountRefusal(req));
}

export async function onAdmitRefund(run: IntentRun, req: RefundAdmissionInput): Promise<RefundAdmission> {
  const { s, input } = run;
  // A charge on the wire decides first, as for a cancel. Core hands an activation's Updates to the workflow
  // before its activity results, so without this wait a refund arriving with the charge's success would be
  // judged against the pending intent: seen in the scale-out drill, where a worker killed after writing
  // `success` left the retried task to carry both, and the refund was refused against a record saying paid.
  if (s.status === 'pending' && s.chargeDeciding() && patched(REFUND_WAITS_FOR_CHARGE_PATCH)) await chargeDecided(run);
  // Check and reserve happen together, with no await between: the workflow runs one task at a time, so
  // no other refund can be admitted against the same balance in between.
  const known = s.knownRefund(req.idempotencyKey);
  if (known !== undefined) {
    // The first request with this key either starts its refund or, its record refused, gives the key back.
    await condition(() => s.startedRefunds.has(known) || s.knownRefund(req.idempotencyKey) !== known);
    if (!s.startedRefunds.has(known)) {
      // Runs of older code waited here for good (the Update never answered, and the run could never hand over).
      if (patched(REFUND_REPEAT_AFTER_UNDO_PATCH)) return onAdmitRefund(run, req);
      await condition(() => s.startedRefunds.has(known));
    }
    return { ok: true, refund: known, created: false, refundable_amount_left: s.refundableLeft() };
  }
  if (req.creditNote) return onAdmitCredit(run, req, req.creditNote);
  const refundId = typedIdFromUuid('re', input.region, uuid4());
  const decision = s.admitRefund(refundId, req);
  if (!decision.ok) return { ok: false, code: decision.code, message: decision.message };
  describe(run);
  const refund = s.refundInput(refundId, req, new Date().toISOString());
  try {
    await recordRefund(refund);
    await startRefundWorkflow(refund);
  } catch (err) {
    // Nothing was started: give the reservation and the key back, so a retry is admitted afresh.
    s.undoAdmission(refundId, req.idempotencyKey);
    describe(run);
    const cause = causeOf(err);
    if (cause instanceof ApplicationFailure && cause.type === 'idempotency_key_in_use')
      return { ok: false, code: 'idempotency_key_in_use', message: cause.message };
    throw err;
  }
  s.startedRefunds.add(refundId);
  // A credit note's refund to the card: the note names it.
  const creditNote = creditNoteOfRefundKey(req.idempotencyKey);
  if (creditNote && patched(CREDIT_NOTE_ISSUED_BY_INTENT_PATCH)) await issueCreditNote(run, creditNote, refundId, 0);
  return { ok: true, refund: refundId, created: true, refundable_amount_left: decision.left };
}

/** A credit note to the customer's balance: reserved and spent at once against the refundable balance. */
async function onAdmitCredit(run: IntentRun, req: RefundAdmissionInput, creditNote: string): Promise<RefundAdmission> {
  const { s } = run;
  const decision = s.admitRefund(creditNote, req);
  if (!decision.ok) return { ok: false, code: decision.code, message: decision.message };
  // Spent for good, but not refunded to the card: settled without counting in amount_refunded.
  s.startedRefunds.add(creditNote);
  s.settledRefunds.add(creditNote);
  describe(run);
  await persist(run);
  if (patched(CREDIT_NOTE_ISSUED_BY_INTENT_PATCH)) await issueCreditNote(run, creditNote, null, req.amount);
  return { ok: true, refund: creditNote, created: true, refundable_amount_left: decision.left };
}

/** A refund this intent started has settled: its reservation is spent or released. */
export async function onRefundSettled(run: IntentRun, { refundId, status: word, amount }: RefundSettled): Promise<void> {
  const r = run.s.settleRefund(refundId, word, amount);
  if (!r.changed) return;
  if (r.overdrawnBy) log.error('a late gateway refund overdrew the payment; operator action needed', { refundId, overdrawnBy: r.overdrawnBy });
  describe(run);
  await persist(run);
}
