// The payment-intent state machine of the spec, as a pure function. The workflow applies it; tests read it.
export type IntentStatus = 'pending' | 'success' | 'canceled';

export type IntentTrigger =
  | { type: 'payment_succeeded' }
  | { type: 'attempt_failed' }
  | { type: 'cancel_requested' }
  | { type: 'expired' };

export type IntentEventType = 'payment.success' | 'payment.canceled' | 'payment.attempt_failed';

export type Transition =
  | { ok: true; status: IntentStatus; events: IntentEventType[] }
  | { ok: false; reason: 'not_mutable' };

export const DEFAULT_TIMEOUT_SECONDS = 1800;
/** 90 days: longer than any checkout, short enough that a forgotten intent does not live for years. */
export const MAX_TIMEOUT_SECONDS = 90 * 24 * 3600;

export function transition(status: IntentStatus, trigger: IntentTrigger): Transition {
  if (status !== 'pending') return { ok: false, reason: 'not_mutable' };
  switch (trigger.type) {
    case 'payment_succeeded':
      return { ok: true, status: 'success', events: ['payment.success'] };
    case 'attempt_failed':
      return { ok: true, status: 'pending', events: ['payment.attempt_failed'] };
    case 'cancel_requested':
    case 'expired':
      return { ok: true, status: 'canceled', events: ['payment.canceled'] };
  }
}

/**
 * The failure codes of a merchant-initiated charge that were not the card's (its connector down, another attempt
 * replaced it, the intent canceled under it): never answered again as a decline, and answered 409 or 503.
 */
export const MIT_FAILURES_NOT_THE_CARDS = ['connector_unavailable', 'superseded', 'payment_intent_canceled'] as const;

export function isMutable(status: IntentStatus): boolean {
  return status === 'pending';
}

/** Why an intent that is no longer pending refuses a change, in words ("is paid", not "is success"). */
export function notPendingMessage(status: string): string {
  return status === 'success' ? 'This payment intent is paid (success)' : `This payment intent is ${status}`;
}
