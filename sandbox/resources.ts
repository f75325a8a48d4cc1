// The sandbox's resources (charges, refunds, payouts, recipients) and their JSON form on the wire. The
// JSON form is the same in API responses, status endpoints and callback bodies, so adapters parse one shape.

import type { CardBehaviour, CardDetails } from './cards';
import type { AgreementType } from './store';

export type EffectKind = 'charge' | 'refund' | 'payout' | 'recipient';

export type ChargeStatus = 'succeeded' | 'declined' | 'requires_action' | 'pending';
export type RefundStatus = 'pending' | 'succeeded' | 'rejected' | 'canceled';
export type PayoutStatus = 'pending' | 'succeeded' | 'rejected' | 'failed' | 'canceled';
export type RecipientStatus = 'registered' | 'rejected';

interface Failure {
  failureCode?: string;
  failureMessage?: string;
}

interface Common extends Failure {
  id: string;
  idempotencyKey: string;
  reference?: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ChargeRecord extends Common {
  status: ChargeStatus;
  token: string;
  behaviour: CardBehaviour | 'unknown_token';
  amount: number; // minor units
  currency: string;
  merchantInitiated: boolean;
  callbackUrl: string;
  returnUrl: string;
  /** Set when the charge was challenged (3DS): the challenge page serves only such charges. */
  challengeUrl?: string;
  /** Never answered, on the first try or any retry (tok_timeout and the lost-answer drills). */
  neverAnswered: boolean;
  /** The card charged; null for an unknown token. */
  card: CardDetails | null;
  /** Asked `setup_future_usage: off_session`: a succeeded charge issues a reusable token. */
  setupFutureUsage: boolean;
  /** The reusable token issued (pmt_...); null when the card allows none. Set once succeeded. */
  paymentMethodToken?: string | null;
  /** The card network's reference of the charge, set once succeeded. */
  networkTransactionId?: string;
  agreement?: { reference: string; type: AgreementType; networkTransactionId?: string };
}

export interface RefundRecord extends Common {
  status: RefundStatus;
  chargeId: string;
  amount: number;
  currency: string;
  callbackUrl: string;
}

export interface PayoutRecord extends Common {
  status: PayoutStatus;
  amount: number;
  currency: string;
  recipientId?: string;
  bankAccountNumber?: string;
  mobileMoneyNumber?: string;
  mobileMoneyProvider?: string;
  narration?: string;
  callbackUrl: string;
}

export interface RecipientRecord extends Common {
  status: RecipientStatus;
  recipientType: 'bank_account' | 'mobile_money';
  bankAccountNumber?: string;
  bankAccountName?: string;
  bankCode?: string;
  mobileMoneyNumber?: string;
  mobileMoneyProvider?: string;
  name?: string;
}

export type AnyRecord =
  | { kind: 'charge'; record: ChargeRecord }
  | { kind: 'refund'; record: RefundRecord }
  | { kind: 'payout'; record: PayoutRecord }
  | { kind: 'recipient'; record: RecipientRecord };

function common(r: Common) {
  return {
    id: r.id,
    idempotency_key: r.idempotencyKey,
    reference: r.reference ?? null,
    failure_code: r.failureCode ?? null,
    failure_message: r.failureMessage ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function chargeJson(c: ChargeRecord) {
  return {
    object: 'charge' as const,
    ...common(c),
    status: c.status,
    amount: c.amount,
    currency: c.currency,
    merchant_initiated: c.merchantInitiated,
    setup_future_usage: c.setupFutureUsage,
    agreement: c.agreement
      ? { reference: c.agreement.reference, type: c.agreement.type, network_transaction_id: c.agreement.networkTransactionId ?? null }
      : null,
    card: c.card ? { brand: c.card.brand, last4: c.card.last4, exp_month: c.card.expMonth, exp_year: c.card.expYear } : null,
    payment_method_token: c.paymentMethodToken ?? null,
    network_transaction_id: c.networkTransactionId ?? null,
    challenge_url: c.status === 'requires_action' ? (c.challengeUrl ?? null) : null,
    callback_url: c.callbackUrl,
    return_url: c.returnUrl,
  };
}

export function refundJson(r: RefundRecord) {
  return {
    object: 'refund' as const,
    ...common(r),
    status: r.status,
    charge_id: r.chargeId,
    amount: r.amount,
    currency: r.currency,
    callback_url: r.callbackUrl,
  };
}

export function payoutJson(p: PayoutRecord) {
  return {
    object: 'payout' as const,
    ...common(p),
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    recipient_id: p.recipientId ?? null,
    bank_account_number: p.bankAccountNumber ?? null,
    mobile_money_number: p.mobileMoneyNumber ?? null,
    mobile_money_provider: p.mobileMoneyProvider ?? null,
    narration: p.narration ?? null,
    callback_url: p.callbackUrl,
  };
}

export function recipientJson(r: RecipientRecord) {
  return {
    object: 'recipient' as const,
    ...common(r),
    status: r.status,
    recipient_type: r.recipientType,
    bank_account_number: r.bankAccountNumber ?? null,
    bank_account_name: r.bankAccountName ?? null,
    bank_code: r.bankCode ?? null,
    mobile_money_number: r.mobileMoneyNumber ?? null,
    mobile_money_provider: r.mobileMoneyProvider ?? null,
    name: r.name ?? null,
  };
}

export function recordJson(r: AnyRecord) {
  switch (r.kind) {
    case 'charge':
      return chargeJson(r.record);
    case 'refund':
      return refundJson(r.record);
    case 'payout':
      return payoutJson(r.record);
    case 'recipient':
      return recipientJson(r.record);
  }
}
