import type { DocumentedOperation } from '../../api/openapi/document';
import { exampleFor, type OperationExample } from '../../api/openapi/examples';
import type { Stack } from '../stack';
import { idPrefix, leaves, mapStrings, request, TYPED_ID, until, UUID, type Reply, type Tenant } from './lib';

// A tenant's real objects of every kind the document can make: each create operation's own example replayed
// with the tenant's key and the tenant's ids in place of the example's, twice (later creates need earlier
// objects), with the tenant's intents paid in between (refunds, returns and saved cards need a paid one).

export interface Known {
  /** Tenant A's typed ids by prefix, newest last. */
  byPrefix: Map<string, string[]>;
  /** Tenant A's UUIDs and integer ids (the older interface), by the key they were seen under. */
  loose: Map<string, Set<string>>;
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
    const isUuid = typeof v === 'string' && new RegExp(`^${UUID.source}$`, 'i').test(s);
    const isIntId = typeof v === 'number' && Number.isInteger(v) && /(^|_)id$|^transaction_id$/.test(key) && v > 0;
    if (!isUuid && !isIntId) continue;
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

/** The example's request with tenant A's ids in place of the example's, where A has one of that kind. */
export function bind(op: DocumentedOperation, ex: OperationExample | undefined, known: Known, tenantId: string, loosePick = 0) {
  const swap = (s: string, key: string): string => {
    if (key === ADMIN_TENANT_PARAM && s.startsWith('ten_')) return tenantId;
    const m = new RegExp(`^${TYPED_ID.source}$`).exec(s);
    if (m) {
      // Payment intents and customers: the first, paid with its card saved on that customer; others: the newest.
      const list = known.byPrefix.get(idPrefix(s));
      if ((idPrefix(s) === 'pi' || idPrefix(s) === 'cus') && list?.length) return list[0]!;
      return list?.length ? list[list.length - 1]! : s;
    }
    // UUIDs anywhere; digits only under an id's name (`limit: '10'` stays 10).
    if (new RegExp(`^${UUID.source}$`, 'i').test(s) || (/^\d+$/.test(s) && /(^|_)id$/.test(key))) {
      const named = [...known.loose.entries()].filter(([k]) => k === key || k.endsWith(`_${key}`)).flatMap(([, v]) => [...v]);
      const candidates = named.length ? [...new Set(named)] : [...new Set([...known.loose.values()].flatMap((v) => [...v]))];
      if (candidates.length) return candidates[loosePick % candidates.length]!;
    }
    return s;
  };
  let unbound = 0;
  const pathParams = [...op.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);
  let path = op.path;
  for (const p of pathParams) {
    const exampleValue = ex?.params?.[p];
    const value = exampleValue !== undefined ? swap(exampleValue, p) : undefined;
    if (value === undefined || value === exampleValue) unbound++;
    path = path.replace(`{${p}}`, encodeURIComponent(value ?? 'x'));
  }
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(ex?.query ?? {})) for (const one of Array.isArray(v) ? v : [v]) query.append(k, swap(one, k));
  const qs = query.toString();
  const body = ex?.body === undefined ? undefined : mapStrings(ex.body, swap);
  return { path: qs ? `${path}?${qs}` : path, body, unbound, pathParams: pathParams.length };
}

/** Typed ids and UUIDs in a text. */
export const tokens = (text: string) => [...(text.match(TYPED_ID) ?? []), ...(text.match(UUID) ?? [])];

export const ok = (r: Reply) => r.status >= 200 && r.status < 300;

export function newKnown(t: Tenant): Known {
  const known: Known = { byPrefix: new Map(), loose: new Map(), all: new Set() };
  remember(known, { tenant: t.tenant, connector: t.connector });
  return known;
}

/** The webhook endpoint of the tenant's first intent (nothing listens there). */
export const FIRST_INTENT_WEBHOOK = 'https://drill.invalid/hook';

/** `/payout-recipients/{uuid}` -> `payout_recipient`. */
const resourceOf = (path: string) =>
  (path.split('/').find((seg) => seg && !/^v\d{6}$/.test(seg) && seg !== 'admin') ?? '').replace(/-/g, '_').replace(/s$/, '');

export async function populate(stack: Stack, A: Tenant, ops: DocumentedOperation[], known: Known) {
  const api = stack.apiUrl;
  const EU = 'api-eu.drill.example';

  const creates = ops.filter((o) => o.def.method !== 'get' && o.def.method !== 'delete' && !/revoke|rotate|cancel|void|delete|archive/.test(o.path));
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
  return { made, creates };
}
