import {
  OLDER_REFUND_SUB_STATUSES,
  olderRefundEvent,
  olderRefundRowOf,
  olderRefundStatusOf,
  olderRefundSubStatus,
  olderRefundWebhookBody,
  subStatusOfRecord,
  type OlderRefundSubStatus,
} from '../../../domain/older-refund-progress';
import { olderRefundRow } from '../../../domain/older-refund-views';

// The older refund's sub-status table (domain/older-refund-views.ts), row by row, and its row and webhook body.

describe('olderRefundSubStatus: the table', () => {
  const cases: Array<[string, Parameters<typeof olderRefundSubStatus>[0], OlderRefundSubStatus]> = [
    ['admitted, the gateway has not answered', { status: 'pending', acknowledged: false, failureCode: null }, 'pending_created'],
    ['the gateway has it', { status: 'pending', acknowledged: true, failureCode: null }, 'pending_promise'],
    ['still pending while the cancel at the SLA is asked (not acknowledged)', { status: 'pending', acknowledged: false, failureCode: 'sla_timeout' }, 'pending_created'],
    ['still pending while the cancel at the SLA is asked (acknowledged)', { status: 'pending', acknowledged: true, failureCode: 'sla_timeout' }, 'pending_promise'],
    ['executed', { status: 'success', acknowledged: true, failureCode: null }, 'success'],
    ['executed after the SLA (late outcome)', { status: 'success', acknowledged: false, failureCode: 'sla_timeout' }, 'success'],
    ['rejected by the gateway', { status: 'canceled', acknowledged: true, failureCode: 'refund_rejected' }, 'canceled_rejected'],
    ['refused outright by the gateway', { status: 'canceled', acknowledged: true, failureCode: 'gateway_rejected' }, 'canceled_rejected'],
    ['canceled by the gateway on its own', { status: 'canceled', acknowledged: true, failureCode: 'gateway_canceled' }, 'canceled_rejected'],
    ['canceled at the SLA, never acknowledged', { status: 'canceled', acknowledged: false, failureCode: 'sla_timeout' }, 'canceled_timeout_potential_ghost'],
    ['canceled at the SLA, acknowledged but never settled', { status: 'canceled', acknowledged: true, failureCode: 'sla_timeout' }, 'canceled_timeout_e2e_manual'],
  ];
  test.each(cases)('%s', (_what, input, expected) => {
    expect(olderRefundSubStatus(input)).toBe(expected);
  });

  test('every sub-status is reachable, and its base status is its prefix', () => {
    const reached = new Set(cases.map(([, , s]) => s));
    expect([...reached].sort()).toEqual([...OLDER_REFUND_SUB_STATUSES].sort());
    for (const [, input, s] of cases) {
      expect(s.startsWith(input.status)).toBe(true);
      expect(olderRefundStatusOf(s)).toBe(input.status);
    }
  });
});

describe('subStatusOfRecord: refunds whose workflow never wrote one', () => {
  test('reads what the record says', () => {
    expect(subStatusOfRecord({ status: 'pending', failure_code: null, gateway_transaction_id: null })).toBe('pending_created');
    expect(subStatusOfRecord({ status: 'pending', failure_code: null, gateway_transaction_id: 'rf_1' })).toBe('pending_promise');
    expect(subStatusOfRecord({ status: 'success', failure_code: null, gateway_transaction_id: 'rf_1' })).toBe('success');
    expect(subStatusOfRecord({ status: 'canceled', failure_code: 'refund_rejected', gateway_transaction_id: null })).toBe('canceled_rejected');
    expect(subStatusOfRecord({ status: 'canceled', failure_code: 'sla_timeout', gateway_transaction_id: null })).toBe('canceled_timeout_e2e_manual');
  });

  test('the one its workflow wrote stands while it is of the record\'s status', () => {
    const canceledAtSla = { status: 'canceled', failure_code: 'sla_timeout', gateway_transaction_id: null } as const;
    expect(subStatusOfRecord({ ...canceledAtSla, sub_status: 'canceled_timeout_potential_ghost' })).toBe('canceled_timeout_potential_ghost');
    expect(subStatusOfRecord({ status: 'pending', sub_status: 'pending_promise', failure_code: null, gateway_transaction_id: null })).toBe('pending_promise');
    // a worker of older code moved the status on without writing one: what the record says
    expect(subStatusOfRecord({ status: 'success', sub_status: 'pending_promise', failure_code: null, gateway_transaction_id: 'rf_1' })).toBe('success');
    expect(subStatusOfRecord({ ...canceledAtSla, sub_status: 'pending_created' })).toBe('canceled_timeout_e2e_manual');
    expect(subStatusOfRecord({ ...canceledAtSla, sub_status: 'not-a-sub-status' })).toBe('canceled_timeout_e2e_manual');
  });
});

describe('the row and the webhook body', () => {
  const facts = { id: 42, uuid: '0b6f7c1e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', gateway: 'sandbox', transaction_id: 7, payment_intent: '1a2b3c4d-1c2d-4e5f-8a9b-0c1d2e3f4a5b' };
  const state = {
    amount: 300,
    currency: 'EUR',
    idempotency_key: 'key-1',
    gateway_transaction_id: 'rf_9',
    created_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:00:02.000Z',
  };
  const row = olderRefundRowOf(facts, { ...state, sub_status: 'success' });

  test('has the spec fields, the gateway reference twice, and parses with its schema', () => {
    expect(row).toEqual({
      id: 42,
      uuid: facts.uuid,
      amount: 300,
      currency: 'EUR',
      status: 'success',
      sub_status: 'success',
      checkout_intent_idempotency_key: 'key-1',
      gateway_transaction_id: 'rf_9',
      gateway_transaction_human_readable: 'rf_9',
      gateway: 'sandbox',
      transaction_id: 7,
      payment_intent: facts.payment_intent,
      created_at: '2026-11-23T10:00:00.000Z',
      updated_at: '2026-11-23T10:00:02.000Z',
      succeeded_at: '2026-11-23T10:00:02.000Z',
    });
    expect(olderRefundRow.strict().parse(row)).toEqual(row);
  });

  test('status is the sub-status\'s prefix; succeeded_at the time given, else updated_at, and null unless success', () => {
    expect(olderRefundRowOf(facts, { ...state, sub_status: 'success', succeeded_at: '2026-11-23T10:00:01.000Z' }).succeeded_at).toBe('2026-11-23T10:00:01.000Z');
    expect(olderRefundRowOf(facts, { ...state, sub_status: 'pending_promise', succeeded_at: '2026-11-23T10:00:01.000Z' })).toMatchObject({ status: 'pending', succeeded_at: null });
    expect(olderRefundRowOf(facts, { ...state, sub_status: 'canceled_timeout_e2e_manual' })).toMatchObject({ status: 'canceled', succeeded_at: null });
  });

  test('the webhook body is the row with webhook_type and the event, named refund.<sub_status>', () => {
    expect(olderRefundEvent('canceled_timeout_potential_ghost')).toBe('refund.canceled_timeout_potential_ghost');
    expect(olderRefundWebhookBody(row, olderRefundEvent('success'))).toEqual({ webhook_type: 'refund', event: 'refund.success', ...row });
  });
});
