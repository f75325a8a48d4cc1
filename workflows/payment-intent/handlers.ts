import { ApplicationFailure, condition, log, uuid4 } from '@temporalio/workflow';
import { typedIdFromUuid } from '../../domain/ids';
import type { AttemptInput, AttemptResult, ChargeOutcomeHint, IntentView, RefundAdmission, RefundAdmissionInput, RefundSettled } from './messages';
import { refundAmountRefusal, type GatewayWord, type Refusal } from './state';
import { ask, cancelIntent, causeOf, charge, describe, persist, persistProgress, recordRefund, refusedOutright, resolve, startRefundWorkflow, type IntentRun } from './effects';

// What each Update and Signal of a payment intent does. workflow.ts registers them; state.ts decides, and
// effects.ts performs what it decides.

/** How long a cancel waits for a charge on the wire (or one being reconciled) to be decided. */
const CANCEL_WAITS_FOR_CHARGE_MS = 20_000;

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

export async function onAttempt(run: IntentRun, req: AttemptInput): Promise<AttemptResult> {
  const { s } = run;
  const a = s.startAttempt(req, Date.now());
  describe(run);
  persistProgress(run);
  let word: GatewayWord | null;
  try {
    word = await charge(run, a, req.token);
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
      word = await ask(run, a, true);
    }
  }
  if (word === null) {
    a.phase = 'unknown';
    describe(run);
    persistProgress(run);
    return s.result('pending');
  }
  return (await resolve(run, a, word)) ?? s.result('failed', { failure_code: 'payment_intent_canceled' });
}

export function validateCancel(run: IntentRun): void {
  refuse(run.s.mutableRefusal());
}

export async function onCancel(run: IntentRun): Promise<IntentView> {
  const { s } = run;
  // A charge on the wire (or being reconciled) decides first: wait for it, boundedly.
  if (s.chargeDeciding()) await condition(() => s.status !== 'pending' || !s.chargeDeciding(), CANCEL_WAITS_FOR_CHARGE_MS);
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
  return { ok: true, refund: refundId, created: true, refundable_amount_left: decision.left };
}

/** A refund this intent started has settled: its reservation is spent or released. */
export async function onRefundSettled(run: IntentRun, { refundId, status: word, amount }: RefundSettled): Promise<void> {
  const r = run.s.settleRefund(refundId, word, amount);
  if (!r.changed) return;
  if (r.overdrawnBy) log.error('a late gateway refund overdrew the payment; operator action needed', { refundId, overdrawnBy: r.overdrawnBy });
  describe(run);
  await persist(run);
}
