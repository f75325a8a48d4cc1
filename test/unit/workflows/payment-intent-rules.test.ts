import {
  claimContradicted,
  LATE_CHARGE_POLL_MS,
  LATE_OUTCOME_GRACE_MS,
  PaymentIntentState,
  REFUND_WINDOW_MS,
  refundAmountRefusal,
} from '../../../workflows/payment-intent/state';
import type { PaymentIntentInput } from '../../../workflows/payment-intent/messages';

// The rest of the payment intent's rules (payment-intent-state.test.ts has the first few): refusals,
// attempts and what the gateway says about them, cancels, late attempts, refunds, views, and what a run
// carries across continue-as-new. Plain code, no Temporal.

const NOW = Date.parse('2026-11-23T10:00:00Z');
const MINUTE = 60_000;
const input = (extra: Partial<PaymentIntentInput> = {}): PaymentIntentInput => ({
  id: 'pi_eu_rules',
  tenantId: 'ten_eu_t',
  region: 'eu',
  amount: 1000,
  currency: 'EUR',
  customer: null,
  metadata: {},
  webhooks: [],
  connectors: ['con_eu_a', 'con_eu_b'],
  returnUrl: null,
  createdAt: new Date(NOW).toISOString(),
  expiresAt: new Date(NOW + 30 * MINUTE).toISOString(),
  hostedPageUrl: 'https://pay.example/pi_eu_rules?cs=secret',
  webhookTaskQueue: 'webhooks',
  ...extra,
});

/** A state whose first attempt was captured as `ch_paid` (the workflow applies the status itself). */
function paid(extra: Partial<PaymentIntentInput> = {}): PaymentIntentState {
  const s = new PaymentIntentState(input(extra), NOW);
  s.succeed(s.startAttempt({ token: 'tok_ok' }, NOW), 'ch_paid', NOW);
  s.status = 'success';
  return s;
}

describe('refusals', () => {
  test('only a pending intent takes attempts and cancels', () => {
    const s = paid();
    expect(s.mutableRefusal()).toEqual({ type: 'not_mutable', message: 'This payment intent is paid (success)' });
    expect(s.attemptRefusal({ token: 't' }, NOW)).toEqual({ type: 'not_mutable', message: 'This payment intent is paid (success)' });
    expect(s.cancelRefusal()).toEqual({ type: 'not_mutable', message: 'This payment intent is paid (success)' });
  });

  test('an expired intent refuses attempts even before its workflow cancels it', () => {
    const s = new PaymentIntentState(input(), NOW);
    expect(s.attemptRefusal({ token: 't' }, NOW + 30 * MINUTE)).toEqual({ type: 'not_mutable', message: 'This payment intent has expired' });
  });

  test('a charge on the wire refuses another attempt, and so does an async one waiting for its callback', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    expect(s.attemptRefusal({ token: 'u' }, NOW)).toEqual({ type: 'attempt_in_progress', message: 'Another payment attempt is in progress' });
    a.phase = 'awaiting_callback';
    expect(s.attemptRefusal({ token: 'u' }, NOW)).toMatchObject({ type: 'attempt_in_progress' });
  });

  test('the attempt limit, a connector the intent does not allow, and a merchant with no connector are refused', () => {
    const limited = new PaymentIntentState(input({ maxAttempts: 1 }), NOW);
    limited.failAttempt(limited.startAttempt({ token: 't' }, NOW), 'card_declined', NOW);
    expect(limited.attemptRefusal({ token: 'u' }, NOW)).toEqual({
      type: 'attempt_limit_reached',
      message: 'This payment intent has reached its limit of 1 payment attempts',
    });
    const s = new PaymentIntentState(input(), NOW);
    expect(s.attemptRefusal({ token: 'u', connector: 'con_eu_other' }, NOW)).toMatchObject({ type: 'connector_not_allowed' });
    expect(new PaymentIntentState(input({ connectors: [] }), NOW).attemptRefusal({ token: 'u' }, NOW)).toMatchObject({ type: 'no_connector' });
    expect(s.attemptRefusal({ token: 'u', connector: 'con_eu_b' }, NOW)).toBeNull();
  });

  test('a cancel waits for a charge that is deciding, and is refused only while one is still on the wire', () => {
    const s = new PaymentIntentState(input(), NOW);
    expect(s.chargeDeciding()).toBe(false);
    const a = s.startAttempt({ token: 't' }, NOW);
    expect(s.chargeDeciding()).toBe(true);
    expect(s.cancelRefusal()).toEqual({ type: 'attempt_in_progress', message: 'A payment attempt is still being processed; retry shortly' });
    a.phase = 'unknown';
    expect(s.chargeDeciding()).toBe(true);
    expect(s.cancelRefusal()).toBeNull(); // an unknown attempt is let go; a late capture of it is refunded
    a.phase = 'awaiting_action';
    expect(s.chargeDeciding()).toBe(false);
    expect(s.cancelRefusal()).toBeNull();
  });

  test('a refund admission must ask for a positive whole amount', () => {
    for (const amount of [0, -5, 1.5, Number.NaN]) expect(refundAmountRefusal({ amount })).toEqual({ type: 'invalid_amount', message: 'amount must be a positive integer' });
    expect(refundAmountRefusal({ amount: 1 })).toBeNull();
  });
});

