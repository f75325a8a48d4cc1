import { RefundLifecycle } from '../../../workflows/refund/state';
import type { RefundInput } from '../../../workflows/refund/messages';
import type { RefundOutcome } from '../../../gateways/types';

// A refund's rules as plain code, without Temporal: what the gateway's word means for the reserved amount
// before and after the SLA, and what a run carries across continue-as-new.

const CREATED = '2026-11-23T10:00:00.000Z';
const NOW = Date.parse('2026-11-23T10:05:00Z');
const input = (extra: Partial<RefundInput> = {}): RefundInput => ({
  id: 're_eu_state1',
  tenantId: 'ten_eu_t',
  region: 'eu',
  paymentIntent: 'pi_eu_paid',
  connector: 'con_eu_a',
  chargeId: 'ch_paid',
  amount: 400,
  currency: 'EUR',
  idempotencyKey: null,
  webhooks: [],
  slaSeconds: 3600,
  createdAt: CREATED,
  webhookTaskQueue: 'webhooks',
  ...extra,
});

const executed: RefundOutcome = { status: 'succeeded', refundId: 'rf_1' };
const rejected: RefundOutcome = { status: 'rejected', refundId: 'rf_1', failureCode: 'insufficient_funds', failureMessage: 'no' };
const canceledByGateway: RefundOutcome = { status: 'canceled', refundId: 'rf_1' };
const stillPending: RefundOutcome = { status: 'pending', refundId: 'rf_1' };

describe('a new refund', () => {
  test('starts pending and waiting, at version 1 (the payment intent wrote the record), its SLA from its creation', () => {
    const r = new RefundLifecycle(input());
    expect([r.status, r.phase, r.version, r.submitted, r.polls]).toEqual(['pending', 'waiting', 1, false, 0]);
    expect(r.deadline).toBe(Date.parse(CREATED) + 3600_000);
    expect(r.slaMs).toBe(3600_000);
  });
});

describe('what the gateway word means', () => {
  test.each([
    ['executed', executed, { kind: 'spent', refundId: 'rf_1' }],
    ['rejected', rejected, { kind: 'released', failureCode: 'insufficient_funds' }],
    ['canceled by the gateway', canceledByGateway, { kind: 'released', failureCode: 'gateway_canceled' }],
    ['pending', stillPending, { kind: 'open' }],
  ])('before the SLA, %s', (_name, word, meaning) => {
    expect(new RefundLifecycle(input()).meaning(word, false)).toEqual(meaning);
  });

  test.each([
    ['executed: spent all the same', executed, { kind: 'spent', refundId: 'rf_1' }],
    ['rejected: released as an SLA timeout', rejected, { kind: 'released', failureCode: 'sla_timeout' }],
    ['canceled at our request: released as an SLA timeout', canceledByGateway, { kind: 'released', failureCode: 'sla_timeout' }],
    ['not cancelable yet: still open (and reserved)', stillPending, { kind: 'open' }],
  ])('after the SLA, %s', (_name, word, meaning) => {
    expect(new RefundLifecycle(input()).meaning(word, true)).toEqual(meaning);
  });

  test('any word that names the gateway refund remembers its id, so the next question asks by it', () => {
    const r = new RefundLifecycle(input());
    r.meaning({ status: 'pending', refundId: 'rf_seen' }, false);
    expect(r.gatewayRefundId).toBe('rf_seen');
    r.meaning({ status: 'rejected', failureCode: 'x', failureMessage: 'no id' }, false);
    expect(r.gatewayRefundId).toBe('rf_seen');
  });
});

