import { checkoutOutcome, type LiveView, type RecordView } from '../../../api/hosted/intent-status';

const NOW = new Date('2026-03-01T12:00:00Z');
const LATER = new Date('2026-03-01T12:30:00Z');

const record = (over: Partial<RecordView> = {}): RecordView => ({
  status: 'pending',
  version: 3,
  expires_at: LATER,
  cancellation_reason: null,
  last_failure_code: null,
  ...over,
});
const live = (over: Partial<LiveView> = {}): LiveView => ({ status: 'pending', version: 3, attempt: null, attempts: 0, ...over });
const open = (n: number) => ({ number: n, phase: 'awaiting_action' as const, connector: 'con_a' });

describe('where the customer’s payment stands', () => {
  test('final states come from the record', () => {
    expect(checkoutOutcome(record({ status: 'success' }), null, 1, NOW)).toEqual({ outcome: 'succeeded' });
    expect(checkoutOutcome(record({ status: 'canceled', cancellation_reason: 'expired' }), null, null, NOW)).toEqual({ outcome: 'expired' });
    expect(checkoutOutcome(record({ status: 'canceled', cancellation_reason: 'requested' }), null, null, NOW)).toEqual({ outcome: 'canceled' });
  });

  test('a fresh intent is open', () => {
    expect(checkoutOutcome(record(), live(), null, NOW)).toEqual({ outcome: 'open' });
  });

  test('the attempt the customer came back from is processing while the workflow still has it open', () => {
    expect(checkoutOutcome(record(), live({ attempt: open(2), attempts: 2 }), 2, NOW)).toEqual({ outcome: 'processing' });
  });

  test('an attempt that ended is processing until the record has caught up with the workflow', () => {
    expect(checkoutOutcome(record({ version: 3 }), live({ version: 4, attempts: 2 }), 2, NOW)).toEqual({ outcome: 'processing' });
    expect(checkoutOutcome(record({ version: 3 }), live({ version: 4, status: 'success', attempts: 1 }), 1, NOW)).toEqual({ outcome: 'processing' });
  });

  test('a failed attempt reports its failure code, not an earlier one', () => {
    // Attempt 1 was declined (code in the record); attempt 2 (3DS) is still running: not a failure yet.
    const earlierDecline = record({ last_failure_code: 'card_declined' });
    expect(checkoutOutcome(earlierDecline, live({ attempt: open(2), attempts: 2 }), 2, NOW)).toEqual({ outcome: 'processing' });
    const failedAuth = record({ version: 5, last_failure_code: 'authentication_failed' });
    expect(checkoutOutcome(failedAuth, live({ version: 5, attempts: 2 }), 2, NOW)).toEqual({ outcome: 'failed', failure_code: 'authentication_failed' });
  });

  test('without an attempt number, any open attempt is waited for', () => {
    expect(checkoutOutcome(record(), live({ attempt: { number: 1, phase: 'awaiting_callback', connector: 'con_a' }, attempts: 1 }), null, NOW)).toEqual({ outcome: 'processing' });
    expect(checkoutOutcome(record({ last_failure_code: 'insufficient_funds' }), live({ attempts: 1 }), null, NOW)).toEqual({
      outcome: 'failed',
      failure_code: 'insufficient_funds',
    });
  });

  test('a pending intent past its deadline is about to be canceled: keep waiting', () => {
    expect(checkoutOutcome(record({ expires_at: NOW }), live(), null, NOW)).toEqual({ outcome: 'processing' });
    expect(checkoutOutcome(record({ expires_at: NOW }), null, null, NOW)).toEqual({ outcome: 'processing' });
  });

  test('without the workflow, the record alone decides', () => {
    expect(checkoutOutcome(record(), null, 1, NOW)).toEqual({ outcome: 'processing' });
    expect(checkoutOutcome(record({ last_failure_code: 'card_declined' }), null, 1, NOW)).toEqual({ outcome: 'failed', failure_code: 'card_declined' });
    expect(checkoutOutcome(record(), null, null, NOW)).toEqual({ outcome: 'open' });
  });
});
