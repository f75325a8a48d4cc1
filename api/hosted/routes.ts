import type { Context } from 'koa';
import { z } from 'zod';
import { notFound } from '../../domain/errors';
import type { PaymentIntentRecord } from '../../platform/records';
import { isDependencyDown } from '../http/dependency-errors';
import type { AppDeps } from '../deps';
import { authorizedIntent, credentialFrom, loadCheckoutView, type CheckoutCredential, type CheckoutView } from './checkout-view';
import type { FinalOutcome } from './copy';
import { contentSecurityPolicy, originOf, pageHeaders } from './csp';
import { safeHttpUrl } from './html';
import { checkoutOutcome, liveIntentState } from './intent-status';
import { lineItemsOf } from './line-items';
import { fill, isolate, localeFor } from './locale';
import { exitUrl, finalUrl, giveUpUrl, merchantUrls } from './merchant-exit';
import { languageCookie, pageLanguage, withLanguage, type PageLanguage } from './page-language';
import {
  checkoutPage,
  clientDefaults,
  demoShopPage,
  messagePage,
  notFoundCopy,
  outcomeCopies,
  resultPage,
  type CheckoutClientConfig,
  unavailableCopy,
  type PageAssets,
} from './pages';
import { sandboxPublicUrl } from './public-url';
import { assetFile, serveAsset } from './static-asset';
import { route, type RouteDef, type RouteResult } from '../http/route';

// The hosted payment page (`url` of every intent), the embedded form and their assets. All are
// unversioned and unauthenticated as routes: each checks its own credential (the intent's client secret,
// or a publishable key of the intent's tenant) and answers one plain "not found" for every failure.

const ASSETS = {
  'checkout.js': assetFile('checkout.js', 'text/javascript; charset=utf-8'),
  'checkout.css': assetFile('checkout.css', 'text/css; charset=utf-8'),
  'demo.js': assetFile('demo.js', 'text/javascript; charset=utf-8'),
  'demo.css': assetFile('demo.css', 'text/css; charset=utf-8'),
  'favicon.svg': assetFile('favicon.svg', 'image/svg+xml; charset=utf-8'),
};
const EMBED_JS = assetFile('embed.js', 'text/javascript; charset=utf-8');

const v = (file: keyof typeof ASSETS) => `/assets/hosted/${file}?v=${ASSETS[file].version}`;
const PAGE_ASSETS: PageAssets = {
  css: v('checkout.css'),
  js: v('checkout.js'),
  favicon: v('favicon.svg'),
  demoCss: v('demo.css'),
  demoJs: v('demo.js'),
  embedJs: '/js/v1/embed.js',
};

/** The attempts endpoint the page submits tokens to (the lead's route, v202607). */
const attemptsUrl = (id: string) => `/v202607/payment-intents/${encodeURIComponent(id)}/attempts`;
const pagePath = (id: string, suffix = '') => `/pay/${encodeURIComponent(id)}${suffix}`;

const intentParams = z.object({ payment_intent: z.string().min(1).max(100) });
// Pages accept any query (a merchant may add tracking parameters to the URL); what we read we check here.
const anyQuery = z.looseObject({});

const common = { versions: 'unversioned' as const, auth: 'none' as const, internal: true, tags: ['Hosted page'] };

function attemptFrom(query: Record<string, unknown>): number | null {
  const raw = query['attempt'];
  return typeof raw === 'string' && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : null;
}

function finalOutcome(r: PaymentIntentRecord): FinalOutcome | null {
  if (r.status === 'success') return 'succeeded';
  if (r.status === 'canceled') return r.cancellation_reason === 'expired' ? 'expired' : 'canceled';
  return null;
}

/** The page's CSP: the gateway's tokenization origin, and the https origins of the line items' images it shows. */
function checkoutCsp(deps: AppDeps, view: CheckoutView | null, frameAncestors: 'none' | 'any', images: readonly string[] = []): string {
  const connect = new Set([originOf(sandboxPublicUrl(deps.config))]);
  if (view?.card) connect.add(originOf(view.card.tokenUrl));
  return contentSecurityPolicy({ connect: [...connect], frameAncestors, images: [...images] });
}

/** A page's language before any intent is known (not found, unavailable): `?lg=` or the cookie. */
const requestLanguage = (ctx: Context, query: Record<string, unknown>) => pageLanguage(query, ctx.get('cookie'), null);

function htmlNotFound(deps: AppDeps, lang: PageLanguage): RouteResult {
  const locale = localeFor(lang.lang);
  return { status: 404, body: messagePage(PAGE_ASSETS, notFoundCopy(locale), locale), headers: pageHeaders(checkoutCsp(deps, null, 'none')) };
}

