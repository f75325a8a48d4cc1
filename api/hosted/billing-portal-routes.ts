import { z } from 'zod';
import { DomainError } from '../../domain/errors';
import type { PortalSessionRecord } from '../../platform/billing-records';
import type { AppDeps } from '../deps';
import { route, type RouteDef, type RouteResult } from '../http/route';
import { portalActionBody, portalSwitchBody } from '../billing-portal/schemas';
import {
  applySwitch,
  cardUpdateIntent,
  chargeAtPeriodEndIfCanceled,
  customerSubscription,
  finishCardUpdate,
  isEnded,
  owedAtCancel,
  planNameMap,
  portalOverview,
  portalSessionForAction,
  portalSessionState,
  previewSwitch,
  setCancelAtPeriodEnd,
  startCardUpdate,
  switchablePlans,
  switchRefusal,
} from '../billing-portal/service';
import { portalPagePath } from './billing-paths';
import {
  anyQuery,
  attemptFrom,
  BILLING_ASSETS,
  billingCommon,
  billingHtml,
  cardFormConfig,
  htmlAnswer,
  notFoundPage,
  redirect,
  sessionLanguage,
} from './billing-page-kit';
import {
  billingMessagePage,
  longDate,
  portalCancelPage,
  portalCardPage,
  portalOverviewPage,
  portalSwitchConfirmPage,
  portalSwitchListPage,
  type PortalPageBase,
} from './billing-pages';
import { csrfTokenFor } from './billing-tokens';
import { loadCheckoutView } from './checkout-view';
import { outcomeCopy } from './copy';
import { safeHttpUrl } from './html';
import { fill, isolate, localeFor, type Locale } from './locale';
import { rememberLanguage, withLanguage, type PageLanguage } from './page-language';
import { planData } from '../../data/plans';
import { tenantData } from '../../data/tenants';

// The billing portal's pages (GET, HTML) and its forms (POST, JSON: the page's script sends them with the
// session's CSRF token and follows the `redirect` it is answered). Each step is a page of its own: the
// overview, a plan switch (the plans, then the confirm step with its prorations), a cancellation, a card update.

const tags = ['Hosted page'];
const sessionParams = z.object({ session: z.string().min(1).max(100) });
const subParams = z.object({ session: z.string().min(1).max(100), subscription: z.string().min(1).max(100) });

type Notice = 'switched' | 'canceled' | 'renewed' | 'card_updated';

/** The request's page context: its session (open), language and the links it draws. */
interface PortalPage {
  session: PortalSessionRecord;
  lang: PageLanguage;
  locale: Locale;
  base: PortalPageBase;
}

/**
 * Opens the session a page names, or answers the page that says why not: unknown (404) or expired (410, with
 * the way back to the merchant).
 */
async function openPage(deps: AppDeps, id: string, requested: PageLanguage, remember: (l: PageLanguage) => void): Promise<PortalPage | RouteResult> {
  const state = await portalSessionState(deps, id);
  if (state.kind === 'unknown') {
    const locale = localeFor(requested.lang);
    return notFoundPage(deps, locale, { title: locale.text.portalNotFoundTitle, message: locale.text.portalNotFoundMessage });
  }
  const session = state.session;
  const lang = sessionLanguage(requested, session.locale);
  remember(lang);
  const locale = localeFor(lang.lang);
  const merchantName = (await tenantData(deps.mongo).find(session.tenant_id))?.name ?? 'Merchant';
  const returnUrl = safeHttpUrl(session.return_url);
  if (state.kind === 'expired') {
    const t = locale.text;
    const merchant = isolate(locale, merchantName);
    const body = billingMessagePage(BILLING_ASSETS, locale, { tone: 'neutral', title: t.portalExpiredTitle, message: fill(t.portalExpiredMessage, { merchant }) }, {
      merchant: { merchantName, testMode: false },
      link: returnUrl ? { href: returnUrl, label: fill(t.returnTo, { merchant }) } : null,
    });
    return htmlAnswer(deps, 410, body);
  }
  return {
    session,
    lang,
    locale,
    base: {
      merchant: { merchantName, testMode: false },
      csrfToken: csrfTokenFor(session._id, deps.config.KEY_HASH_SECRET),
      link: (suffix: string) => withLanguage(portalPagePath(session._id, suffix), lang),
      returnUrl,
    },
  };
}

const isPage = (x: PortalPage | RouteResult): x is PortalPage => 'session' in x;

