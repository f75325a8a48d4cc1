import { formatMoney } from '../../domain/money';
import type { InvoiceRecord, PlanRecord, SubscriptionRecord } from '../../platform/billing-records';
import type { CheckoutQuote } from '../checkout-sessions/quote';
import type { RefundRecord, SavedPaymentMethodRecord } from '../../platform/records';
import { isEndedSubscription, type InvoiceView } from '../../domain/billing/snapshots';
import { addMonths, periodContaining } from '../../domain/billing/periods';
import { recurringPrice, type RecurringPrice } from '../../domain/billing/recurring-price';
import type { CheckoutView } from './checkout-view';
import type { OutcomeCopy } from './copy';
import { html, type SafeHtml } from './html';
import { ICONS } from './icons';
import { fill, isolate, type Locale } from './locale';
import type { OwedAtCancel } from '../billing-portal/service';
import { incompleteExpiresAt } from '../../workflows/subscription/messages';
import { cardForm, merchantBar, outcomePanel, securedFooter, shell, type CheckoutClientConfig, type PageAssets } from './pages';

// The two hosted billing pages, rendered on the server like the payment page (pages.ts): the same shell, styles,
// header, footer, card form and script, every value escaped by `html`, every word from the page language's table
// (locales/, the billing part). A checkout session's page: the plans, the first invoice, the card form that pays
// it (saving the card). The billing portal's: the customer's subscriptions, card and invoices, and the steps of a
// plan switch (with its prorations), a cancellation and a card update. The portal's forms are sent by
// billing/portal.js as JSON (the API takes nothing else), each with the session's CSRF token.

export interface BillingAssets extends PageAssets {
  billingCss: string;
  portalJs: string;
}

/** An amount as the page writes it (a credit with a real minus sign), isolated in right-to-left text. */
export function money(locale: Locale, amount: number, currency: string): string {
  const text = formatMoney(Math.abs(amount), currency);
  return isolate(locale, amount < 0 ? `\u2212${text}` : text);
}

/** "every month", "every 3 months", in the page language. */
export function every(locale: Locale, interval: PlanRecord['interval'], count: number): string {
  const words = locale.text.intervals;
  return count === 1 ? words[interval] : fill(words[`${interval}s`], { count });
}

