import { randomUUID } from 'node:crypto';
import { invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_TIMEOUT_SECONDS } from '../../domain/payment-intent';
import type { CheckoutIntentRecord } from '../../platform/records';
import { checkoutIntentData } from '../../data/checkout-intents';
import { idempotencyScope } from '../../data/idempotency';
import { paymentIntentData } from '../../data/payment-intents';
import type { AppDeps, AuthContext } from '../deps';
import { insertNamingSecrets, planSharedSecretWebhooks, sharedSecretEndpoints } from '../events/endpoints';
import { paymentGateways } from '../older-payment-intents/service';
import type { CheckoutIntentCreateBody, CheckoutIntentView } from './schemas';

/** The tenant's payment gateways, as the customer's choice lists them. */
export async function gatewayList(deps: AppDeps, tenantId: string, only: string[] | null = null) {
  const all = await paymentGateways(deps, tenantId);
  return [...all]
    .filter(([gateway]) => only === null || only.includes(gateway))
    .map(([gateway, payment_methods]) => ({ gateway, payment_methods }));
}

async function view(deps: AppDeps, r: CheckoutIntentRecord): Promise<CheckoutIntentView> {
  const paidBy = r.payment_intent ? await paymentIntentData(deps.mongo).find(r.tenant_id, r.payment_intent) : null;
  return {
    checkout_intent: r._id,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    gateways: await gatewayList(deps, r.tenant_id, r.gateways),
    payment_intent: paidBy?.uuid ?? null,
    checkout_intent_idempotency_key: r.idempotency_key,
    human_friendly_payment_intent_secret: r.human_friendly_payment_intent_secret,
    final_success_url: r.final_success_url,
    final_failure_url: r.final_failure_url,
    lg: r.lg,
    line_items: r.line_items,
    created_at: r.created_at.toISOString(),
  };
}

/** POST /checkout-intents: the insert is the idempotency guard; the secrets are written before it, and taken back when another request won it. */
export async function createCheckoutIntent(deps: AppDeps, auth: AuthContext, body: CheckoutIntentCreateBody) {
  const data = checkoutIntentData(deps.mongo);
  const key = body.checkout_intent_idempotency_key ?? null;
  const replayed = async (r: CheckoutIntentRecord) => ({ status: 200, body: { ...(await view(deps, r)), resource_created: false } });
  if (key) {
    const existing = await data.byIdempotencyKey(auth.tenantId, key);
    if (existing) return replayed(existing);
  }
  const usable = [...(await paymentGateways(deps, auth.tenantId)).keys()];
  const unknown = (body.gateways ?? []).find((g) => !usable.includes(g));
  if (unknown !== undefined)
    throw invalidRequest('gateway_invalid', `"${unknown}" is not a gateway of this tenant's live connectors${usable.length ? ` (usable: ${usable.join(', ')})` : ''}`, 'gateways');
  const gateways = body.gateways ? [...new Set(body.gateways)] : usable;
  if (gateways.length === 0) throw invalidRequest('no_gateway', 'The tenant has no live connector that takes payments', 'gateways');
  const webhooks = planSharedSecretWebhooks(auth.tenantId, auth.region, body.webhook_urls, body.webhook_secret, deps.config);
  const id = randomUUID();
  const now = new Date();
  const record: CheckoutIntentRecord = {
    _id: id,
    tenant_id: auth.tenantId,
    region: auth.region,
    amount: body.amount,
    currency: body.currency,
    gateways,
    idempotency_key: key,
    idempotency_scope: idempotencyScope(auth.tenantId, key, id),
    legacy_webhooks: sharedSecretEndpoints(webhooks),
    final_success_url: body.final_success_url ?? null,
    final_failure_url: body.final_failure_url ?? null,
    human_friendly_payment_intent_secret: body.human_friendly_payment_intent_secret ?? null,
    lg: body.lg ?? null,
    line_items: body.line_items ?? [],
    payload_json: body.payload !== undefined ? JSON.stringify(body.payload) : null,
    payment_intent_timeout_seconds: body.payment_intent_timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    status: 'open',
    payment_intent: null,
    created_at: now,
    updated_at: now,
  };
  // A resend that finds the record (the first request died, or its answer was lost) answers a checkout intent
  // whose payments' webhooks can be signed.
  const winner = await insertNamingSecrets(
    deps.mongo,
    webhooks,
    () => data.insert(record),
    () => (key ? data.byIdempotencyKey(auth.tenantId, key) : Promise.resolve(null)),
  );
  if (winner) return replayed(winner);
  return { status: 201, body: { ...(await view(deps, record)), resource_created: true } };
}

export async function getCheckoutIntent(deps: AppDeps, tenantId: string, id: string): Promise<CheckoutIntentView> {
  const r = await checkoutIntentData(deps.mongo).find(tenantId, id);
  if (!r) throw notFound('checkout_intent', id, 'checkout_intent');
  return view(deps, r);
}
