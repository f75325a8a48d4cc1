import { API_VERSIONS, type ApiVersion } from '../../domain/versions';
import { V202502_TAGS, type RouteDef } from '../http/route';

// The API's versions and what each changed: the spec's version history (shared/spec, "Versioning"), with
// what this service serves for each. Shown at /docs/changelog and in every reference document's introduction.

export interface VersionEntry {
  version: ApiVersion;
  /** The spec's one-line summary of the version. */
  headline: string;
  changes: string[];
  /** Where requests of this version are served today. */
  servedBy: string;
  /** Tags whose unprefixed endpoints are this version's (v202502 is served without a prefix). */
  unprefixedTags?: string[];
}

export const VERSION_HISTORY: VersionEntry[] = [
  {
    version: 'v202608',
    headline: 'Pinning of a payment intent; customer `address`; documented saved-card charge. Other endpoints fall back to v202607.',
    changes: [
      'POST /v202608/payment-intents: pin the intent to one `payment_form`, `orchestrator` or `connector` (at most one, `pin_conflict` otherwise; `pin_invalid` for one that is not live).',
      'POST /v202608/payment-intents: `setup_future_usage: "off_session"` offers the customer to save the card on the hosted page; needs a `customer`.',
      'POST /v202608/payment-intents: an inline `customer` takes an `address` (line1, line2, city, state, postal_code, country); customer objects answer it from this version on, and POST /v202608/customers and POST /v202608/customers/{customer} take it (an update changes the address fields it gives).',
      'GET /v202608/payment-intents/{payment_intent}: a paid intent also answers the saved card (`payment_method`) and the `connector` that took the payment.',
      'Saved cards: GET /v202608/customers/{customer}/payment-methods lists them; DELETE .../payment-methods/{payment_method} detaches one.',
      'The saved-card charge POST /cards/mit (version-neutral path) is documented, with GET /v202608/transactions/{transaction} to follow a charge.',
      'Every other endpoint falls back to v202607: /v202608/refunds is v202607\'s refunds.',
    ],
    servedBy: 'The /v202608 prefix.',
  },
  {
    version: 'v202607',
    headline: 'Typed ids; refunds against `payment_intent`; redesigned payment-intent endpoints with cursor pagination; customers; payment-method listing; event-envelope webhooks; recurring billing.',
    changes: [
      'Typed ids that carry their region: `pi_eu_...`, `re_eu_...`, `cus_eu_...`, `evt_eu_...`.',
      'Payment intents redesigned: create with `amount`, `currency`, `customer`, `webhooks`, `return_url`; the hosted page at `url`; cancel with POST .../cancel.',
      'Cursor pagination on every list: `limit` (1 to 100, default 25), `starting_after`, `ending_before`, `created`; answers `{data, has_more}`.',
      'Refunds name the `payment_intent` (not a transaction) and take their own `webhooks`.',
      'Customers API: create (upsert by `reference`), list, retrieve, update, delete.',
      'Payment-method listing: GET /v202607/payment-methods (and /payment-forms) says what a checkout offers, with logos.',
      'Webhooks in an event envelope (`id`, `type`, `created_at`, `data`) per endpoint and event type; GET /v202607/events with every delivery attempt, and redelivery.',
      'Recurring billing: plans, tax rates, coupons and promotion codes; subscriptions (trials, month-end-aware renewals charged off-session to a saved card, dunning, prorated plan and quantity changes, pause, cancel); invoices (pay, void, preview); credit notes (refunded, or to the customer\'s credit balance); test clocks; hosted checkout sessions and billing-portal sessions; the events subscription.created, subscription.updated, subscription.canceled, invoice.created, invoice.paid, invoice.payment_failed. Times of billing objects are Unix seconds, as in Stripe Billing.',
    ],
    servedBy: 'The /v202607 prefix (and later prefixes by fallback).',
  },
  {
    version: 'v202606',
    headline: 'Subscriptions preview; typed string ids with an `object` discriminator instead of `uuid`; payment-intent create without gateway selection.',
    changes: [
      'POST /v202606/payment-intents creates an intent without choosing a gateway: any live connector may take it.',
      'Its `customer` is a `cus_` id or `{merchant_id, first_name, last_name, phone_number, email}`; a known `merchant_id` is matched and updated, and the answer says which customer and whether it was created.',
      'Its list, retrieve and cancel are the unprefixed endpoints of the older interface (v202502\'s: /v202606/payment-intents/{payment_intent} falls back to them).',
      'The subscriptions preview and the `object` discriminator the headline names have no endpoint or field defined for this version, so none is served: recurring billing is v202607\'s (/v202606/subscriptions is a 404), and the create\'s answer carries no `object`.',
    ],
    servedBy: 'The /v202606 prefix for the create; the unprefixed interface for the rest.',
  },
  {
    version: 'v202502',
    headline: 'Initial version: payment intents, transactions, refunds.',
    changes: [
      'Payment intents bound to a `gateway`, grouped under checkout intents (at most one intent of a checkout intent succeeds), with page-numbered lists (`page`, `limit`, `sortBy`, `filter.<property>=<operator>:<value>`).',
      'Each payment has an integer `transaction_id`; refunds name it (POST /refunds).',
      'Webhooks: `webhook_urls` sharing one `webhook_secret`, sent back in `Service-Webhook-Secret`.',
    ],
    servedBy:
      'The unprefixed (version-neutral) interface, also under /v202502/... and, by fallback, under a later prefix that does not define the endpoint (GET /v202606/payment-intents is this list): same records and workflows as v202607.',
    unprefixedTags: [...V202502_TAGS],
  },
];

