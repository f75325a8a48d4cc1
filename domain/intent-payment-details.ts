import type { PaymentIntentView } from './views';

// What v202608's payment-intent retrieve adds to v202607's, in one place for the API and the workflow (which
// builds its events' data from it): no zod here, which the workflow bundle must not carry.

/** The first version whose payment intents show the card and connector that paid them, and setup_future_usage. */
export const INTENT_PAYMENT_DETAILS_SINCE = 'v202608';

/**
 * What v202608's retrieve adds to the intent: once paid, the saved card and the connector that took the
 * payment; the setup_future_usage asked for. One builder for the retrieve and for the events of a v202608
 * intent, whose `data` is that retrieve's answer at the moment of the event.
 */
export function intentPaymentDetails(i: {
  status: PaymentIntentView['status'];
  paymentMethod: string | null | undefined;
  connector: string | null | undefined;
  setupFutureUsage: 'off_session' | null | undefined;
}): { payment_method?: string; connector?: string; setup_future_usage?: 'off_session' } {
  return {
    ...(i.status === 'success' && i.paymentMethod ? { payment_method: i.paymentMethod } : {}),
    ...(i.status === 'success' && i.connector ? { connector: i.connector } : {}),
    ...(i.setupFutureUsage ? { setup_future_usage: i.setupFutureUsage } : {}),
  };
}
