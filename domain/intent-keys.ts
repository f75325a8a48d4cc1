/**
 * The payment-intent keys the service makes for itself (an invoice's intent, `billing:<in>:<n>`; a checkout
 * session's, `checkout_session:<cs>`): a merchant's intent under one of them would be taken as the invoice's, and
 * charged for it. The create endpoints refuse them.
 */
const SERVICE_INTENT_KEY_PREFIXES = ['billing:', 'checkout_session:'] as const;
export const isServiceIntentKey = (key: string): boolean => SERVICE_INTENT_KEY_PREFIXES.some((p) => key.startsWith(p));
export const SERVICE_INTENT_KEY_PREFIX_LIST = SERVICE_INTENT_KEY_PREFIXES.join(', ');