/** A date (UTC) in the page language: "11 April 2026", "11 avril 2026", Arabic month names with Latin digits. */
export function longDate(locale: Locale, ms: number): string {
  return new Intl.DateTimeFormat(locale.dateLocale ?? 'en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(ms);
}

function pageShell(locale: Locale, assets: BillingAssets, title: string, body: SafeHtml, opts: { script?: 'checkout' | 'portal' | null; config?: CheckoutClientConfig; data?: unknown; refresh?: { seconds: number; url: string } | null } = {}): string {
  return shell(
    {
      title,
      assets,
      bodyClass: 'layout-hosted layout-billing',
      withScript: opts.script === 'checkout',
      ...(opts.config ? { config: opts.config } : {}),
      locale,
      refresh: opts.refresh ?? null,
      stylesheets: [assets.billingCss],
      scripts: opts.script === 'portal' ? [assets.portalJs] : [],
      data: opts.data !== undefined ? [{ id: 'portal-config', value: opts.data }] : [],
    },
    body,
  );
}

type Bar = { merchantName: string; testMode: boolean };
const bar = (b: Bar, locale: Locale) => merchantBar({ merchantName: b.merchantName, card: b.testMode ? { tokenUrl: '', connector: '', testMode: true } : null }, locale);

/** A page that only says something (the session ended, expired, is unknown), with a way on. */
/** A quote's line: its plan's nickname, which the quote wrote as the plan's id when there was none. */
function quoteItemName(locale: Locale, item: CheckoutQuote['items'][number]): string {
  return item.name && item.name !== item.plan ? item.name : locale.text.planUnnamed;
}

/**
 * A paid checkout session that could not start its subscription, in words that follow its refund: being refunded,
 * refunded, or not (the gateway rejected it, or it was canceled at its SLA: the money is still with the merchant).
 * `refund` is null when its record cannot be read: then no claim either way.
 */
export function checkoutFailedCopy(locale: Locale, merchantName: string, refund: Pick<RefundRecord, 'status'> | null): { tone: OutcomeCopy['tone']; title: string; message: string } {
  const t = locale.text;
  const merchant = isolate(locale, merchantName);
  const message =
    refund?.status === 'success' ? t.csFailedMessage : refund?.status === 'pending' ? t.csFailedRefundingMessage : refund?.status === 'canceled' ? t.csFailedNotRefundedMessage : t.csFailedContactMessage;
  return { tone: 'failure', title: t.csFailedTitle, message: fill(message, { merchant }) };
}

export function billingMessagePage(
  assets: BillingAssets,
  locale: Locale,
  copy: { tone: OutcomeCopy['tone']; title: string; message: string },
  opts: { merchant?: Bar | null; link?: { href: string; label: string } | null; refresh?: { seconds: number; url: string } | null; status?: string | null } = {},
): string {
  const icon = copy.tone === 'success' ? ICONS.success : copy.tone === 'failure' ? ICONS.failure : ICONS.alert;
  const body = html`<div class="page">
<main class="checkout">
${opts.merchant ? bar(opts.merchant, locale) : null}
<div class="panel">
<section class="outcome tone-${copy.tone}" aria-labelledby="outcome-title">
  <div class="outcome-icon"><span class="oi oi-${copy.tone === 'progress' ? 'neutral' : copy.tone}">${icon}</span></div>
  <h1 id="outcome-title" class="outcome-title">${copy.title}</h1>
  <p class="outcome-message">${copy.message}</p>
  ${opts.status ? html`<p class="outcome-redirect" role="status">${opts.status}</p>` : null}
  ${opts.link ? html`<a id="outcome-link" class="button-secondary" href="${opts.link.href}">${opts.link.label}</a>` : null}
</section>
</div>
${securedFooter(locale)}
</main>
</div>`;
  return pageShell(locale, assets, copy.title, body, { refresh: opts.refresh ?? null });
}

// ---- the checkout session's page -----------------------------------------------------------------------

export interface CheckoutSessionPageModel {
  quote: CheckoutQuote;
  currency: string;
  /** The intent's checkout: the merchant, the card form's tokenizer, test mode. */
  view: CheckoutView;
  config: CheckoutClientConfig;
  cancelUrl: string | null;
  /** Unix ms the subscription would start at now (the customer's test clock time, if any). */
  startsAt: number;
  /** Unix ms of the first charge after a trial. */
  trialEndsAt: number | null;
}

/**
 * What the customer pays per period once the first invoice is made (after a trial: from its first charge), and,
 * when a coupon in it ends (`once`, `repeating`), what they pay after it and from when: the workflow's figures
 * (domain/billing/recurring-price.ts).
 */
export function checkoutRecurringPrice(q: CheckoutQuote, startsAt: number, trialEndsAt: number | null): RecurringPrice {
  const trial = q.trial_days > 0 && trialEndsAt !== null;
  // A trial anchors the cycle on its end; else the first period starts now and the next one is the first renewal.
  const anchor = trial ? trialEndsAt : startsAt;
  const nextStart = (t: number) => periodContaining(anchor, q.interval, q.interval_count, t).end;
  const c = q.coupon;
  return recurringPrice({
    amounts: q.items.map((i) => i.amount),
    taxRates: q.tax_rates.map((r) => ({ id: r.id, percentage: r.percentage, inclusive: r.inclusive })),
    discount: c ? { percentOff: c.percent_off, amountOff: c.amount_off, duration: c.duration, end: c.duration === 'repeating' ? addMonths(startsAt, c.duration_in_months ?? 0) : null } : null,
    // Without a trial a `once` coupon is spent by the first invoice, if it reduced it.
    usedOnce: !trial && q.first.discount > 0,
    firstStart: trial ? anchor : nextStart(anchor),
    nextStart,
  });
}

/** The words the card form and its script use on this page: a "Subscribe" button, the card heading. */
export function checkoutSessionTexts(locale: Locale, quote: CheckoutQuote): Locale {
  const t = locale.text;
  return { ...locale, text: { ...t, pay: quote.trial_days > 0 ? t.csStartTrial : t.csSubscribe, payWithCard: t.csCardHeading } };
}

/**
 * The figures under the lines. Without a trial, the first invoice's (paid today). With one, the lines' prices are
 * those of the first charge at the trial's end: its subtotal, discount and tax lead to its total ("Total after
 * the trial"), and "Total due today" is the trial's 0, so every figure follows from the lines above it.
 */
function quoteTotals(locale: Locale, q: CheckoutQuote, currency: string): SafeHtml {
  const t = locale.text;
  const trial = q.trial_days > 0;
  const f = trial ? q.renewal : q.first;
  const row = (label: string, amount: number, cls = '') => html`<div class="${cls}"><dt>${label}</dt><dd data-amount="${amount}">${money(locale, amount, currency)}</dd></div>`;
  const taxLabel = q.tax_rates.map((r) => fill(r.inclusive ? t.csTaxIncluded : t.csTax, { name: isolate(locale, r.display_name), percentage: String(r.percentage) })).join(', ');
  return html`<dl class="totals" id="totals">
    ${row(t.csSubtotal, f.subtotal)}
    ${f.discount > 0 ? row(q.coupon?.name ? fill(t.csDiscountNamed, { name: isolate(locale, q.coupon.name) }) : t.csDiscount, -f.discount) : null}
    ${q.tax_rates.length ? row(taxLabel, f.tax) : null}
    ${trial ? row(t.csTotalAfterTrial, f.total) : null}
    ${row(t.csTotalToday, q.first.total, 'totals-total')}
  </dl>`;
}

export function checkoutSessionPage(assets: BillingAssets, locale: Locale, m: CheckoutSessionPageModel): string {
  const t = locale.text;
  const q = m.quote;
  const merchant = isolate(locale, m.view.merchantName);
  const per = every(locale, q.interval, q.interval_count);
  // The lasting price (what a period costs once a coupon that ends has ended), or the trial; the line under the
  // totals says what each period costs until then, and from when the price changes.
  const price = checkoutRecurringPrice(q, m.startsAt, m.trialEndsAt);
  const amount = money(locale, price.total, m.currency);
  const later = price.later ? { later: money(locale, price.later.total, m.currency), laterDate: longDate(locale, price.later.from) } : null;
  const headline = q.trial_days > 0 ? fill(t.csTrial, { days: q.trial_days }) : money(locale, price.later?.total ?? price.total, m.currency);
  let then: string;
  if (q.trial_days > 0 && m.trialEndsAt !== null) {
    const date = longDate(locale, m.trialEndsAt);
    then = later ? fill(t.csTrialThenUntil, { amount, every: per, date, ...later }) : fill(t.csTrialThen, { amount, every: per, date });
  } else then = later ? fill(t.csThenUntil, { amount, every: per, ...later }) : fill(t.csThen, { amount, every: per });
  const formLocale = checkoutSessionTexts(locale, q);
  const body = html`<div class="page">
<main class="checkout">
${merchantBar(m.view, locale)}
<section class="summary" aria-labelledby="checkout-heading">
  <h1 id="checkout-heading" class="summary-title">${fill(t.csHeading, { merchant })}</h1>
  <p class="summary-amount">${headline}${q.trial_days > 0 ? null : html` <span class="summary-every">${per}</span>`}</p>
  <h2 class="visually-hidden">${t.csPlans}</h2>
  <ul class="line-items" aria-label="${t.csPlans}">
    ${q.items.map(
      (i) => html`<li class="line-item">
      <span class="line-item-main"><span class="line-item-name">${isolate(locale, quoteItemName(locale, i))}</span><span class="line-item-quantity">${
        i.unit_amount !== null ? fill(t.csItemPrice, { quantity: i.quantity, price: money(locale, i.unit_amount, m.currency), every: per }) : fill(t.portalPrice, { amount: money(locale, i.amount, m.currency), every: per })
      }</span></span>
      <span class="line-item-total">${money(locale, i.amount, m.currency)}</span>
    </li>`,
    )}
  </ul>
  ${quoteTotals(locale, q, m.currency)}
  <p class="totals-then" id="totals-then">${then}</p>
  ${q.charge.verification ? html`<p class="notice card-check">${fill(t.csCardCheck, { amount: money(locale, q.charge.amount, m.currency) })}</p>` : null}
</section>
${cardPanel(
  m.view,
  formLocale,
  html`<p class="mandate">${fill(t.csMandate, { merchant })}</p>
    ${m.cancelUrl ? html`<p class="back-link"><a href="${m.cancelUrl}">${fill(t.csBack, { merchant })}</a></p>` : null}`,
)}
${securedFooter(locale)}
</main>
<p class="page-note">${fill(t.pageNote, { merchant })}</p>
</div>`;
  return pageShell(locale, assets, fill(t.csTitle, { merchant }), body, { script: 'checkout', config: m.config });
}

// ---- the billing portal ----------------------------------------------------------------------------------

export interface PortalPageBase {
  merchant: Bar;
  csrfToken: string;
  /** Our own links, with a chosen language carried: `link('/subscriptions/sub_1/switch')`. */
  link: (suffix: string) => string;
  returnUrl: string | null;
}

function portalFrame(assets: BillingAssets, locale: Locale, base: PortalPageBase, title: string, heading: SafeHtml, content: SafeHtml): string {
  const t = locale.text;
  const merchant = isolate(locale, base.merchant.merchantName);
  const body = html`<div class="page">
<main class="checkout checkout-wide">
${bar(base.merchant, locale)}
${heading}
<div class="panel portal">
${content}
<noscript><p class="notice">${t.portalNoscript}</p></noscript>
${base.returnUrl ? html`<p class="back-link"><a href="${base.returnUrl}">${fill(t.returnTo, { merchant })}</a></p>` : null}
</div>
${securedFooter(locale)}
</main>
</div>`;
  return pageShell(locale, assets, fill(t.portalTitle, { merchant }) + (title ? ` · ${title}` : ''), body, { script: 'portal', data: { csrfToken: base.csrfToken, failed: t.portalActionFailed, lang: locale.lang } });
}

/** A button that posts the session's CSRF token (and `fields`) to `action` through portal.js. */
function actionForm(base: PortalPageBase, action: string, label: string, opts: { fields?: Record<string, string | number>; style?: 'primary' | 'secondary' | 'danger'; id?: string } = {}): SafeHtml {
  const style = opts.style ?? 'secondary';
  return html`<form class="portal-form" method="post" action="${action}" data-portal-action ${opts.id ? html`id="${opts.id}"` : null}>
    <input type="hidden" name="csrf_token" value="${base.csrfToken}">
    ${Object.entries(opts.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${String(v)}">`)}
    <button type="submit" class="${style === 'secondary' ? 'button-secondary' : `pay-button button-${style}`}"><span class="spinner" aria-hidden="true"></span><span class="button-label">${label}</span></button>
    <p class="form-error" role="alert"></p>
  </form>`;
}

export interface PortalOverviewModel extends PortalPageBase {
  subscriptions: SubscriptionRecord[];
  planNames: Map<string, string>;
  card: SavedPaymentMethodRecord | null;
  invoices: InvoiceRecord[];
  /** What the last action did, said at the top. */
  notice: string | null;
  /** What the customer pays per period for each live subscription (tax and discount in), by id. */
  prices?: Map<string, RecurringPrice>;
}

/** A subscription's price as the customer pays it (its items' amounts alone when it has none: ended). */
function subscriptionPrice(locale: Locale, s: SubscriptionRecord['snapshot'], price: RecurringPrice | undefined): string {
  const t = locale.text;
  const per = every(locale, s.interval, s.intervalCount);
  const amount = money(locale, price?.total ?? s.items.reduce((n, i) => n + i.periodAmount, 0), s.currency);
  if (!price?.later) return fill(t.portalPrice, { amount, every: per });
  return fill(t.portalPriceThen, { amount, every: per, later: money(locale, price.later.total, s.currency), laterDate: longDate(locale, price.later.from) });
}

function subscriptionName(locale: Locale, sub: SubscriptionRecord, names: Map<string, string>): string {
  return sub.snapshot.items.map((i) => `${i.quantity > 1 ? `${i.quantity} × ` : ''}${names.get(i.plan) ?? locale.text.planUnnamed}`).join(', ');
}

/** When the subscription renews, its trial ends, it cancels or it ended; or that it will not renew as it stands. */
function subscriptionWhen(locale: Locale, s: SubscriptionRecord['snapshot']): string {
  const t = locale.text;
  if (isEndedSubscription(s.status)) return fill(t.portalEnded, { date: longDate(locale, s.endedAt ?? s.canceledAt ?? s.currentPeriodEnd) });
  if (s.cancelAtPeriodEnd) return fill(t.portalCancels, { date: longDate(locale, s.currentPeriodEnd) });
  if (s.status === 'trialing' && s.trialEnd) return fill(t.portalTrialEnds, { date: longDate(locale, s.trialEnd) });
  // Its first invoice unpaid, it expires rather than renews (the first invoice is not retried).
  if (s.status === 'incomplete') return fill(t.portalIncompleteExpires, { date: longDate(locale, incompleteExpiresAt(s)) });
  // Collection paused: its periods pass uninvoiced, so nothing renews until it resumes.
  if (s.pauseCollection) return s.pauseCollection.resumesAt !== null ? fill(t.portalPausedUntil, { date: longDate(locale, s.pauseCollection.resumesAt) }) : t.portalPaused;
  return fill(t.portalRenews, { date: longDate(locale, s.currentPeriodEnd) });
}

export function portalOverviewPage(assets: BillingAssets, locale: Locale, m: PortalOverviewModel): string {
  const t = locale.text;
  const merchant = isolate(locale, m.merchant.merchantName);
  const heading = html`<section class="summary" aria-labelledby="portal-heading">
  <h1 id="portal-heading" class="portal-title">${t.portalHeading}</h1>
  <p class="portal-intro">${fill(t.portalIntro, { merchant })}</p>
