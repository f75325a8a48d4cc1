import type { CheckoutView } from './checkout-view';
import { outcomeCopy, type OutcomeCopy } from './copy';
import { html, jsonForScript, type SafeHtml } from './html';
import { ICONS } from './icons';
import type { FinalOutcome } from './intent-status';
import { clientText, fill, fillHtml, isolate, localeFor, type ClientText, type Language, type Locale } from './locale';

// The customer-facing pages, rendered on the server as plain HTML. Every value goes through `html`, which
// escapes it; the page script reads its settings from a JSON data block, never from inline code. Every
// word comes from the page language's table (locales/), which the script gets its part of in the config.

export const PRODUCT_NAME = 'PayOrch';

/** URLs of our static files, each with its content version so browsers may cache them for good. */
export interface PageAssets {
  css: string;
  js: string;
  favicon: string;
  demoCss: string;
  demoJs: string;
  embedJs: string;
}

/** Settings the page script runs with. */
export interface CheckoutClientConfig {
  mode: 'hosted' | 'embed';
  paymentIntent: string;
  amountLabel: string;
  merchantName: string;
  /** Bearer credential for the attempts endpoint: the client secret (hosted) or publishable key (embed). */
  bearer: string;
  attemptsUrl: string;
  /** Status endpoint, credential included. */
  statusUrl: string;
  /** Where the hosted flow ends when the merchant gave no return_url. Null in the embedded form. */
  resultUrl: string | null;
  returnUrl: string | null;
  tokenUrl: string | null;
  connector: string | null;
  /**
   * The form shows "Save this card for future payments" (page-setup offersSaveCard); ticked, the attempt
   * carries `save_payment_method: true`.
   */
  offerSaveCard: boolean;
  expiresAt: string;
  /** The attempt the customer comes back from (3DS), from `attempt=<n>`. */
  attempt: number | null;
  /** Set when the intent was already final when the page was rendered. */
  outcome: FinalOutcome | null;
  /**
   * Pending, with an attempt being charged or checked with the gateway when the page was rendered: the page
   * shows "Checking your payment…" instead of the form and follows the attempt to its end.
   */
  checking?: boolean;
  /** Pending, with no attempt left: no form, the limit said in the page's language. */
  attemptLimitReached?: boolean;
  /** Already paid when rendered, saving the customer's card: that card (the success says "Card saved"). */
  savedCard?: string | null;
  copy: Record<FinalOutcome | 'processing', OutcomeCopy>;
  failureReasons: Readonly<Record<string, string>>;
  genericFailure: string;
  /** The page's language and direction, and the table entries the script shows (`{name}` placeholders). */
  lang: Language;
  dir: 'ltr' | 'rtl';
  dateLocale: string | null;
  text: ClientText;
  /** Older intents: where the customer goes once paid, or once the payment ended or they give up (hosted only, else null). */
  finalSuccessUrl: string | null;
  finalFailureUrl: string | null;
  /**
   * The hosted billing pages (checkout sessions, a portal's card update): every attempt saves the card
   * (`save_payment_method: true`) without asking, since the subscription needs it.
   */
  alwaysSaveCard?: boolean;
}

export function outcomeCopies(merchantName: string, amountLabel: string, locale: Locale): CheckoutClientConfig['copy'] {
  return {
    succeeded: outcomeCopy('succeeded', merchantName, amountLabel, locale),
    expired: outcomeCopy('expired', merchantName, amountLabel, locale),
    canceled: outcomeCopy('canceled', merchantName, amountLabel, locale),
    processing: outcomeCopy('processing', merchantName, amountLabel, locale),
  };
}

export function clientDefaults(
  locale: Locale,
): Pick<CheckoutClientConfig, 'failureReasons' | 'genericFailure' | 'lang' | 'dir' | 'dateLocale' | 'text'> {
  return {
    failureReasons: locale.text.failureReasons,
    genericFailure: locale.text.genericFailure,
    lang: locale.lang,
    dir: locale.dir,
    dateLocale: locale.dateLocale,
    text: clientText(locale),
  };
}