describe('transitions', () => {
  test('succeed before the SLA spends the reservation with no late outcome', () => {
    const r = new RefundLifecycle(input());
    r.succeed('rf_1', false, NOW);
    expect([r.status, r.phase, r.gatewayTransactionId, r.lateOutcome]).toEqual(['success', 'done', 'rf_1', null]);
  });

  test('succeed after the SLA stands as success and records when the gateway executed it', () => {
    const r = new RefundLifecycle(input());
    r.slaPassed();
    r.succeed('rf_1', true, NOW);
    expect([r.status, r.phase]).toEqual(['success', 'done']);
    expect(r.lateOutcome).toEqual({ status: 'succeeded', at: new Date(NOW).toISOString(), gateway_transaction_id: 'rf_1' });
  });

  test('release before the SLA cancels with the gateway reason', () => {
    const r = new RefundLifecycle(input());
    r.release('insufficient_funds');
    expect([r.status, r.phase, r.failureCode]).toEqual(['canceled', 'done', 'insufficient_funds']);
  });

  test('the SLA passing asks for a cancel: canceling, with sla_timeout as the reason', () => {
    const r = new RefundLifecycle(input());
    r.slaPassed();
    expect([r.status, r.phase, r.failureCode]).toEqual(['pending', 'canceling', 'sla_timeout']);
  });

  test('a refund already shown canceled keeps the reason it was shown with when the gateway confirms', () => {
    const r = new RefundLifecycle(input());
    r.slaPassed();
    r.status = 'canceled'; // what the workflow shows while the gateway has not answered the cancel
    r.release('gateway_canceled');
    expect([r.status, r.phase, r.failureCode]).toEqual(['canceled', 'done', 'sla_timeout']);
  });
});

describe('continue-as-new', () => {
  test('a run carries everything it knows, and the next run starts from it at the carried version', () => {
    const r = new RefundLifecycle(input());
    r.submitted = true;
    r.polls = 7;
    r.meaning(stillPending, false);
    r.slaPassed();
    r.status = 'canceled';
    r.canceledAnnounced = true;
    const carried = r.carry(4);
    expect(carried).toEqual({
      status: 'canceled',
      phase: 'canceling',
      version: 4,
      submitted: true,
      gatewayRefundId: 'rf_1',
      gatewayTransactionId: null,
      failureCode: 'sla_timeout',
      lateOutcome: null,
      polls: 7,
      canceledAnnounced: true,
    });
    const next = new RefundLifecycle(input({ carried }));
    expect(next.version).toBe(4);
    expect(next.carry(4)).toEqual(carried);
    expect(next.deadline).toBe(r.deadline);
  });
});

describe('views', () => {
  test('view is the refund as retrieve answers it; snapshot is what the state query answers', () => {
    const r = new RefundLifecycle(input());
    r.succeed('rf_1', false, NOW);
    expect(r.view()).toEqual({
      refund: 're_eu_state1',
      payment_intent: 'pi_eu_paid',
      status: 'success',
      amount: 400,
      currency: 'EUR',
      created_at: CREATED,
      gateway_transaction_id: 'rf_1',
    });
    expect(r.snapshot()).toEqual({
      refund: 're_eu_state1',
      status: 'success',
      amount: 400,
      currency: 'EUR',
      gateway_transaction_id: 'rf_1',
      sla_expires_at: '2026-11-23T11:00:00.000Z',
      late_outcome: null,
    });
  });

  test('the record holds the status, the reason and a late outcome', () => {
    const r = new RefundLifecycle(input());
    r.slaPassed();
    r.succeed('rf_1', true, NOW);
    expect(r.record('2026-11-23T12:00:00.000Z')).toEqual({
      id: 're_eu_state1',
      status: 'success',
      gateway_transaction_id: 'rf_1',
      failure_code: 'sla_timeout',
      late_outcome: { status: 'succeeded', at: new Date(NOW).toISOString(), gateway_transaction_id: 'rf_1' },
      updated_at: '2026-11-23T12:00:00.000Z',
    });
    expect(r.snapshot().late_outcome).toBe('succeeded');
  });

  test('the summary says what operators need: amount, status, SLA, and a cancel still being asked for', () => {
    const r = new RefundLifecycle(input());
    expect(r.summary()).toBe('**4.00 EUR** refund of pi_eu_paid · pending\n\nSLA ends 2026-11-23T11:00:00.000Z');
    r.meaning(stillPending, false);
    r.slaPassed();
    r.status = 'canceled';
    expect(r.summary()).toContain('· canceled · asking the gateway to cancel; amount still reserved');
    r.succeed('rf_1', true, NOW);
    expect(r.summary()).toContain('· gateway rf_1');
    expect(r.summary()).toContain(`gateway outcome after the SLA: succeeded at ${new Date(NOW).toISOString()}`);
  });
});