</section>
${m.notice ? html`<div class="portal-notice" role="status" tabindex="-1" id="portal-notice">${ICONS.success}<span>${m.notice}</span></div>` : null}`;

  const subs = html`<section class="portal-section" aria-labelledby="subscriptions-heading">
  <h2 id="subscriptions-heading" class="section-title">${t.portalSubscriptions}</h2>
  ${m.subscriptions.length === 0
    ? html`<p class="portal-empty">${t.portalNoSubscriptions}</p>`
    : html`<ul class="portal-list">
    ${m.subscriptions.map((sub) => {
      const s = sub.snapshot;
      const live = !isEndedSubscription(s.status);
      const headingId = `sub-${sub._id}`;
      return html`<li class="portal-item" data-subscription="${sub._id}" aria-labelledby="${headingId}">
      <div class="portal-item-head">
        <h3 class="portal-item-name" id="${headingId}">${isolate(locale, subscriptionName(locale, sub, m.planNames))}</h3>
        <span class="status status-${s.status}">${t.subscriptionStatuses[s.status]}</span>
      </div>
      <p class="portal-item-price">${subscriptionPrice(locale, s, m.prices?.get(sub._id))}</p>
      <p class="portal-item-when" data-when>${subscriptionWhen(locale, s)}</p>
      ${live
        ? html`<div class="portal-actions">
        ${s.items.length === 1 && s.status !== 'incomplete' && !s.cancelAtPeriodEnd ? html`<a class="button-secondary" href="${m.link(`/subscriptions/${sub._id}/switch`)}">${t.portalSwitch}</a>` : null}
        ${s.cancelAtPeriodEnd
          ? actionForm(m, m.link(`/subscriptions/${sub._id}/renew`), t.portalRenew)
          : html`<a class="button-secondary" href="${m.link(`/subscriptions/${sub._id}/cancel`)}">${t.portalCancel}</a>`}
      </div>`
        : null}
    </li>`;
    })}
  </ul>`}