/** A page that cannot reach MongoDB says so in HTML, not in the API's JSON error. */
async function htmlPage(deps: AppDeps, lang: PageLanguage, render: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await render();
  } catch (err) {
    if (!isDependencyDown(err)) throw err;
    const locale = localeFor(lang.lang);
    const body = messagePage(PAGE_ASSETS, unavailableCopy(locale), locale);
    return { status: 503, body, headers: { ...pageHeaders(checkoutCsp(deps, null, 'none')), 'Retry-After': '5' } };
  }
}

/** Remembers a `?lg=` for this intent's pages, so the 3-D Secure return (whose URL has no `lg`) keeps it. */
function languageHeaders(deps: AppDeps, ctx: Context, id: string, lang: PageLanguage): Record<string, string> {
  if (!lang.fromQuery) return {};
  const secure = ctx.secure || /^https:/i.test(deps.config.PUBLIC_BASE_URL ?? '');
  return { 'Set-Cookie': languageCookie(pagePath(id), lang.fromQuery, secure) };
}

async function renderCheckout(
  deps: AppDeps,
  ctx: Context,
  id: string,
  query: Record<string, unknown>,
  layout: 'hosted' | 'embed',
): Promise<RouteResult> {
  const credential = credentialFrom(query, layout === 'hosted' ? ['client_secret'] : ['publishable_key']);
  const intent = await authorizedIntent(deps.mongo, deps.config, id, credential, String(ctx.state.region));
  if (!intent || !credential) return htmlNotFound(deps, requestLanguage(ctx, query));
  const view = await loadCheckoutView(deps.mongo, deps.config, intent, '');
  const lang = pageLanguage(query, ctx.get('cookie'), intent.lg);
  const locale = localeFor(lang.lang);
  const hosted = layout === 'hosted';
  const credentialQuery = `${credential.kind === 'client_secret' ? 'client_secret' : 'key'}=${encodeURIComponent(credential.value)}`;
  const urls = merchantUrls(intent);
  const returnUrl = urls.returnUrl;
  const resultUrl = hosted ? withLanguage(`${pagePath(id, '/result')}?${credentialQuery}`, lang) : null;
  const outcome = finalOutcome(intent);
  const config: CheckoutClientConfig = {
    mode: layout,
    paymentIntent: intent._id,
    amountLabel: view.amountLabel,
    merchantName: view.merchantName,
    bearer: credential.value,
    attemptsUrl: attemptsUrl(intent._id),
    statusUrl: `${pagePath(id, '/status')}?${credentialQuery}`,
    resultUrl,
    returnUrl: hosted ? returnUrl : null,
    ...(hosted && (urls.finalSuccessUrl || urls.finalFailureUrl) ? { finalSuccessUrl: urls.finalSuccessUrl, finalFailureUrl: urls.finalFailureUrl } : {}),
    tokenUrl: view.card?.tokenUrl ?? null,
    connector: view.card?.connector ?? null,
    expiresAt: intent.expires_at.toISOString(),
    attempt: intent.status === 'pending' ? attemptFrom(query) : null,
    outcome,
    copy: outcomeCopies(view.merchantName, view.amountLabel, locale),
    ...clientDefaults(locale),
  };
  const backToMerchant = fill(locale.text.returnTo, { merchant: isolate(locale, view.merchantName) });
  const exit = outcome ? exitUrl(urls, outcome) : returnUrl;
  const exitLink = !hosted ? null : exit ? { href: exit, label: backToMerchant } : { href: resultUrl!, label: locale.text.continue };
  const giveUp = hosted ? giveUpUrl(urls) : null;
  // Line items (and their images) are shown in the hosted layout only.
  const images = hosted ? lineItemsOf(intent).imageOrigins : [];
  return {
    status: 200,
    body: checkoutPage(view, {
      layout,
      assets: PAGE_ASSETS,
      config,
      exitLink,
      giveUp: giveUp ? { href: giveUp, label: backToMerchant, shown: !!intent.last_failure_code } : null,
    }),
    headers: {
      ...pageHeaders(checkoutCsp(deps, view, hosted ? 'none' : 'any', images), { framable: !hosted }),
      ...(hosted ? languageHeaders(deps, ctx, id, lang) : {}),
    },
  };
}

const statusSchema = z.object({
  payment_intent: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  outcome: z.enum(['open', 'processing', 'failed', 'succeeded', 'canceled', 'expired']),
  failure_code: z.string().optional(),
  return_url: z.string().optional(),
  expires_at: z.string(),
});