function pageRoute(path: string, summary: string, render: (deps: AppDeps, page: PortalPage, p: Record<string, string>, query: Record<string, unknown>) => Promise<RouteResult>, withSub = false): RouteDef {
  return route({
    ...billingCommon,
    tags,
    method: 'get',
    path,
    summary,
    params: withSub ? subParams : sessionParams,
    query: anyQuery,
    responses: { 200: { description: 'HTML page' }, 404: { description: 'HTML "not found" page' }, 410: { description: 'HTML "expired" page' } },
    handler: ({ params, query, deps, ctx }) =>
      billingHtml(deps, ctx, query, async (requested) => {
        const p = params as Record<string, string>;
        const page = await openPage(deps, p.session!, requested, (l) => rememberLanguage(ctx, portalPagePath(p.session!), l));
        if (!isPage(page)) return page;
        try {
          return await render(deps, page, p, query);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          // A page of something this session cannot see (another customer's subscription): not found, in HTML.
          if (err.kind === 'not_found') return notFoundPage(deps, page.locale, { title: page.locale.text.portalNotFoundTitle, message: page.locale.text.portalNotFoundMessage });
          // A step that no longer applies (the subscription ended, a plan no longer offered): back to the overview.
          if (err.kind === 'conflict' || err.kind === 'invalid_request') return redirect(page.base.link(''));
          throw err;
        }
      }),
  });
}

/** A form's answer: where the page's script sends the browser next (our page, the chosen language kept). */
const next = (session: string, query: Record<string, unknown>, suffix: string): RouteResult => {
  const lg = typeof query['lg'] === 'string' && /^[a-z]{2}$/.test(query['lg']) ? (query['lg'] as string) : null;
  const url = portalPagePath(session, suffix);
  return { status: 200, body: { redirect: lg ? `${url}${url.includes('?') ? '&' : '?'}lg=${lg}` : url }, headers: { 'Cache-Control': 'no-store' } };
};

function actionRoute<B extends z.ZodType<{ csrf_token: string }>>(
  path: string,
  summary: string,
  body: B,
  act: (deps: AppDeps, s: PortalSessionRecord, p: Record<string, string>, b: z.infer<B>, query: Record<string, unknown>) => Promise<RouteResult>,
): RouteDef {
  return route({
    ...billingCommon,
    tags,
    method: 'post',
    path,
    summary,
    params: path.includes(':subscription') ? subParams : sessionParams,
    query: anyQuery,
    body,
    responses: { 200: { description: '`{redirect}`: the page to show next' }, 403: { description: 'Not this session\'s form' }, 404: { description: 'Unknown session' }, 409: { description: 'The session expired, or the subscription cannot change' } },
    handler: async ({ params, body: b, query, deps }) => {
      const p = params as Record<string, string>;
      const s = await portalSessionForAction(deps, p.session!, (b as { csrf_token: string }).csrf_token);
      return act(deps, s, p, b as z.infer<B>, query);
    },
  });
}

const SUB = '/billing/portal/:session/subscriptions/:subscription';