export interface ShellOptions {
  title: string;
  assets: PageAssets;
  bodyClass: string;
  withScript: boolean;
  config?: CheckoutClientConfig;
  locale: Locale;
  /** Sends the browser on after a few seconds, for pages without the script (an http(s) URL only). */
  refresh?: { seconds: number; url: string } | null;
  /** More of our own style sheets and scripts (the billing pages'), after the page's own. */
  stylesheets?: string[];
  scripts?: string[];
  /** More JSON data blocks for a script (`<script type="application/json" id=...>`). */
  data?: { id: string; value: unknown }[];
}

export function shell(opts: ShellOptions, body: SafeHtml): string {
  const locale = opts.locale;
  return html`<!doctype html>
<html lang="${locale.lang}"${locale.dir === 'rtl' ? html` dir="rtl"` : null}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
${opts.refresh ? html`<meta http-equiv="refresh" content="${opts.refresh.seconds}; url=${opts.refresh.url}">
` : null}<title>${opts.title}</title>
<link rel="icon" href="${opts.assets.favicon}" type="image/svg+xml">
<link rel="stylesheet" href="${opts.assets.css}">
${(opts.stylesheets ?? []).map((href) => html`<link rel="stylesheet" href="${href}">
`)}${opts.withScript ? html`<script src="${opts.assets.js}" defer></script>` : null}
${(opts.scripts ?? []).map((src) => html`<script src="${src}" defer></script>
`)}</head>
<body class="${opts.bodyClass}">
${body}
${opts.config ? html`<script type="application/json" id="checkout-config">${jsonForScript(opts.config)}</script>` : null}
${(opts.data ?? []).map((d) => html`<script type="application/json" id="${d.id}">${jsonForScript(d.value)}</script>
`)}</body>
</html>
`.value;
}

function initial(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toUpperCase() : '·';
}

export function securedFooter(locale: Locale) {
  const product = html`<strong>${PRODUCT_NAME}</strong>`;
  return html`<footer class="secured">${ICONS.lock}<span>${fillHtml(locale.text.securedBy, { product })}</span></footer>`;
}

export function merchantBar(view: Pick<CheckoutView, 'merchantName' | 'card'>, locale: Locale) {
  return html`<header class="merchant-bar">
  <div class="merchant"><span class="merchant-avatar" aria-hidden="true">${initial(view.merchantName)}</span><span class="merchant-name">${isolate(locale, view.merchantName)}</span></div>
  ${view.card?.testMode ? html`<span class="badge-test">${locale.text.testMode}</span>` : null}
</header>`;
}

/** The purchase's lines (older intents), above the amount: image, name, quantity × unit price, line total. */
function lineItemList(view: CheckoutView, locale: Locale) {
  const { items } = view.lineItems;
  if (items.length === 0) return null;
  const withImages = items.some((i) => i.image);
  return html`<ul class="line-items" aria-label="${locale.text.items}">
    ${items.map(
      (i) => html`<li class="line-item">
      ${withImages
        ? html`<span class="line-item-image">${i.image ? html`<img src="${i.image}" alt="" width="40" height="40" referrerpolicy="no-referrer">` : null}</span>`
        : null}
      <span class="line-item-main"><span class="line-item-name">${isolate(locale, i.name)}</span><span class="line-item-quantity">${fill(locale.text.quantityTimesPrice, { quantity: i.quantity, price: isolate(locale, i.unitPrice) })}</span></span>
      <span class="line-item-total">${isolate(locale, i.total)}</span>
    </li>`,
    )}
  </ul>`;
}

