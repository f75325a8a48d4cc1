import type { CheckoutOutcome } from './intent-status';

// What the customer reads. Kept here, in one place, and handed to the page script in its config, so the
// server-rendered page and the script say the same thing.

/** Gateway failure codes in the customer's words. Unknown codes get the generic line. */
export const FAILURE_REASONS: Readonly<Record<string, string>> = {
  card_declined: 'your card was declined',
  insufficient_funds: 'your card has insufficient funds',
  authentication_failed: 'the authentication with your bank failed',
  expired_card: 'your card has expired',
  incorrect_cvc: 'the security code is incorrect',
  invalid_token: 'your card details could not be used',
  processing_error: 'the payment could not be processed',
  payment_intent_canceled: 'this payment is no longer open',
};
export const GENERIC_FAILURE = 'the payment was declined';

export function failureReason(code: string | null | undefined): string {
  return (code && FAILURE_REASONS[code]) || GENERIC_FAILURE;
}

/** "Payment failed: your card was declined, try another card." */
export function failureMessage(code: string | null | undefined): string {
  return `Payment failed: ${failureReason(code)}, try another card.`;
}

export type FinalOutcome = Extract<CheckoutOutcome, 'succeeded' | 'canceled' | 'expired'>;

export interface OutcomeCopy {
  tone: 'success' | 'failure' | 'neutral' | 'progress';
  title: string;
  message: string;
}

export function outcomeCopy(outcome: FinalOutcome | 'processing', merchantName: string, amountLabel: string): OutcomeCopy {
  switch (outcome) {
    case 'succeeded':
      return { tone: 'success', title: 'Payment successful', message: `${amountLabel} paid to ${merchantName}.` };
    case 'expired':
      return { tone: 'neutral', title: 'This payment has expired', message: `The time to pay has run out. Nothing was charged. Contact ${merchantName} to try again.` };
    case 'canceled':
      return { tone: 'neutral', title: 'This payment was canceled', message: `${merchantName} canceled this payment. Nothing was charged.` };
    case 'processing':
      // Also what a customer reads while a charge whose answer was lost is reconciled: never "declined".
      return { tone: 'progress', title: 'Checking your payment…', message: 'This usually takes a few seconds. Please keep this page open; you will not be charged twice.' };
  }
}