describe('attempts', () => {
  test('attempts are numbered, keyed by intent and number, and charge the first connector unless one is chosen', () => {
    const s = new PaymentIntentState(input(), NOW);
    const first = s.startAttempt({ token: 't' }, NOW);
    expect(first).toEqual({ number: 1, phase: 'charging', connector: 'con_eu_a', chargeId: null, idempotencyKey: 'pi_eu_rules:attempt:1', saveMethod: false, checks: 0 });
    s.failAttempt(first, 'card_declined', NOW);
    expect([s.attempt, s.lastFailureCode]).toEqual([null, 'card_declined']);
    const second = s.startAttempt({ token: 't', connector: 'con_eu_b', save_payment_method: true }, NOW);
    expect(second).toMatchObject({ number: 2, connector: 'con_eu_b', idempotencyKey: 'pi_eu_rules:attempt:2', saveMethod: true });
    expect(s.attemptsMade).toBe(2);
  });

  test('a 3DS challenge sends the customer back to the hosted page, naming the attempt', () => {
    const s = new PaymentIntentState(input(), NOW);
    expect(s.returnUrl(s.startAttempt({ token: 't' }, NOW))).toBe('https://pay.example/pi_eu_rules?cs=secret&attempt=1');
    const plain = new PaymentIntentState(input({ hostedPageUrl: 'https://pay.example/p' }), NOW);
    expect(plain.returnUrl(plain.startAttempt({ token: 't' }, NOW))).toBe('https://pay.example/p?attempt=1');
  });

  test('the gateway word about the open attempt: declined fails it, a challenge or an async charge keeps it open', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    expect(s.resolve(a, { status: 'requires_action', chargeId: 'ch_3ds', challengeUrl: 'https://acs/x' }, NOW)).toEqual({
      kind: 'open',
      result: { payment_intent: 'pi_eu_rules', status: 'requires_action', next_action: { type: 'redirect_to_url', url: 'https://acs/x' } },
    });
    expect([a.phase, a.chargeId]).toEqual(['awaiting_action', 'ch_3ds']);
    expect(s.resolve(a, { status: 'pending', chargeId: 'ch_3ds' }, NOW)).toEqual({ kind: 'open', result: { payment_intent: 'pi_eu_rules', status: 'pending' } });
    expect(a.phase).toBe('awaiting_callback');
    expect(s.resolve(a, { status: 'declined', failureCode: 'card_declined', failureMessage: 'no' }, NOW)).toEqual({ kind: 'fail', failureCode: 'card_declined' });
  });

  test('a word about an attempt let go: declined ends the watch, pending notes its charge and keeps watching', () => {
    const s = new PaymentIntentState(input(), NOW);
    const declined = s.startAttempt({ token: 't' }, NOW);
    s.letGo(declined, NOW);
    const pendingOne = s.startAttempt({ token: 'u' }, NOW);
    s.letGo(pendingOne, NOW);
    expect(s.resolve(declined, { status: 'declined', failureCode: 'x', failureMessage: 'no' }, NOW)).toEqual({ kind: 'nothing' });
    expect(s.resolve(pendingOne, { status: 'pending', chargeId: 'ch_late' }, NOW)).toEqual({ kind: 'nothing' });
    expect([...s.lateAttempts.keys()]).toEqual(['pi_eu_rules:attempt:2']);
    expect(pendingOne.chargeId).toBe('ch_late');
  });

  test('an answer is worth applying unless it is not_found about an attempt let go (its request may still arrive)', () => {
    const s = new PaymentIntentState(input(), NOW);
    const gone = s.startAttempt({ token: 't' }, NOW);
    const open = s.startAttempt({ token: 'u' }, NOW);
    expect(s.worthResolving(open, 'not_found')).toBe(true);
    expect(s.worthResolving(gone, 'not_found')).toBe(false);
    expect(s.worthResolving(gone, { status: 'succeeded', chargeId: 'ch_late' })).toBe(true);
  });

  test('the open attempt captured pays the intent and opens its balance for the refund window', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't', connector: 'con_eu_b' }, NOW);
    s.succeed(a, 'ch_paid', NOW);
    expect(s.attempt).toBeNull();
    expect(s.paid).toEqual({ amount: 1000, currency: 'EUR', connector: 'con_eu_b', chargeId: 'ch_paid' });
    expect([s.succeededAt, s.closeAt, s.refundableLeft()]).toEqual([new Date(NOW).toISOString(), NOW + REFUND_WINDOW_MS, 1000]);
  });

  test('an attempt result names the intent', () => {
    const s = new PaymentIntentState(input(), NOW);
    expect(s.result('pending')).toEqual({ payment_intent: 'pi_eu_rules', status: 'pending' });
    expect(s.result('failed', { failure_code: 'card_declined' })).toEqual({ payment_intent: 'pi_eu_rules', status: 'failed', failure_code: 'card_declined' });
  });
});

