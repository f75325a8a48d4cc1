import type { PaymentIntentRecord } from '../../platform/records';
import { safeHttpUrl } from './html';
import type { FinalOutcome } from './intent-status';

// Where the hosted flow hands the customer back to the merchant. A v202607 intent has one `return_url` for
// every ending; an older intent has `final_success_url` and `final_failure_url`. The return_url comes first
// (older intents have none), then the final URL of the ending. Only http(s) URLs, whatever is stored.

export interface MerchantUrls {
  returnUrl: string | null;
  finalSuccessUrl: string | null;
  finalFailureUrl: string | null;
}

export function merchantUrls(intent: Pick<PaymentIntentRecord, 'return_url' | 'final_success_url' | 'final_failure_url'>): MerchantUrls {
  return {
    returnUrl: safeHttpUrl(intent.return_url),
    finalSuccessUrl: safeHttpUrl(intent.final_success_url),
    finalFailureUrl: safeHttpUrl(intent.final_failure_url),
  };
}

/** The final URL of an ending (success: the success URL; canceled, expired: the failure URL). */
function finalUrl(urls: MerchantUrls, outcome: FinalOutcome): string | null {
  return outcome === 'succeeded' ? urls.finalSuccessUrl : urls.finalFailureUrl;
}

/** Where the customer goes once the intent has ended, or null for our own result page. */
export function exitUrl(urls: MerchantUrls, outcome: FinalOutcome): string | null {
  return urls.returnUrl ?? finalUrl(urls, outcome);
}

/**
 * Where our result page sends the customer on by itself: only for an ending the merchant gave a final URL
 * for (a v202607 intent's result page, reached without its return_url, stays as it was).
 */
export function resultExitUrl(urls: MerchantUrls, outcome: FinalOutcome | null): string | null {
  return outcome && finalUrl(urls, outcome) ? exitUrl(urls, outcome) : null;
}

/**
 * Where a customer who gives up after a failed attempt goes: where a failed ending would take them (the
 * return_url, else the final_failure_url), so a customer whose card was declined is never held on our page
 * until the intent expires. The intent stays open until it expires or is canceled.
 */
export function giveUpUrl(urls: MerchantUrls): string | null {
  return exitUrl(urls, 'canceled');
}
