import type { Context } from 'koa';
import { z } from 'zod';
import { DomainError, notFound } from '../../domain/errors';
import type { PaymentIntentRecord } from '../../platform/records';
import type { AppDeps } from '../deps';
import { isDependencyDown } from '../http/dependency-errors';
import { route, type RouteDef, type RouteResult } from '../http/route';
import { billingMessagePage, type BillingAssets } from './billing-pages';
import type { CheckoutView } from './checkout-view';
import { clientSecretFor } from './client-secret';
import type { OutcomeCopy } from './copy';
import { contentSecurityPolicy, originOf, pageHeaders } from './csp';
import { chooseLanguage, localeFor, type Locale } from './locale';
import { requestLanguage, type PageLanguage } from './page-language';
import { attemptsUrl, pagePath } from './page-setup';
import { clientDefaults, type CheckoutClientConfig } from './pages';
import { sandboxPublicUrl } from './public-url';
import { assetFile, serveAsset } from './static-asset';

// What the two billing pages' routes share: their static files, their Content-Security-Policy (the payment
// page's: scripts and styles from our origin only, card data only to the tokenizer, never framed), the page
// language (`?lg=`, then this browser's choice for the session's pages, then the session's `locale`), HTML
// answers for "not found" and "unavailable", and the payment-page script's settings for a card form.

const HOSTED = {
  css: assetFile('checkout.css', 'text/css; charset=utf-8'),
  js: assetFile('checkout.js', 'text/javascript; charset=utf-8'),
  favicon: assetFile('favicon.svg', 'image/svg+xml; charset=utf-8'),
};
const FILES = {
  'billing.css': assetFile('billing.css', 'text/css; charset=utf-8'),
  'portal.js': assetFile('portal.js', 'text/javascript; charset=utf-8'),
};

/** The payment page's files (the same URLs, so browsers reuse them) and the billing pages' own. */
export const BILLING_ASSETS: BillingAssets = {
  css: `/assets/hosted/checkout.css?v=${HOSTED.css.version}`,
  js: `/assets/hosted/checkout.js?v=${HOSTED.js.version}`,
  favicon: `/assets/hosted/favicon.svg?v=${HOSTED.favicon.version}`,
  demoCss: '',
  demoJs: '',
  embedJs: '',
  billingCss: `/assets/billing/billing.css?v=${FILES['billing.css'].version}`,
  portalJs: `/assets/billing/portal.js?v=${FILES['portal.js'].version}`,
};

export const billingCommon = { versions: 'unversioned' as const, auth: 'none' as const, internal: true };
/** Pages accept any query (tracking parameters); what they read they check. */
export const anyQuery = z.looseObject({});

export const billingAssetRoute: RouteDef = route({
  ...billingCommon,
  tags: ['Hosted page'],
  method: 'get',
  path: '/assets/billing/:file',
  summary: "The billing pages' styles and script",
  params: z.object({ file: z.string() }),
  query: anyQuery,
  responses: { 200: { description: 'Static file' }, 404: { description: 'No such file' } },
  handler: async ({ params, ctx }) => {
    const asset = Object.prototype.hasOwnProperty.call(FILES, params.file) ? FILES[params.file as keyof typeof FILES] : null;
    if (!asset) throw notFound('asset', params.file, 'file');
    return serveAsset(asset, ctx, 'versioned');
  },
});

/** The policy of a billing page: with a card form, the tokenizer's origin may receive data. */
export function billingCsp(deps: AppDeps, view: CheckoutView | null): string {
  const connect = new Set([originOf(sandboxPublicUrl(deps.config))]);
  if (view?.card) connect.add(originOf(view.card.tokenUrl));
  return contentSecurityPolicy({ connect: [...connect], frameAncestors: 'none' });
}

export const htmlAnswer = (deps: AppDeps, status: number, body: string, view: CheckoutView | null = null): RouteResult => ({ status, body, headers: pageHeaders(billingCsp(deps, view)) });

export const redirect = (location: string): RouteResult => ({ status: 303, body: '', headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });

/** The page's language once its session is known: the customer's choice, else the session's `locale`, else English. */
export function sessionLanguage(requested: PageLanguage, sessionLocale: string | null | undefined): PageLanguage {
  return { ...requested, lang: chooseLanguage(requested.carried, sessionLocale) };
}

/** A page that cannot reach MongoDB or Temporal says so in HTML (503, Retry-After), not in the API's JSON. */
export async function billingHtml(deps: AppDeps, ctx: Context, query: Record<string, unknown>, render: (lang: PageLanguage) => Promise<RouteResult>): Promise<RouteResult> {
  const lang = requestLanguage(ctx, query);
  try {
    return await render(lang);
  } catch (err) {
    if (!isDependencyDown(err) && !(err instanceof DomainError && err.kind === 'unavailable')) throw err;
    return unavailablePage(deps, localeFor(lang.lang));
  }
}

export function unavailablePage(deps: AppDeps, locale: Locale): RouteResult {
  const body = billingMessagePage(BILLING_ASSETS, locale, { tone: 'neutral', title: locale.text.unavailableTitle, message: locale.text.unavailableMessage });
  return { ...htmlAnswer(deps, 503, body), headers: { ...pageHeaders(billingCsp(deps, null)), 'Retry-After': '5' } };
}

export function notFoundPage(deps: AppDeps, locale: Locale, copy: { title: string; message: string }): RouteResult {
  return htmlAnswer(deps, 404, billingMessagePage(BILLING_ASSETS, locale, { tone: 'neutral', ...copy }));
}

/** `attempt=<n>` of a 3-D Secure return. */
export function attemptFrom(query: Record<string, unknown>): number | null {
  const raw = query['attempt'];
  return typeof raw === 'string' && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : null;
}

/**
 * The payment-page script's settings for a billing page's card form: it pays `intent` with its client secret,
 * always saving the card, and once paid sends the browser to `returnUrl` (where the page finishes its work).
 */
export function cardFormConfig(
  deps: AppDeps,
  view: CheckoutView,
  intent: PaymentIntentRecord,
  formLocale: Locale,
  opts: { returnUrl: string; attempt: number | null; succeeded: OutcomeCopy; ended: OutcomeCopy; processing: OutcomeCopy },
): CheckoutClientConfig {
  const secret = clientSecretFor(intent._id, deps.config.KEY_HASH_SECRET);
  return {
    mode: 'hosted',
    paymentIntent: intent._id,
    amountLabel: view.amountLabel,
    merchantName: view.merchantName,
    bearer: secret,
    attemptsUrl: attemptsUrl(intent._id),
    statusUrl: `${pagePath(intent._id, '/status')}?client_secret=${encodeURIComponent(secret)}`,
    resultUrl: null,
    returnUrl: opts.returnUrl,
    finalSuccessUrl: null,
    finalFailureUrl: null,
    tokenUrl: view.card?.tokenUrl ?? null,
    connector: view.card?.connector ?? null,
    offerSaveCard: false,
    alwaysSaveCard: true,
    expiresAt: intent.expires_at.toISOString(),
    attempt: intent.status === 'pending' ? opts.attempt : null,
    // Paid already (a 3-D Secure return after the intent was confirmed): straight on to `returnUrl`.
    outcome: intent.status === 'success' ? 'succeeded' : null,
    copy: { succeeded: opts.succeeded, expired: opts.ended, canceled: opts.ended, processing: opts.processing },
    ...clientDefaults(formLocale),
  };
}