describe('asking the gateway', () => {
  test('a lost answer is asked about at once, then from a second doubling to a minute; an open charge from a minute', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    a.phase = 'unknown';
    expect([0, 1, 2, 3, 20].map((checks) => s.pollDelay({ ...a, checks }))).toEqual([0, 1000, 2000, 4000, MINUTE]);
    a.phase = 'awaiting_callback';
    expect([0, 1, 2].map((checks) => s.pollDelay({ ...a, checks }))).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE]);
  });

  test('callback hints mark an attempt by key or charge id; taking the claim clears both', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    a.chargeId = 'ch_1';
    expect(s.isHinted(a)).toBe(false);
    s.hint('ch_1', 'pi_eu_rules:attempt:1', 'succeeded');
    expect(s.isHinted(a)).toBe(true);
    expect(s.takeClaim(a)).toBe('succeeded');
    expect([s.isHinted(a), s.hints.size, s.takeClaim(a)]).toEqual([false, 0, undefined]);
  });

  test('a claim is contradicted when the gateway answers otherwise; silence contradicts nothing', () => {
    expect(claimContradicted('succeeded', { status: 'declined', failureCode: 'x', failureMessage: 'no' })).toBe(true);
    expect(claimContradicted('succeeded', 'not_found')).toBe(true);
    expect(claimContradicted('succeeded', { status: 'succeeded', chargeId: 'ch_1' })).toBe(false);
    expect(claimContradicted('succeeded', null)).toBe(false);
    expect(claimContradicted(undefined, 'not_found')).toBe(false);
  });
});

describe('cancel and the attempts let go', () => {
  test('a cancel lets the open attempt go and records why and when', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    s.cancel('expired', NOW + MINUTE);
    expect([s.attempt, s.canceledAt, s.cancellationReason]).toEqual([null, new Date(NOW + MINUTE).toISOString(), 'expired']);
    expect(s.lateAttempts.get(a.idempotencyKey)).toBe(a);
  });

  test('letting another attempt go extends the grace period, never shortens it', () => {
    const s = new PaymentIntentState(input(), NOW);
    s.letGo(s.startAttempt({ token: 't' }, NOW), NOW + 10 * MINUTE);
    s.letGo(s.startAttempt({ token: 'u' }, NOW), NOW);
    expect(s.lateWatchUntil).toBe(NOW + 10 * MINUTE + LATE_OUTCOME_GRACE_MS);
  });

  test('attempts let go are watched within the grace period, at their backoff, at least every ten minutes', () => {
    const s = new PaymentIntentState(input({ expiresAt: new Date(NOW + 90 * 24 * 3600_000).toISOString() }), NOW);
    expect(s.watchingLate(NOW)).toBe(false);
    const a = s.startAttempt({ token: 't' }, NOW);
    s.letGo(a, NOW);
    expect(s.watchingLate(NOW)).toBe(true);
    expect(s.lateWatchDelay(NOW)).toBe(MINUTE);
    a.checks = 10;
    expect(s.lateWatchDelay(NOW)).toBe(LATE_CHARGE_POLL_MS);
    expect(s.lateWatchDelay(s.lateWatchUntil - 1000)).toBe(1000);
    expect(s.watchingLate(s.lateWatchUntil)).toBe(false);
  });

  test('a hint about any attempt let go wakes the watch; giving up clears it and names the keys', () => {
    const s = new PaymentIntentState(input(), NOW);
    s.letGo(s.startAttempt({ token: 't' }, NOW), NOW);
    expect(s.anyLateHinted()).toBe(false);
    s.hint('ch_x', 'pi_eu_rules:attempt:1', 'succeeded');
    expect(s.anyLateHinted()).toBe(true);
    expect(s.stopWatchingLate()).toEqual(['pi_eu_rules:attempt:1']);
    expect(s.lateAttempts.size).toBe(0);
  });
});

