import { olderIntentWebhookBody, olderProgress, type OlderProgressInput } from '../../../domain/older-progress';

// How the payment intent's workflow state reads in the older interface (the table in domain/older-views.ts).

const base: OlderProgressInput = { status: 'pending', attemptPhase: null, lastFailureCode: null, stepReached: 1, cancellationReason: null };
const progress = (p: Partial<OlderProgressInput>) => olderProgress({ ...base, ...p });

describe('pending', () => {
  test('no attempt yet: pending_created at step 1, no reason', () => {
    expect(progress({})).toEqual({ sub_status: 'pending_created', step_number: 1, last_reason: '' });
  });

  test('a charge on the wire, or its lost answer being checked: pending_processing at step 2', () => {
    expect(progress({ attemptPhase: 'charging', stepReached: 2 })).toEqual({ sub_status: 'pending_processing', step_number: 2, last_reason: '' });
    expect(progress({ attemptPhase: 'unknown', stepReached: 2 }).sub_status).toBe('pending_processing');
  });

  test('3DS is pending_requires_action, an async answer pending_promise, both at step 3', () => {
    expect(progress({ attemptPhase: 'awaiting_action', stepReached: 3 })).toEqual({ sub_status: 'pending_requires_action', step_number: 3, last_reason: '' });
    expect(progress({ attemptPhase: 'awaiting_callback', stepReached: 3 })).toEqual({ sub_status: 'pending_promise', step_number: 3, last_reason: '' });
  });

  test('after a failed attempt: pending_failed_attempt back at step 1, the failure code as the reason', () => {
    expect(progress({ lastFailureCode: 'card_declined', stepReached: 2 })).toEqual({ sub_status: 'pending_failed_attempt', step_number: 1, last_reason: 'card_declined' });
  });

  test('a new attempt after a failure still carries the last reason', () => {
    expect(progress({ attemptPhase: 'charging', lastFailureCode: 'card_declined' })).toMatchObject({ sub_status: 'pending_processing', last_reason: 'card_declined' });
  });
});

describe('final', () => {
  test('paid: success at step 4, and no reason even after failed attempts', () => {
    expect(progress({ status: 'success', lastFailureCode: 'card_declined', stepReached: 4 })).toEqual({ sub_status: 'success', step_number: 4, last_reason: '' });
  });

  test('canceled: the reason names the sub-status; the step is the furthest reached', () => {
    expect(progress({ status: 'canceled', cancellationReason: 'requested', stepReached: 3 })).toEqual({ sub_status: 'canceled_requested', step_number: 3, last_reason: '' });
    expect(progress({ status: 'canceled', cancellationReason: 'expired', stepReached: 1, lastFailureCode: 'insufficient_funds' })).toEqual({
      sub_status: 'canceled_timeout',
      step_number: 1,
      last_reason: 'insufficient_funds',
    });
    expect(progress({ status: 'canceled', cancellationReason: 'checkout_completed', stepReached: 2 }).sub_status).toBe('canceled_checkout_completed');
  });

  test('a canceled intent never reads below step 1', () => {
    expect(progress({ status: 'canceled', cancellationReason: 'requested', stepReached: 0 }).step_number).toBe(1);
  });
});

test('the webhook body is the view, the event and the payload (null when none was given)', () => {
  const view = { payment_intent: 'u', status: 'success' } as never;
  expect(olderIntentWebhookBody(view, 'payment.success', { a: 1 })).toEqual({ webhook_type: 'payment_intent', event: 'payment.success', payment_intent: 'u', status: 'success', payload: { a: 1 } });
  expect(olderIntentWebhookBody(view, 'payment.canceled', undefined).payload).toBeNull();
});