</section>`;

  const card = m.card;
  const cardSection = html`<section class="portal-section" aria-labelledby="card-heading">
  <h2 id="card-heading" class="section-title">${t.portalPaymentMethod}</h2>
  ${card
    ? html`<p class="portal-card" id="portal-card"><span class="card-brand-name">${fill(t.portalCard, { brand: isolate(locale, brandName(card.brand)), last4: isolate(locale, card.last4 ?? '····') })}</span>${
        card.exp_month && card.exp_year ? html` <span class="portal-card-expiry">${fill(t.portalCardExpires, { expiry: isolate(locale, `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`) })}</span>` : null
      }</p>`
    : html`<p class="portal-empty">${t.portalNoCard}</p>`}
  <div class="portal-actions">${actionForm(m, m.link('/card'), t.portalUpdateCard)}</div>
</section>`;

  const invoices = html`<section class="portal-section" aria-labelledby="invoices-heading">
  <h2 id="invoices-heading" class="section-title">${t.portalInvoices}</h2>
  ${m.invoices.length === 0
    ? html`<p class="portal-empty">${t.portalNoInvoices}</p>`
    : html`<table class="portal-table">
    <caption class="visually-hidden">${t.portalInvoices}</caption>
    <thead><tr><th scope="col">${t.portalDate}</th><th scope="col">${t.portalAmount}</th><th scope="col">${t.portalStatus}</th></tr></thead>
    <tbody>
    ${m.invoices.map(
      (i) => html`<tr data-invoice="${i._id}"><td>${longDate(locale, i.snapshot.created)}</td><td class="num" data-amount="${i.snapshot.total}">${money(locale, i.snapshot.total, i.snapshot.currency)}</td><td><span class="status status-${i.status}">${t.invoiceStatuses[i.status]}</span></td></tr>`,
    )}
    </tbody>
  </table>`}
