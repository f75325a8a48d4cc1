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
import {
  checkoutPage,
  clientDefaults,
  demoShopPage,
  messagePage,
  NOT_FOUND_COPY,
  outcomeCopies,
  resultPage,
  type CheckoutClientConfig,
  UNAVAILABLE_COPY,
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

function checkoutCsp(deps: AppDeps, view: CheckoutView | null, frameAncestors: 'none' | 'any'): string {
  const connect = new Set([originOf(sandboxPublicUrl(deps.config))]);
  if (view?.card) connect.add(originOf(view.card.tokenUrl));
  return contentSecurityPolicy({ connect: [...connect], frameAncestors });
}

function htmlNotFound(deps: AppDeps): RouteResult {
  return { status: 404, body: messagePage(PAGE_ASSETS, NOT_FOUND_COPY), headers: pageHeaders(checkoutCsp(deps, null, 'none')) };
}

/** A page that cannot reach MongoDB says so in HTML, not in the API's JSON error. */
async function htmlPage(deps: AppDeps, render: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await render();
  } catch (err) {
    if (!isDependencyDown(err)) throw err;
    const body = messagePage(PAGE_ASSETS, UNAVAILABLE_COPY);
    return { status: 503, body, headers: { ...pageHeaders(checkoutCsp(deps, null, 'none')), 'Retry-After': '5' } };
  }
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
  if (!intent || !credential) return htmlNotFound(deps);
  const view = await loadCheckoutView(deps.mongo, deps.config, intent, '');
  const credentialQuery = `${credential.kind === 'client_secret' ? 'client_secret' : 'key'}=${encodeURIComponent(credential.value)}`;
  const returnUrl = safeHttpUrl(intent.return_url);
  const resultUrl = layout === 'hosted' ? `${pagePath(id, '/result')}?${credentialQuery}` : null;
  const config: CheckoutClientConfig = {
    mode: layout,
    paymentIntent: intent._id,
    amountLabel: view.amountLabel,
    merchantName: view.merchantName,
    bearer: credential.value,
    attemptsUrl: attemptsUrl(intent._id),
    statusUrl: `${pagePath(id, '/status')}?${credentialQuery}`,
    resultUrl,
    returnUrl: layout === 'hosted' ? returnUrl : null,
    tokenUrl: view.card?.tokenUrl ?? null,
    connector: view.card?.connector ?? null,
    expiresAt: intent.expires_at.toISOString(),
    attempt: intent.status === 'pending' ? attemptFrom(query) : null,
    outcome: finalOutcome(intent),
    copy: outcomeCopies(view.merchantName, view.amountLabel),
    ...clientDefaults(),
  };
  const exitLink =
    layout === 'embed' ? null : returnUrl ? { href: returnUrl, label: `Return to ${view.merchantName}` } : { href: resultUrl!, label: 'Continue' };
  return {
    status: 200,
    body: checkoutPage(view, { layout, assets: PAGE_ASSETS, config, exitLink }),
    headers: pageHeaders(checkoutCsp(deps, view, layout === 'embed' ? 'any' : 'none'), { framable: layout === 'embed' }),
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
    handler: ({ params, query, deps, ctx }) => htmlPage(deps, () => renderCheckout(deps, ctx, params.payment_intent, query, 'hosted')),
  }),
  route({
    ...common,
    method: 'get',
    path: '/pay/:payment_intent/embed',
    summary: 'Embedded payment form, framed by /js/v1/embed.js (needs a publishable key of the tenant)',
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params, query, deps, ctx }) => htmlPage(deps, () => renderCheckout(deps, ctx, params.payment_intent, query, 'embed')),
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
    summary: 'Generic result page, where the hosted flow ends without a return_url',
    params: intentParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' } },
    handler: ({ params, query, deps, ctx }) =>
      htmlPage(deps, async () => {
        const id = params.payment_intent;
        const credential = credentialFrom(query, ['client_secret']);
        const intent = await authorizedIntent(deps.mongo, deps.config, id, credential, String(ctx.state.region));
        if (!intent || !credential) return htmlNotFound(deps);
        const view = await loadCheckoutView(deps.mongo, deps.config, intent, '');
        const payAgainHref = `${pagePath(id)}?client_secret=${encodeURIComponent(credential.value)}`;
        return { status: 200, body: resultPage(view, { assets: PAGE_ASSETS, payAgainHref }), headers: pageHeaders(checkoutCsp(deps, null, 'none')) };
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
    handler: async ({ query, deps }) => {
      // A page styled as "a shop" has no business on a production payment domain.
      if (deps.config.NODE_ENV === 'production' || !query.payment_intent || !query.key) return htmlNotFound(deps);
      const csp = contentSecurityPolicy({ frameAncestors: 'none', frames: ["'self'"] });
      return {
        status: 200,
        body: demoShopPage({ assets: PAGE_ASSETS, paymentIntent: query.payment_intent, publishableKey: query.key }),
        headers: pageHeaders(csp),
      };
    },
  }),
];
