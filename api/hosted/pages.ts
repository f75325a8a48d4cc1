import type { CheckoutView } from './checkout-view';
import { FAILURE_REASONS, GENERIC_FAILURE, outcomeCopy, type FinalOutcome, type OutcomeCopy } from './copy';
import { html, jsonForScript, type SafeHtml } from './html';
import { ICONS } from './icons';

// The customer-facing pages, rendered on the server as plain HTML. Every value goes through `html`, which
// escapes it; the page script reads its settings from a JSON data block, never from inline code.

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
  expiresAt: string;
  /** The attempt the customer comes back from (3DS), from `attempt=<n>`. */
  attempt: number | null;
  /** Set when the intent was already final when the page was rendered. */
  outcome: FinalOutcome | null;
  copy: Record<FinalOutcome | 'processing', OutcomeCopy>;
  failureReasons: Readonly<Record<string, string>>;
  genericFailure: string;
}

export function outcomeCopies(merchantName: string, amountLabel: string): CheckoutClientConfig['copy'] {
  return {
    succeeded: outcomeCopy('succeeded', merchantName, amountLabel),
    expired: outcomeCopy('expired', merchantName, amountLabel),
    canceled: outcomeCopy('canceled', merchantName, amountLabel),
    processing: outcomeCopy('processing', merchantName, amountLabel),
  };
}

export function clientDefaults(): Pick<CheckoutClientConfig, 'failureReasons' | 'genericFailure'> {
  return { failureReasons: FAILURE_REASONS, genericFailure: GENERIC_FAILURE };
}

