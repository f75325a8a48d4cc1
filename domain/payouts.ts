// Payouts' rules that need no I/O: which destination a request names, what a sub-status means to a
// merchant, and the default window a transfer has to complete.

export const PAYOUT_SUB_STATUSES = [
  'pending_created',
  'pending_promise',
  'success',
  'canceled_rejected',
  'canceled_failure',
  'canceled_timeout',
] as const;
export type PayoutSubStatus = (typeof PAYOUT_SUB_STATUSES)[number];
export type PayoutBaseStatus = 'pending' | 'success' | 'canceled';

/** `pending_promise` -> `pending`: the base form is the part before the first underscore. */
export function baseStatusOf(sub: PayoutSubStatus): PayoutBaseStatus {
  return sub.startsWith('pending') ? 'pending' : sub === 'success' ? 'success' : 'canceled';
}

export const isFinalPayoutStatus = (sub: PayoutSubStatus): boolean => baseStatusOf(sub) !== 'pending';

/** How long a transfer may take before it is canceled at the gateway (`canceled_timeout`): 72 hours. */
export const DEFAULT_PAYOUT_TIMEOUT_SECONDS = 72 * 3600;
/** Shorter windows would cancel transfers a gateway is still routinely completing. */
export const MIN_PAYOUT_TIMEOUT_SECONDS = 10;
/** A window longer than a year would outlive any gateway's own retention of the transfer. */
export const MAX_PAYOUT_TIMEOUT_SECONDS = 365 * 86_400;

export const RECIPIENT_TYPES = ['bank_account', 'mobile_money'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

export interface RecipientFields {
  bank_account_number?: string;
  bank_account_name?: string;
  bank_code?: string;
  bank_name?: string;
  mobile_money_number?: string;
  mobile_money_provider?: string;
  recipient_type?: RecipientType;
}

const BANK_TRIO = ['bank_account_number', 'bank_account_name', 'bank_code'] as const;

export type RecipientRuleResult =
  | { ok: true; kind: RecipientType }
  | { ok: false; kind: 'none' }
  | { ok: false; kind: 'invalid'; param: string; message: string };

/**
 * The spec's inline recipient rule: exactly one of (a) the full bank trio and no mobile-money number, or
 * (b) a mobile-money number and no bank account field. `recipient_type`, when given, must agree; when
 * omitted it is inferred. `none` means no destination field at all (a recipient_uuid must then be given).
 * `bank_name` counts as a bank field and `mobile_money_provider` as a wallet field: neither may come with
 * the other kind, nor alone.
 */
export function recipientRule(f: RecipientFields): RecipientRuleResult {
  const bankGiven = BANK_TRIO.filter((k) => f[k] !== undefined);
  const wallet = f.mobile_money_number !== undefined;
  if (bankGiven.length === 0 && !wallet) {
    if (f.bank_name !== undefined) return { ok: false, kind: 'invalid', param: 'bank_account_number', message: `bank_name needs the bank fields ${BANK_TRIO.join(', ')}` };
    if (f.mobile_money_provider !== undefined) return { ok: false, kind: 'invalid', param: 'mobile_money_number', message: 'mobile_money_provider needs mobile_money_number' };
    return { ok: false, kind: 'none' };
  }
  if (bankGiven.length > 0 && (wallet || f.mobile_money_provider !== undefined)) {
    const param = wallet ? 'mobile_money_number' : 'mobile_money_provider';
    return { ok: false, kind: 'invalid', param, message: `Give either the bank fields or the mobile-money fields, not both (${param} was given with ${bankGiven.join(', ')})` };
  }
  if (wallet && f.bank_name !== undefined) {
    return { ok: false, kind: 'invalid', param: 'bank_name', message: 'A mobile-money recipient takes no bank field (bank_name was given)' };
  }
  if (bankGiven.length > 0 && bankGiven.length < BANK_TRIO.length) {
    const missing = BANK_TRIO.filter((k) => f[k] === undefined);
    return { ok: false, kind: 'invalid', param: missing[0]!, message: `A bank recipient needs all of ${BANK_TRIO.join(', ')}; missing ${missing.join(', ')}` };
  }
  const kind: RecipientType = wallet ? 'mobile_money' : 'bank_account';
  if (f.recipient_type !== undefined && f.recipient_type !== kind) {
    return { ok: false, kind: 'invalid', param: 'recipient_type', message: `recipient_type is ${f.recipient_type} but the fields given describe a ${kind}` };
  }
  return { ok: true, kind };
}

/**
 * The `code` object of `GET /payouts/{uuid}/status`: the gateway's word as a type, a success flag and a
 * number (HTTP-like: 200 completed, 202 in flight, 409 canceled, 422 rejected, 502 failed at the gateway,
 * 404 the gateway has no such transfer).
 */
export type GatewayPayoutWord = 'succeeded' | 'pending' | 'canceled' | 'rejected' | 'failed' | 'not_found';

export function statusCodeOf(word: GatewayPayoutWord): { type: GatewayPayoutWord; success: boolean; code: number } {
  const code = { succeeded: 200, pending: 202, canceled: 409, rejected: 422, failed: 502, not_found: 404 }[word];
  return { type: word, success: word === 'succeeded', code };
}
