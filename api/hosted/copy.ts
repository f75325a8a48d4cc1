import type { FinalOutcome } from './intent-status';
import { fill, isolate, type Locale } from './locale';

// What the customer reads about a payment's outcome, in the page's language (the tables are in locales/).
// Handed to the page script in its config too, so the server-rendered page and the script say the same thing.
// A failed attempt's words are the script's own (checkout.js failureText, from the table's failureReasons).

export interface OutcomeCopy {
  tone: 'success' | 'failure' | 'neutral' | 'progress';
  title: string;
  message: string;
}

export function outcomeCopy(outcome: FinalOutcome | 'processing', merchantName: string, amountLabel: string, locale: Locale): OutcomeCopy {
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