function summary(view: CheckoutView, locale: Locale) {
  const t = locale.text;
  const expires = view.intent.expires_at;
  const orderReference = view.intent.human_friendly_payment_intent_secret;
  return html`<section class="summary" aria-labelledby="checkout-heading">
  <h1 id="checkout-heading" class="summary-title">${fill(t.heading, { merchant: isolate(locale, view.merchantName) })}</h1>
  ${lineItemList(view, locale)}
  <p class="summary-amount">${isolate(locale, view.amountLabel)}</p>
  <dl class="summary-details">
    ${orderReference ? html`<div><dt>${t.orderReference}</dt><dd>${isolate(locale, orderReference)}</dd></div>` : null}
    <div><dt>${t.reference}</dt><dd class="mono">${view.intent._id}</dd></div>
    ${view.intent.status === 'pending'
      ? html`<div id="pay-before"><dt>${t.payBefore}</dt><dd><time datetime="${expires.toISOString()}" data-local-time>${isolate(locale, `${expires.toISOString().slice(0, 16).replace('T', ' ')} UTC`)}</time></dd></div>`
      : null}
  </dl>
</section>`;
}

function methodList(view: CheckoutView, locale: Locale) {
  // Only worth a list when there is something besides the card to mention.
  if (view.methods.length === 0 || (view.methods.length < 2 && view.card)) return null;
  const t = locale.text;
  return html`<section class="methods" aria-labelledby="methods-heading">
  <h2 id="methods-heading" class="section-title">${t.paymentMethod}</h2>
  <ul class="method-list">
    ${view.methods.map(
      (m) => html`<li class="method ${m.available ? 'is-selected' : 'is-unavailable'}">
      <img src="${m.logoUrl}" alt="" width="40" height="25" class="method-logo">
      <span class="method-title">${m.title}</span>
      <span class="method-note">${m.available ? t.methodSelected : t.methodUnavailable}</span>
    </li>`,
    )}
  </ul>
</section>`;
}

/** Unticked by default: the customer opts in. */
function saveCardChoice(locale: Locale) {
  return html`<div class="save-card">
    <input id="save-card" type="checkbox" name="save_payment_method" value="true">
    <label for="save-card">${locale.text.saveCard}</label>
  </div>`;
}

export function cardForm(view: CheckoutView, locale: Locale, offerSaveCard: boolean) {
  const t = locale.text;
  if (!view.card) return html`<p class="notice">${fill(t.cardUnavailable, { merchant: isolate(locale, view.merchantName) })}</p>`;
  const cards = {
    successCard: isolate(locale, '4242 4242 4242 4242'),
    challengeCard: isolate(locale, '4000 0000 0000 3220'),
    threeDSecure: isolate(locale, '3-D Secure'),
  };
  // Card numbers, dates and codes are written left to right on every page.
  return html`<form id="card-form" class="card-form" novalidate aria-labelledby="card-heading">
  <h2 id="card-heading" class="section-title">${t.payWithCard}</h2>
  <div class="field">
    <label for="card-number">${t.cardNumber}</label>
    <div class="input-wrap" dir="ltr">
      <input id="card-number" type="text" inputmode="numeric" autocomplete="cc-number" autocorrect="off" spellcheck="false" dir="ltr"
        placeholder="1234 1234 1234 1234" maxlength="23" required aria-describedby="card-number-error">
      <span class="card-brand" id="card-brand" aria-hidden="true"></span>
    </div>
    <p class="field-error" id="card-number-error"></p>
  </div>
  <div class="field-row">
    <div class="field">
      <label for="card-expiry">${t.expiryDate}</label>
      <input id="card-expiry" type="text" inputmode="numeric" autocomplete="cc-exp" autocorrect="off" spellcheck="false" dir="ltr"
        placeholder="${t.expiryPlaceholder}" maxlength="7" required aria-describedby="card-expiry-error">
      <p class="field-error" id="card-expiry-error"></p>
    </div>
    <div class="field">
      <label for="card-cvc">${t.cvc}</label>
      <input id="card-cvc" type="text" inputmode="numeric" autocomplete="cc-csc" autocorrect="off" spellcheck="false" dir="ltr"
        placeholder="123" maxlength="4" required aria-describedby="card-cvc-hint card-cvc-error">
      <p class="visually-hidden" id="card-cvc-hint">${t.cvcHint}</p>
      <p class="field-error" id="card-cvc-error"></p>
    </div>
  </div>
  <div class="field">
    <label for="card-name">${t.nameOnCard} <span class="optional">${t.optional}</span></label>
    <input id="card-name" type="text" autocomplete="cc-name" autocorrect="off" spellcheck="false" dir="auto">
  </div>
  ${offerSaveCard ? saveCardChoice(locale) : null}
  <div id="form-error" class="form-error" role="alert"></div>
  <button type="submit" id="pay-button" class="pay-button" disabled>
    <span class="spinner" aria-hidden="true"></span><span class="pay-label">${fill(t.pay, { amount: isolate(locale, view.amountLabel) })}</span>
  </button>
  <noscript><p class="notice">${t.noscript}</p></noscript>
  ${view.card.testMode ? html`<p class="test-hint">${fill(t.testHint, cards)}</p>` : null}
</form>`;
}