</section>`;
  return portalFrame(assets, locale, m, '', heading, html`${subs}${cardSection}${invoices}`);
}

function brandName(brand: string | null | undefined): string {
  if (!brand) return 'Card';
  const known: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express' };
  return known[brand.toLowerCase()] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

function stepHeading(locale: Locale, id: string, title: string, lead: string | null): SafeHtml {
  return html`<section class="summary" aria-labelledby="${id}">
  <h1 id="${id}" class="portal-title">${title}</h1>
  ${lead ? html`<p class="portal-intro">${lead}</p>` : null}
</section>`;
}

export interface PortalSwitchListModel extends PortalPageBase {
  subscription: SubscriptionRecord;
  plans: PlanRecord[];
}

/** The plans the customer may switch to, each with a link to the confirm step. */
export function portalSwitchListPage(assets: BillingAssets, locale: Locale, m: PortalSwitchListModel): string {
  const t = locale.text;
  const current = m.subscription.snapshot.items[0]!;
  const content = html`<section class="portal-section" aria-labelledby="plans-heading">
  <h2 id="plans-heading" class="visually-hidden">${t.portalChoosePlan}</h2>
  ${m.plans.filter((p) => p._id !== current.plan).length === 0 ? html`<p class="portal-empty">${t.portalNoPlans}</p>` : null}
  <ul class="portal-list">
  ${m.plans.map((p) => {
    const isCurrent = p._id === current.plan;
    const name = p.nickname ?? t.planUnnamed;
    return html`<li class="portal-item plan-option${isCurrent ? ' is-current' : ''}" data-plan="${p._id}">
      <div class="portal-item-head">
        <h3 class="portal-item-name">${isolate(locale, name)}</h3>
        ${isCurrent ? html`<span class="status status-active">${t.portalCurrentPlan}</span>` : null}
      </div>
      <p class="portal-item-price">${fill(t.portalPrice, { amount: money(locale, p.billing_scheme === 'per_unit' ? p.amount * current.quantity : p.amount, p.currency), every: every(locale, p.interval, p.interval_count) })}</p>
      ${isCurrent ? null : html`<div class="portal-actions"><a class="button-secondary" href="${m.link(`/subscriptions/${m.subscription._id}/switch?plan=${encodeURIComponent(p._id)}`)}" aria-label="${t.portalSelect}: ${name}">${t.portalSelect}</a></div>`}
    </li>`;
  })}
  </ul>
  <p class="portal-step-back"><a href="${m.link('')}">${t.portalBack}</a></p>
