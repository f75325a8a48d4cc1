import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { unixSeconds } from '../../domain/billing/snapshots';
import { MAX_AMOUNT } from '../../domain/money';
import { serviceRefundKey } from '../../domain/refund';
import { serviceIntentKey } from '../../domain/intent-keys';
import { isIdOf, newId } from '../../platform/ids';
import type { CheckoutSessionRecord, CouponRecord } from '../../platform/billing-records';
import type { PaymentIntentRecord } from '../../platform/records';
import { checkoutSessionData } from '../../data/billing-sessions';
import { couponData, promotionCodeData } from '../../data/coupons';
import { idempotencyScope } from '../../data/idempotency';
import { paymentIntentData } from '../../data/payment-intents';
import { planData } from '../../data/plans';
import { subscriptionData } from '../../data/subscriptions';
import { taxRateData } from '../../data/tax-rates';
import { testClockData } from '../../data/test-clocks';
import { parseSecretRef, webhookSecretData } from '../../data/webhook-secrets';
import { tenantAuth, type AppDeps, type AuthContext } from '../deps';
import { findCustomer } from '../customers/service';
import { discardWebhookSecrets, insertNamingSecrets, planWebhookEndpoints } from '../events/endpoints';
import { checkoutPageUrl, CHECKOUT_SESSION_METADATA } from '../hosted/billing-paths';
import { insertAndStart, newIntentRecord, replayByKey } from '../payment-intents/service';
import { resolveCheckoutRouting } from '../payment-methods/resolve';
import { giveBackPayment } from '../refunds/service';
import { createSubscription, priceItems } from '../subscriptions/service';
import type { SubscriptionCreateBody } from '../subscriptions/schemas';
import { quoteCheckout } from './quote';
import type { CheckoutSessionCreateBody, CheckoutSessionView } from './schemas';

// Checkout sessions (`cs_...`): a hosted page on which a customer subscribes. At create everything that could
// refuse the subscription is checked, its first invoice worked out (quote.ts) and an intent made for it (with
// the customer and `setup_future_usage: off_session`); the page pays that intent as the payment page does,
// saving the card. Once the intent has succeeded the session completes: the subscription is created with
// that card and its first invoice recorded as paid by that intent (`firstPaidBy`), under the idempotency key
// `cs:<id>`, so completing it twice (the page, a retrieve, two tabs) makes one subscription.
//
// Nothing is due today with a trial (or a 100 % coupon), but a card is saved only by a payment, and the
// gateway refuses a charge of 0 (measured: a 0 intent is created, its attempt fails `processing_error`). Such a
// session's intent is a card check of one major unit, refunded in full when the session completes.

export const CHECKOUT_SESSION_LIFETIME_MS = 24 * 3600 * 1000;



/** `open` sessions read `expired` once past `expires_at` (a session paid in time completes whatever the clock says). */
export function sessionStatus(s: Pick<CheckoutSessionRecord, 'status' | 'expires_at'>, now: Date): CheckoutSessionRecord['status'] {
  return s.status === 'open' && now.getTime() >= s.expires_at.getTime() ? 'expired' : s.status;
}

export function checkoutSessionView(s: CheckoutSessionRecord, deps: Pick<AppDeps, 'config'>, now = new Date()): CheckoutSessionView {
  return {
    checkout_session: s._id,
    object: 'checkout_session',
    mode: 'subscription',
    status: sessionStatus(s, now),
    customer: s.customer,
    url: checkoutPageUrl(s._id, deps.config),
    success_url: s.success_url,
    cancel_url: s.cancel_url,
    subscription: s.subscription,
    payment_intent: s.payment_intent,
    amount_total: s.quote?.first.total ?? 0,
    currency: s.currency ?? '',
    completion_error: s.completion_error ?? null,
    expires_at: unixSeconds(s.expires_at),
    created: unixSeconds(s.created_at),
  };
}

