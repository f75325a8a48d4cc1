import { ApplicationFailure, condition, log } from '@temporalio/workflow';
import type { OperatorActionAnswer, OperatorActionInput } from './messages';
import { OPERATOR_RECHECK, type Attempt, type Refusal } from './state';
import { cancelIntent, describe, type IntentRun } from './effects';
import { onAdmitRefund } from './handlers';
import { assertStamped, noteOperatorAction } from '../operator-stamps';

// Operator actions on a payment intent (docs/runbook.md). Each is an Update whose input names the operator
// and the reason: the history keeps them, the log and the summary show them, the API audits them.

/** How long an operator's action waits for a charge on the wire, or for the gateway's answer to a re-check. */
const OPERATOR_WAITS_MS = 20_000;

function refuse(refusal: Refusal): never {
  throw ApplicationFailure.nonRetryable(refusal.message, refusal.type);
}

/** A force-cancel's refund is keyed by its action: the same action retried finds it. */
const operatorKey = (req: OperatorActionInput) => `operator:${req.actionId}`;

function note(run: IntentRun, action: string, req: OperatorActionInput): void {
  noteOperatorAction(run.s.operatorNotes, req.operator, action, req.reason);
  log.warn('operator action', { action, operator: req.operator, reason: req.reason, actionId: req.actionId });
  describe(run);
}

export function validateForceCancel(run: IntentRun, req: OperatorActionInput): void {
  assertStamped(req);
  const { s } = run;
  if (s.status === 'canceled') refuse({ type: 'not_mutable', message: 'This payment intent is canceled already' });
  // The same action retried answers the refund it started; another action finds nothing left.
  if (s.status === 'success' && s.refundableLeft() === 0 && s.knownRefund(operatorKey(req)) === undefined)
    refuse({ type: 'nothing_to_refund', message: 'This payment intent has nothing left to refund' });
}

/**
 * A pending intent is canceled as a merchant's cancel would be (a charge on the wire decides first; an
 * unknown attempt is let go and refunded if the gateway captured it). A paid intent is refunded in full of
 * what is left, under the action's id as idempotency key, so the same action retried refunds once.
 */
export async function onForceCancel(run: IntentRun, req: OperatorActionInput): Promise<OperatorActionAnswer> {
  const { s, input } = run;
  if (s.status === 'pending') {
    if (s.chargeDeciding()) await condition(() => s.status !== 'pending' || !s.chargeDeciding(), OPERATOR_WAITS_MS);
    if (s.status === 'pending') {
      const busy = s.cancelRefusal();
      if (busy) refuse(busy);
      note(run, 'force-cancel', req);
      await cancelIntent(run, 'requested');
      return { outcome: 'canceled', status: s.status };
    }
  }
  if (s.status !== 'success') return { outcome: s.status, status: s.status };
  note(run, 'force-cancel: refund all that is left', req);
  const left = s.refundableLeft();
  const admission = await onAdmitRefund(run, {
    amount: left,
    currency: input.currency,
    idempotencyKey: operatorKey(req),
    webhooks: input.webhooks,
    slaSeconds: req.refundSlaSeconds ?? 7 * 24 * 3600,
  });
  if (!admission.ok) refuse({ type: 'update_rejected', message: `${admission.code}: ${admission.message}` });
  return { outcome: 'refunded', status: s.status, refund: admission.refund };
}

/**
 * The attempts a re-check can make the workflow ask about: while the intent is pending, its open attempt
 * (unless its charge is on the wire) and, in runs that watch them meanwhile, the abandoned ones; after, the
 * abandoned attempts it still watches for a late capture.
 */
function recheckable(run: IntentRun): Attempt[] {
  const { s } = run;
  const late = [...s.lateAttempts.values()];
  if (s.status !== 'pending') return late;
  const open = s.attempt && s.attempt.phase !== 'charging' ? [s.attempt] : [];
  return run.lateWhilePending.on ? [...open, ...late] : open;
}

export function validateRecheck(run: IntentRun, req: OperatorActionInput): void {
  assertStamped(req);
  if (run.s.claiming || run.s.attempt?.phase === 'charging')
    refuse({ type: 'attempt_in_progress', message: 'A charge is on the wire; its answer decides first' });
  if (recheckable(run).length === 0) refuse({ type: 'nothing_to_recheck', message: 'This payment intent has no attempt waiting on the gateway' });
}

/**
 * Asks the gateway now, through the loops that own the asking: the attempts are hinted as a callback would
 * hint them (claiming nothing), and the answer waits until each was asked once more, or moved on.
 */
export async function onRecheck(run: IntentRun, req: OperatorActionInput): Promise<OperatorActionAnswer> {
  const { s } = run;
  note(run, 're-check with the gateway', req);
  const asked = recheckable(run).map((a) => ({ a, checks: a.checks }));
  for (const { a } of asked) s.hint(a.chargeId ?? a.idempotencyKey, a.idempotencyKey, OPERATOR_RECHECK);
  const moved = ({ a, checks }: { a: Attempt; checks: number }) => a.checks > checks || (s.attempt !== a && !s.lateAttempts.has(a.idempotencyKey));
  const answered = await condition(() => asked.every(moved) && run.checking.count === 0, OPERATOR_WAITS_MS);
  const open = s.attempt;
  // Not asked in time (the gateway is slow to answer): the hint stays, so the loop still asks.
  return { outcome: answered ? 'rechecked' : 'recheck_pending', status: s.status, attempt: open ? { number: open.number, phase: open.phase } : null };
}
