/**
 * The payment-intent keys the service makes for itself: an invoice's intent (`billing:<in_ id>:<attempt>`), a
 * checkout session's (`checkout_session:<cs_ id>`) and a shop checkout's (`checkout:<chk_ id>`). A merchant's
 * intent under one of them would be taken as the service's, and charged for it, so the create endpoints refuse
 * keys of exactly these shapes; any other key, `billing:order-42` included, is the merchant's.
 */
export const serviceIntentKey = {
  /** An invoice's intent for its `attempt`-th charge (a retried activity finds the one it made), and that charge's name. */
  ofInvoice: (invoice: string, attempt: number) => `billing:${invoice}:${attempt}`,
  ofCheckoutSession: (session: string) => `checkout_session:${session}`,
  ofCheckout: (checkout: string) => `checkout:${checkout}`,
};
const SERVICE_INTENT_KEYS = [
  /^billing:in_[a-z]{2,8}_[0-9A-Za-z]{8,64}:\d+$/,
  /^checkout_session:cs_[a-z]{2,8}_[0-9A-Za-z]{8,64}$/,
  /^checkout:chk_[a-z]{2,8}_[0-9A-Za-z]{8,64}$/,
];
export const isServiceIntentKey = (key: string): boolean => SERVICE_INTENT_KEYS.some((shape) => shape.test(key));
export const SERVICE_INTENT_KEY_SHAPES = '`billing:<in_ id>:<n>`, `checkout_session:<cs_ id>` and `checkout:<chk_ id>`';