</section>`;
  return portalFrame(assets, locale, m, t.portalChoosePlan, stepHeading(locale, 'switch-heading', t.portalChoosePlan, null), content);
}

export interface PortalSwitchConfirmModel extends PortalPageBase {
  subscription: SubscriptionRecord;
  plan: PlanRecord;
  planNames: Map<string, string>;
  preview: InvoiceView;
  prorationDate: number;
  confirmToken: string;
}

/** The confirm step: the next invoice with the switch's prorations, computed for `prorationDate`. */
export function portalSwitchConfirmPage(assets: BillingAssets, locale: Locale, m: PortalSwitchConfirmModel): string {
  const t = locale.text;
  const p = m.preview;
  const from = m.planNames.get(m.subscription.snapshot.items[0]!.plan) ?? t.planUnnamed;
  const to = m.plan.nickname ?? t.planUnnamed;
  const cur = p.currency;
  const lineLabel = (l: InvoiceView['lines'][number]) => {
    const plan = isolate(locale, (l.plan && m.planNames.get(l.plan)) || (l.plan === m.plan._id ? to : t.planUnnamed));
    if (!l.proration) return fill(t.portalNextPeriod, { plan });
    return fill(l.amount < 0 ? t.portalCredit : t.portalCharge, { plan });
  };
  const rows = html`<dl class="totals proration" id="proration">
    ${p.lines.map(
      (l) => html`<div class="${l.proration ? 'is-proration' : ''}" data-line="${l.line}"><dt>${lineLabel(l)}</dt><dd data-amount="${l.amount}">${money(locale, l.amount, cur)}</dd></div>`,
    )}
    ${p.discount > 0 ? html`<div><dt>${t.csDiscount}</dt><dd data-amount="${-p.discount}">${money(locale, -p.discount, cur)}</dd></div>` : null}
    ${p.tax !== 0 ? html`<div><dt>${t.csTaxTotal}</dt><dd data-amount="${p.tax}">${money(locale, p.tax, cur)}</dd></div>` : null}
    <div class="totals-total"><dt>${t.portalNextTotal}</dt><dd data-amount="${p.total}" id="proration-total">${money(locale, p.total, cur)}</dd></div>
  </dl>`;
  const content = html`<section class="portal-section" aria-labelledby="proration-heading">
  <h2 id="proration-heading" class="section-title">${fill(t.portalProrationIntro, { date: longDate(locale, p.period_start * 1000) })}</h2>
  ${rows}
  <div class="portal-actions portal-confirm">
    ${actionForm(m, m.link(`/subscriptions/${m.subscription._id}/switch`), t.portalConfirm, {
      fields: { plan: m.plan._id, proration_date: m.prorationDate, confirm_token: m.confirmToken },
      style: 'primary',
      id: 'confirm-switch',
    })}
    <a class="button-secondary" href="${m.link(`/subscriptions/${m.subscription._id}/switch`)}">${t.portalBack}</a>
  </div>
