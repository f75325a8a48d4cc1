import { z } from 'zod';
import type { CheckoutSessionRecord } from '../../platform/billing-records';
import { checkoutSessionData } from '../../data/billing-sessions';
import { refundData } from '../../data/refunds';
import type { AppDeps } from '../deps';
import { route, type RouteDef, type RouteResult } from '../http/route';
import {
  customerNow,
  ensureSessionIntent,
  sessionIntent,
  sessionStatus,
  settleCheckoutSession,
  successUrlOf,
} from '../checkout-sessions/service';
import { checkoutPagePath } from './billing-paths';
import {
  anyQuery,
  attemptFrom,
  BILLING_ASSETS,
  billingAssetRoute,
  billingCommon,
  billingHtml,
  cardFormConfig,
  htmlAnswer,
  notFoundPage,
  redirect,
  sessionLanguage,
  unavailablePage,
} from './billing-page-kit';
import { billingMessagePage, checkoutFailedCopy, checkoutSessionPage, checkoutSessionTexts } from './billing-pages';
import { loadCheckoutView } from './checkout-view';
import { outcomeCopy } from './copy';
import { safeHttpUrl } from './html';
import { fill, isolate, localeFor, type Locale } from './locale';
import { rememberLanguage, withLanguage, type PageLanguage } from './page-language';
import { DAY_MS } from '../../domain/billing/periods';

// The checkout session's page (its `url`) and where the payment page sends the customer once paid (`/complete`):
// the session completes there (the subscription is created, its first invoice paid by the session's intent),
// then the customer goes on to the merchant's success_url.

const params = z.object({ checkout_session: z.string().min(1).max(100) });
const tags = ['Hosted page'];
const SUCCESS_REDIRECT_SECONDS = 3;

async function sessionById(deps: AppDeps, id: string): Promise<CheckoutSessionRecord | null> {
  return /^cs_[a-z]{2,8}_[0-9A-Za-z]{8,64}$/.test(id) ? checkoutSessionData(deps.mongo).findForPage(id) : null;
}

const notFoundCopy = (locale: Locale) => ({ title: locale.text.csNotFoundTitle, message: locale.text.csNotFoundMessage });

/**
 * Completes the session if it was paid. A completion that cannot finish now (Temporal slow, a test clock
 * advancing) is answered "unavailable, try again" (the payment stands; the next visit, or a retrieve, completes).
 */
async function settled(deps: AppDeps, s: CheckoutSessionRecord, locale: Locale): Promise<{ session: CheckoutSessionRecord } | { page: RouteResult }> {
  try {
    return { session: await settleCheckoutSession(deps, s) };
  } catch (err) {
    deps.logger.warn({ err, checkout_session: s._id }, 'the checkout session could not complete now');
    return { page: unavailablePage(deps, locale) };
  }
}

/** A session that is no longer open, in words: subscribed (then on to success_url), expired, or failed (and its refund's state). */
async function endedPage(deps: AppDeps, s: CheckoutSessionRecord, locale: Locale, merchantName: string): Promise<RouteResult> {
  const t = locale.text;
  const merchant = isolate(locale, merchantName);
  const bar = { merchantName, testMode: false };
  if (s.status === 'complete') {
    const success = safeHttpUrl(successUrlOf(s));
    return htmlAnswer(
      deps,
      200,
      billingMessagePage(BILLING_ASSETS, locale, { tone: 'success', title: t.csCompleteTitle, message: fill(t.csCompleteMessage, { merchant }) }, {
        merchant: bar,
        link: success ? { href: success, label: fill(t.returnTo, { merchant }) } : null,
        status: success ? fill(t.takingBack, { merchant }) : null,
        refresh: success ? { seconds: SUCCESS_REDIRECT_SECONDS, url: success } : null,
      }),
    );
  }
  const cancel = safeHttpUrl(s.cancel_url);
  const link = cancel ? { href: cancel, label: fill(t.csBack, { merchant }) } : null;
  const refund = s.completion_error && s.refund ? await refundData(deps.mongo).find(s.tenant_id, s.refund) : null;
  const copy = s.completion_error
    ? checkoutFailedCopy(locale, merchantName, refund)
    : { tone: 'neutral' as const, title: t.csExpiredTitle, message: fill(t.csExpiredMessage, { merchant }) };
  return htmlAnswer(deps, 200, billingMessagePage(BILLING_ASSETS, locale, copy, { merchant: bar, link }));
}