export type Link = { href: string; label: string };

/** The outcome panel: shown at once when the intent is final, filled in by the script otherwise. */
export function outcomePanel(copy: OutcomeCopy | null, link: Link | null, redirectNote: string | null = null, savedNote = false) {
  return html`<section id="outcome" class="outcome tone-${copy?.tone ?? 'progress'}" tabindex="-1" aria-labelledby="outcome-title" ${copy ? null : html`hidden`}>
  <div class="outcome-icon">
    <span class="oi oi-success">${ICONS.success}</span><span class="oi oi-failure">${ICONS.failure}</span>
    <span class="oi oi-neutral">${ICONS.clock}</span><span class="oi oi-action">${ICONS.shield}</span><span class="oi oi-progress"><span class="spinner spinner-large"></span></span>
  </div>
  <h2 id="outcome-title" class="outcome-title">${copy?.title ?? ''}</h2>
  <p id="outcome-message" class="outcome-message">${copy?.message ?? ''}</p>
  ${savedNote ? html`<p id="outcome-saved" class="outcome-saved" hidden></p>
  ` : null}<p id="outcome-redirect" class="outcome-redirect" role="status">${redirectNote ?? ''}</p>
  <a id="outcome-link" class="button-secondary" href="${link?.href ?? '#'}" ${link ? null : html`hidden`}>${link?.label ?? ''}</a>
</section>`;
}

export interface CheckoutPageOptions {
  layout: 'hosted' | 'embed';
  assets: PageAssets;
  config: CheckoutClientConfig;
  /**
   * Hosted layout, an intent already final: the merchant's URL for its ending ("Return to <merchant>"), or
   * null for our result page (`config.resultUrl`, "Continue").
   */
  merchantExit: string | null;
  /**
   * Older intents with a final_failure_url: the way back to the merchant for a customer who gives up after a
   * failed attempt (hosted layout). Shown at once when an attempt has already failed, else by the script.
   */
  giveUp: { href: string; shown: boolean } | null;
}

