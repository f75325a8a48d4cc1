import { backoffMs, openPollDelayMs } from './polling';

// Refund lifecycle rules, pure.
/**
 * How the visible status relates to the money reserved on the payment's balance:
 * - `pending`: reserved.
 * - `success`: spent (also when the gateway executed the refund at or after the SLA).
 * - `canceled`: released once the gateway confirmed it will not execute the refund (or rejected it); while
 *   the gateway's answer is unknown the amount stays reserved, so money can never leave twice.
 */
export type RefundStatus = 'pending' | 'success' | 'canceled';

export const DEFAULT_REFUND_SLA_SECONDS = 259_200; // 3 days

/**
 * The refund keys the service makes for itself: one payment's refunds share one key space, so a merchant's key
 * shaped like one of these would be answered as (or answer) the return's, credit note's, card check's or checkout
 * session's refund. The refund endpoints refuse merchant keys of exactly these shapes (isServiceRefundKey); any
 * other key, `return:RMA-1001` included, is the merchant's.
 */
const SERVICE_REFUND_KEY_PREFIX = { return: 'return:', creditNote: 'credit_note:', cardCheck: 'billing_portal:', checkoutSession: 'checkout_session:' } as const;
export const serviceRefundKey = {
  /** A checkout session's card check refunded at completion, or its payment given back when it could not complete. */
  ofCheckoutSession: (session: string, why: 'card_check' | 'refund') => `${SERVICE_REFUND_KEY_PREFIX.checkoutSession}${session}:${why}`,
  ofReturn: (returnId: string) => `${SERVICE_REFUND_KEY_PREFIX.return}${returnId}`,
  ofCreditNote: (creditNoteId: string) => `${SERVICE_REFUND_KEY_PREFIX.creditNote}${creditNoteId}`,
  ofCardCheck: (billingSession: string, paymentIntent: string) => `${SERVICE_REFUND_KEY_PREFIX.cardCheck}${billingSession}:${paymentIntent}:card_check`,
  /** What was left to give back of a payment the merchant had refunded in part already (api/refunds/service.ts giveBackPayment). */
  restOf: (key: string) => `${key}:rest`,
};
/**
 * A typed id (platform/ids.ts `<prefix>_<region>_<opaque>`) as a pattern. The opaque part may be of any length,
 * shorter than the service makes it: a key that reads as one of its ids is refused, not guessed about.
 */
const typedId = (prefix: string) => `${prefix}_[a-z]{2,8}_[0-9A-Za-z]{1,64}`;
const CREDIT_NOTE_KEY = new RegExp(`^credit_note:(${typedId('cn')})$`);
const SERVICE_REFUND_KEYS = [
  new RegExp(`^return:${typedId('ret')}$`),
  CREDIT_NOTE_KEY,
  new RegExp(`^billing_portal:${typedId('bps')}:${typedId('pi')}:card_check(:rest)?$`),
  new RegExp(`^checkout_session:${typedId('cs')}:(card_check|refund)(:rest)?$`),
];
/**
 * The credit note a refund key of the service names, or null for any other key. The intent's workflow asks it:
 * only the service's own keys ever reached it with this prefix (merchant keys with it were refused), so these
 * exact shapes answer every recorded history as the prefix did.
 */
export const creditNoteOfRefundKey = (key: string | null): string | null => (key === null ? null : (CREDIT_NOTE_KEY.exec(key)?.[1] ?? null));
export const isServiceRefundKey = (key: string): boolean => SERVICE_REFUND_KEYS.some((shape) => shape.test(key));
/** The shapes a merchant's refund key may not have, as the refusal says them. */
export const SERVICE_REFUND_KEY_SHAPES =
  '`return:<ret_ id>`, `credit_note:<cn_ id>`, `billing_portal:<bps_ id>:<pi_ id>:card_check` and `checkout_session:<cs_ id>:card_check|refund` (the last two also ending `:rest`)';

/** A year: longer than any gateway's settlement, bounded so a typo does not park a refund for decades. */
export const MAX_REFUND_SLA_SECONDS = 365 * 24 * 3600;
/**
 * Polling fallback when no callback arrives: quick at first (most gateways settle in seconds), then from a
 * minute doubling to the cap for the SLA's length (an hour for the default 3 days; a day for a year).
 */
export function pollDelayMs(pollNumber: number, slaMs: number): number {
  const quick = [2_000, 5_000, 15_000];
  return quick[pollNumber] ?? openPollDelayMs(pollNumber - quick.length, slaMs);
}

/** Asking the gateway to cancel at the SLA until it answers: 1 s doubling to an hour. */
export function cancelRetryDelayMs(tries: number): number {
  return backoffMs(tries, 1000, 3_600_000);
}