async function renderPage(deps: AppDeps, id: string, query: Record<string, unknown>, requested: PageLanguage, remember: (lang: PageLanguage) => void): Promise<RouteResult> {
  const found = await sessionById(deps, id);
  if (!found) return notFoundPage(deps, localeFor(requested.lang), notFoundCopy(localeFor(requested.lang)));
  const lang = sessionLanguage(requested, found.locale);
  remember(lang);
  const locale = localeFor(lang.lang);
  const settle = await settled(deps, found, locale);
  if ('page' in settle) return settle.page;
  let s = settle.session;
  const now = new Date();
  if (!s.payment_intent && sessionStatus(s, now) === 'open') s = await ensureSessionIntent(deps, s);
  const intent = await sessionIntent(deps, s);
  const status = sessionStatus(s, now);
  if (!intent) return notFoundPage(deps, locale, notFoundCopy(locale));
  const view = await loadCheckoutView(deps.mongo, deps.config, intent, '');
  // Its intent ended without paying (its timer, which is the session's): the session has expired.
  if (status !== 'open' || intent.status === 'canceled') return endedPage(deps, { ...s, status: status === 'open' ? 'expired' : status }, locale, view.merchantName);

  const t = locale.text;
  const merchant = isolate(locale, view.merchantName);
  const quote = s.quote!;
  const formLocale = checkoutSessionTexts(locale, quote);
  const config = cardFormConfig(deps, view, intent, formLocale, {
    returnUrl: withLanguage(checkoutPagePath(s._id, '/complete'), lang),
    attempt: attemptFrom(query),
    succeeded: { tone: 'success', title: t.csStartingTitle, message: fill(t.csStartingMessage, { merchant }) },
    ended: { tone: 'neutral', title: t.csExpiredTitle, message: fill(t.csExpiredMessage, { merchant }) },
    processing: outcomeCopy('processing', view.merchantName, view.amountLabel, locale),
  });
  const startsAt = await customerNow(deps, s.tenant_id, s.customer);
  const body = checkoutSessionPage(BILLING_ASSETS, locale, {
    quote,
    currency: s.currency!,
    view,
    config,
    cancelUrl: safeHttpUrl(s.cancel_url),
    // The subscription (and a trial) starts when the session completes: the customer's time now (its test clock's, if any).
    startsAt,
    trialEndsAt: quote.trial_days > 0 ? startsAt + quote.trial_days * DAY_MS : null,
  });
  return htmlAnswer(deps, 200, body, view);
}

export const checkoutPageRoutes: RouteDef[] = [
  route({
    ...billingCommon,
    tags,
    method: 'get',
    path: '/billing/checkout/:checkout_session',
    summary: 'Hosted checkout page of a checkout session (its `url`)',
    params,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params: p, query, deps, ctx }) =>
      billingHtml(deps, ctx, query, (lang) => renderPage(deps, p.checkout_session, query, lang, (l) => rememberLanguage(ctx, checkoutPagePath(p.checkout_session), l))),
  }),
  route({
    ...billingCommon,
    tags,
    method: 'get',
    path: '/billing/checkout/:checkout_session/complete',
    summary: 'Where the checkout page goes once paid: completes the session, then on to its success_url',
    params,
    query: anyQuery,
    responses: { 303: { description: 'To success_url, or back to the page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params: p, query, deps, ctx }) =>
      billingHtml(deps, ctx, query, async (requested) => {
        const found = await sessionById(deps, p.checkout_session);
        const locale = localeFor(sessionLanguage(requested, found?.locale).lang);
        if (!found) return notFoundPage(deps, locale, notFoundCopy(locale));
        const settle = await settled(deps, found, locale);
        if ('page' in settle) return settle.page;
        const session = settle.session;
        const success = session.status === 'complete' ? safeHttpUrl(successUrlOf(session)) : null;
        return redirect(success ?? withLanguage(checkoutPagePath(session._id), sessionLanguage(requested, session.locale)));
      }),
  }),
  billingAssetRoute,
];
