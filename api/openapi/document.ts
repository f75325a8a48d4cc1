import { idempotencyHeaderUse, type IdempotencyHeaderUse } from '../http/idempotency-header';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { API_VERSIONS, type ApiVersion } from '../../domain/versions';
import { V202502_TAGS, type RouteDef } from '../http/route';
import { changelogMarkdown } from './changelog';
import { errorCatalogMarkdown, errorCatalogView } from './error-catalog';
import { attachExamples, exampleFor } from './examples';

// The OpenAPI 3.1 documents, generated from the same route objects and zod schemas that serve requests.
// `/openapi.json` is the whole service in one document (what clients are generated from); the reference
// at /docs shows one document per interface a merchant integrates with, each holding exactly the
// operations that answer under it (a version's document resolves the fallback the router applies).

/** The documents the reference offers in its version switch, newest interface first. */
export const REFERENCE_DOCUMENTS = [
  { name: 'v202608', title: 'v202608 (latest)', summary: 'Everything a request to /v202608/... reaches: its own endpoints, and v202607\'s by fallback.' },
  { name: 'v202607', title: 'v202607', summary: 'Typed ids, cursor lists, customers, refunds by payment intent, events.' },
  { name: 'v202606', title: 'v202606 (older)', summary: 'The one v202606 endpoint: a payment intent created without choosing a gateway.' },
  { name: 'unversioned', title: 'Version-neutral interface', summary: 'Unprefixed endpoints: the older payment interface, saved-card charge, payouts, commerce.' },
  { name: 'admin', title: 'Admin and operations', summary: 'Tenant provisioning (admin token), health checks and metrics.' },
] as const;

export type ReferenceDocumentName = (typeof REFERENCE_DOCUMENTS)[number]['name'];
export type DocumentScope = 'all' | ReferenceDocumentName;

export function isReferenceDocument(name: string): name is ReferenceDocumentName {
  return REFERENCE_DOCUMENTS.some((d) => d.name === name);
}