/** Where the customer goes once subscribed: Stripe's `{CHECKOUT_SESSION_ID}` filled in, else `session_id` added. */
export function successUrlOf(s: Pick<CheckoutSessionRecord, '_id' | 'success_url'>): string {
  if (s.success_url.includes('{CHECKOUT_SESSION_ID}')) return s.success_url.split('{CHECKOUT_SESSION_ID}').join(encodeURIComponent(s._id));
  const u = new URL(s.success_url);
  u.searchParams.set('session_id', s._id);
  return u.toString();
}

/**
 * The coupon a session's subscription will redeem, checked as the redemption will be (without counting one:
 * the subscription counts it when the session completes).
 */
async function checkDiscount(deps: AppDeps, tenantId: string, body: Pick<CheckoutSessionCreateBody, 'coupon' | 'promotion_code'>, currency: string): Promise<CouponRecord | null> {
  const now = Date.now();
  let coupon: CouponRecord | null;
  let param: 'coupon' | 'promotion_code' = 'coupon';
  if (body.promotion_code !== undefined) {
    param = 'promotion_code';
    const code = await promotionCodeData(deps.mongo).find(tenantId, body.promotion_code);
    if (!code) throw invalidRequest('resource_missing', `No such promotion code: '${body.promotion_code}'`, param);
    if (!code.active) throw invalidRequest('promotion_code_inactive', 'This promotion code is inactive', param);
    if (code.expires_at && code.expires_at.getTime() <= now) throw invalidRequest('promotion_code_expired', 'This promotion code has expired', param);
    if (code.max_redemptions !== null && code.times_redeemed >= code.max_redemptions)
      throw invalidRequest('promotion_code_max_redemptions', 'This promotion code has been redeemed as many times as it may be', param);
    coupon = await couponData(deps.mongo).findLive(tenantId, code.coupon);
    if (!coupon) throw invalidRequest('resource_missing', `The coupon of promotion code '${body.promotion_code}' was deleted`, param);
  } else if (body.coupon !== undefined) {
    coupon = await couponData(deps.mongo).findLive(tenantId, body.coupon);
    if (!coupon) throw invalidRequest('resource_missing', `No such coupon: '${body.coupon}'`, param);
  } else return null;
  if (coupon.redeem_by && coupon.redeem_by.getTime() <= now) throw invalidRequest('coupon_expired', 'This coupon can no longer be redeemed', param);
  if (coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions)
    throw invalidRequest('coupon_max_redemptions', 'This coupon has been redeemed as many times as it may be', param);
  if (coupon.amount_off !== null && coupon.currency !== null && coupon.currency !== currency)
    throw invalidRequest('coupon_currency_mismatch', `The coupon takes an amount off in ${coupon.currency}; the plans are in ${currency}`, param);
  return coupon;
}

/**
 * Before an attempt charges the card for a checkout session's intent (the attempts handler asks it): refused, with
 * 409 `checkout_session_cannot_complete` and the reason, when the session could not start its subscription
 * once paid: it is no longer open (expired, complete), a plan is archived, a tax rate inactive, or its coupon or
 * promotion code can no longer be redeemed (used up, expired, deactivated, deleted). As Stripe's Checkout, which
 * checks before taking the payment: charged anyway, the completion would refuse the subscription and refund it.
 * The refund at completion (failPaid) stays as the backstop for what this read cannot see: two sessions paid at
 * once for a code's last redemption both pass here, and the coupon's redemption workflow, its one owner, admits
 * one of them. Any other intent passes.
 */