export function checkoutPage(view: CheckoutView, opts: CheckoutPageOptions): string {
  const locale = localeFor(opts.config.lang);
  const t = locale.text;
  const final = opts.config.outcome;
  const limited = !final && !!opts.config.attemptLimitReached;
  const checking = !final && !limited && !!opts.config.checking;
  const limitCopy: OutcomeCopy = { tone: 'neutral', title: t.notCompleted, message: t.attemptLimit };
  const shownCopy = final ? opts.config.copy[final] : limited ? limitCopy : checking ? opts.config.copy.processing : null;
  const payable = !final && !limited;
  const merchant = isolate(locale, view.merchantName);
  const amount = isolate(locale, view.amountLabel);
  const backToMerchant = fill(t.returnTo, { merchant });
  const giveUp = opts.giveUp;
  // The hosted page of an ended intent links on: back to the merchant, else to our result page.
  const exitHref = opts.layout === 'hosted' ? (opts.merchantExit ?? opts.config.resultUrl) : null;
  const exitLink = exitHref ? { href: exitHref, label: opts.merchantExit ? backToMerchant : t.continue } : null;
  const inner = html`
  ${payable
    ? html`<div id="pay-section" class="pay-section" ${checking ? html`hidden` : null}>
    ${methodList(view, locale)}
    ${cardForm(view, locale, opts.config.offerSaveCard)}
    ${giveUp ? html`<p id="give-up" class="give-up" ${giveUp.shown ? null : html`hidden`}><a href="${giveUp.href}">${backToMerchant}</a></p>` : null}
  </div>`
    : null}
  ${outcomePanel(shownCopy, final ? exitLink : limited && giveUp ? { href: giveUp.href, label: backToMerchant } : null, null, (payable && opts.config.offerSaveCard) || !!opts.config.savedCard)}
  <div id="status-message" class="visually-hidden" role="status" aria-live="polite">${checking && shownCopy ? shownCopy.title : null}</div>`;

  const body =
    opts.layout === 'hosted'
      ? html`<div class="page">
<main class="checkout">
${merchantBar(view, locale)}
${summary(view, locale)}
<div class="panel">${inner}</div>
${securedFooter(locale)}
</main>
<p class="page-note">${fill(t.pageNote, { merchant })}</p>
</div>`
      : html`<main class="checkout checkout-embed" aria-label="${fill(t.embedLabel, { merchant, amount })}">
<div class="panel">${inner}</div>
${securedFooter(locale)}
</main>`;
  return shell(
    {
      title: fill(t.title, { merchant, amount }),
      assets: opts.assets,
      bodyClass: `layout-${opts.layout}`,
      withScript: true,
      config: opts.config,
      locale,
    },
    body,
  );
}

/** Seconds the result page shows its outcome before it sends the customer on to the merchant's final URL. */
const RESULT_REDIRECT_SECONDS = 3;
/** Seconds between the result page's reloads while the payment is being checked. */
const RESULT_RECHECK_SECONDS = 3;

export interface ResultPageOptions {
  assets: PageAssets;
  locale: Locale;
  /** The intent's ending (intent-status finalOutcome), or null while it is pending. */
  outcome: FinalOutcome | null;
  /**
   * Pending, with a charge in flight or being checked (or the workflow not answering): the page says so and
   * reloads itself (`selfHref`) until it knows, never that nothing was charged.
   */
  checking: boolean;
  selfHref: string;
  /** The hosted page, for a pending intent ("Go to the payment page"). */
  payAgainHref: string;
  /** An ended older intent: its final URL, where the page sends the customer on by itself. */
  exitUrl: string | null;
}

/**
 * The generic page a hosted flow ends on when the merchant gave no return_url. With `exitUrl` (an older
 * intent's final URL for its ending) it says so, links there and sends the browser on by itself.
 */