</section>`;
  const lead = fill(t.portalSwitchFromTo, { from: isolate(locale, from), to: isolate(locale, to) });
  return portalFrame(assets, locale, m, t.portalConfirmSwitch, stepHeading(locale, 'confirm-heading', t.portalConfirmSwitch, lead), content);
}

export interface PortalCancelModel extends PortalPageBase {
  subscription: SubscriptionRecord;
  planNames: Map<string, string>;
  /** What the period's end would still charge (prorations pending), from the final invoice's preview; null: nothing. */
  finalCharge: { amount: number; currency: string } | null;
  /** What its open invoices still owe (a declined renewal in dunning, an unpaid first invoice); null: nothing. */
  owed?: OwedAtCancel | null;
}

/**
 * What canceling leaves to pay. Nothing owed: the period's end and its final charge, if any. Owed: that too, but
 * never "not charged again", since open invoices go on being retried (or may be collected) until the end.
 */
function cancelMessage(locale: Locale, m: PortalCancelModel): string {
  const t = locale.text;
  const s = m.subscription.snapshot;
  const date = longDate(locale, s.currentPeriodEnd);
  const final = m.finalCharge ? money(locale, m.finalCharge.amount, m.finalCharge.currency) : null;
  const o = m.owed;
  if (!o) return final ? fill(t.portalCancelMessageCharged, { date, amount: final }) : fill(t.portalCancelMessage, { date });
  const until = longDate(locale, o.until);
  const words = [
    s.status === 'incomplete' ? fill(t.portalCancelIncomplete, { date, until }) : fill(t.portalCancelEndsBy, { date }),
    fill(o.invoices === 1 ? t.portalCancelOwedOne : t.portalCancelOwedSome, { amount: money(locale, o.amount, o.currency) }),
    o.retryAt !== null
      ? fill(t.portalCancelOwedRetried, { retry: longDate(locale, o.retryAt), until })
      : fill(t.portalCancelOwedNotRetried, { merchant: isolate(locale, m.merchant.merchantName), until }),
    final ? fill(t.portalCancelFinalCharge, { date, amount: final }) : null,
    t.portalCancelNothingElse,
  ];
  return words.filter((w): w is string => w !== null).join(' ');
}

export function portalCancelPage(assets: BillingAssets, locale: Locale, m: PortalCancelModel): string {
  const t = locale.text;
  const content = html`<section class="portal-section" aria-labelledby="cancel-sub-heading">
  <h2 id="cancel-sub-heading" class="section-title">${isolate(locale, subscriptionName(locale, m.subscription, m.planNames))}</h2>
  <p class="portal-cancel-message">${cancelMessage(locale, m)}</p>
  <div class="portal-actions portal-confirm">
    ${actionForm(m, m.link(`/subscriptions/${m.subscription._id}/cancel`), t.portalCancel, { style: 'danger', id: 'confirm-cancel' })}
    <a class="button-secondary" href="${m.link('')}">${t.portalKeep}</a>
  </div>