export async function checkSessionCanComplete(deps: AppDeps, intent: Pick<PaymentIntentRecord, 'tenant_id' | 'owner'>): Promise<void> {
  if (!isIdOf('cs', intent.owner ?? undefined)) return;
  const s = await checkoutSessionData(deps.mongo).find(intent.tenant_id, intent.owner!);
  if (!s) return;
  const refuse = (why: string, param?: string) => new DomainError('conflict', 'checkout_session_cannot_complete', `Checkout session '${s._id}' can no longer complete: ${why}`, param);
  const status = sessionStatus(s, new Date());
  if (status !== 'open') throw refuse(`it is ${status}`);
  // A customer deleted since the session was made takes no subscription: charged, the payment was refunded.
  if (!(await findCustomer(deps.mongo, s.tenant_id, s.customer))) throw refuse(`its customer '${s.customer}' was deleted`, 'customer');
  const plans = await planData(deps.mongo).findMany(s.tenant_id, s.items.map((i) => i.plan));
  for (const [n, item] of s.items.entries()) {
    const plan = plans.find((p) => p._id === item.plan);
    if (!plan || !plan.active) throw refuse(`plan '${item.plan}' is archived and takes no new subscriptions`, `line_items[${n}][plan]`);
  }
  const rates = await taxRateData(deps.mongo).findMany(s.tenant_id, s.default_tax_rates);
  for (const [n, id] of s.default_tax_rates.entries()) {
    if (!rates.find((r) => r._id === id)?.active) throw refuse(`tax rate '${id}' is inactive`, `subscription_data[default_tax_rates][${n}]`);
  }
  try {
    await checkDiscount(deps, s.tenant_id, { coupon: s.coupon ?? undefined, promotion_code: s.promotion_code ?? undefined }, s.currency!);
  } catch (err) {
    if (!(err instanceof DomainError) || err.kind !== 'invalid_request') throw err;
    throw refuse(`${err.message.charAt(0).toLowerCase()}${err.message.slice(1)} (${err.code})`, err.param);
  }
}

/** Whether a create repeats the one that made `s` (what decides who pays what, and where the customer goes). */
function sameSession(s: CheckoutSessionRecord, body: CheckoutSessionCreateBody): boolean {
  const data = body.subscription_data ?? {};
  return (
    s.customer === body.customer &&
    JSON.stringify(s.items) === JSON.stringify(body.line_items.map((i) => ({ plan: i.plan, quantity: i.quantity }))) &&
    s.coupon === (body.coupon ?? null) &&
    s.promotion_code === (body.promotion_code ?? null) &&
    JSON.stringify(s.default_tax_rates) === JSON.stringify(data.default_tax_rates ?? []) &&
    (data.trial_period_days === undefined || s.trial_period_days === data.trial_period_days) &&
    s.success_url === body.success_url &&
    s.cancel_url === body.cancel_url
  );
}

/**
 * POST /v202607/checkout-sessions. Reads decide everything that can refuse it; the insert is the idempotency
 * guard; then the webhook secrets and the intent the page pays. A session whose intent cannot be made is taken
 * back, so a retry with the same key starts clean.
 */
