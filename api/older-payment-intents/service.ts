import type { Context } from 'koa';
import { conflict, DomainError, invalidRequest, notFound, unauthenticated } from '../../domain/errors';
import { DEFAULT_TIMEOUT_SECONDS } from '../../domain/payment-intent';
import type { CheckoutIntentRecord, PaymentIntentRecord } from '../../platform/records';
import { paymentIntentData } from '../../data/payment-intents';
import { checkoutIntentData } from '../../data/checkout-intents';
import { connectorData } from '../../data/connectors';
import { tenantData } from '../../data/tenants';
import type { AppDeps, AuthContext } from '../deps';
import { bearerToken, verifyApiKey } from '../http/auth';
import { intentPageUrl, isClientSecretFor } from '../hosted/client-secret';
import { planSharedSecretWebhooks, sharedSecretEndpoints } from '../events/endpoints';
import { resolveCheckoutRouting } from '../payment-methods/resolve';
import { findCustomer } from '../customers/service';
import { namesTenant } from '../payout-recipients/service';
import {
  cancelPaymentIntent,
  customerOf,
  getPaymentIntent,
  insertAndStart,
  newIntentRecord,
  replayByKey,
  sameMoneyByKey,
} from '../payment-intents/service';
import type { CreateBodyV202606, OlderCreateBody } from './schemas';
import { olderIntentView } from './views';
import { definedOnly } from '../../data/list';

// The older interface's payment intents: the same records and workflows as v202607's, created bound to a
// gateway (unprefixed) or without one (v202606), and shown in the older shape.

/** The key's tenant, when `tenant` names it (its id, name or integer tenant_id); 400 otherwise. */
async function checkTenant(deps: AppDeps, auth: AuthContext, given: string | undefined): Promise<void> {
  if (given === undefined) return;
  const tenant = await tenantData(deps.mongo).find(auth.tenantId);
  if (!tenant || !namesTenant(tenant, given))
    throw invalidRequest('tenant_mismatch', 'tenant must name the tenant of the API key (or be omitted)', 'tenant');
}

/** The tenant's connectors that take payments: live, with payment methods, of a gateway we have an adapter for. */
async function paymentConnectors(deps: AppDeps, tenantId: string) {
  const known = new Set(deps.gateways.names());
  return (await connectorData(deps.mongo).ofTenant(tenantId)).filter((c) => c.live && c.payment_methods.length > 0 && known.has(c.gateway));
}

/** The tenant's gateways that take payments, each with the payment methods of its connectors. */
export async function paymentGateways(deps: AppDeps, tenantId: string): Promise<Map<string, string[]>> {
  const byGateway = new Map<string, string[]>();
  for (const c of await paymentConnectors(deps, tenantId)) byGateway.set(c.gateway, [...new Set([...(byGateway.get(c.gateway) ?? []), ...c.payment_methods])]);
  return byGateway;
}

/** The tenant's connectors of `gateway`, which the intent may use; 400 naming `gateway` when none (or not `allowed`). */
async function gatewayConnectors(deps: AppDeps, tenantId: string, gateway: string, allowed: string[] | null): Promise<string[]> {
  const usable = await paymentConnectors(deps, tenantId);
  const ids = usable.filter((c) => c.gateway === gateway).map((c) => c._id);
  if (ids.length === 0 || (allowed !== null && !allowed.includes(gateway))) {
    const names = allowed ?? [...new Set(usable.map((c) => c.gateway))];
    throw invalidRequest('gateway_invalid', `"${gateway}" is not a gateway this payment can use${names.length ? ` (usable: ${names.join(', ')})` : ''}`, 'gateway');
  }
  return ids;
}

/** A checkout intent a new payment may join: the tenant's, still open; 400/409 otherwise. */
async function openCheckoutIntent(deps: AppDeps, tenantId: string, id: string): Promise<CheckoutIntentRecord> {
  const checkout = await checkoutIntentData(deps.mongo).find(tenantId, id);
  if (!checkout) throw new DomainError('invalid_request', 'resource_missing', `No such checkout_intent: '${id}'`, 'checkout_intent');
  if (checkout.status !== 'open') throw conflict('checkout_intent_completed', 'This checkout intent has already been paid');
  return checkout;
}

const createdAnswer = (r: PaymentIntentRecord, created: boolean, deps: AppDeps) => ({
  status: created ? 201 : 200,
  body: { payment_intent: r.uuid!, resource_created: created, target_url: intentPageUrl(r._id, deps.config) },
});