export function resultPage(view: CheckoutView, opts: ResultPageOptions): string {
  const { locale, outcome } = opts;
  const t = locale.text;
  const merchant = isolate(locale, view.merchantName);
  const checking = !outcome && opts.checking;
  const copy: OutcomeCopy = outcome
    ? outcomeCopy(outcome, view.merchantName, view.amountLabel, locale)
    : checking
      ? outcomeCopy('processing', view.merchantName, view.amountLabel, locale)
      : { tone: 'neutral', title: t.pendingTitle, message: t.pendingMessage };
  const exit = outcome && opts.exitUrl ? { href: opts.exitUrl, label: fill(t.returnTo, { merchant }) } : null;
  const link = outcome ? exit : checking ? null : { href: opts.payAgainHref, label: t.goToPaymentPage };
  const footnote = !outcome || exit ? null : html`<p class="outcome-footnote">${t.closeWindow}</p>`;
  const body = html`<div class="page">
<main class="checkout">
${merchantBar(view, locale)}
${summary(view, locale)}
<div class="panel">${outcomePanel(copy, link, exit ? fill(t.takingBack, { merchant }) : null)}${footnote}</div>
${securedFooter(locale)}
</main>
</div>`;
  return shell(
    {
      title: `${copy.title} · ${merchant}`,
      assets: opts.assets,
      bodyClass: 'layout-hosted',
      withScript: false,
      locale,
      // The page has no script: while the payment is checked it asks again by reloading itself.
      refresh: exit ? { seconds: RESULT_REDIRECT_SECONDS, url: exit.href } : checking ? { seconds: RESULT_RECHECK_SECONDS, url: opts.selfHref } : null,
    },
    body,
  );
}

/** A page that only says something: the "not found" answer and the "unavailable" one. */
export function messagePage(assets: PageAssets, copy: { title: string; message: string }, locale: Locale): string {
  const body = html`<div class="page">
<main class="checkout">
<div class="panel">
<section class="outcome tone-neutral" aria-labelledby="outcome-title">
  <div class="outcome-icon"><span class="oi oi-neutral">${ICONS.alert}</span></div>
  <h1 id="outcome-title" class="outcome-title">${copy.title}</h1>
  <p class="outcome-message">${copy.message}</p>
</section>
</div>
${securedFooter(locale)}
</main>
</div>`;
  return shell({ title: copy.title, assets, bodyClass: 'layout-hosted', withScript: false, locale }, body);
}

/** One page for every "you may not see this" case: unknown intent, wrong or missing secret or key. */
export function notFoundCopy(locale: Locale) {
  return { title: locale.text.notFoundTitle, message: locale.text.notFoundMessage };
}
export function unavailableCopy(locale: Locale) {
  return { title: locale.text.unavailableTitle, message: locale.text.unavailableMessage };
}

/** A pretend shop page that embeds the form the way a merchant would (GET /demo/embedded). */
export function demoShopPage(opts: { assets: PageAssets; paymentIntent: string; publishableKey: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Demo shop · Checkout</title>
<link rel="icon" href="${opts.assets.favicon}" type="image/svg+xml">
<link rel="stylesheet" href="${opts.assets.demoCss}">
<script src="${opts.assets.demoJs}" defer></script>
</head>
<body>
<header class="shop-header"><span class="shop-logo" aria-hidden="true">◆</span> Demo shop</header>
<main class="shop">
  <section class="shop-order" aria-labelledby="order-heading">
    <h1 id="order-heading">Checkout</h1>
    <p>This page stands for a merchant's own site. The payment form below comes from <code>/js/v1/embed.js</code>, loaded with a publishable key and a payment intent id.</p>
    <pre class="snippet">&lt;div id="pay"&gt;&lt;/div&gt;
&lt;script src="…/js/v1/embed.js"
  data-publishable-key="pk_…"
  data-payment-intent="${opts.paymentIntent}"
  data-target="#pay"&gt;&lt;/script&gt;</pre>
  </section>
  <section class="shop-pay" aria-labelledby="pay-heading">
    <h2 id="pay-heading">Payment</h2>
    <div id="pay" class="pay-slot"></div>
    <script src="${opts.assets.embedJs}" data-publishable-key="${opts.publishableKey}" data-payment-intent="${opts.paymentIntent}" data-target="#pay"></script>
  </section>
  <section class="shop-events" aria-labelledby="events-heading">
    <h2 id="events-heading">Events received by the shop</h2>
    <ol id="event-log" class="event-log" aria-live="polite"><li class="empty">No event yet: pay to see <code>payorch:payment</code>.</li></ol>
  </section>
</main>
</body>
</html>
`.value;
}