export const hostedPageRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'get',
    path: '/pay/:payment_intent',
    summary: 'Hosted payment page (the intent `url`; needs its client_secret)',
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params, query, deps, ctx }) => htmlPage(deps, requestLanguage(ctx, query), () => renderCheckout(deps, ctx, params.payment_intent, query, 'hosted')),
  }),
  route({
    ...common,
    method: 'get',
    path: '/pay/:payment_intent/embed',
    summary: 'Embedded payment form, framed by /js/v1/embed.js (needs a publishable key of the tenant)',
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params, query, deps, ctx }) => htmlPage(deps, requestLanguage(ctx, query), () => renderCheckout(deps, ctx, params.payment_intent, query, 'embed')),
  }),
  route({
    ...common,
    method: 'get',
    path: '/pay/:payment_intent/status',
    summary: "Where the customer's payment stands (polled by the hosted page and embedded form)",
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'Status', schema: statusSchema }, 404: { description: 'Unknown intent or wrong credential' } },
    handler: async ({ params, query, deps, ctx }) => {
      const id = params.payment_intent;
      const credential: CheckoutCredential | null = credentialFrom(query, ['client_secret', 'publishable_key']);
      const intent = await authorizedIntent(deps.mongo, deps.config, id, credential, String(ctx.state.region));
      if (!intent) throw notFound('payment_intent', id, 'payment_intent');
      const live = intent.status === 'pending' ? await liveIntentState(deps.temporal, id) : null;
      const answer = checkoutOutcome(intent, live, attemptFrom(query), new Date());
      const returnUrl = credential?.kind === 'client_secret' ? safeHttpUrl(intent.return_url) : null;
      return {
        status: 200,
        body: {
          payment_intent: intent._id,
          status: intent.status,
          ...answer,
          ...(returnUrl ? { return_url: returnUrl } : {}),
          expires_at: intent.expires_at.toISOString(),
        },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/pay/:payment_intent/result',
    summary: 'Generic result page, where the hosted flow ends without a return_url (or final URL)',
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params, query, deps, ctx }) =>
      htmlPage(deps, requestLanguage(ctx, query), async () => {
        const id = params.payment_intent;
        const credential = credentialFrom(query, ['client_secret']);
        const intent = await authorizedIntent(deps.mongo, deps.config, id, credential, String(ctx.state.region));
        if (!intent || !credential) return htmlNotFound(deps, requestLanguage(ctx, query));
        const view = await loadCheckoutView(deps.mongo, deps.config, intent, '');
        const lang = pageLanguage(query, ctx.get('cookie'), intent.lg);
        const locale = localeFor(lang.lang);
        const payAgainHref = withLanguage(`${pagePath(id)}?client_secret=${encodeURIComponent(credential.value)}`, lang);
        // An older intent's final URL for its ending (a v202607 intent's result page stays as it was).
        const outcome = finalOutcome(intent);
        const urls = merchantUrls(intent);
        const exit = outcome && finalUrl(urls, outcome) ? exitUrl(urls, outcome) : null;
        const exitLink = exit ? { href: exit, label: fill(locale.text.returnTo, { merchant: isolate(locale, view.merchantName) }) } : null;
        return {
          status: 200,
          body: resultPage(view, { assets: PAGE_ASSETS, payAgainHref, locale, exit: exitLink }),
          headers: pageHeaders(checkoutCsp(deps, null, 'none', lineItemsOf(intent).imageOrigins)),
        };
      }),
  }),
  route({
    ...common,
    method: 'get',
    path: '/js/v1/embed.js',
    summary: 'Embedded form loader for merchant pages',
    query: anyQuery,
    responses: { 200: { description: 'JavaScript' } },
    handler: async ({ ctx }) => serveAsset(EMBED_JS, ctx, 'short'),
  }),
  route({
    ...common,
    method: 'get',
    path: '/assets/hosted/:file',
    summary: 'Hosted page script, styles and icon',
    params: z.object({ file: z.string() }),
    query: anyQuery,
    responses: { 200: { description: 'Static file' }, 404: { description: 'No such file' } },
    handler: async ({ params, ctx }) => {
      const asset = Object.prototype.hasOwnProperty.call(ASSETS, params.file) ? ASSETS[params.file as keyof typeof ASSETS] : null;
      if (!asset) throw notFound('asset', params.file, 'file');
      return serveAsset(asset, ctx, 'versioned');
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/demo/embedded',
    summary: 'A pretend merchant page embedding the form (not served in production)',
    query: z.looseObject({ payment_intent: z.string().max(100).optional(), key: z.string().max(200).optional() }),
    responses: { 200: { description: 'HTML page' } },
    handler: async ({ query, deps, ctx }) => {
      // A page styled as "a shop" has no business on a production payment domain.
      if (deps.config.NODE_ENV === 'production' || !query.payment_intent || !query.key) return htmlNotFound(deps, requestLanguage(ctx, query));
      const csp = contentSecurityPolicy({ frameAncestors: 'none', frames: ["'self'"] });
      return {
        status: 200,
        body: demoShopPage({ assets: PAGE_ASSETS, paymentIntent: query.payment_intent, publishableKey: query.key }),
        headers: pageHeaders(csp),
      };
    },
  }),
];
