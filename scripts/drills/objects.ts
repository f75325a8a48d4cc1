import type { DocumentedOperation } from '../../api/openapi/document';
import { exampleFor, type OperationExample } from '../../api/openapi/examples';
import type { Stack } from '../stack';
import { idPrefix, leaves, mapLeaves, request, TYPED_ID, until, UUID, type Reply, type Tenant } from './lib';

// A tenant's real objects of every kind the document can make: each create operation's own example replayed
// with the tenant's key and the tenant's ids in place of the example's, twice (later creates need earlier
// objects), with the tenant's intents paid in between (refunds, returns and saved cards need a paid one).
// Then the chains no example can make (a subscription charged at once and its invoice, an order and its
// return, a discrepancy), each step through the API in the order a merchant would take.

export interface Known {
  /** Tenant A's typed ids by prefix, newest last. */
  byPrefix: Map<string, string[]>;
  /** Tenant A's UUIDs and integer ids (the older interface), by the key they were seen under. */
  loose: Map<string, Set<string>>;
  /** Ids of neither shape (webhook endpoints `whe_...`, API keys), by the path parameter that names them. */
  named: Map<string, string[]>;
  all: Set<string>;
}

export function remember(known: Known, value: unknown, resource = ''): void {
  for (const id of JSON.stringify(value ?? null).match(TYPED_ID) ?? []) {
    if (known.all.has(id)) continue;
    known.all.add(id);
    const list = known.byPrefix.get(idPrefix(id)) ?? [];
    list.push(id);
    known.byPrefix.set(idPrefix(id), list);
  }
  for (const { key, value: v } of leaves(value)) {
    const s = String(v);
    const uuid = typeof v === 'string' && isUuid(s);
    const intId = typeof v === 'number' && Number.isInteger(v) && isIdKey(key) && v > 0;
    if (!uuid && !intId) continue;
    // Also under the resource's name (`payout_recipient_uuid`, `checkout_intent`), which is how other
    // operations' bodies and paths refer to it (`recipient_uuid`, `checkout_intent`).
    for (const k of resource ? [key, `${resource}_${key}`, resource] : [key]) {
      const set = known.loose.get(k) ?? new Set();
      set.add(s);
      known.loose.set(k, set);
    }
    known.all.add(s);
  }
}

const ADMIN_TENANT_PARAM = 'tenant';

/** Path parameters that name an operator action or a runbook entry, not an object: no tenant has one. */
const NAME_PARAMS = new Set(['action', 'query']);

const isTypedId = (s: string) => new RegExp(`^${TYPED_ID.source}$`).test(s);
const isUuid = (s: string) => new RegExp(`^${UUID.source}$`, 'i').test(s);
const isIdKey = (key: string) => /(^|_)id$/.test(key);

/** The example's request with tenant A's ids in place of the example's, where A has one of that kind. */
export function bind(op: DocumentedOperation, ex: OperationExample | undefined, known: Known, tenantId: string, loosePick = 0) {
  // One A id per example id, so two products of a cart stay two products (where A has two).
  const chosen = new Map<string, string>();
  const typed = (s: string): string => {
    const list = known.byPrefix.get(idPrefix(s)) ?? [];
    // Payment intents and customers: the first, paid with its card saved on that customer; others: the newest.
    const order = idPrefix(s) === 'pi' || idPrefix(s) === 'cus' ? list : [...list].reverse();
    const taken = new Set(chosen.values());
    const pick = chosen.get(s) ?? order.find((id) => !taken.has(id)) ?? order[0] ?? s;
    chosen.set(s, pick);
    return pick;
  };
  const loose = (key: string): string | undefined => {
    const named = [...known.loose.entries()].filter(([k]) => k === key || k.endsWith(`_${key}`)).flatMap(([, v]) => [...v]);
    const candidates = named.length ? [...new Set(named)] : [...new Set([...known.loose.values()].flatMap((v) => [...v]))];
    return candidates.length ? candidates[loosePick % candidates.length] : undefined;
  };
  const swap = (s: string, key: string): string => {
    if (key === ADMIN_TENANT_PARAM && s.startsWith('ten_')) return tenantId;
    if (isTypedId(s)) return typed(s);
    // Replay reaches back 30 days at most: the example's fixed date would be refused.
    if (key === 'since') return new Date(Date.now() - 3_600_000).toISOString();
    // UUIDs anywhere; digits only under an id's name (`limit: '10'` stays 10).
    if (isUuid(s) || (/^\d+$/.test(s) && isIdKey(key))) return loose(key) ?? s;
    return s;
  };
  // Integer ids in a body (`transaction_id: 731204`) stay integers.
  const leaf = (v: string | number, key: string): string | number => {
    if (typeof v === 'string') return swap(v, key);
    const id = Number.isInteger(v) && isIdKey(key) ? loose(key) : undefined;
    return id !== undefined && /^\d+$/.test(id) ? Number(id) : v;
  };
  const madeUp: string[] = [];
  let ids = 0;
  const pathParams = [...op.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);
  let path = op.path;
  for (const p of pathParams) {
    const exampleValue = ex?.params?.[p];
    let value = exampleValue !== undefined ? swap(exampleValue, p) : undefined;
    if (value === exampleValue && known.named.get(p)?.length) value = known.named.get(p)!.at(-1)!;
    if (!NAME_PARAMS.has(p)) {
      ids++;
      if (value === undefined || value === exampleValue) madeUp.push(p);
    }
    path = path.replace(`{${p}}`, encodeURIComponent(value ?? 'x'));
  }
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(ex?.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) query.append(k, swap(one, k));
  const qs = query.toString();
  const body = ex?.body === undefined ? undefined : mapLeaves(ex.body, leaf, (k) => (isTypedId(k) ? swap(k, '') : k));
  return { path: qs ? `${path}?${qs}` : path, body, ids, madeUp, pathParams: pathParams.length };
}

