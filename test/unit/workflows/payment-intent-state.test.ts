import { PaymentIntentState } from '../../../workflows/payment-intent/state';
import type { PaymentIntentInput } from '../../../workflows/payment-intent/messages';

// The payment intent's rules as plain code, without Temporal: what attempts, gateway words and refunds do.

const NOW = Date.parse('2026-11-23T10:00:00Z');
const input = (extra: Partial<PaymentIntentInput> = {}): PaymentIntentInput => ({
  id: 'pi_eu_state1',
  tenantId: 'ten_eu_t',
  region: 'eu',
  amount: 1000,
  currency: 'EUR',
  customer: null,
  metadata: {},
  webhooks: [],
  connectors: ['con_eu_a'],
  returnUrl: null,
  createdAt: new Date(NOW).toISOString(),
  expiresAt: new Date(NOW + 1800_000).toISOString(),
  hostedPageUrl: 'http://127.0.0.1:1/pay',
  webhookTaskQueue: 'webhooks',
  ...extra,
});

test('an attempt whose outcome is unknown refuses the next one; a 3DS challenge does not', () => {
  const s = new PaymentIntentState(input(), NOW);
  const a = s.startAttempt({ token: 'tok_x' }, NOW);
  a.phase = 'unknown';
  expect(s.attemptRefusal({ token: 'tok_y' }, NOW)).toMatchObject({ type: 'attempt_in_progress' });
  a.phase = 'awaiting_action';
  expect(s.attemptRefusal({ token: 'tok_y' }, NOW)).toBeNull();
});

test('a capture of an attempt that was let go is voided once; the paying capture never is', () => {
  const s = new PaymentIntentState(input(), NOW);
  const first = s.startAttempt({ token: 'tok_3ds' }, NOW);
  expect(s.resolve(first, { status: 'requires_action', chargeId: 'ch_1', challengeUrl: 'u' }, NOW)).toMatchObject({ kind: 'open' });
  const second = s.startAttempt({ token: 'tok_ok' }, NOW); // lets the first go
  expect(s.lateAttempts.has(first.idempotencyKey)).toBe(true);
  const paid = s.resolve(second, { status: 'succeeded', chargeId: 'ch_2' }, NOW);
  expect(paid).toEqual({ kind: 'succeed', chargeId: 'ch_2' });
  s.succeed(second, 'ch_2', NOW);
  expect(s.resolve(first, { status: 'succeeded', chargeId: 'ch_1' }, NOW)).toEqual({ kind: 'void', chargeId: 'ch_1' });
  expect(s.resolve(first, { status: 'succeeded', chargeId: 'ch_1' }, NOW)).toEqual({ kind: 'nothing' });
  expect(s.resolve(second, { status: 'succeeded', chargeId: 'ch_2' }, NOW)).toEqual({ kind: 'nothing' });
});

test('a charge the gateway never took fails the attempt and its key is watched for a late arrival', () => {
  const s = new PaymentIntentState(input(), NOW);
  const a = s.startAttempt({ token: 'tok_x' }, NOW);
  a.phase = 'unknown';
  expect(s.resolve(a, 'not_found', NOW)).toEqual({ kind: 'fail', failureCode: 'processing_error' });
  expect(s.attempt).toBeNull();
  expect([...s.lateAttempts.keys()]).toEqual([`${input().id}:attempt:1`]);
  expect(s.lateWatchUntil).toBe(NOW + 24 * 3600 * 1000);
});

test('refund keys that are property names are keys like any other, and survive continue-as-new', () => {
  const s = new PaymentIntentState(input(), NOW);
  s.succeed(s.startAttempt({ token: 'tok_ok' }, NOW), 'ch_ok', NOW);
  s.status = 'success';
  for (const [i, key] of ['constructor', '__proto__', 'toString'].entries()) {
    expect(s.knownRefund(key)).toBeUndefined();
    expect(s.admitRefund(`re_${i}`, { amount: 100, currency: 'EUR', idempotencyKey: key })).toEqual({ ok: true, left: 1000 - 100 * (i + 1) });
  }
  const again = new PaymentIntentState(input({ carried: s.carry(7) }), NOW);
  expect(again.knownRefund('__proto__')).toBe('re_1');
  expect(again.refundableLeft()).toBe(700);
  expect(again.admitRefund('re_x', { amount: 701, currency: 'EUR', idempotencyKey: null })).toMatchObject({ ok: false, code: 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT' });
});

test("a merchant-initiated attempt let go keeps its card and agreement across continue-as-new, so its late capture still gives the agreement its network id", () => {
  const s = new PaymentIntentState(input(), NOW);
  const mit = { paymentMethod: 'pm_eu_1', connector: 'con_eu_a', agreement: { id: 'agr_eu_1', agreementId: 'sub-1', type: 'RECURRING' as const, networkTransactionId: null } };
  const a = s.startMitAttempt(mit, 'ti_eu_1', NOW);
  s.resolve(a, { status: 'requires_action', chargeId: 'ch_3ds', challengeUrl: 'https://sandbox/3ds' }, NOW);
  s.cancel('requested', NOW);
  s.status = 'canceled';
  const next = new PaymentIntentState(input({ carried: s.carry(3) }), NOW + 1000);
  const late = [...next.lateAttempts.values()][0]!;
  expect(late.mit).toEqual([...s.lateAttempts.values()][0]!.mit);
  expect(late.mit?.agreement.id).toBe('agr_eu_1');
});

test('forged callback hints stay bounded', () => {
  const s = new PaymentIntentState(input(), NOW);
  for (let i = 0; i < 500; i++) s.hint(`ch_${i}`, undefined, 'succeeded');
  expect(s.hints.size).toBeLessThanOrEqual(50);
});

test("an invoice's attempt sent again is answered with its own decline, not a later attempt's under the same card and agreement", () => {
  const s = new PaymentIntentState(input(), NOW);
  const agreement = { id: 'agr_eu_1', agreementId: 'sub-1', type: 'RECURRING' as const, networkTransactionId: null };
  const attempt = (chargeKey: string) => ({ paymentMethod: 'pm_eu_1', connector: 'con_eu_a', agreement, chargeKey });
  const first = s.startMitAttempt(attempt('billing:in_1:1'), 'ti_eu_k1', NOW);
  s.resolve(first, { status: 'declined', failureCode: 'insufficient_funds', failureMessage: 'Insufficient funds' }, NOW);
  const second = s.startMitAttempt(attempt('billing:in_1:2'), 'ti_eu_k2', NOW + 2000);
  s.resolve(second, { status: 'declined', failureCode: 'insufficient_funds', failureMessage: 'Insufficient funds' }, NOW + 2000);
  const named = s.recentMitDecline(attempt('billing:in_1:1'), NOW + 3000, () => true, () => true);
  expect(named?.transaction).toBe('ti_eu_k1');
});
