import { refundEnd } from '../../../activities/commerce';

// How a return reads the end of its refund from the refund's record.

test('a refund canceled at its SLA whose cancel the gateway has not confirmed has not ended: it may still succeed', () => {
  expect(refundEnd({ status: 'canceled', cancel_unconfirmed: true })).toBe('pending');
  expect(refundEnd({ status: 'canceled', cancel_unconfirmed: false })).toBe('canceled');
});

test('records of older code (no such field) read as they always did; success and pending as they are', () => {
  expect(refundEnd({ status: 'canceled' })).toBe('canceled');
  expect(refundEnd({ status: 'success', cancel_unconfirmed: false })).toBe('success');
  expect(refundEnd({ status: 'pending' })).toBe('pending');
  expect(refundEnd(null)).toBe('unknown');
});
