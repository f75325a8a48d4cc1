import type { Context } from 'koa';
import { z } from 'zod';
import { notFound } from '../../domain/errors';
import type { PaymentIntentRecord } from '../../platform/records';
import { isDependencyDown } from '../http/dependency-errors';
import type { AppDeps } from '../deps';
import { billingPageOf } from './billing-paths';
import { attemptFrom } from './billing-page-kit';
import { authorizedIntent, credentialFrom, loadCheckoutView, type CheckoutCredential, type CheckoutView } from './checkout-view';
import { contentSecurityPolicy, originOf, pageHeaders } from './csp';
import { safeHttpUrl } from './html';
import { cardSavedBy, checkoutOutcome, liveIntentState, pendingPageState, type PendingPageState } from './intent-status';
import { localeFor } from './locale';
import { intentLanguage, rememberLanguage, requestLanguage, type PageLanguage } from './page-language';
import { checkoutPageSetup, pagePath, resultPageSetup } from './page-setup';
import { checkoutPage, demoShopPage, messagePage, notFoundCopy, resultPage, unavailableCopy, type PageAssets } from './pages';
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

const intentParams = z.object({ payment_intent: z.string().min(1).max(100) });
// Pages accept any query (a merchant may add tracking parameters to the URL); what we read we check here.
const anyQuery = z.looseObject({});

const common = { versions: 'unversioned' as const, auth: 'none' as const, internal: true, tags: ['Hosted page'] };

/**
 * The page's CSP: the gateway's tokenization origin, and (hosted layout, the only one that shows them) the
 * https origins of the line items' images. The embedded form may be framed by any merchant site.
 */
function checkoutCsp(deps: AppDeps, view: CheckoutView | null, layout: 'hosted' | 'embed'): string {
  const connect = new Set([originOf(sandboxPublicUrl(deps.config))]);
  if (view?.card) connect.add(originOf(view.card.tokenUrl));
  const images = layout === 'hosted' && view ? view.lineItems.imageOrigins : [];
  return contentSecurityPolicy({ connect: [...connect], frameAncestors: layout === 'hosted' ? 'none' : 'any', images });
}

function htmlNotFound(deps: AppDeps, lang: PageLanguage): RouteResult {
  const locale = localeFor(lang.lang);
  return { status: 404, body: messagePage(PAGE_ASSETS, notFoundCopy(locale), locale), headers: pageHeaders(checkoutCsp(deps, null, 'hosted')) };
}

/**
 * A page in the language the request asks for (worked out once, here), and one that cannot reach MongoDB
 * says so in HTML, not in the API's JSON error.
 */
async function htmlPage(
  deps: AppDeps,
  ctx: Context,
  query: Record<string, unknown>,
  render: (lang: PageLanguage) => Promise<RouteResult>,
): Promise<RouteResult> {
  const lang = requestLanguage(ctx, query);
  try {
    return await render(lang);
  } catch (err) {
    if (!isDependencyDown(err)) throw err;
    const locale = localeFor(lang.lang);
    const body = messagePage(PAGE_ASSETS, unavailableCopy(locale), locale);
    return { status: 503, body, headers: { ...pageHeaders(checkoutCsp(deps, null, 'hosted')), 'Retry-After': '5' } };
  }
}

/** A pending intent's live attempt, as its pages need it (a final intent has none). */
async function pendingState(deps: AppDeps, intent: PaymentIntentRecord): Promise<PendingPageState> {
  if (intent.status !== 'pending') return 'payable';
  return pendingPageState(intent, await liveIntentState(deps.temporal, intent._id), deps.config.MAX_ATTEMPTS_PER_INTENT);
}

async function renderCheckout(
  deps: AppDeps,
  ctx: Context,
  id: string,
  query: Record<string, unknown>,
  requested: PageLanguage,
  layout: 'hosted' | 'embed',
): Promise<RouteResult> {
  const credential = credentialFrom(query, layout === 'hosted' ? ['client_secret'] : ['publishable_key']);
  const intent = await authorizedIntent(deps.mongo, deps.config, id, credential, String(ctx.state.region));
  if (!intent || !credential) return htmlNotFound(deps, requested);
  // An intent of a hosted billing page (a checkout session, a portal's card update) is paid there, with its
  // card saved: a 3-D Secure challenge that returns here goes back to that page.
  const billingPage = layout === 'hosted' ? billingPageOf(intent, query) : null;
  if (billingPage) return { status: 303, body: '', headers: { Location: billingPage, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } };
  const [view, pending] = await Promise.all([loadCheckoutView(deps.mongo, deps.config, intent, ''), pendingState(deps, intent)]);
  const lang = intentLanguage(requested, intent.lg);
  const page = checkoutPageSetup(view, { layout, credential, lang, attempt: attemptFrom(query), pending });
  // Remembers a `?lg=` for this intent's pages, so the 3-D Secure return (whose URL has no `lg`) keeps it.
  if (layout === 'hosted') rememberLanguage(ctx, pagePath(id), lang);
  return {
    status: 200,
    body: checkoutPage(view, { ...page, assets: PAGE_ASSETS }),
    headers: pageHeaders(checkoutCsp(deps, view, layout), { framable: layout === 'embed' }),
  };
}

const statusSchema = z.object({
  payment_intent: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  outcome: z.enum(['open', 'processing', 'failed', 'succeeded', 'canceled', 'expired']),
  failure_code: z.string().optional(),
  /** The card this payment saved (the customer ticked the box, or a billing page saves every card). */
  payment_method_uuid: z.string().optional(),
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
    handler: ({ params, query, deps, ctx }) => htmlPage(deps, ctx, query, (lang) => renderCheckout(deps, ctx, params.payment_intent, query, lang, 'hosted')),
  }),
  route({
    ...common,
    method: 'get',
    path: '/pay/:payment_intent/embed',
    summary: 'Embedded payment form, framed by /js/v1/embed.js (needs a publishable key of the tenant)',
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params, query, deps, ctx }) => htmlPage(deps, ctx, query, (lang) => renderCheckout(deps, ctx, params.payment_intent, query, lang, 'embed')),
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
      const savedCard = answer.outcome === 'succeeded' ? cardSavedBy(intent) : null;
      return {
        status: 200,
        body: {
          payment_intent: intent._id,
          status: intent.status,
          ...answer,
          ...(savedCard ? { payment_method_uuid: savedCard } : {}),
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
      htmlPage(deps, ctx, query, async (requested) => {
        const id = params.payment_intent;
        const credential = credentialFrom(query, ['client_secret']);
        const intent = await authorizedIntent(deps.mongo, deps.config, id, credential, String(ctx.state.region));
        if (!intent || !credential) return htmlNotFound(deps, requested);
        const [view, pending] = await Promise.all([loadCheckoutView(deps.mongo, deps.config, intent, ''), pendingState(deps, intent)]);
        const page = resultPageSetup(view, credential.value, intentLanguage(requested, intent.lg), pending);
        return {
          status: 200,
          body: resultPage(view, { ...page, assets: PAGE_ASSETS }),
          headers: pageHeaders(checkoutCsp(deps, view, 'hosted')),
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