describe('refunds against the balance', () => {
  test('nothing is refundable before the payment succeeded', () => {
    const s = new PaymentIntentState(input(), NOW);
    expect(s.admitRefund('re_1', { amount: 100, currency: 'EUR', idempotencyKey: null })).toMatchObject({ ok: false, code: 'REFUND_TX_MUST_BE_SUCCESSFUL' });
  });

  test('an admission that could not start gives its reservation and key back', () => {
    const s = paid();
    expect(s.admitRefund('re_1', { amount: 300, currency: 'EUR', idempotencyKey: 'k1' })).toEqual({ ok: true, left: 700 });
    s.undoAdmission('re_1', 'k1');
    expect([s.refundableLeft(), s.knownRefund('k1')]).toEqual([1000, undefined]);
  });

  test('the refund workflow starts from the admitted request against the paying charge', () => {
    const s = paid({ connectors: ['con_eu_b'] });
    const webhooks = [{ url: 'https://m.example/hook', events: ['refund.success'] }];
    expect(s.refundInput('re_1', { amount: 300, currency: 'EUR', idempotencyKey: 'k1', webhooks, slaSeconds: 60 }, '2026-11-23T11:00:00.000Z')).toEqual({
      id: 're_1',
      tenantId: 'ten_eu_t',
      region: 'eu',
      paymentIntent: 'pi_eu_rules',
      connector: 'con_eu_b',
      chargeId: 'ch_paid',
      amount: 300,
      currency: 'EUR',
      idempotencyKey: 'k1',
      webhooks,
      slaSeconds: 60,
      createdAt: '2026-11-23T11:00:00.000Z',
      webhookTaskQueue: 'webhooks',
    });
  });

  test('success spends a reservation, canceled releases it, and a repeated or unknown word changes nothing', () => {
    const s = paid();
    s.admitRefund('re_1', { amount: 300, currency: 'EUR', idempotencyKey: null });
    s.admitRefund('re_2', { amount: 200, currency: 'EUR', idempotencyKey: null });
    expect(s.unsettledRefunds()).toEqual(['re_1', 're_2']);
    expect(s.settleRefund('re_1', 'success', 300)).toEqual({ changed: true });
    expect(s.settleRefund('re_1', 'success', 300)).toEqual({ changed: false });
    expect(s.settleRefund('re_2', 'canceled', 200)).toEqual({ changed: true });
    expect(s.settleRefund('re_unknown', 'success', 1)).toEqual({ changed: false });
    expect([s.amountRefunded, s.refundableLeft(), s.unsettledRefunds()]).toEqual([300, 700, []]);
  });

  test('a refund canceled at its SLA that the gateway executed after all is taken back out once, overdraft or not', () => {
    const s = paid();
    s.admitRefund('re_1', { amount: 600, currency: 'EUR', idempotencyKey: null });
    s.settleRefund('re_1', 'canceled', 600);
    s.admitRefund('re_2', { amount: 700, currency: 'EUR', idempotencyKey: null });
    s.settleRefund('re_2', 'success', 700);
    expect(s.settleRefund('re_1', 'late_success', 600)).toEqual({ changed: true, overdrawnBy: 300 });
    expect(s.settleRefund('re_1', 'late_success', 600)).toEqual({ changed: false });
    expect(s.settleRefund('re_2', 'late_success', 700)).toEqual({ changed: false }); // never released
    expect([s.amountRefunded, s.refundableLeft()]).toEqual([1300, -300]);
  });

  test('a paid intent may close after its window, once every refund settled and no attempt is watched', () => {
    const s = paid();
    s.admitRefund('re_1', { amount: 100, currency: 'EUR', idempotencyKey: null });
    expect(s.mayClose(s.closeAt - 1)).toBe(false);
    expect(s.mayClose(s.closeAt)).toBe(false);
    s.settleRefund('re_1', 'success', 100);
    expect(s.mayClose(s.closeAt)).toBe(true);
  });
});

