import type { PaymentIntentRecord } from '../../platform/records';
import type { CheckoutCredential, CheckoutView } from './checkout-view';
import { cardSavedBy, finalOutcome, type PendingPageState } from './intent-status';
import { localeFor } from './locale';
import { exitUrl, giveUpUrl, merchantUrls, resultExitUrl } from './merchant-exit';
import { withLanguage, type PageLanguage } from './page-language';
import { clientDefaults, outcomeCopies, type CheckoutPageOptions, type ResultPageOptions } from './pages';

// What the checkout and result pages are drawn with besides the view: the script's config, our own links
// and the ways back to the merchant. Pure: the routes read the request and the database, this decides
// from what they read, and the tests check what the routes send. The pages put the words to the URLs.

/** Our hosted page of an intent, and the pages below it (`/result`, `/status`, `/embed`). */
export const pagePath = (id: string, suffix = '') => `/pay/${encodeURIComponent(id)}${suffix}`;

/** The attempts endpoint the page submits tokens to (the lead's route, v202607). */
export const attemptsUrl = (id: string) => `/v202607/payment-intents/${encodeURIComponent(id)}/attempts`;

/**
 * Does the page offer "Save this card for future payments"? Only when the merchant asked to keep the card
 * (v202608 `setup_future_usage: "off_session"`) and the intent has a customer to keep it for: the attempts
 * endpoint refuses `save_payment_method` without one, or for one deleted since.
 */
export function offersSaveCard(intent: Pick<PaymentIntentRecord, 'customer' | 'setup_future_usage'>, customerDeleted = false): boolean {
  return !!intent.customer && !customerDeleted && intent.setup_future_usage === 'off_session';
}

export interface CheckoutRequest {
  layout: 'hosted' | 'embed';
  /** The credential that opened the intent: the client secret (hosted) or a publishable key (embed). */
  credential: CheckoutCredential;
  lang: PageLanguage;
  /** `attempt=<n>` of a 3-D Secure return, or null. */
  attempt: number | null;
  /** A pending intent: what its live attempt leaves the page to offer (intent-status pendingPageState). */
  pending?: PendingPageState;
}

export function checkoutPageSetup(view: CheckoutView, req: CheckoutRequest): Omit<CheckoutPageOptions, 'assets'> {
  const { intent } = view;
  const hosted = req.layout === 'hosted';
  const locale = localeFor(req.lang.lang);
  const credentialQuery = `${req.credential.kind === 'client_secret' ? 'client_secret' : 'key'}=${encodeURIComponent(req.credential.value)}`;
  const urls = merchantUrls(intent);
  const outcome = finalOutcome(intent);
  const giveUp = hosted ? giveUpUrl(urls) : null;
  return {
    layout: req.layout,
    config: {
      mode: req.layout,
      paymentIntent: intent._id,
      amountLabel: view.amountLabel,
      merchantName: view.merchantName,
      bearer: req.credential.value,
      attemptsUrl: attemptsUrl(intent._id),
      statusUrl: `${pagePath(intent._id, '/status')}?${credentialQuery}`,
      resultUrl: hosted ? withLanguage(`${pagePath(intent._id, '/result')}?${credentialQuery}`, req.lang) : null,
      // The merchant's URLs: the hosted flow hands the customer back, the embedded form leaves it to the merchant's page.
      returnUrl: hosted ? urls.returnUrl : null,
      finalSuccessUrl: hosted ? urls.finalSuccessUrl : null,
      finalFailureUrl: hosted ? urls.finalFailureUrl : null,
      tokenUrl: view.card?.tokenUrl ?? null,
      connector: view.card?.connector ?? null,
      offerSaveCard: offersSaveCard(intent, view.customerDeleted),
      expiresAt: intent.expires_at.toISOString(),
      attempt: intent.status === 'pending' ? req.attempt : null,
      // A 3-D Secure return follows its own attempt; else a charge in flight is followed from the start.
      checking: !outcome && req.attempt === null && req.pending === 'checking',
      attemptLimitReached: !outcome && req.pending === 'attempt_limit',
      outcome,
      savedCard: outcome === 'succeeded' ? cardSavedBy(intent) : null,
      copy: outcomeCopies(view.merchantName, view.amountLabel, locale),
      ...clientDefaults(locale),
    },
    merchantExit: hosted && outcome ? exitUrl(urls, outcome) : null,
    giveUp: giveUp ? { href: giveUp, shown: !!intent.last_failure_code } : null,
  };
}

/** The result page of a hosted flow, opened with the intent's client secret. */
export function resultPageSetup(view: CheckoutView, clientSecret: string, lang: PageLanguage, pending: PendingPageState = 'payable'): Omit<ResultPageOptions, 'assets'> {
  const outcome = finalOutcome(view.intent);
  return {
    locale: localeFor(lang.lang),
    outcome,
    // Without the workflow's word a charge may be in flight: never say then that nothing was charged.
    checking: !outcome && (pending === 'checking' || pending === 'unknown'),
    selfHref: withLanguage(`${pagePath(view.intent._id, '/result')}?client_secret=${encodeURIComponent(clientSecret)}`, lang),
    payAgainHref: withLanguage(`${pagePath(view.intent._id)}?client_secret=${encodeURIComponent(clientSecret)}`, lang),
    exitUrl: resultExitUrl(merchantUrls(view.intent), outcome),
  };
}