/** One operation as a document shows it: the route, the path it is documented at, the version that serves it. */
export interface DocumentedOperation {
  def: RouteDef;
  /** OpenAPI path (`/v202608/refunds/{refund}`). */
  path: string;
  /** The version whose route serves the path, when it is not the document's own (fallback). */
  fallbackFrom?: ApiVersion;
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const isAdminOrOps = (r: RouteDef) => r.auth === 'admin' || r.tags.includes('Operations');

/** The operations of one document, in route order. */
export function documentedOperations(routes: RouteDef[], scope: DocumentScope): DocumentedOperation[] {
  const visible = routes.filter((r) => !r.internal);
  if (scope === 'all') {
    return visible.flatMap((def) =>
      def.versions === 'unversioned' ? [{ def, path: openApiPath(def.path) }] : def.versions.map((v) => ({ def, path: openApiPath(`/${v}${def.path}`) })),
    );
  }
  if (scope === 'unversioned') return visible.filter((r) => r.versions === 'unversioned' && !isAdminOrOps(r)).map((def) => ({ def, path: openApiPath(def.path) }));
  if (scope === 'admin') return visible.filter((r) => r.versions === 'unversioned' && isAdminOrOps(r)).map((def) => ({ def, path: openApiPath(def.path) }));
  // A version: per method and path, the route of the greatest version not after it (the router's fallback).
  const version = scope;
  const chosen = new Map<string, { def: RouteDef; served: ApiVersion }>();
  for (const def of visible) {
    // v202502's endpoints are unprefixed, and what later versions fall back to where they define none.
    const versions = def.versions === 'unversioned' ? (def.tags.some((t) => V202502_TAGS.includes(t)) ? (['v202502'] as const) : []) : def.versions;
    const served = [...versions].filter((v) => v <= version).sort().pop();
    if (!served) continue;
    const key = `${def.method} ${def.path}`;
    const prior = chosen.get(key);
    if (!prior || served > prior.served) chosen.set(key, { def, served });
  }
  return [...chosen.values()].map(({ def, served }) => ({
    def,
    path: openApiPath(`/${version}${def.path}`),
    ...(served !== version ? { fallbackFrom: served } : {}),
  }));
}

/** What each resource is, shown above its operations. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  'Payment intents':
    'A payment intent is one amount to collect in one currency (minor units: `2500` EUR is 25.00 EUR). Create it from your backend, send the customer to its `url` (or embed the form), and learn the outcome from the `payment.success` webhook or a retrieve.',
  Customers: 'Customers you attach to payment intents, found again by your own `reference`. v202608 adds the `address`.',
  'Saved cards':
    'Cards saved on a customer-present payment (`setup_future_usage: off_session`) and charged later with the customer absent (`POST /cards/mit`), and the transactions those charges make.',
  'Payment methods': 'What a customer can pay with: the payment forms of your connectors, with their logos.',
  Refunds: 'Refunds against a paid payment intent, up to its refundable balance; the outcome arrives as `refund.success` or `refund.canceled`.',
  Events: 'Every webhook event we sent (or tried to send) in the last 30 days, with its deliveries; redeliver one to an endpoint.',
  'Payment intents (older interface)': 'The payment intents of the unprefixed interface: bound to a `gateway`, page-numbered lists, the same records as v202607.',
  'Checkout intents (older interface)': 'A checkout intent groups the payment intents of one purchase; at most one of them succeeds.',
  'Refunds (older interface)': 'Refunds of the unprefixed interface, by the payment\'s integer `transaction_id`; one balance with v202607\'s refunds.',
  Payouts: 'Money sent to a payout recipient through a payout gateway.',
  'Payout recipients': 'Bank accounts and mobile-money wallets registered with a payout gateway.',
  Catalog: 'Your catalogs, categories and products, as shoppers browse them (titles in English and Arabic).',
  'Commerce: carts': 'A shopper\'s cart: products and quantities priced from the catalog, and shipping addresses.',
  'Commerce: checkouts and orders': 'A cart checked out into a payment intent, and the order it becomes once paid.',
  'Commerce: returns': 'Returns of paid orders within the return window, refunded once received.',
  Admin: 'Tenant provisioning with the admin token: tenants, API keys, connectors, payment forms, orchestrators, webhook signing secrets.',
  'Admin: catalog': 'Catalog management with the admin token: categories, products, catalogs.',
  'Admin: operator actions': "Operators' actions with the admin token (docs/runbook.md): the runbook's Temporal queries, and Updates of the workflow that owns a payment, refund, payout or delivery, with the operator's name and reason, audited.",
  Operations: 'Liveness, readiness and Prometheus metrics of the API process.',
};

/** Resources grouped for the sidebar; a tag no group names lands in "More". */
const TAG_GROUPS: { name: string; tags: string[] }[] = [
  { name: 'Payments', tags: ['Payment intents', 'Payment methods', 'Saved cards', 'Refunds', 'Payment intents (older interface)', 'Checkout intents (older interface)', 'Refunds (older interface)'] },
  { name: 'Customers and events', tags: ['Customers', 'Events'] },
  { name: 'Payouts', tags: ['Payouts', 'Payout recipients'] },
  { name: 'Commerce', tags: ['Catalog', 'Commerce: carts', 'Commerce: checkouts and orders', 'Commerce: returns'] },
  {
    name: 'Billing',
    tags: ['Billing: subscriptions', 'Billing: invoices', 'Billing: credit notes', 'Billing: plans', 'Billing: tax rates', 'Billing: coupons', 'Billing: promotion codes', 'Billing: test clocks', 'Billing: hosted sessions'],
  },
  { name: 'Admin', tags: ['Admin', 'Admin: catalog', 'Admin: operator actions'] },
  { name: 'Operations', tags: ['Operations'] },
];

function tagGroups(tags: string[]): { name: string; tags: string[] }[] {
  const groups = TAG_GROUPS.map((g) => ({ name: g.name, tags: g.tags.filter((t) => tags.includes(t)) })).filter((g) => g.tags.length > 0);
  const rest = tags.filter((t) => !TAG_GROUPS.some((g) => g.tags.includes(t)));
  return rest.length > 0 ? [...groups, { name: 'More', tags: rest }] : groups;
}

function introduction(scope: DocumentScope): string {
  const doc = REFERENCE_DOCUMENTS.find((d) => d.name === scope);
  const versions = API_VERSIONS.join(', ');
  return [
    doc ? `**${doc.title}.** ${doc.summary}` : 'The whole service in one document: every version\'s endpoints under their prefix, the version-neutral interface, admin and operations.',
    '',
    '## Getting started',
    '',
    '- **Authentication.** Send `Authorization: Bearer sk_<region>_...` (your secret key) from your backend. The hosted page and the embedded form use the publishable key `pk_<region>_...`; admin endpoints take the admin token.',
    '- **Regions.** Each key belongs to a region (`eu`, `us`, ...): call that region\'s host, `api-<region>.` on the base address. Ids carry their region: `pi_eu_...`.',
    '- **Amounts** are integers in the currency\'s minor units (`2500` EUR is 25.00 EUR; `1500` JOD is 1.500 JOD); currencies are ISO 4217 codes.',
    '- **Idempotency.** Creates take an `idempotency_key` (older interface: `checkout_intent_idempotency_key`, commerce: `idempotencyKey`): a retry with the same key answers the first result (200) instead of a second object. Stripe\'s `Idempotency-Key` header is taken as that field (the two differing is a 400). Creates without such a field (customers, addresses, promotion codes, test clocks) keep their first answer under the header and give it again, with `Idempotent-Replayed: true`.',
    `- **Versions** (${versions}) prefix the path: \`/v202608/payment-intents\`. A version that does not define an endpoint falls back to the nearest earlier one that does. Use the document switch above the sidebar to read another version; the changelog is at [/docs/changelog](/docs/changelog).`,
    '- **Errors** all have one shape, `{"error": {"type", "code", "message", "param"?, "request_id"}}`: branch on `code` (catalog below, and as JSON at [/docs/errors.json](/docs/errors.json)); quote `request_id` to support.',
    '- **Retries.** 429 and 503 answers carry `Retry-After` (seconds): wait that long, then repeat the request with the same idempotency key.',
    '',
    errorCatalogMarkdown(),
    '',
    changelogMarkdown(),
  ].join('\n');
}

const errorSchema = z.object({
  error: z.object({ type: z.string(), code: z.string(), message: z.string(), param: z.string().optional(), request_id: z.string() }),
});

/** The header a create without a key field keeps its first answer under (api/http/header-replay.ts). */
const replayHeader = z.object({
  'Idempotency-Key': z
    .string()
    .optional()
    .meta({
      description:
        'A repeat with this key, route and body gets the first answer again, with `Idempotent-Replayed: true`, instead of a second object; other parameters under the key are a 400 `idempotency_key_in_use`, a repeat while the first is being answered a 409 `idempotency_request_in_progress` (Retry-After). 1 to 255 characters, scoped to your tenant; an answer is kept 24 hours.',
    }),
});

/** Stripe's header on a route whose body takes the key: it is that field (api/http/idempotency-header.ts). */
const keyHeader = (field: string) =>
  z.object({
    'Idempotency-Key': z
      .string()
      .optional()
      .meta({ description: `Taken as the body's \`${field}\` (the two differing is a 400 \`parameter_invalid\`; sent twice or empty, too).` }),
  });
/** The header as the router takes it on the route (idempotency-header.ts idempotencyHeaderUse). */
const headerOf = (use: IdempotencyHeaderUse) => (use?.kind === 'key' ? { headers: keyHeader(use.field) } : use?.kind === 'replay' ? { headers: replayHeader } : {});

/** The OpenAPI 3.1 document of `scope` ('all' by default: what /openapi.json serves). */
export function buildOpenApi(routes: RouteDef[], scope: DocumentScope = 'all') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'secretKey', { type: 'http', scheme: 'bearer', description: 'sk_<region>_... secret key' });
  registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer', description: 'ADMIN_API_TOKEN' });
  const operations = documentedOperations(routes, scope);
  for (const { def: r, path, fallbackFrom } of operations) {
    registry.registerPath({
      method: r.method,
      path,
      summary: r.summary,
      ...(r.description || fallbackFrom
        ? {
            description: [
              r.description,
              fallbackFrom ? `Served by ${fallbackFrom}'s endpoint: this version does not redefine it, so a request to this path falls back to ${fallbackFrom}.` : undefined,
            ]
              .filter(Boolean)
              .join('\n\n'),
          }
        : {}),
      tags: r.tags,
      security: r.auth === 'secret' ? [{ secretKey: [] }] : r.auth === 'admin' ? [{ adminToken: [] }] : [],
      request: {
        ...(r.params ? { params: r.params as z.ZodObject } : {}),
        ...(r.query ? { query: r.query as z.ZodObject } : {}),
        ...(r.body ? { body: { content: { 'application/json': { schema: r.body } } } } : {}),
        ...headerOf(idempotencyHeaderUse(r)),
      },
      responses: Object.fromEntries([
        // Any status a route does not list (400, 401, 404, 429, 503, ...) is an error in the one shape.
        ['default', { description: 'An error: see the error catalog for its `code`', content: { 'application/json': { schema: errorSchema } } }],
        ...Object.entries(r.responses).map(([status, resp]) => [
          status,
          {
            description: resp.description,
            ...(resp.schema
              ? { content: { 'application/json': { schema: resp.schema } } }
              : Number(status) >= 400
                ? { content: { 'application/json': { schema: errorSchema } } }
                : {}),
          },
        ]),
      ]),
    });
  }
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: scope === 'all' ? 'Payment orchestration API' : `Payment orchestration API: ${REFERENCE_DOCUMENTS.find((d) => d.name === scope)!.title}`,
      version: '2026-08',
      description: introduction(scope),
    },
  });
  const tags = [...new Set(operations.flatMap((o) => o.def.tags))];
  const byPath = new Map(operations.map((o) => [`${o.def.method} ${o.path}`, o]));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, unknown>)) {
      const documented = byPath.get(`${method} ${path}`);
      const example = documented && exampleFor(documented.def);
      // A response the route declares without a schema gets its example only in the reference's documents:
      // in /openapi.json, content would change the types clients are generated from.
      if (example) attachExamples(op as never, example, { describeSchemaless: scope !== 'all', auth: documented.def.auth });
    }
  }
  return {
    ...doc,
    tags: tags.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    'x-tagGroups': tagGroups(tags),
    /** Every error `code` the API answers: the same catalog as /docs/errors.json. */
    'x-error-catalog': errorCatalogView(),
  };
}