describe('views', () => {
  test('the view is the intent as retrieve answers it (customer only when there is one)', () => {
    expect(new PaymentIntentState(input(), NOW).view()).toEqual({
      payment_intent: 'pi_eu_rules',
      status: 'pending',
      amount: 1000,
      currency: 'EUR',
      url: 'https://pay.example/pi_eu_rules?cs=secret',
      expires_at: new Date(NOW + 30 * MINUTE).toISOString(),
      created_at: new Date(NOW).toISOString(),
    });
    expect(new PaymentIntentState(input({ customer: 'cus_eu_1' }), NOW).view().customer).toBe('cus_eu_1');
  });

  test('the record names the connector of the open attempt until one pays', () => {
    const s = new PaymentIntentState(input(), NOW);
    s.startAttempt({ token: 't', connector: 'con_eu_b' }, NOW);
    expect(s.record('2026-11-23T10:01:00.000Z')).toEqual({
      id: 'pi_eu_rules',
      status: 'pending',
      succeeded_at: null,
      canceled_at: null,
      cancellation_reason: null,
      amount_paid: 0,
      amount_refunded: 0,
      connector_used: 'con_eu_b',
      gateway_charge_id: null,
      last_failure_code: null,
      // The older interface's reading of an attempt on the wire (domain/older-views.ts).
      sub_status: 'pending_processing',
      step_number: 2,
      last_reason: '',
      updated_at: '2026-11-23T10:01:00.000Z',
    });
    expect(paid().record('x')).toMatchObject({ amount_paid: 1000, connector_used: 'con_eu_a', gateway_charge_id: 'ch_paid', succeeded_at: new Date(NOW).toISOString() });
  });

  test('the state query adds the attempt, the balance and the refunds still open', () => {
    const s = paid();
    s.admitRefund('re_1', { amount: 250, currency: 'EUR', idempotencyKey: null });
    expect(s.snapshot(3)).toMatchObject({ version: 3, attempt: null, attempts: 1, amount_paid: 1000, amount_refunded: 0, refundable_amount_left: 750, refunds_pending: ['re_1'] });
    const open = new PaymentIntentState(input(), NOW);
    open.startAttempt({ token: 't' }, NOW);
    expect(open.snapshot(0).attempt).toEqual({ number: 1, phase: 'charging', connector: 'con_eu_a' });
  });

  test('the summary tells operators the amount, status, attempt, balance and what is being watched', () => {
    const s = new PaymentIntentState(input({ customer: 'cus_eu_1' }), NOW);
    s.startAttempt({ token: 't' }, NOW);
    expect(s.summary()).toBe(
      `**10.00 EUR** · pending · attempt 1 charging\n\ntenant ten_eu_t · customer cus_eu_1 · expires ${new Date(NOW + 30 * MINUTE).toISOString()}`,
    );
    const p = paid();
    p.resolve(p.startAttempt({ token: 'late' }, NOW), { status: 'succeeded', chargeId: 'ch_second' }, NOW);
    expect(p.summary()).toContain('refunded 0.00 EUR, left 10.00 EUR');
    expect(p.summary()).toContain('refunded 1 capture(s) that matched no live attempt');
  });
});