export async function createCheckoutSession(deps: AppDeps, auth: AuthContext, body: CheckoutSessionCreateBody): Promise<{ status: number; body: CheckoutSessionView }> {
  const sessions = checkoutSessionData(deps.mongo);
  const repeated = async (existing: CheckoutSessionRecord) => {
    // The session's page saves a card to its customer and subscribes them: a key must not hand it to another.
    if (!sameSession(existing, body))
      throw invalidRequest('idempotency_key_in_use', 'This idempotency_key was used for a checkout session with other parameters: use a new key for a new session', 'idempotency_key');
    return { status: 200, body: checkoutSessionView(await ensureSessionIntent(deps, existing), deps) };
  };
  if (body.idempotency_key) {
    const existing = await sessions.byIdempotencyKey(auth.tenantId, body.idempotency_key);
    if (existing) return repeated(existing);
  }
  const customer = await findCustomer(deps.mongo, auth.tenantId, body.customer);
  if (!customer) throw invalidRequest('resource_missing', `No such customer: '${body.customer}'`, 'customer');
  const priced = await priceItems(deps, auth.tenantId, body.line_items, 'line_items');
  const data = body.subscription_data ?? {};
  const taxIds = data.default_tax_rates ?? [];
  const rates = await taxRateData(deps.mongo).findMany(auth.tenantId, taxIds);
  const taxRates = taxIds.map((id, n) => {
    const r = rates.find((x) => x._id === id);
    if (!r) throw invalidRequest('resource_missing', `No such tax rate: '${id}'`, `subscription_data[default_tax_rates][${n}]`);
    if (!r.active) throw invalidRequest('tax_rate_inactive', `Tax rate '${id}' is inactive`, `subscription_data[default_tax_rates][${n}]`);
    return r;
  });
  const coupon = await checkDiscount(deps, auth.tenantId, body, priced.currency);
  const webhooks = planWebhookEndpoints(auth.tenantId, auth.region, data.webhooks, deps.config, (i) => `subscription_data[webhooks][${i}][url]`);
  // The subscription starts at the customer's time: its test clock's, if it lives on one.
  let startAt = Date.now();
  if (customer.test_clock) {
    const clock = await testClockData(deps.mongo).find(auth.tenantId, customer.test_clock);
    if (!clock) throw invalidRequest('resource_missing', `The customer's test clock '${customer.test_clock}' was deleted`, 'customer');
    startAt = clock.frozen_time.getTime();
  }
  const quoteWith = (offer: typeof coupon) =>
    quoteCheckout({
      currency: priced.currency,
      interval: priced.interval,
      intervalCount: priced.intervalCount,
      items: priced.items.map((i, n) => ({ plan: priced.plans[n]!, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description })),
      taxRates,
      coupon: offer,
      trialDays: data.trial_period_days ?? priced.plans[0]!.trial_period_days ?? 0,
      startAt,
    });
  const quote = quoteWith(coupon);
  if (quote.charge.amount > MAX_AMOUNT || quote.renewal.total > MAX_AMOUNT)
    throw invalidRequest('checkout_amount_too_large', `The first invoice comes to more than ${MAX_AMOUNT} minor units`, 'line_items');
  // The subscription made at completion is held to its renewal without the coupon (a coupon can end), as any
  // subscription create is: refused there, the customer would have paid for a session that could not complete.
  if (coupon && quoteWith(null).renewal.total > MAX_AMOUNT)
    throw invalidRequest('checkout_amount_too_large', `A renewal without the coupon would come to more than ${MAX_AMOUNT} minor units`, 'line_items');

  const id = newId('cs', auth.region);
  const now = new Date();
  const record: CheckoutSessionRecord = {
    _id: id,
    tenant_id: auth.tenantId,
    region: auth.region,
    mode: 'subscription',
    customer: customer._id,
    items: body.line_items.map((i) => ({ plan: i.plan, quantity: i.quantity })),
    trial_period_days: quote.trial_days,
    coupon: body.coupon ?? null,
    promotion_code: body.promotion_code ?? null,
    default_tax_rates: taxIds,
    metadata: data.metadata ?? {},
    webhooks: webhooks.endpoints,
    success_url: body.success_url,
    cancel_url: body.cancel_url,
    status: 'open',
    payment_intent: null,
    subscription: null,
    expires_at: new Date(now.getTime() + CHECKOUT_SESSION_LIFETIME_MS),
    idempotency_key: body.idempotency_key ?? null,
    idempotency_scope: idempotencyScope(auth.tenantId, body.idempotency_key, id),
    currency: priced.currency,
    quote,
    locale: body.locale ?? null,
    completion_error: null,
    refund: null,
    completed_at: null,
    created_at: now,
    version: 0,
  };
  const winner = await insertNamingSecrets(
    deps.mongo,
    webhooks,
    () => sessions.insert(record),
    () => (body.idempotency_key ? sessions.byIdempotencyKey(auth.tenantId, body.idempotency_key) : Promise.resolve(null)),
  );
  if (winner) return repeated(winner);
  // The guard is won: this request alone makes the intent.
  try {
    return { status: 201, body: checkoutSessionView(await ensureSessionIntent(deps, record), deps, now) };
  } catch (err) {
    // Its secrets go only with the session: one left standing (its take-back failed) keeps what it names.
    if (await sessions.takeBack(id).catch(() => null)) await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
    throw err;
  }
}

/**
 * The session with its intent. The intent's idempotency key is the session's, so a create retried after a
 * crash between the two (or a duplicate create that found the winner before its intent) makes no second one.
 */
