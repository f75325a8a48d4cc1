import type { CheckoutOutcome } from './intent-status';
import { ENGLISH, fill, isolate, type Locale } from './locale';

// What the customer reads about a payment's outcome, in the page's language (the tables are in locales/).
// Handed to the page script in its config too, so the server-rendered page and the script say the same thing.

/** Gateway failure codes in the customer's words (English). Unknown codes get the generic line. */
export const FAILURE_REASONS: Readonly<Record<string, string>> = ENGLISH.text.failureReasons;
export const GENERIC_FAILURE = ENGLISH.text.genericFailure;

export function failureReason(code: string | null | undefined, locale: Locale = ENGLISH): string {
  const reasons: Readonly<Record<string, string>> = locale.text.failureReasons;
  return (code && Object.prototype.hasOwnProperty.call(reasons, code) && reasons[code]) || locale.text.genericFailure;
}

/** "Payment failed: your card was declined, try another card." */
export function failureMessage(code: string | null | undefined, locale: Locale = ENGLISH): string {
  return fill(locale.text.failed, { reason: failureReason(code, locale) });
}

export type FinalOutcome = Extract<CheckoutOutcome, 'succeeded' | 'canceled' | 'expired'>;

export interface OutcomeCopy {
  tone: 'success' | 'failure' | 'neutral' | 'progress';
  title: string;
  message: string;
}

export function outcomeCopy(outcome: FinalOutcome | 'processing', merchantName: string, amountLabel: string, locale: Locale = ENGLISH): OutcomeCopy {
  const t = locale.text;
  const vars = { merchant: isolate(locale, merchantName), amount: isolate(locale, amountLabel) };
  switch (outcome) {
    case 'succeeded':
      return { tone: 'success', title: t.succeededTitle, message: fill(t.succeededMessage, vars) };
    case 'expired':
      return { tone: 'neutral', title: t.expiredTitle, message: fill(t.expiredMessage, vars) };
    case 'canceled':
      return { tone: 'neutral', title: t.canceledTitle, message: fill(t.canceledMessage, vars) };
    case 'processing':
      // Also what a customer reads while a charge whose answer was lost is reconciled: never "declined".
      return { tone: 'progress', title: t.processingTitle, message: t.processingMessage };
  }
}
