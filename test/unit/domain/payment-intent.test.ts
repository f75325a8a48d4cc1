import { transition } from '../../../domain/payment-intent';

describe('payment-intent state machine (the spec table)', () => {
  test('pending -> success on payment, with payment.success', () =>
    expect(transition('pending', { type: 'payment_succeeded' })).toEqual({ ok: true, status: 'success', events: ['payment.success'] }));
  test('a failed attempt keeps it pending, with payment.attempt_failed', () =>
    expect(transition('pending', { type: 'attempt_failed' })).toEqual({ ok: true, status: 'pending', events: ['payment.attempt_failed'] }));
  test.each(['cancel_requested', 'expired'] as const)('pending -> canceled on %s, with payment.canceled', (type) =>
    expect(transition('pending', { type })).toEqual({ ok: true, status: 'canceled', events: ['payment.canceled'] }));
  test.each(['success', 'canceled'] as const)('%s is terminal: nothing moves it', (status) => {
    for (const type of ['payment_succeeded', 'attempt_failed', 'cancel_requested', 'expired'] as const)
      expect(transition(status, { type })).toEqual({ ok: false, reason: 'not_mutable' });
  });
});