/** Typed ids and UUIDs in a text. */
export const tokens = (text: string) => [...(text.match(TYPED_ID) ?? []), ...(text.match(UUID) ?? [])];

export const ok = (r: Reply) => r.status >= 200 && r.status < 300;

export function newKnown(t: Tenant): Known {
  const known: Known = { byPrefix: new Map(), loose: new Map(), named: new Map(), all: new Set() };
  remember(known, { tenant: t.tenant, connector: t.connector });
  return known;
}

/** The webhook endpoint of the tenant's first intent (nothing listens there). */
export const FIRST_INTENT_WEBHOOK = 'https://drill.invalid/hook';

/** `/payout-recipients/{uuid}` -> `payout_recipient`. */
const resourceOf = (path: string) =>
  (path.split('/').find((seg) => seg && !/^v\d{6}$/.test(seg) && seg !== 'admin') ?? '').replace(/-/g, '_').replace(/s$/, '');

type Call = (method: string, path: string, body?: unknown) => Promise<Reply>;

/** How the chains reach the stack: as A, as the operator, as A's customer paying, and the gateway sandbox. */
interface Calls {
  tenant: string;
  call: Call;
  /** As A with another of its keys. */
  withKey: (key: string, method: string, path: string, body?: unknown) => Promise<Reply>;
  admin: Call;
  pay: (paymentIntent: string) => Promise<Reply>;
  sandbox: Call;
}