export async function ensureSessionIntent(deps: AppDeps, s: CheckoutSessionRecord): Promise<CheckoutSessionRecord> {
  if (s.payment_intent) return s;
  const auth = tenantAuth(s.tenant_id, s.region);
  const key = serviceIntentKey.ofCheckoutSession(s._id);
  let intent = await replayByKey(deps, auth, key);
  if (!intent) {
    const { connectors, failover } = await resolveCheckoutRouting(deps.mongo, s.tenant_id, null);
    const record = await newIntentRecord(deps, auth, {
      amount: s.quote!.charge.amount,
      currency: s.currency!,
      customer: s.customer,
      metadata: { [CHECKOUT_SESSION_METADATA]: s._id },
      webhooks: [],
      // Once paid, the payment page (where a 3-D Secure challenge returns) sends the customer on to complete.
      return_url: checkoutPageUrl(s._id, deps.config, '/complete'),
      pin: null,
      connectors,
      ...(failover ? { failover } : {}),
      // The intent expires with the session; a charge on the wire then still wins (and completes it).
      timeout_seconds: Math.max(1, Math.ceil((s.expires_at.getTime() - Date.now()) / 1000)),
      idempotency_key: key,
      api_version: 'v202607',
      setup_future_usage: 'off_session',
      // Once paid, the worker completes the session, whether or not the customer comes back to the page.
      owner: s._id,
    });
    intent = (await insertAndStart(deps, auth, record, { webhooks: [], customer: null })).record;
  }
  await checkoutSessionData(deps.mongo).setPaymentIntent(s._id, intent._id);
  return { ...s, payment_intent: intent._id };
}

/** The customer's time now: its test clock's when it lives on one (a subscription starts then). */
export async function customerNow(deps: AppDeps, tenantId: string, customerId: string): Promise<number> {
  const cus = await findCustomer(deps.mongo, tenantId, customerId);
  const clock = cus?.test_clock ? await testClockData(deps.mongo).find(tenantId, cus.test_clock) : null;
  return clock?.frozen_time.getTime() ?? Date.now();
}

export async function getCheckoutSessionRecord(deps: AppDeps, tenantId: string, id: string): Promise<CheckoutSessionRecord> {
  const s = await checkoutSessionData(deps.mongo).find(tenantId, id);
  if (!s) throw notFound('checkout_session', id, 'checkout_session');
  return s;
}

/**
 * GET /v202607/checkout-sessions/{id}: completes a session whose intent has succeeded (the customer may have
 * closed the page before it could), then answers it. A completion that cannot finish now (Temporal slow) leaves
 * it `open` for the next read.
 */
export async function retrieveCheckoutSession(deps: AppDeps, tenantId: string, id: string): Promise<CheckoutSessionView> {
  const s = await getCheckoutSessionRecord(deps, tenantId, id);
  try {
    return checkoutSessionView(await settleCheckoutSession(deps, s), deps);
  } catch (err) {
    deps.logger.warn({ err, checkout_session: id }, 'the checkout session could not complete now; a later read tries again');
    return checkoutSessionView(s, deps);
  }
}

/** How far a session has got: its record, and its intent (when it has one). */
export async function sessionIntent(deps: AppDeps, s: CheckoutSessionRecord): Promise<PaymentIntentRecord | null> {
  return s.payment_intent ? paymentIntentData(deps.mongo).find(s.tenant_id, s.payment_intent) : null;
}

/**
 * Completes an open session whose intent has succeeded; any other session is answered as it is. Throws only
 * what may pass (a 409 of an advancing test clock, Temporal not answering): the session stays open and the
 * next call completes it.
 */
export async function settleCheckoutSession(deps: AppDeps, s: CheckoutSessionRecord): Promise<CheckoutSessionRecord> {
  if (s.status !== 'open') return s;
  const intent = await sessionIntent(deps, s);
  // Its intent ended unpaid (canceled by the merchant, or expired with the session): nothing can pay it now.
  if (intent?.status === 'canceled') return { ...s, status: 'expired' };
  if (intent?.status !== 'success') return s;
  return complete(deps, s, intent);
}