/** The endpoints a version's entry lists: those its routes define (or, for v202502, the unprefixed ones of its tags). */
export function endpointsOf(entry: VersionEntry, routes: RouteDef[]): string[] {
  const visible = routes.filter((r) => !r.internal);
  const own = visible
    .filter((r) => r.versions !== 'unversioned' && r.versions.includes(entry.version))
    .map((r) => `${r.method.toUpperCase()} /${entry.version}${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  const unprefixed = visible
    .filter((r) => r.versions === 'unversioned' && r.tags.some((t) => entry.unprefixedTags?.includes(t)))
    .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  return [...own, ...unprefixed];
}

/** The changelog as a section of a document's introduction. */
export function changelogMarkdown(): string {
  return [
    '## Versions and changelog',
    '',
    `Versions, newest first (${[...API_VERSIONS].reverse().join(', ')}). A request to \`/v<YYYYMM>/...\` is served by the newest version not after it that defines the endpoint. The full changelog, with the endpoints of each version, is at [/docs/changelog](/docs/changelog).`,
    '',
    ...VERSION_HISTORY.map((v) => `- **${v.version}**: ${v.headline}`),
  ].join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** `code` spans of our own texts as <code>, everything else escaped. */
const inline = (s: string) =>
  s
    .split('`')
    .map((part, i) => (i % 2 === 1 ? `<code>${esc(part)}</code>` : esc(part)))
    .join('');

/** /docs/changelog: a plain page (no script), styled by our own stylesheet under the hosted pages' CSP. */
export function changelogPage(routes: RouteDef[], assets: { css: string; favicon: string }): string {
  const sections = VERSION_HISTORY.map((v) => {
    const endpoints = endpointsOf(v, routes);
    return `<section id="${v.version}">
<h2>${v.version}</h2>
<p class="headline">${inline(v.headline)}</p>
<ul>${v.changes.map((c) => `<li>${inline(c)}</li>`).join('')}</ul>
<p class="served"><strong>Served by:</strong> ${inline(v.servedBy)}</p>
${endpoints.length ? `<details><summary>${endpoints.length} endpoint${endpoints.length === 1 ? '' : 's'} of ${v.version}</summary><ul class="endpoints">${endpoints.map((e) => `<li><code>${esc(e)}</code></li>`).join('')}</ul></details>` : ''}
</section>`;
  }).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API changelog</title>
<link rel="stylesheet" href="${esc(assets.css)}">
<link rel="icon" href="${esc(assets.favicon)}" type="image/svg+xml">
</head><body class="changelog">
<header><nav><a href="/docs">API reference</a> <a href="/docs/errors.json">Error codes (JSON)</a> <a href="/openapi.json">openapi.json</a></nav>
<h1>API changelog</h1>
<p>Versions prefix the path (<code>/v202608/payment-intents</code>). A version that does not define an endpoint falls back to the nearest earlier one that does; unprefixed endpoints are version-neutral.</p>
<nav class="versions">${VERSION_HISTORY.map((v) => `<a href="#${v.version}">${v.version}</a>`).join(' ')}</nav></header>
<main>
${sections}
</main></body></html>`;
}
