import type { OlderIntentView } from './older-views';

// The older interface's payment intent as its workflow moves it: sub_status, step_number, last_reason, and
// its webhook body. Plain code without zod, for the workflow bundle: each workflow run evaluates the modules
// it imports again (the SDK keeps a module cache per run), and zod's would cost every start and every replay
// about 3 ms of CPU (bench/RESULTS.md, run 10). The shapes (zod schemas) are in older-views.ts.
//
// How the workflow's state reads in the older fields (documented in the OpenAPI document too):
//
// | workflow state                                       | status   | sub_status                  | step_number |
// |------------------------------------------------------|----------|-----------------------------|-------------|
// | no attempt made yet                                  | pending  | pending_created             | 1           |
// | a charge on the wire, or its lost answer checked     | pending  | pending_processing          | 2           |
// | the gateway asked for 3DS; the customer is away      | pending  | pending_requires_action     | 3           |
// | the gateway took the charge, its answer will follow  | pending  | pending_promise             | 3           |
// | the last attempt failed; the customer may retry      | pending  | pending_failed_attempt      | 1           |
// | paid                                                 | success  | success                     | 4           |
// | canceled by the merchant                             | canceled | canceled_requested          | reached     |
// | its payment_intent_timeout_seconds ran out           | canceled | canceled_timeout            | reached     |
// | another intent of its checkout intent paid for it    | canceled | canceled_checkout_completed | reached     |
//
// Steps: 1 created, 2 payment details sent to the gateway, 3 the gateway took them and waits on the customer
// (3DS) or on itself, 4 paid. On a canceled intent `step_number` is the furthest step any of its attempts
// reached ("the last successful step before failure"). `last_reason` is the failure code of the last failed
// attempt (our codes name every outcome: card_declined, insufficient_funds, ...), '' when none failed, and
// null in a cancel's response when none failed.

export const OLDER_SUB_STATUSES = [
  'pending_created',
  'pending_processing',
  'pending_requires_action',
  'pending_promise',
  'pending_failed_attempt',
  'success',
  'canceled_requested',
  'canceled_timeout',
  'canceled_checkout_completed',
] as const;
export type OlderSubStatus = (typeof OLDER_SUB_STATUSES)[number];

export type OlderAttemptPhase = 'charging' | 'unknown' | 'awaiting_action' | 'awaiting_callback';

export interface OlderProgressInput {
  status: 'pending' | 'success' | 'canceled';
  attemptPhase: OlderAttemptPhase | null;
  lastFailureCode: string | null;
  /** The furthest step reached (1 when no attempt got anywhere). */
  stepReached: number;
  cancellationReason: 'requested' | 'expired' | 'checkout_completed' | null;
}

export interface OlderProgress {
  sub_status: OlderSubStatus;
  step_number: number;
  last_reason: string;
}

/** The step an open attempt is at. */
export function stepOfPhase(phase: OlderAttemptPhase): number {
  return phase === 'charging' || phase === 'unknown' ? 2 : 3;
}

/** The older fields that follow the workflow's state (the table above). */
export function olderProgress(p: OlderProgressInput): OlderProgress {
  const last_reason = p.status === 'success' ? '' : (p.lastFailureCode ?? '');
  if (p.status === 'success') return { sub_status: 'success', step_number: 4, last_reason };
  if (p.status === 'canceled') {
    const sub_status: OlderSubStatus =
      p.cancellationReason === 'expired' ? 'canceled_timeout' : p.cancellationReason === 'checkout_completed' ? 'canceled_checkout_completed' : 'canceled_requested';
    return { sub_status, step_number: Math.max(1, p.stepReached), last_reason };
  }
  if (p.attemptPhase === null) return { sub_status: p.lastFailureCode ? 'pending_failed_attempt' : 'pending_created', step_number: 1, last_reason };
  const sub_status: OlderSubStatus =
    p.attemptPhase === 'awaiting_action' ? 'pending_requires_action' : p.attemptPhase === 'awaiting_callback' ? 'pending_promise' : 'pending_processing';
  return { sub_status, step_number: stepOfPhase(p.attemptPhase), last_reason };
}

/**
 * The body every `webhook_urls` entry of an older intent (and of its checkout intent) receives: the intent
 * as the older retrieve shows it, the event's name, the `payload` given at create, and a v202606 intent's
 * `metadata` (that create takes metadata, and the spec returns it on the intent's webhooks).
 */
export function olderIntentWebhookBody(view: OlderIntentView, event: string, payload: unknown, metadata?: Record<string, string>): Record<string, unknown> {
  return { webhook_type: 'payment_intent', event, ...view, payload: payload ?? null, ...(metadata ? { metadata } : {}) };
}