export const portalPageRoutes: RouteDef[] = [
  pageRoute('/billing/portal/:session', "The billing portal's overview (a session's `url`)", async (deps, page, _p, query) => {
    const o = await portalOverview(deps, page.session);
    const t = page.locale.text;
    const raw = query['notice'];
    const notice = typeof raw === 'string' && ['switched', 'canceled', 'renewed', 'card_updated'].includes(raw) ? (raw as Notice) : null;
    let words: string | null = null;
    if (notice === 'switched') words = t.portalNoticeSwitched;
    if (notice === 'renewed') words = t.portalNoticeRenewed;
    if (notice === 'card_updated') words = t.portalNoticeCardUpdated;
    if (notice === 'canceled') {
      const sub = o.subscriptions.find((x) => x._id === query['subscription']);
      words = sub ? fill(t.portalNoticeCanceled, { date: longDate(page.locale, sub.snapshot.currentPeriodEnd) }) : null;
    }
    const base = { ...page.base, merchant: { ...page.base.merchant, merchantName: o.merchantName } };
    return htmlAnswer(deps, 200, portalOverviewPage(BILLING_ASSETS, page.locale, { ...base, ...o, notice: words }));
  }),

  pageRoute(
    `${SUB}/switch`,
    'A plan switch: the plans, then (`?plan=`) the confirm step with its prorations',
    async (deps, page, p, query) => {
      const sub = await customerSubscription(deps, page.session, p.subscription!);
      if (switchRefusal(sub)) return redirect(page.base.link(''));
      const plan = typeof query['plan'] === 'string' ? query['plan'] : null;
      if (!plan) {
        const plans = await switchablePlans(deps, page.session, sub);
        return htmlAnswer(deps, 200, portalSwitchListPage(BILLING_ASSETS, page.locale, { ...page.base, subscription: sub, plans }));
      }
      const preview = await previewSwitch(deps, page.session, sub, plan);
      const names = planNameMap(await planData(deps.mongo).findMany(sub.tenant_id, [...sub.snapshot.items.map((i) => i.plan), plan, ...preview.preview.lines.flatMap((l) => (l.plan ? [l.plan] : []))]));
      return htmlAnswer(deps, 200, portalSwitchConfirmPage(BILLING_ASSETS, page.locale, { ...page.base, subscription: sub, plan: preview.plan, planNames: names, preview: preview.preview, prorationDate: preview.prorationDate, confirmToken: preview.confirmToken }));
    },
    true,
  ),

  pageRoute(
    `${SUB}/cancel`,
    'Cancel at the end of the period: the confirm step',
    async (deps, page, p) => {
      const sub = await customerSubscription(deps, page.session, p.subscription!);
      if (isEnded(sub) || sub.snapshot.cancelAtPeriodEnd) return redirect(page.base.link(''));
      const names = planNameMap(await planData(deps.mongo).findMany(sub.tenant_id, sub.snapshot.items.map((i) => i.plan)));
      const [finalCharge, owed] = await Promise.all([chargeAtPeriodEndIfCanceled(deps, page.session, sub), owedAtCancel(deps, page.session, sub)]);
      return htmlAnswer(deps, 200, portalCancelPage(BILLING_ASSETS, page.locale, { ...page.base, subscription: sub, planNames: names, finalCharge, owed }));
    },
    true,
  ),

  pageRoute('/billing/portal/:session/card', 'A card update: the card form (`?payment_intent=` the card check it pays)', async (deps, page, _p, query) => {
    const intent = await cardUpdateIntent(deps, page.session, String(query['payment_intent'] ?? ''));
    if (intent.status === 'success') return redirect(page.base.link(`/card/done?payment_intent=${intent._id}`));
    if (intent.status === 'canceled') return redirect(page.base.link(''));
    const view = await loadCheckoutView(deps.mongo, deps.config, intent, '');
    const t = page.locale.text;
    const formLocale: Locale = { ...page.locale, text: { ...t, pay: t.portalSaveCard } };
    const config = cardFormConfig(deps, view, intent, formLocale, {
      returnUrl: page.base.link(`/card/done?payment_intent=${intent._id}`),
      attempt: attemptFrom(query),
      succeeded: { tone: 'success', title: t.portalCardSavedTitle, message: t.portalCardSavedMessage },
      ended: { tone: 'neutral', title: t.portalExpiredTitle, message: t.portalActionFailed },
      processing: outcomeCopy('processing', view.merchantName, view.amountLabel, page.locale),
    });
    return htmlAnswer(deps, 200, portalCardPage(BILLING_ASSETS, page.locale, { ...page.base, merchant: { merchantName: view.merchantName, testMode: !!view.card?.testMode }, view, config }), view);
  }),

  pageRoute('/billing/portal/:session/card/done', 'A card update, paid: the card becomes the subscriptions\' own, the check is refunded', async (deps, page, _p, query) => {
    const intent = await cardUpdateIntent(deps, page.session, String(query['payment_intent'] ?? ''));
    const outcome = await finishCardUpdate(deps, page.session, intent);
    if (outcome === 'updated') return redirect(page.base.link('?notice=card_updated'));
    if (outcome === 'pending') return redirect(page.base.link(`/card?payment_intent=${intent._id}`));
    const t = page.locale.text;
    const body = billingMessagePage(BILLING_ASSETS, page.locale, { tone: 'failure', title: t.portalCardFailedTitle, message: t.portalCardFailedMessage }, {
      merchant: page.base.merchant,
      link: { href: page.base.link(''), label: t.portalBack },
    });
    return htmlAnswer(deps, 200, body);
  }),

  actionRoute(`${SUB}/switch`, 'Apply a confirmed plan switch', portalSwitchBody, async (deps, s, p, b, query) => {
    await applySwitch(deps, s, p.subscription!, b);
    return next(s._id, query, '?notice=switched');
  }),
  actionRoute(`${SUB}/cancel`, 'Cancel at the end of the period', portalActionBody, async (deps, s, p, _b, query) => {
    await setCancelAtPeriodEnd(deps, s, p.subscription!, true);
    return next(s._id, query, `?notice=canceled&subscription=${encodeURIComponent(p.subscription!)}`);
  }),
  actionRoute(`${SUB}/renew`, 'Undo a cancellation at the end of the period', portalActionBody, async (deps, s, p, _b, query) => {
    await setCancelAtPeriodEnd(deps, s, p.subscription!, false);
    return next(s._id, query, '?notice=renewed');
  }),
  actionRoute('/billing/portal/:session/card', 'Start a card update: the card check the card form pays', portalActionBody, async (deps, s, _p, _b, query) => {
    const intent = await startCardUpdate(deps, s);
    return next(s._id, query, `/card?payment_intent=${intent}`);
  }),
];