async function complete(deps: AppDeps, s: CheckoutSessionRecord, intent: PaymentIntentRecord): Promise<CheckoutSessionRecord> {
  const sessions = checkoutSessionData(deps.mongo);
  const key = `cs:${s._id}`;
  const verification = s.quote!.charge.verification;
  let subscription: string;
  try {
    subscription = await startSubscription(deps, s, intent, key);
  } catch (err) {
    if (!(err instanceof DomainError) || err.kind !== 'invalid_request') throw err;
    // A subscription of this session may stand already (made by a completion before this one).
    const winner = await findWinner(deps, s.tenant_id, key);
    if (!winner) return failPaid(deps, s, intent, { code: err.code, message: err.message });
    subscription = winner;
  }
  // A card check is given back once it has done its job: in full, or what the merchant has not refunded of it.
  const refund = verification ? await giveBackPayment(deps, intent, serviceRefundKey.ofCheckoutSession(s._id, 'card_check')) : null;
  const at = new Date();
  await sessions.complete(s._id, subscription, refund, at);
  return { ...s, status: 'complete', subscription, refund, completed_at: at, completion_error: null };
}

async function startSubscription(deps: AppDeps, s: CheckoutSessionRecord, intent: PaymentIntentRecord, key: string): Promise<string> {
  const card = intent.payment_method;
  // Saved by the page's attempt (save_payment_method). A payment made without saving it (on the plain payment page) cannot start a subscription.
  if (!card) throw invalidRequest('parameter_missing', 'The payment saved no card: a subscription needs one to charge its renewals', 'payment_method');
  const body: SubscriptionCreateBody = {
    customer: s.customer,
    items: s.items,
    default_payment_method: card,
    ...(s.coupon ? { coupon: s.coupon } : {}),
    ...(s.promotion_code ? { promotion_code: s.promotion_code } : {}),
    ...(s.default_tax_rates.length ? { default_tax_rates: s.default_tax_rates } : {}),
    trial_period_days: s.trial_period_days ?? 0,
    metadata: s.metadata,
    ...(s.webhooks.length ? { webhooks: await webhooksWithSecrets(deps, s) } : {}),
    idempotency_key: key,
  };
  const firstPaidBy = s.quote!.charge.verification ? {} : { firstPaidBy: intent._id };
  const created = await createSubscription(deps, tenantAuth(s.tenant_id, s.region), body, firstPaidBy);
  return created.body.subscription;
}

/** The endpoints as the merchant gave them: the secrets come back from their record for the subscription's own. */
async function webhooksWithSecrets(deps: AppDeps, s: CheckoutSessionRecord): Promise<NonNullable<SubscriptionCreateBody['webhooks']>> {
  const secrets = webhookSecretData(deps.mongo);
  return Promise.all(
    s.webhooks.map(async (w) => {
      const ref = w.secretRef ? parseSecretRef(w.secretRef) : null;
      const secret = ref ? await secrets.secretOf(s.tenant_id, ref.id, ref.index) : null;
      return { url: w.url, events: w.events as NonNullable<SubscriptionCreateBody['webhooks']>[number]['events'], ...(secret ? { secret } : {}) };
    }),
  );
}

/**
 * Concurrent completions share the key, hence the subscription id (api/subscriptions/service.ts): its coupon is
 * redeemed once, for that id, so a racing completion is never refused for the coupon; it finds the winner.
 */
async function findWinner(deps: AppDeps, tenantId: string, key: string): Promise<string | null> {
  return (await subscriptionData(deps.mongo).byIdempotencyKey(tenantId, key))?._id ?? null;
}

/** Paid, but the subscription is refused for good: the payment goes back, and the session ends saying why. */
async function failPaid(deps: AppDeps, s: CheckoutSessionRecord, intent: PaymentIntentRecord, error: { code: string; message: string }): Promise<CheckoutSessionRecord> {
  deps.logger.warn({ checkout_session: s._id, payment_intent: intent._id, error }, 'a paid checkout session could not start its subscription: its payment is refunded');
  const refund = await giveBackPayment(deps, intent, serviceRefundKey.ofCheckoutSession(s._id, 'refund'));
  await checkoutSessionData(deps.mongo).fail(s._id, error, refund);
  return { ...s, status: 'expired', completion_error: error, refund };
}