/** A 2xx answer's body, remembered as A's; any other answer stops the chain, saying what was refused. */
async function step<T>(known: Known, what: string, reply: Promise<Reply>): Promise<T> {
  const r = await reply;
  if (!ok(r)) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 160)}`);
  remember(known, r.body);
  return r.body as T;
}

/** A plan with no trial, so the subscription's first invoice is charged at once; then a credit note of it. */
async function billingChain(c: Calls, known: Known): Promise<void> {
  const customer = known.byPrefix.get('cus')?.[0];
  const card = known.byPrefix.get('pm')?.[0];
  if (!customer || !card) throw new Error('no customer with a saved card');
  const { plan } = await step<{ plan: string }>(known, 'plan', c.call('POST', '/v202607/plans', { amount: 1000, currency: 'EUR', interval: 'month', nickname: 'Drill, no trial' }));
  // A subscription charges the saved card with the customer absent: it needs the cards.mit claim too.
  const sub = await withMitKey(c, known, (key) =>
    step<{ latest_invoice: string | null }>(known, 'subscription', c.withKey(key, 'POST', '/v202607/subscriptions', { customer, items: [{ plan }], default_payment_method: card })),
  );
  if (!sub.latest_invoice) throw new Error('the subscription has no invoice');
  await step(known, 'credit note', c.call('POST', '/v202607/credit-notes', { invoice: sub.latest_invoice, amount: 100, reason: 'product_unsatisfactory' }));
}

const ADDRESS = { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' };

/** Two products in a cart, checked out and paid (which makes the order), and a return of one of them. */
async function commerceChain(c: Calls, known: Known): Promise<void> {
  const products: string[] = [];
  for (const n of [1, 2]) {
    const body = { sku: `DRILL-${n}`, title: { en: `Drill thing ${n}`, ar: `شيء ${n}` }, price: 1500, currency: 'EUR', stock: 50 };
    products.push((await step<{ id: string }>(known, `product ${n}`, c.admin('POST', `/admin/tenants/${c.tenant}/products`, body))).id);
  }
  const { cartId } = await step<{ cartId: string }>(known, 'cart', c.call('POST', '/commerce/cart', { userId: 'drill-shopper', currency: 'EUR' }));
  await step(known, 'cart lines', c.call('POST', '/cart', { cartId, products: [{ id: products[0], quantity: 2 }, { id: products[1], quantity: 1 }] }));
  const checkout = await step<{ checkoutId: string; payment_intent: string }>(known, 'checkout', c.call('POST', '/checkouts', { cartId, shippingAddress: ADDRESS }));
  await step(known, 'checkout paid', c.pay(checkout.payment_intent));
  const orderId = await until('the order', async () => {
    const b = (await c.call('GET', `/checkouts/${checkout.checkoutId}`)).body as { status?: string; orderId?: string };
    return b.status === 'completed' ? b.orderId : undefined;
  }, 30_000);
  remember(known, { orderId });
  const ret = { orderId, idempotencyKey: 'drill-return', productId: products[1], quantity: 1, reasonCode: 'damaged', address: ADDRESS };
  await step(known, 'return', c.call('POST', '/returns', ret));
}

/** A discrepancy of A's: the sandbox's settlement report planted with a second capture of A's first intent. */
async function discrepancyChain(c: Calls, known: Known): Promise<void> {
  const reference = known.byPrefix.get('pi')?.[0];
  const planted = await c.sandbox('POST', '/v1/admin/settlement-report/phantoms', { object: 'capture', amount: 2500, currency: 'EUR', reference });
  if (planted.status !== 201) throw new Error(`phantom capture: ${planted.status} ${planted.text.slice(0, 160)}`);
  const window = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
  const { run } = await step<{ run: string }>(known, 'reconciliation run', c.admin('POST', '/admin/reconciliation/runs', { ...window, operator: 'drill', reason: 'a discrepancy of the drill tenant' }));
  await until('the reconciliation run', async () => ((await c.admin('GET', `/admin/reconciliation/runs/${run}`)).body as { status?: string }).status !== 'running' || undefined, 60_000);
  // Filtered by A: a run spans every tenant, and only A's ids may be remembered as A's.
  await step(known, 'discrepancies', c.admin('GET', `/admin/reconciliation/discrepancies?tenant=${c.tenant}`));
}

/** A's webhook endpoints (`whe_...`), which only the admin API lists. */
async function endpointChain(c: Calls, known: Known): Promise<void> {
  const list = await step<{ data?: { id: string }[] }>(known, 'webhook endpoints', c.admin('GET', `/admin/tenants/${c.tenant}/webhook-endpoints`));
  known.named.set('endpoint', (list.data ?? []).map((e) => e.id));
}

/**
 * Runs `use` with a `cards.mit` key of A's that is revoked at once after: A keeps no live key with the claim,
 * which the `noclaim` probe needs.
 */
async function withMitKey<T>(c: Calls, known: Known, use: (secretKey: string) => Promise<T>): Promise<T> {
  const key = await step<{ api_key: string; secret_key: string }>(known, 'cards.mit key', c.admin('POST', `/admin/tenants/${c.tenant}/api-keys`, { kind: 'secret', claims: ['cards.mit'] }));
  try {
    return await use(key.secret_key);
  } finally {
    await step(known, 'cards.mit key revoked', c.admin('POST', `/admin/tenants/${c.tenant}/api-keys/${key.api_key}/revoke`));
  }
}

/** A merchant-initiated charge of A's saved card (a `ti_...` transaction). */
async function mitChain(c: Calls, known: Known): Promise<void> {
  const customer = known.byPrefix.get('cus')?.[0];
  const card = known.byPrefix.get('pm')?.[0];
  if (!customer || !card) throw new Error('no customer with a saved card');
  const { payment_intent } = await step<{ payment_intent: string }>(known, 'intent to charge', c.call('POST', '/v202608/payment-intents', { amount: 1800, currency: 'EUR', customer }));
  const body = { payment_intent_secret: payment_intent, payment_method_uuid: card, agreement_id: 'drill-agreement', agreement_type: 'UNSCHEDULED' };
  await withMitKey(c, known, (key) => step(known, 'merchant-initiated charge', c.withKey(key, 'POST', '/cards/mit', body)));
}

const CHAINS: Record<string, (c: Calls, known: Known) => Promise<void>> = {
  'merchant-initiated charge': mitChain,
  'subscription, its invoice and a credit note': billingChain,
  'order and return': commerceChain,
  discrepancy: discrepancyChain,
  'webhook endpoints': endpointChain,
};

/** Retiring (a tax rate's `active: false`) leaves an object later creates cannot use, as archive and cancel do. */
const retires = (op: DocumentedOperation) => (exampleFor(op.def)?.body as { active?: unknown } | undefined)?.active === false;

export async function populate(stack: Stack, A: Tenant, ops: DocumentedOperation[], known: Known) {
  const api = stack.apiUrl;
  const EU = 'api-eu.drill.example';
  const calls: Calls = {
    tenant: A.tenant,
    call: (method, path, body) => request(api, method, path, { key: A.secretKey, host: EU, body }),
    withKey: (key, method, path, body) => request(api, method, path, { key, host: EU, body }),
    admin: (method, path, body) => request(api, method, path, { key: stack.adminToken, host: EU, body }),
    pay: (pi) => request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: A.publishableKey, host: EU, body: { token: 'tok_success' } }),
    sandbox: (method, path, body) => request(stack.sandboxUrl, method, path, { body }),
  };

  const creates = ops.filter((o) => o.def.method !== 'get' && o.def.method !== 'delete' && !/revoke|rotate|cancel|void|delete|archive/.test(o.path) && !retires(o));
  const made = new Map<string, number>();
  const replay = async () => {
    for (const op of creates) {
      if (op.def.auth === 'none') continue;
      if (op.def.auth === 'admin' && (op.path === '/admin/tenants' || !op.path.startsWith('/admin/tenants/{tenant}') || op.path.includes('api-keys'))) continue;
      const ex = exampleFor(op.def);
      const req = bind(op, ex, known, A.tenant);
      const r = await request(api, op.def.method, req.path, { key: op.def.auth === 'admin' ? stack.adminToken : A.secretKey, body: req.body ?? (op.def.body ? {} : undefined), host: EU });
      if (!ok(r) && process.env.DRILL_VERBOSE) process.stdout.write(`  setup ${op.def.method.toUpperCase()} ${req.path} -> ${r.status} ${r.text.slice(0, 200)}\n`);
      if (ok(r)) {
        remember(known, r.body, resourceOf(op.path));
        made.set(`${op.def.method.toUpperCase()} ${op.path}`, (made.get(`${op.def.method.toUpperCase()} ${op.path}`) ?? 0) + 1);
      }
    }
  };
  const payIntents = async () => {
    for (const pi of known.byPrefix.get('pi') ?? []) {
      const save = pi === known.byPrefix.get('pi')![0] ? { save_payment_method: true } : {};
      await request(api, 'POST', `/v202607/payment-intents/${pi}/attempts`, { key: A.publishableKey, body: { token: 'tok_success', ...save }, host: EU });
    }
  };
  // A few plain objects first, so the examples that need them find them.
  // The first intent saves its card on a customer: subscriptions and saved-card charges need one.
  const customer = await request(api, 'POST', '/v202607/customers', { key: A.secretKey, host: EU, body: { reference: `drill-${A.tenant}`, email: 'drill@example.com' } });
  if (!ok(customer)) throw new Error(`customer: ${customer.status} ${customer.text}`);
  remember(known, customer.body, 'customer');
  const cus = (customer.body as { customer: string }).customer;
  const intent = await request(api, 'POST', '/v202608/payment-intents', {
    key: A.secretKey,
    host: EU,
    // A webhook endpoint, so the payment makes an event (redelivery needs one); nothing listens there.
    body: { amount: 2500, currency: 'EUR', customer: cus, setup_future_usage: 'off_session', webhooks: [{ url: FIRST_INTENT_WEBHOOK, events: ['payment.success'] }] },
  });
  if (!ok(intent)) throw new Error(`tenant A intent: ${intent.status} ${intent.text}`);
  remember(known, intent.body);
  const intentId = (intent.body as { payment_intent: string }).payment_intent;
  // Lists and reads as A: ids A's objects hold that no create answered with (events, deliveries, lines).
  const readAll = async () => {
    for (const op of ops.filter((o) => o.def.method === 'get' && o.def.auth === 'secret')) {
      const req = bind(op, exampleFor(op.def), known, A.tenant);
      const r = await request(api, 'get', req.path, { key: A.secretKey, host: EU });
      if (ok(r)) remember(known, r.body, resourceOf(op.path));
    }
  };
  await payIntents();
  await until('the first intent paid', async () => {
    const r = await request(api, 'GET', `/v202607/payment-intents/${intentId}`, { key: A.secretKey, host: EU });
    return (r.body as { status?: string }).status === 'success' ? true : undefined;
  }, 60_000);
  await replay();
  await payIntents();
  await readAll();
  await replay();
  await payIntents();
  await readAll();
  // What no example makes, in a merchant's order; a chain that stops is reported, not fatal to the drill.
  const missing: string[] = [];
  for (const [what, chain] of Object.entries(CHAINS)) await chain(calls, known).catch((e: unknown) => missing.push(`${what}: ${e instanceof Error ? e.message : String(e)}`));
  await readAll();
  return { made, creates, missing };
}