function shell(opts: { title: string; assets: PageAssets; bodyClass: string; withScript: boolean; config?: CheckoutClientConfig }, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${opts.title}</title>
<link rel="icon" href="${opts.assets.favicon}" type="image/svg+xml">
<link rel="stylesheet" href="${opts.assets.css}">
${opts.withScript ? html`<script src="${opts.assets.js}" defer></script>` : null}
</head>
<body class="${opts.bodyClass}">
${body}
${opts.config ? html`<script type="application/json" id="checkout-config">${jsonForScript(opts.config)}</script>` : null}
</body>
</html>
`.value;
}

function initial(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toUpperCase() : '·';
}

const securedFooter = html`<footer class="secured">${ICONS.lock}<span>Secured by <strong>${PRODUCT_NAME}</strong></span></footer>`;

function merchantBar(view: Pick<CheckoutView, 'merchantName' | 'card'>) {
  return html`<header class="merchant-bar">
  <div class="merchant"><span class="merchant-avatar" aria-hidden="true">${initial(view.merchantName)}</span><span class="merchant-name">${view.merchantName}</span></div>
  ${view.card?.testMode ? html`<span class="badge-test">Test mode</span>` : null}
</header>`;
}

function summary(view: CheckoutView) {
  const expires = view.intent.expires_at;
  return html`<section class="summary" aria-labelledby="checkout-heading">
  <h1 id="checkout-heading" class="summary-title">Pay ${view.merchantName}</h1>
  <p class="summary-amount">${view.amountLabel}</p>
  <dl class="summary-details">
    <div><dt>Reference</dt><dd class="mono">${view.intent._id}</dd></div>
    ${view.intent.status === 'pending'
      ? html`<div id="pay-before"><dt>Pay before</dt><dd><time datetime="${expires.toISOString()}" data-local-time>${expires.toISOString().slice(0, 16).replace('T', ' ')} UTC</time></dd></div>`
      : null}
  </dl>
</section>`;
}

function methodList(view: CheckoutView) {
  // Only worth a list when there is something besides the card to mention.
  if (view.methods.length === 0 || (view.methods.length < 2 && view.card)) return null;
  return html`<section class="methods" aria-labelledby="methods-heading">
  <h2 id="methods-heading" class="section-title">Payment method</h2>
  <ul class="method-list">
    ${view.methods.map(
      (m) => html`<li class="method ${m.available ? 'is-selected' : 'is-unavailable'}">
      <img src="${m.logoUrl}" alt="" width="40" height="25" class="method-logo">
      <span class="method-title">${m.title}</span>
      <span class="method-note">${m.available ? 'Selected' : 'Not available in the sandbox'}</span>
    </li>`,
    )}
  </ul>
</section>`;
}

function cardForm(view: CheckoutView) {
  if (!view.card)
    return html`<p class="notice">Card payments are not available for this payment. Please contact ${view.merchantName}.</p>`;
  return html`<form id="card-form" class="card-form" novalidate aria-labelledby="card-heading">
  <h2 id="card-heading" class="section-title">Pay with card</h2>
  <div class="field">
    <label for="card-number">Card number</label>
    <div class="input-wrap">
      <input id="card-number" type="text" inputmode="numeric" autocomplete="cc-number" autocorrect="off" spellcheck="false"
        placeholder="1234 1234 1234 1234" maxlength="23" required aria-describedby="card-number-error">
      <span class="card-brand" id="card-brand" aria-hidden="true"></span>
    </div>
    <p class="field-error" id="card-number-error"></p>
  </div>
  <div class="field-row">
    <div class="field">
      <label for="card-expiry">Expiry date</label>
      <input id="card-expiry" type="text" inputmode="numeric" autocomplete="cc-exp" autocorrect="off" spellcheck="false"
        placeholder="MM / YY" maxlength="7" required aria-describedby="card-expiry-error">
      <p class="field-error" id="card-expiry-error"></p>
    </div>
    <div class="field">
      <label for="card-cvc">CVC</label>
      <input id="card-cvc" type="text" inputmode="numeric" autocomplete="cc-csc" autocorrect="off" spellcheck="false"
        placeholder="123" maxlength="4" required aria-describedby="card-cvc-hint card-cvc-error">
      <p class="visually-hidden" id="card-cvc-hint">3 digits on the back, 4 on the front for Amex</p>
      <p class="field-error" id="card-cvc-error"></p>
    </div>
  </div>
  <div class="field">
    <label for="card-name">Name on card <span class="optional">(optional)</span></label>
    <input id="card-name" type="text" autocomplete="cc-name" autocorrect="off" spellcheck="false">
  </div>
  <div id="form-error" class="form-error" role="alert"></div>
  <button type="submit" id="pay-button" class="pay-button" disabled>
    <span class="spinner" aria-hidden="true"></span><span class="pay-label">Pay ${view.amountLabel}</span>
  </button>
  <noscript><p class="notice">Please enable JavaScript to pay by card: card details are sent straight to the payment gateway by this page.</p></noscript>
  ${view.card.testMode
    ? html`<p class="test-hint">Test mode: pay with 4242 4242 4242 4242, any future expiry date and any CVC. 4000 0000 0000 3220 asks for 3-D Secure.</p>`
    : null}
</form>`;
}

/** The outcome panel: shown at once when the intent is final, filled in by the script otherwise. */
function outcomePanel(copy: OutcomeCopy | null, link: { href: string; label: string } | null) {
  return html`<section id="outcome" class="outcome tone-${copy?.tone ?? 'progress'}" tabindex="-1" aria-labelledby="outcome-title" ${copy ? null : html`hidden`}>
  <div class="outcome-icon">
    <span class="oi oi-success">${ICONS.success}</span><span class="oi oi-failure">${ICONS.failure}</span>
    <span class="oi oi-neutral">${ICONS.clock}</span><span class="oi oi-action">${ICONS.shield}</span><span class="oi oi-progress"><span class="spinner spinner-large"></span></span>
  </div>
  <h2 id="outcome-title" class="outcome-title">${copy?.title ?? ''}</h2>
  <p id="outcome-message" class="outcome-message">${copy?.message ?? ''}</p>
  <p id="outcome-redirect" class="outcome-redirect" role="status"></p>
  <a id="outcome-link" class="button-secondary" href="${link?.href ?? '#'}" ${link ? null : html`hidden`}>${link?.label ?? ''}</a>
</section>`;
}

export interface CheckoutPageOptions {
  layout: 'hosted' | 'embed';
  assets: PageAssets;
  config: CheckoutClientConfig;
  /** Where "Return to the merchant" goes when the page opens on a final intent (hosted layout). */
  exitLink: { href: string; label: string } | null;
}

export function checkoutPage(view: CheckoutView, opts: CheckoutPageOptions): string {
  const final = opts.config.outcome;
  const finalCopy = final ? opts.config.copy[final] : null;
  const payable = !final;
  const inner = html`
  ${payable
    ? html`<div id="pay-section" class="pay-section">
    ${methodList(view)}
    ${cardForm(view)}
  </div>`
    : null}
  ${outcomePanel(finalCopy, final ? opts.exitLink : null)}
  <div id="status-message" class="visually-hidden" role="status" aria-live="polite"></div>`;

  const body =
    opts.layout === 'hosted'
      ? html`<div class="page">
<main class="checkout">
${merchantBar(view)}
${summary(view)}
<div class="panel">${inner}</div>
${securedFooter}
</main>
<p class="page-note">Card details go straight to the payment gateway. ${view.merchantName} never sees your full card number.</p>
</div>`
      : html`<main class="checkout checkout-embed" aria-label="Pay ${view.merchantName} ${view.amountLabel}">
<div class="panel">${inner}</div>
${securedFooter}
</main>`;
  return shell(
    { title: `Pay ${view.merchantName} · ${view.amountLabel}`, assets: opts.assets, bodyClass: `layout-${opts.layout}`, withScript: true, config: opts.config },
    body,
  );
}

/** The generic page a hosted flow ends on when the merchant gave no return_url. */
export function resultPage(view: CheckoutView, opts: { assets: PageAssets; payAgainHref: string }): string {
  const status = view.intent.status;
  const copy: OutcomeCopy =
    status === 'success'
      ? outcomeCopy('succeeded', view.merchantName, view.amountLabel)
      : status === 'canceled'
        ? outcomeCopy(view.intent.cancellation_reason === 'expired' ? 'expired' : 'canceled', view.merchantName, view.amountLabel)
        : { tone: 'neutral', title: 'This payment is not complete yet', message: 'Nothing has been charged so far.' };
  const link = status === 'pending' ? { href: opts.payAgainHref, label: 'Go to the payment page' } : null;
  const body = html`<div class="page">
<main class="checkout">
${merchantBar(view)}
${summary(view)}
<div class="panel">${outcomePanel(copy, link)}${status === 'pending' ? null : html`<p class="outcome-footnote">You can close this window.</p>`}</div>
${securedFooter}
</main>
</div>`;
  return shell({ title: `${copy.title} · ${view.merchantName}`, assets: opts.assets, bodyClass: 'layout-hosted', withScript: false }, body);
}

/** A page that only says something: the "not found" answer and the "unavailable" one. */
export function messagePage(assets: PageAssets, copy: { title: string; message: string }): string {
  const body = html`<div class="page">
<main class="checkout">
<div class="panel">
<section class="outcome tone-neutral" aria-labelledby="outcome-title">
  <div class="outcome-icon"><span class="oi oi-neutral">${ICONS.alert}</span></div>
  <h1 id="outcome-title" class="outcome-title">${copy.title}</h1>
  <p class="outcome-message">${copy.message}</p>
</section>
</div>
${securedFooter}
</main>
</div>`;
  return shell({ title: copy.title, assets, bodyClass: 'layout-hosted', withScript: false }, body);
}

/** One page for every "you may not see this" case: unknown intent, wrong or missing secret or key. */
export const NOT_FOUND_COPY = {
  title: 'Payment not found',
  message: 'This payment link is invalid or incomplete. Check the link you were given, or contact the merchant.',
};
export const UNAVAILABLE_COPY = { title: 'Temporarily unavailable', message: 'We cannot load this payment right now. Please try again in a moment.' };

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