/**
 * Whether `body` asks for the intent `r` is: bound to the same gateway, under the same checkout intent (or none),
 * for the same amount and currency where it gives them (with a checkout intent they are its). The page's words,
 * URLs, language, line items, payload, timeout and webhooks change nothing charged, so a repeat may differ in them.
 */
function asksForIntent(r: PaymentIntentRecord, body: OlderCreateBody): boolean {
  return (
    (r.gateway ?? null) === body.gateway &&
    (r.checkout_intent ?? null) === (body.checkout_intent ?? null) &&
    (body.amount === undefined || body.amount === r.amount) &&
    (body.currency === undefined || body.currency === r.currency)
  );
}

/**
 * POST /payment-intents: an intent bound to one of the tenant's gateways, optionally under a checkout
 * intent (whose amount, currency, page and webhooks it takes). Nothing is written before every check passed.
 * A known checkout_intent_idempotency_key answers its intent (200), or is a 400 `idempotency_key_in_use` when
 * that intent is another gateway, checkout intent, amount or currency.
 */
export async function createOlderIntent(deps: AppDeps, auth: AuthContext, body: OlderCreateBody) {
  await checkTenant(deps, auth, body.tenant);
  const key = body.checkout_intent_idempotency_key;
  const answer = (r: PaymentIntentRecord, created: boolean) => {
    if (!created && !asksForIntent(r, body))
      throw invalidRequest(
        'idempotency_key_in_use',
        'This checkout_intent_idempotency_key was used for another payment intent (another gateway, checkout intent, amount or currency): use a new key for a new intent',
        'checkout_intent_idempotency_key',
      );
    return createdAnswer(r, created, deps);
  };
  const existing = await replayByKey(deps, auth, key);
  if (existing) return answer(existing, false);
  const checkout = body.checkout_intent ? await openCheckoutIntent(deps, auth.tenantId, body.checkout_intent) : null;
  const amount = checkout?.amount ?? body.amount!;
  const currency = checkout?.currency ?? body.currency!;
  if (checkout && body.amount !== undefined && body.amount !== checkout.amount)
    throw invalidRequest('amount_mismatch', `amount must equal the checkout intent's (${checkout.amount}) or be omitted`, 'amount');
  if (checkout && body.currency !== undefined && body.currency !== checkout.currency)
    throw invalidRequest('currency_mismatch', `currency must equal the checkout intent's (${checkout.currency}) or be omitted`, 'currency');
  const connectors = await gatewayConnectors(deps, auth.tenantId, body.gateway, checkout?.gateways ?? null);
  const webhooks = planSharedSecretWebhooks(auth.tenantId, auth.region, body.webhook_urls, body.webhook_secret, deps.config);
  // The checkout intent's webhook_urls hear about every intent under it (an URL given twice hears once).
  const own = sharedSecretEndpoints(webhooks);
  const inherited = (checkout?.legacy_webhooks ?? []).filter((w) => !own.some((o) => o.url === w.url));
  const record = await newIntentRecord(deps, auth, {
    amount,
    currency,
    customer: null,
    metadata: {},
    webhooks: [],
    return_url: null,
    pin: null,
    connectors,
    timeout_seconds: body.payment_intent_timeout_seconds ?? checkout?.payment_intent_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    idempotency_key: key ?? null,
    api_version: 'unprefixed',
    gateway: body.gateway,
    checkout_intent: checkout?._id ?? null,
    human_friendly_payment_intent_secret: body.human_friendly_payment_intent_secret ?? checkout?.human_friendly_payment_intent_secret ?? null,
    final_success_url: body.final_success_url ?? checkout?.final_success_url ?? null,
    final_failure_url: body.final_failure_url ?? checkout?.final_failure_url ?? null,
    feature_flag: body.feature_flag ?? null,
    lg: body.lg ?? checkout?.lg ?? null,
    line_items: body.line_items ?? checkout?.line_items ?? [],
    payload_json: body.payload !== undefined ? JSON.stringify(body.payload) : (checkout?.payload_json ?? null),
    legacy_webhooks: [...own, ...inherited],
  });
  const made = await insertAndStart(deps, auth, record, { webhooks: [webhooks], customer: null });
  return answer(made.record, made.created);
}