describe('continue-as-new', () => {
  test('a pending run carries its open attempt, the attempts made, the last failure and unanswered hints', () => {
    const s = new PaymentIntentState(input(), NOW);
    s.failAttempt(s.startAttempt({ token: 't' }, NOW), 'card_declined', NOW);
    const a = s.startAttempt({ token: 'u' }, NOW);
    s.resolve(a, { status: 'requires_action', chargeId: 'ch_3ds', challengeUrl: 'u' }, NOW);
    s.hint('ch_3ds', undefined, 'succeeded');
    const carried = s.carry(5);
    expect(carried.pending).toEqual({ attempt: a, attemptsMade: 2, lastFailureCode: 'card_declined', hints: [['ch_3ds', 'succeeded']] });
    const next = new PaymentIntentState(input({ carried }), NOW + MINUTE);
    expect([next.attempt, next.attemptsMade, next.lastFailureCode, next.isHinted(a)]).toEqual([a, 2, 'card_declined', true]);
    expect(next.carry(5)).toEqual(carried);
  });

  test('a paid run carries its balance, refunds and attempts still watched, and nothing of the pending phase', () => {
    const s = paid();
    s.letGo(s.startAttempt({ token: 'late' }, NOW), NOW);
    s.admitRefund('re_1', { amount: 100, currency: 'EUR', idempotencyKey: 'k' });
    s.startedRefunds.add('re_1');
    const carried = s.carry(9);
    expect(carried.pending).toBeUndefined();
    expect(carried).toMatchObject({ status: 'success', version: 9, reserved: { re_1: 100 }, refundKeys: [['k', 're_1']], refundStarted: ['re_1'] });
    const next = new PaymentIntentState(input({ carried }), NOW + REFUND_WINDOW_MS);
    expect([next.refundableLeft(), next.closeAt, next.lateWatchUntil, [...next.lateAttempts.keys()]]).toEqual([
      900,
      s.closeAt,
      s.lateWatchUntil,
      ['pi_eu_rules:attempt:2'],
    ]);
    expect(next.carry(9)).toEqual(carried);
  });

  test('older runs carried refund keys as an object, late charges without a key and no closeAt', () => {
    const succeededAt = new Date(NOW).toISOString();
    const s = new PaymentIntentState(
      input({
        carried: {
          status: 'success',
          version: 4,
          paid: { amount: 1000, currency: 'EUR', connector: 'con_eu_a', chargeId: 'ch_paid' },
          reserved: { re_1: 100 },
          refundKeys: { k: 're_1' },
          refundStarted: ['re_1'],
          refundSettled: [],
          lateCharges: [{ chargeId: 'ch_old', connector: 'con_eu_a', number: 3 }],
          succeededAt,
          canceledAt: null,
          cancellationReason: null,
          amountRefunded: 0,
        },
      }),
      NOW + MINUTE,
    );
    expect(s.knownRefund('k')).toBe('re_1');
    expect(s.closeAt).toBe(NOW + REFUND_WINDOW_MS);
    expect(s.lateWatchUntil).toBe(NOW + MINUTE + LATE_OUTCOME_GRACE_MS);
    expect(s.lateAttempts.get('pi_eu_rules:attempt:3')).toEqual({
      number: 3,
      phase: 'awaiting_callback',
      connector: 'con_eu_a',
      chargeId: 'ch_old',
      idempotencyKey: 'pi_eu_rules:attempt:3',
      saveMethod: false,
      checks: 0,
    });
  });
});

describe('the older interface', () => {
  const older = { view: { payment_intent: 'u-1', transaction_id: null } as never, transactionId: 41, payloadJson: '{"basket":{"$id":7}}', webhooks: [], checkoutIntent: 'co-1' };

  test('the furthest step an attempt reached stays on a canceled intent, and is carried across continue-as-new', () => {
    const s = new PaymentIntentState(input(), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    s.resolve(a, { status: 'requires_action', chargeId: 'ch_3ds', challengeUrl: 'https://3ds' }, NOW);
    s.cancel('requested', NOW);
    s.status = 'canceled';
    expect(s.olderProgress()).toEqual({ sub_status: 'canceled_requested', step_number: 3, last_reason: '' });
    expect(new PaymentIntentState(input({ carried: s.carry(4) }), NOW).olderProgress().step_number).toBe(3);
  });

  test('while the checkout intent is claimed, no new attempt and no cancel can move the intent', () => {
    const s = new PaymentIntentState(input({ older }), NOW);
    const a = s.startAttempt({ token: 't' }, NOW);
    s.resolve(a, { status: 'requires_action', chargeId: 'ch_3ds', challengeUrl: 'https://3ds' }, NOW);
    expect(s.attemptRefusal({ token: 't2' }, NOW)).toBeNull();
    s.claiming = true;
    expect(s.attemptRefusal({ token: 't2' }, NOW)?.type).toBe('attempt_in_progress');
    expect(s.chargeDeciding()).toBe(true);
    expect(s.cancelRefusal()?.type).toBe('attempt_in_progress');
  });

  test('the webhook body shows the transaction_id once paid, and the payload parsed from its text', () => {
    const s = paid({ older });
    expect(s.olderWebhookBody('payment.success', 'now')).toMatchObject({
      payment_intent: 'u-1',
      status: 'success',
      sub_status: 'success',
      step_number: 4,
      transaction_id: 41,
      payload: { basket: { $id: 7 } },
      event: 'payment.success',
      updated_at: 'now',
    });
    expect(new PaymentIntentState(input({ older }), NOW).olderWebhookBody('payment.canceled', 'now')).toMatchObject({ transaction_id: null, status: 'pending' });
    expect(paid().olderWebhookBody('payment.success', 'now')).toBeNull();
  });
});