</section>`;
  return portalFrame(assets, locale, m, t.portalCancelHeading, stepHeading(locale, 'cancel-heading', t.portalCancelHeading, null), content);
}

/** The payment page's card form and outcome panel, as both billing pages show it, with `below` under the form. */
function cardPanel(view: CheckoutView, formLocale: Locale, below: SafeHtml): SafeHtml {
  return html`<div class="panel">
  <div id="pay-section" class="pay-section">
    ${cardForm(view, formLocale, false)}
    ${below}
  </div>
  ${outcomePanel(null, null, null, false)}
  <div id="status-message" class="visually-hidden" role="status" aria-live="polite"></div>
</div>`;
}

export interface PortalCardModel extends PortalPageBase {
  view: CheckoutView;
  config: CheckoutClientConfig;
}

/** The card form of a card update: it pays the card check, saving the card, then finishes the update. */
export function portalCardPage(assets: BillingAssets, locale: Locale, m: PortalCardModel): string {
  const t = locale.text;
  const merchant = isolate(locale, m.merchant.merchantName);
  const formLocale: Locale = { ...locale, text: { ...t, pay: t.portalSaveCard, payWithCard: t.csCardHeading } };
  const body = html`<div class="page">
<main class="checkout">
${merchantBar(m.view, locale)}
<section class="summary" aria-labelledby="card-update-heading">
  <h1 id="card-update-heading" class="portal-title">${t.portalCardHeading}</h1>
  <p class="notice card-check">${fill(t.portalCardNote, { amount: money(locale, m.view.intent.amount, m.view.intent.currency) })}</p>
</section>
${cardPanel(m.view, formLocale, html`<p class="back-link"><a href="${m.link('')}">${t.portalBack}</a></p>`)}
${securedFooter(locale)}
</main>
<p class="page-note">${fill(t.pageNote, { merchant })}</p>
</div>`;
  return pageShell(locale, assets, fill(t.portalTitle, { merchant }) + ` · ${t.portalCardHeading}`, body, { script: 'checkout', config: m.config });
}