/** POST /v202606/payment-intents: no gateway (any live connector), a customer by id or by merchant_id. */
export async function createIntentV202606(deps: AppDeps, auth: AuthContext, body: CreateBodyV202606) {
  const { mongo } = deps;
  const existing = await replayByKey(deps, auth, body.idempotency_key);
  if (existing) return { status: 200, body: await answerV202606(deps, sameMoneyByKey(existing, body), false, false) };
  const { connectors, failover } = await resolveCheckoutRouting(mongo, auth.tenantId, null);
  const given = body.customer;
  const input =
    given === undefined || typeof given === 'string'
      ? given
      : definedOnly({ reference: given.merchant_id, first_name: given.first_name, last_name: given.last_name, phone_number: given.phone_number, email: given.email });
  const customer = await customerOf(deps, auth, input);
  const webhooks = planSharedSecretWebhooks(auth.tenantId, auth.region, body.webhook_urls, body.webhook_secret, deps.config);
  const record = await newIntentRecord(deps, auth, {
    amount: body.amount,
    currency: body.currency,
    customer: customer?.id ?? null,
    metadata: body.metadata ?? {},
    webhooks: [],
    return_url: null,
    pin: null,
    connectors,
    ...(failover ? { failover } : {}),
    timeout_seconds: body.timeout,
    idempotency_key: body.idempotency_key ?? null,
    api_version: 'v202606',
    gateway: null,
    checkout_intent: null,
    final_success_url: body.final_success_url ?? null,
    final_failure_url: body.final_failure_url ?? null,
    legacy_webhooks: sharedSecretEndpoints(webhooks),
  }, customer?.input);
  const made = await insertAndStart(deps, auth, record, { webhooks: [webhooks], customer });
  return { status: made.created ? 201 : 200, body: await answerV202606(deps, made.created ? made.record : sameMoneyByKey(made.record, body), made.created, made.customerCreated) };
}

async function answerV202606(deps: AppDeps, r: PaymentIntentRecord, created: boolean, customerCreated: boolean) {
  const customer = r.customer ? await findCustomer(deps.mongo, r.tenant_id, r.customer) : null;
  return {
    payment_intent: r._id,
    payment_intent_created: created,
    ...(customer ? { customer: { customer: customer._id, merchant_id: customer.reference, created: customerCreated } } : {}),
  };
}

/**
 * The intent GET /payment-intents/{payment_intent} may show this caller: with a secret key, by any of its
 * ids; with a publishable key of its tenant or its client secret, by `pi_...` or UUID (not by the integer,
 * which can be guessed). Every failure after authentication is the same 404.
 */
export async function frontEndSafeIntent(ctx: Context, deps: AppDeps, ref: string): Promise<{ intent: PaymentIntentRecord; by: 'client_secret' | 'secret' | 'publishable' }> {
  const token = bearerToken(ctx);
  if (!token) throw unauthenticated('Send Authorization: Bearer <secret key, publishable key or client secret>');
  const missing = () => notFound('payment_intent', ref, 'payment_intent');
  const intents = paymentIntentData(deps.mongo);
  if (token.startsWith('pics_')) {
    const r = await intents.findByUnguessableRef(ref);
    if (!r || !isClientSecretFor(r._id, token, deps.config.KEY_HASH_SECRET)) throw unauthenticated('Invalid client secret for this payment intent');
    return { intent: r, by: 'client_secret' };
  }
  const key = await verifyApiKey(token, ctx.state.region as string, deps);
  const r = key.kind === 'secret' ? await intents.findByRef(key.tenant_id, ref) : await intents.findByUnguessableRef(ref);
  if (!r || r.tenant_id !== key.tenant_id) throw missing();
  return { intent: r, by: key.kind };
}

/** PUT /payment-intents/{payment_intent}/cancel: the canceled intent in the older shape (last_reason null unless it failed). */
export async function cancelOlderIntent(deps: AppDeps, tenantId: string, ref: string) {
  await cancelPaymentIntent(deps, tenantId, ref);
  // The workflow writes the record before it answers the cancel.
  const after = await getPaymentIntent(deps, tenantId, ref);
  const view = olderIntentView(after, deps);
  return { ...view, last_reason: view.last_reason === '' ? null : view.last_reason };
}

/** Refuses a payment attempt on an intent whose checkout intent another intent has paid (the claim decides in the end). */
export async function checkoutStillOpen(deps: AppDeps, r: PaymentIntentRecord): Promise<void> {
  if (!r.checkout_intent) return;
  const checkout = await checkoutIntentData(deps.mongo).find(r.tenant_id, r.checkout_intent);
  if (checkout && checkout.status === 'completed' && checkout.payment_intent !== r._id)
    throw conflict('checkout_intent_completed', 'Another payment of this checkout intent has already succeeded');
}
