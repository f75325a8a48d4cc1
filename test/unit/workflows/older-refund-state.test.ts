import { RefundLifecycle } from '../../../workflows/refund/state';
import type { RefundCarried, RefundInput } from '../../../workflows/refund/messages';

// The refund workflow's state as the older interface reads it: the sub-status it writes to the record and
// the row its webhooks carry, through the moves the workflow makes (workflows/refund/workflow.ts).

const CREATED = '2026-11-23T10:00:00.000Z';
const NOW = Date.parse('2026-11-23T10:05:00Z');
const FACTS = { id: 9, uuid: '0b6f7c1e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', gateway: 'sandbox', transaction_id: 3, payment_intent: '1a2b3c4d-1c2d-4e5f-8a9b-0c1d2e3f4a5b' };
const input = (extra: Partial<RefundInput> = {}): RefundInput => ({
  id: 're_eu_older1',
  tenantId: 'ten_eu_t',
  region: 'eu',
  paymentIntent: 'pi_eu_paid',
  connector: 'con_eu_a',
  chargeId: 'ch_paid',
  amount: 400,
  currency: 'EUR',
  idempotencyKey: 'k1',
  webhooks: [],
  slaSeconds: 3600,
  createdAt: CREATED,
  webhookTaskQueue: 'webhooks',
  older: { webhooks: [{ url: 'https://merchant.example/hooks', events: [], secretRef: 'whs_eu_x#0' }] },
  ...extra,
});

const PENDING = { status: 'pending', refundId: 'rf_1' } as const;

test('a new refund is pending_created, recorded so by its insert; the gateway answering makes it pending_promise', () => {
  const r = new RefundLifecycle(input());
  expect(r.subStatus()).toBe('pending_created');
  expect(r.recordedSubStatus).toBe('pending_created');
  r.answered(PENDING);
  expect(r.submitted).toBe(true);
  expect(r.subStatus()).toBe('pending_promise');
  expect(r.olderRecord()).toEqual({ sub_status: 'pending_promise' });
  expect(r.recordedSubStatus).toBe('pending_promise');
});

test('asked by our key before the SLA: found is pending_promise; not found, or no answer, is not', () => {
  const r = new RefundLifecycle(input());
  r.heard(null);
  r.heard('not_found');
  expect(r.subStatus()).toBe('pending_created');
  r.heard(PENDING);
  expect(r.subStatus()).toBe('pending_promise');
  expect(r.submitted).toBe(false); // asking is not the request answered
});

test('a word after the SLA acknowledges nothing', () => {
  const r = new RefundLifecycle(input());
  r.slaPassed();
  r.answered(PENDING);
  r.heard(PENDING);
  r.status = 'canceled';
  expect(r.subStatus()).toBe('canceled_timeout_potential_ghost');
});

test('success: the row carries the time it executed and the facts', () => {
  const r = new RefundLifecycle(input());
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
  expect(new RefundLifecycle(input()).olderRow(CREATED)).toBeNull();
});

test('a rejection before the SLA is canceled_rejected', () => {
  const r = new RefundLifecycle(input());
  const word = { status: 'rejected', refundId: 'rf_1', failureCode: 'refund_rejected', failureMessage: 'no' } as const;
  r.answered(word);
  const m = r.meaning(word, false);
  expect(m).toEqual({ kind: 'released', failureCode: 'refund_rejected' });
  r.release('refund_rejected');
  expect(r.subStatus()).toBe('canceled_rejected');
});

test('at the SLA: never acknowledged is a potential ghost, also once the cancel is confirmed with a gateway id', () => {
  const r = new RefundLifecycle(input());
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
  const r = new RefundLifecycle(input());
  r.heard(PENDING);
  r.slaPassed();
  r.status = 'canceled';
  expect(r.subStatus()).toBe('canceled_timeout_e2e_manual');
  r.succeed('rf_1', true, NOW);
  expect(r.subStatus()).toBe('success');
  expect(r.lateOutcome).toMatchObject({ status: 'succeeded' });
});

test('continue-as-new carries the older state; a run of older code derives it', () => {
  const r = new RefundLifecycle(input());
  r.answered(PENDING);
  r.olderFacts = FACTS;
  r.olderAnnounced = 'pending_promise';
  r.olderRecord();
  const next = new RefundLifecycle(input({ carried: { ...r.carry(5), ...r.olderCarry() } }));
  expect([next.acknowledged, next.olderAnnounced, next.recordedSubStatus, next.olderFacts]).toEqual([true, 'pending_promise', 'pending_promise', FACTS]);

  const older: RefundCarried = {
    status: 'pending', phase: 'waiting', version: 4, submitted: true, gatewayRefundId: 'rf_1', gatewayTransactionId: null,
    failureCode: null, lateOutcome: null, polls: 3, canceledAnnounced: false,
  };
  const fromOlder = new RefundLifecycle(input({ carried: older, older: undefined }));
  expect(fromOlder.acknowledged).toBe(true);
  expect(fromOlder.recordedSubStatus).toBeNull(); // unknown: the next write records it
  expect(fromOlder.subStatus()).toBe('pending_promise');
});
