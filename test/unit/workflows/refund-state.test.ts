import { RefundLifecycle } from '../../../workflows/refund/state';
import type { RefundCarried, RefundInput } from '../../../workflows/refund/messages';
import type { RefundOutcome } from '../../../gateways/types';

// A refund's rules as plain code, without Temporal: what the gateway's word means for the reserved amount
// before and after the SLA, what a run carries across continue-as-new, and how the older interface reads the
// state (the sub-status the workflow writes to the record, the row its webhooks carry).

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
      acknowledged: false,
      recordedSubStatus: 'pending_created',
      olderAnnounced: null,
      olderFacts: null,
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
      cancel_unconfirmed: false,
      updated_at: '2026-11-23T12:00:00.000Z',
    });
    expect(r.snapshot().late_outcome).toBe('succeeded');
  });

  test('canceled at its SLA, the record says the cancel is unconfirmed until the gateway answers it', () => {
    const r = new RefundLifecycle(input());
    r.slaPassed();
    expect(r.record('2026-11-23T12:00:00.000Z')).toMatchObject({ cancel_unconfirmed: true });
    r.release('refund_canceled');
    expect(r.record('2026-11-23T12:00:01.000Z')).toMatchObject({ status: 'canceled', cancel_unconfirmed: false });
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

describe('the older interface', () => {
  const FACTS = { id: 9, uuid: '0b6f7c1e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', gateway: 'sandbox', transaction_id: 3, payment_intent: '1a2b3c4d-1c2d-4e5f-8a9b-0c1d2e3f4a5b' };
  /** A refund made by POST /refunds: a checkout_intent_idempotency_key and webhook_urls. */
  const olderInput = (extra: Partial<RefundInput> = {}) =>
    input({ idempotencyKey: 'k1', older: { webhooks: [{ url: 'https://merchant.example/hooks', events: [], secretRef: 'whs_eu_x#0' }] }, ...extra });

  test('a new refund is pending_created, recorded so by its insert; the gateway answering makes it pending_promise', () => {
    const r = new RefundLifecycle(olderInput());
    expect(r.subStatus()).toBe('pending_created');
    expect(r.recordedSubStatus).toBe('pending_created');
    r.answered(stillPending);
    expect(r.submitted).toBe(true);
    expect(r.subStatus()).toBe('pending_promise');
    expect(r.olderRecord()).toEqual({ sub_status: 'pending_promise' });
    expect(r.recordedSubStatus).toBe('pending_promise');
  });

  test('asked by our key before the SLA: found is pending_promise; not found, or no answer, is not', () => {
    const r = new RefundLifecycle(olderInput());
    r.heard(null);
    r.heard('not_found');
    expect(r.subStatus()).toBe('pending_created');
    r.heard(stillPending);
    expect(r.subStatus()).toBe('pending_promise');
    expect(r.submitted).toBe(false); // asking is not the request answered
  });

  test('a word after the SLA acknowledges nothing', () => {
    const r = new RefundLifecycle(olderInput());
    r.slaPassed();
    r.answered(stillPending);
    r.heard(stillPending);
    r.status = 'canceled';
    expect(r.subStatus()).toBe('canceled_timeout_potential_ghost');
  });

  test('success: the row carries the time it executed and the facts', () => {
    const r = new RefundLifecycle(olderInput());
    r.olderFacts = FACTS;
    r.succeed('rf_1', false, NOW);
    expect(r.olderRecord()).toEqual({ sub_status: 'success' });
    expect(r.olderRow('2026-11-23T10:05:01.000Z')).toMatchObject({
      id: 9,
      status: 'success',
      sub_status: 'success',
      gateway_transaction_id: 'rf_1',
      gateway_transaction_human_readable: 'rf_1',
      checkout_intent_idempotency_key: 'k1',
      transaction_id: 3,
      succeeded_at: new Date(NOW).toISOString(),
      updated_at: '2026-11-23T10:05:01.000Z',
    });
  });

  test('no row before the facts are known', () => {
    expect(new RefundLifecycle(olderInput()).olderRow(CREATED)).toBeNull();
  });

  test('a rejection before the SLA is canceled_rejected', () => {
    const r = new RefundLifecycle(olderInput());
    const word = { status: 'rejected', refundId: 'rf_1', failureCode: 'refund_rejected', failureMessage: 'no' } as const;
    r.answered(word);
    const m = r.meaning(word, false);
    expect(m).toEqual({ kind: 'released', failureCode: 'refund_rejected' });
    r.release('refund_rejected');
    expect(r.subStatus()).toBe('canceled_rejected');
  });

  test('at the SLA: never acknowledged is a potential ghost, also once the cancel is confirmed with a gateway id', () => {
    const r = new RefundLifecycle(olderInput());
    r.slaPassed();
    expect(r.subStatus()).toBe('pending_created'); // until the cancel is asked
    r.status = 'canceled';
    expect(r.subStatus()).toBe('canceled_timeout_potential_ghost');
    const m = r.meaning({ status: 'canceled', refundId: 'rf_tomb' }, true); // the cancel's answer names a gateway id
    r.release(m.kind === 'released' ? m.failureCode : 'x');
    expect(r.gatewayRefundId).toBe('rf_tomb');
    expect(r.subStatus()).toBe('canceled_timeout_potential_ghost');
  });

  test('at the SLA: acknowledged but never settled is e2e_manual; executed after all is success', () => {
    const r = new RefundLifecycle(olderInput());
    r.heard(stillPending);
    r.slaPassed();
    r.status = 'canceled';
    expect(r.subStatus()).toBe('canceled_timeout_e2e_manual');
    r.succeed('rf_1', true, NOW);
    expect(r.subStatus()).toBe('success');
    expect(r.lateOutcome).toMatchObject({ status: 'succeeded' });
  });

  test('continue-as-new carries the older state; a run of older code derives it', () => {
    const r = new RefundLifecycle(olderInput());
    r.answered(stillPending);
    r.olderFacts = FACTS;
    r.olderAnnounced = 'pending_promise';
    r.olderRecord();
    const next = new RefundLifecycle(olderInput({ carried: r.carry(5) }));
    expect([next.acknowledged, next.olderAnnounced, next.recordedSubStatus, next.olderFacts]).toEqual([true, 'pending_promise', 'pending_promise', FACTS]);

    const older: RefundCarried = {
      status: 'pending', phase: 'waiting', version: 4, submitted: true, gatewayRefundId: 'rf_1', gatewayTransactionId: null,
      failureCode: null, lateOutcome: null, polls: 3, canceledAnnounced: false,
    };
    const fromOlder = new RefundLifecycle(olderInput({ carried: older, older: undefined }));
    expect(fromOlder.acknowledged).toBe(true);
    expect(fromOlder.recordedSubStatus).toBeNull(); // unknown: the next write records it
    expect(fromOlder.subStatus()).toBe('pending_promise');
  });
});
