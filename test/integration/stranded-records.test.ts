import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { randomInt, randomUUID } from 'node:crypto';
import { redeemDiscount, releaseRedeemed } from '../../api/coupons/redeem';
import { subscriptionCreateBody } from '../../api/subscriptions/schemas';
import { createSubscription } from '../../api/subscriptions/service';
import type { AppDeps } from '../../api/deps';
import { strandedTakenBackData } from '../../data/stranded-taken-back';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { couponRedemptionsWorkflowId } from '../../workflows/coupon-redemptions/messages';
import type { StrandedSweepOutcome } from '../../workflows/stranded-sweep/messages';
import { admin, api, apiDeps, call, createPayoutMerchant, eventually, getStack, temporalClient, withMitClaim, type Merchant } from './harness';

// The stranded-records sweep on the real stack. A create inserts its intent (payout, checkout, test clock,
// subscription) at version 0, then starts its workflow; a record left behind without one (the API stopped
// between the two steps, the take-back refused, a payout's create answered 503 and never resent) reads as
// pending for good. The sweep deletes such records once they are older than its cutoff, with the webhook
// secrets their own create stored (and a subscription's coupon redemption), and leaves every record whose
// workflow exists. Other test files share the stack, so assertions are about this file's own records.

let m: Merchant;
let db: Mongo;
let temporal: Client;
/** What the API's own functions need (a coupon redemption, as a subscription's create counts it). */
let deps: AppDeps;
const intents = () => db.db.collection('payment_intents');
const payouts = () => db.db.collection('payouts');
const secrets = () => db.db.collection('webhook_secrets');
const HOUR_AGO = () => new Date(Date.now() - 3600_000);
/** A new id of this kind (`pi`, `chk`, `whs`, ...), as the service makes them. */
const idOf = (prefix: string) => `${prefix}_eu_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
/** A stored webhook-secrets record, as a create writes one for its endpoints; answers its id. */
async function plantedSecrets(secret: string): Promise<string> {
  const id = idOf('whs');
  await secrets().insertOne({ _id: id, tenant_id: m.tenant, secrets: [secret], created_at: HOUR_AGO() } as never);
  return id;
}

beforeAll(async () => {
  m = await withMitClaim(await createPayoutMerchant());
  db = await connectMongo(getStack().mongoUri);
  temporal = await temporalClient();
  deps = apiDeps(db, temporal);
});
afterAll(async () => {
  await db.close();
  await temporal.connection.close();
});

/** An intent made through the API, read back once its workflow has written it. */
async function createdIntent() {
  const r = await api.post('/v202607/payment-intents', { amount: 1500, currency: 'EUR' }, m.secretKey);
  expect(r.status).toBe(201);
  const id = r.body.payment_intent as string;
  return eventually(async () => {
    const rec = await intents().findOne({ _id: id } as never);
    return rec && rec.version > 0 ? rec : undefined;
  }, 15_000, 'the workflow’s first write');
}

/** A copy of a real intent's record under a new id, as a create leaves it before its workflow starts. */
async function strandedCopy(of: Record<string, unknown>, createdAt: Date, secretRef?: string, sharedSecretRef?: string) {
  const id = idOf('pi');
  const { _id, ...rest } = of;
  await intents().insertOne({
    ...rest,
    _id: id,
    status: 'pending',
    version: 0,
    created_at: createdAt,
    idempotency_scope: `${m.tenant}:stranded:${id}`,
    // As a create stores an endpoint's secret: `whs_...#<index>`, the record of secrets and the endpoint's place.
    ...(secretRef ? { webhooks: [{ url: 'https://shop.example/hooks', events: ['payment.success'], secretRef: `${secretRef}#0` }] } : {}),
    // An older-interface endpoint inherited from a checkout intent: its secrets are the checkout intent's.
    ...(sharedSecretRef ? { legacy_webhooks: [{ url: 'https://shop.example/older', secretRef: `${sharedSecretRef}#0` }] } : {}),
  } as never);
  return id;
}

const TASK_QUEUE = () => getStack().env.TEMPORAL_TASK_QUEUE ?? 'payments';

/** A sweep of records older than `olderThanSeconds`, looking again `recheckAfterMs` after its deletes. */
function sweep(olderThanSeconds: number, recheckAfterMs = 500): Promise<StrandedSweepOutcome> {
  return temporal.workflow.execute('strandedSweepWorkflow', {
    taskQueue: TASK_QUEUE(),
    workflowId: `stranded-sweep-test-${randomUUID()}`,
    args: [{ olderThanSeconds, recheckAfterMs }],
  });
}

test('a version-0 intent without a workflow is taken back with its own webhook secrets; one whose workflow exists, and a fresh one, are left', async () => {
  const real = await createdIntent();
  const secretRef = await plantedSecrets('whsec-stranded');
  const sharedRef = await plantedSecrets('whsec-checkout-intent');
  const stranded = await strandedCopy(real, HOUR_AGO(), secretRef, sharedRef);
  const fresh = await strandedCopy(real, new Date());
  // The real intent's workflow exists, yet its first write has not landed (as while no worker runs).
  await intents().updateOne({ _id: real._id } as never, { $set: { version: 0, created_at: HOUR_AGO() } });

  // The API reads the stranded record as any pending intent until the sweep runs.
  expect((await api.get(`/v202607/payment-intents/${stranded}`, m.secretKey)).body.status).toBe('pending');

  const outcome = await sweep(60);
  expect(outcome.payment_intent.takenBack).toBeGreaterThanOrEqual(1);
  expect(outcome.payment_intent.kept).toBeGreaterThanOrEqual(1);
  expect(await intents().findOne({ _id: stranded } as never)).toBeNull();
  expect(await secrets().findOne({ _id: secretRef } as never)).toBeNull();
  expect(await secrets().findOne({ _id: sharedRef } as never)).not.toBeNull();
  expect(await intents().findOne({ _id: real._id } as never)).toMatchObject({ version: 0 });
  expect(await intents().findOne({ _id: fresh } as never)).toMatchObject({ version: 0 });
  expect((await api.get(`/v202607/payment-intents/${stranded}`, m.secretKey)).status).toBe(404);

  // A second run leaves what the first left.
  await sweep(60);
  expect(await intents().findOne({ _id: real._id } as never)).toMatchObject({ version: 0 });
  expect(await intents().findOne({ _id: fresh } as never)).toMatchObject({ version: 0 });
  await intents().deleteOne({ _id: fresh } as never);
});

test('a stranded intent whose workflow a resend starts while the sweep is deleting it is put back, its secret kept', async () => {
  const real = await createdIntent();
  const secretRef = await plantedSecrets('whsec-raced');
  const raced = await strandedCopy(real, HOUR_AGO(), secretRef);
  // The workflow a resend would start from the record: the real intent's input under the stranded id.
  const started = (await temporal.workflow.getHandle(String(real._id)).fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
  const input = { ...(defaultPayloadConverter.fromPayload(started.input!.payloads![0]!) as Record<string, unknown>), id: raced };

  const running = sweep(60, 4000);
  // The sweep has deleted it; the resend that read it just before starts its workflow now.
  await eventually(async () => ((await intents().findOne({ _id: raced } as never)) === null ? true : undefined), 15_000, 'the sweep’s delete');
  await temporal.workflow.start('paymentIntentWorkflow', { workflowId: raced, taskQueue: TASK_QUEUE(), args: [input] });
  const outcome = await running;
  expect(outcome.payment_intent.putBack).toBeGreaterThanOrEqual(1);
  expect(outcome.payment_intent.named).not.toContain(raced);
  expect(await intents().findOne({ _id: raced } as never)).toMatchObject({ tenant_id: m.tenant, status: 'pending' });
  expect(await secrets().findOne({ _id: secretRef } as never)).not.toBeNull();
  expect((await api.get(`/v202607/payment-intents/${raced}`, m.secretKey)).body.status).toBe('pending');
  await temporal.workflow.getHandle(raced).terminate('test done');
});

test('a payout left at version 0 without a workflow is taken back with its webhook secret; a paid one is left', async () => {
  const r = await api.post('/payouts', { amount: 5000, currency: 'NGN', gateway: 'sandbox', bank_account_number: '0123456789', bank_account_name: 'Ada Obi', bank_code: '058', webhook_urls: ['https://shop.example/payouts'], webhook_secret: 'whsec-p' }, m.secretKey);
  expect(r.status).toBe(201);
  const paid = (await payouts().findOne({ _id: r.body.payout_uuid } as never))!;
  const secretRef = await plantedSecrets('whsec-stranded');
  // As the create leaves it when Temporal refused the start: pending_created, version 0, no workflow.
  const uuid = randomUUID();
  const { _id, ...rest } = paid;
  await payouts().insertOne({
    ...rest,
    _id: uuid,
    id: 1_000_000_000 + randomInt(1_000_000_000),
    status: 'pending',
    sub_status: 'pending_created',
    gateway_payout_id: null,
    version: 0,
    created_at: HOUR_AGO(),
    idempotency_scope: `${m.tenant}:stranded:${uuid}`,
    webhook_secret_ref: secretRef,
  } as never);
  expect((await api.get(`/payouts/${uuid}`, m.secretKey)).body.sub_status).toBe('pending_created');
  // An operator is told why nothing can be retried or confirmed: never started, not final.
  const operate = (action: string, target: string, extra: Record<string, unknown> = {}) =>
    admin.post(`/admin/operations/${action}`, { operator: 'stranded-test', reason: 'INC-1', target, ...extra });
  for (const [action, extra] of [['retry_payout', {}], ['confirm_payout', { evidence: 'bank statement line 4' }]] as const) {
    const refused = await operate(action, uuid, extra);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('payout_not_started');
  }
  expect((await operate('retry_payout', r.body.payout_uuid as string)).body.error.code).toBe('payout_final');
  // A uuid as a merchant's ticket may write it, in upper case, names the same payout (as the public routes take it).
  const upper = await operate('retry_payout', (r.body.payout_uuid as string).toUpperCase());
  expect([upper.status, upper.body.error.code]).toEqual([409, 'payout_final']);
  expect((await admin.get(`/admin/operations?target=${(r.body.payout_uuid as string).toUpperCase()}`)).body.data.filter((a: { outcome: string }) => a.outcome === 'refused')).toHaveLength(2);

  const outcome = await sweep(60);
  expect(outcome.payout.takenBack).toBeGreaterThanOrEqual(1);
  expect(await payouts().findOne({ _id: uuid } as never)).toBeNull();
  expect(await secrets().findOne({ _id: secretRef } as never)).toBeNull();
  // The older interface reads a payout it does not have as a null body.
  expect((await api.get(`/payouts/${uuid}`, m.secretKey)).body).toBeNull();
  expect(await payouts().findOne({ _id: paid._id } as never)).toMatchObject({ sub_status: 'success' });
});

test('a checkout left at version 0 without a workflow holds its cart until the sweep frees it; a stranded test clock goes too', async () => {
  const settings = await call('PUT', `/admin/tenants/${m.tenant}/commerce-settings`, { body: { taxRateBasisPoints: 0, shippingFlat: 0, freeShippingFrom: 0 }, key: getStack().adminToken });
  expect(settings.status).toBe(200);
  const product = await admin.post(`/admin/tenants/${m.tenant}/products`, { sku: `SKU-stranded-${Date.now()}`, title: { en: 'Mug', ar: 'كوب' }, price: 1200, currency: 'EUR', stock: 5 });
  expect(product.status).toBe(201);
  const cart = await api.post('/commerce/cart', { userId: 'user-stranded', currency: 'EUR' }, m.secretKey);
  expect((await api.post('/cart', { cartId: cart.body.cartId, products: [{ id: product.body.id, quantity: 1 }] }, m.secretKey)).status).toBe(200);
  const checkout = () => api.post('/checkouts', { cartId: cart.body.cartId, shippingAddress: { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' } }, m.secretKey);
  // As a create leaves it when its workflow start failed and nothing took it back: the cart's one open checkout.
  const stranded = idOf('chk');
  await db.db.collection('checkouts').insertOne({
    _id: stranded,
    tenant_id: m.tenant,
    cart_id: cart.body.cartId,
    user_id: 'user-stranded',
    currency: 'EUR',
    lines: [],
    totals: { subtotal: 1200, tax: 0, shipping: 0, total: 1200 },
    status: 'reserving',
    open_scope: cart.body.cartId,
    payment_intent: null,
    order_id: null,
    created_at: HOUR_AGO(),
    updated_at: HOUR_AGO(),
    version: 0,
  } as never);
  const blocked = await checkout();
  expect(blocked.status).toBe(409);
  expect(blocked.body.error.code).toBe('checkout_in_progress');
  const clock = idOf('clock');
  await db.db.collection('test_clocks').insertOne({ _id: clock, tenant_id: m.tenant, name: null, frozen_time: new Date(), status: 'ready', created_at: HOUR_AGO(), version: 0 } as never);

  const outcome = await sweep(60);
  expect(outcome.checkout.named).toContain(stranded);
  expect(outcome.test_clock.named).toContain(clock);
  expect(await db.db.collection('checkouts').findOne({ _id: stranded } as never)).toBeNull();
  expect(await db.db.collection('test_clocks').findOne({ _id: clock } as never)).toBeNull();
  const freed = await checkout();
  expect(freed.status).toBe(201);
  expect(freed.body.checkoutId).not.toBe(stranded);
});

const V = '/v202607';
const subscriptions = () => db.db.collection('subscriptions');
/** A coupon made through the API; answers its id. */
const newCoupon = async (body: Record<string, unknown>) => (await api.post(`${V}/coupons`, body, m.secretKey)).body.coupon as string;
/** The coupon's owner ends, as after an idle hour: a new run of it remembers no subscription it counted. */
const closeOwner = (coupon: string) => temporal.workflow.getHandle(couponRedemptionsWorkflowId(coupon)).terminate('closed, as after an idle hour');

/** A customer with a saved card, a monthly plan, and a real subscription to it (its record, which its workflow owns). */
async function subscribedCustomer() {
  const customer = (await api.post(`${V}/customers`, { reference: `stranded-${randomUUID()}` }, m.secretKey)).body.customer as string;
  const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer, setup_future_usage: 'off_session' }, m.secretKey);
  const card = await api.post(`${V}/payment-intents/${intent.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
  const plan = (await api.post(`${V}/plans`, { amount: 1000, currency: 'EUR', interval: 'month', nickname: 'Stranded' }, m.secretKey)).body.plan as string;
  const real = await api.post(`${V}/subscriptions`, { customer, items: [{ plan }], default_payment_method: card.body.payment_method_uuid }, m.secretKey);
  expect(real.status).toBe(201);
  const realRecord = (await subscriptions().findOne({ _id: real.body.subscription } as never))!;
  return { customer, card, plan, real, realRecord };
}

test('a subscription left at version 0 without a workflow is taken back: its coupon’s redemption given back (by an owner started again if it closed), its webhook secret removed', async () => {
  const { real, realRecord } = await subscribedCustomer();

  // A coupon with one use, which the stranded subscription's create redeemed before its start failed.
  const coupon = await newCoupon({ percent_off: 10, duration: 'once', max_redemptions: 1 });
  const stranded = idOf('sub');
  await redeemDiscount(deps, m.tenant, { coupon, subscription: stranded, currency: 'EUR' });
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1, valid: false });
  const secretRef = await plantedSecrets('whsec-subscription');
  /** A copy of the real record as a create leaves it when its start failed, with its discount and webhooks. */
  const plant = (id: string, discount: { coupon: string; promotionCode: string | null }, webhooks: unknown[]) => {
    const { _id, ...rest } = realRecord;
    return subscriptions().insertOne({
      ...rest,
      _id: id,
      status: 'incomplete',
      snapshot: { ...realRecord.snapshot, id, status: 'incomplete', latestInvoice: null, discount: { ...discount, start: Date.now(), end: null } },
      webhooks,
      idempotency_key: null,
      idempotency_scope: `${m.tenant}:stranded:${id}`,
      created_at: HOUR_AGO(),
      version: 0,
    } as never);
  };
  await plant(stranded, { coupon, promotionCode: null }, [{ url: 'https://shop.example/hooks', events: ['subscription.created'], secretRef: `${secretRef}#0` }]);
  expect((await api.get(`${V}/subscriptions/${stranded}`, m.secretKey)).body).toMatchObject({ status: 'incomplete', discount: { coupon } });

  // Another, through a one-use promotion code, whose coupon's owner has closed since (as after an idle hour):
  // a new run of it remembers no subscription it counted.
  const closedCoupon = await newCoupon({ percent_off: 20, duration: 'once' });
  const code = await api.post(`${V}/promotion-codes`, { coupon: closedCoupon, code: `STRANDED${randomInt(1e9)}`, max_redemptions: 1 }, m.secretKey);
  expect(code.status).toBe(201);
  const strandedWithCode = idOf('sub');
  await redeemDiscount(deps, m.tenant, { promotionCode: code.body.promotion_code, subscription: strandedWithCode, currency: 'EUR' });
  await closeOwner(closedCoupon);
  expect((await api.get(`${V}/promotion-codes/${code.body.promotion_code}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1 });
  await plant(strandedWithCode, { coupon: closedCoupon, promotionCode: code.body.promotion_code }, []);

  const outcome = await sweep(60);
  expect(outcome.subscription.named).toEqual(expect.arrayContaining([stranded, strandedWithCode]));
  expect(outcome.subscription.released).toBeGreaterThanOrEqual(2);
  expect(await subscriptions().findOne({ _id: stranded } as never)).toBeNull();
  expect(await secrets().findOne({ _id: secretRef } as never)).toBeNull();
  expect((await api.get(`${V}/subscriptions/${stranded}`, m.secretKey)).status).toBe(404);
  // The give-back is an Update the owner answers once it has written the records: they read it at once.
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0, valid: true });
  expect((await redeemDiscount(deps, m.tenant, { coupon, subscription: idOf('sub'), currency: 'EUR' })).coupon.times_redeemed).toBe(1);
  expect((await api.get(`${V}/coupons/${closedCoupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0 });
  expect((await api.get(`${V}/promotion-codes/${code.body.promotion_code}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0, active: true });
  const again = await redeemDiscount(deps, m.tenant, { promotionCode: code.body.promotion_code, subscription: idOf('sub'), currency: 'EUR' });
  expect(again.promotionCode?.times_redeemed).toBe(1);
  // The real subscription, which its workflow owns, is left as it was.
  expect((await subscriptions().findOne({ _id: real.body.subscription } as never))?.version).toBeGreaterThan(0);
});

/** Holds a copy of `record` as the sweep does before its delete, as if held an hour ago (a sweep that died since). */
async function heldAnHourAgo(kind: string, record: { _id: string; created_at: Date }) {
  await strandedTakenBackData(db).hold(kind as never, record);
  await db.c.strandedTakenBack.updateMany({ 'record._id': record._id } as never, { $set: { taken_at: HOUR_AGO() } });
}
const heldCopies = (id: string) => db.c.strandedTakenBack.countDocuments({ 'record._id': id } as never);

/** A subscription record as a create leaves it at version 0, with a coupon's redemption and, if given, a webhook secret. */
const subscriptionRecord = (sub: string, coupon: string, secretRef?: string) => ({
  _id: sub,
  tenant_id: m.tenant,
  snapshot: { id: sub, discount: { coupon, promotionCode: null, start: Date.now(), end: null } },
  webhooks: secretRef ? [{ url: 'https://shop.example/hooks', events: ['subscription.created'], secretRef: `${secretRef}#0` }] : [],
  created_at: HOUR_AGO(),
  version: 0,
});

test('a sweep that died between its delete and its second look loses nothing: the next one puts back or frees what it held', async () => {
  // An intent the dead sweep deleted whose workflow exists (a resend started it in the window): it goes back.
  const real = await createdIntent();
  await intents().deleteOne({ _id: real._id } as never);
  await heldAnHourAgo('payment_intent', real as never);
  // A subscription it deleted, without a workflow, whose coupon's owner has closed since: its webhook secret
  // and its coupon's redemption are freed.
  const coupon = await newCoupon({ percent_off: 5, duration: 'once', max_redemptions: 1 });
  const sub = idOf('sub');
  await redeemDiscount(deps, m.tenant, { coupon, subscription: sub, currency: 'EUR' });
  await closeOwner(coupon);
  const secretRef = await plantedSecrets('whsec-held');
  await heldAnHourAgo('subscription', subscriptionRecord(sub, coupon, secretRef));
  // A subscription it held but died before deleting, which this sweep's pages do not reach (it looks at
  // records older than a week): deleted now, and freed a recheck later, not before.
  const standing = idOf('sub');
  const standingSecret = await plantedSecrets('whsec-standing');
  const standingRecord = { ...subscriptionRecord(standing, coupon, standingSecret), snapshot: { id: standing, discount: null } };
  await subscriptions().insertOne(standingRecord as never);
  await heldAnHourAgo('subscription', standingRecord);

  const outcome = await sweep(7 * 86_400);
  expect(outcome.payment_intent.putBack).toBeGreaterThanOrEqual(1);
  expect(await intents().findOne({ _id: real._id } as never)).toEqual(real);
  expect((await api.get(`/v202607/payment-intents/${real._id}`, m.secretKey)).status).toBe(200);
  expect(outcome.subscription.named).toContain(sub);
  expect(await secrets().findOne({ _id: secretRef } as never)).toBeNull();
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0, valid: true });
  expect(await heldCopies(String(real._id))).toBe(0);
  expect(await heldCopies(sub)).toBe(0);
  // The one still standing: deleted, still held, its secret kept until the recheck.
  expect(outcome.subscription.named).not.toContain(standing);
  expect(await subscriptions().findOne({ _id: standing } as never)).toBeNull();
  expect(await heldCopies(standing)).toBe(1);
  expect(await secrets().findOne({ _id: standingSecret } as never)).not.toBeNull();
  await new Promise((r) => setTimeout(r, 600)); // past the sweep's recheck (500 ms here)
  expect((await sweep(7 * 86_400)).subscription.named).toContain(standing);
  expect(await heldCopies(standing)).toBe(0);
  expect(await secrets().findOne({ _id: standingSecret } as never)).toBeNull();
});

test('a redemption given back before its owner closed is not given back again when a held copy of its subscription comes back', async () => {
  const coupon = await newCoupon({ percent_off: 5, duration: 'once', max_redemptions: 2 });
  const [given, kept] = [idOf('sub'), idOf('sub')];
  await redeemDiscount(deps, m.tenant, { coupon, subscription: given, currency: 'EUR' });
  await redeemDiscount(deps, m.tenant, { coupon, subscription: kept, currency: 'EUR' });
  // Given back once (a create that failed, or a sweep that died after the give-back), then the owner closed.
  await releaseRedeemed(deps, coupon, given);
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1 });
  await closeOwner(coupon);
  await heldAnHourAgo('subscription', subscriptionRecord(given, coupon));

  const outcome = await sweep(7 * 86_400);
  expect(outcome.subscription.named).toContain(given);
  expect(outcome.subscription.notGivenBack).toBeGreaterThanOrEqual(1);
  // Still the one use of `kept`: a new run of the owner would have given `given` back a second time.
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1 });
  expect(await heldCopies(given)).toBe(0);
});

test('a subscription counted again after its give-back, then stranded, is given back again', async () => {
  const coupon = await newCoupon({ percent_off: 5, duration: 'once', max_redemptions: 1 });
  const sub = idOf('sub');
  // Counted, given back (a create that failed: the mark), counted again (a resend with the same key: no mark).
  await redeemDiscount(deps, m.tenant, { coupon, subscription: sub, currency: 'EUR' });
  await releaseRedeemed(deps, coupon, sub);
  await redeemDiscount(deps, m.tenant, { coupon, subscription: sub, currency: 'EUR' });
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1, valid: false });
  await closeOwner(coupon);
  await heldAnHourAgo('subscription', subscriptionRecord(sub, coupon));

  const outcome = await sweep(7 * 86_400);
  // This sweep, or the stack's own every 5 minutes if it came first (a fresh-clone run met it once): the held copy is
  // gone either way, and so is the redemption.
  if (!outcome.subscription.named.includes(sub)) expect(await heldCopies(sub)).toBe(0);
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0, valid: true });
});

test('a held copy that cannot be settled stays held and counted; the others are settled', async () => {
  const coupon = await newCoupon({ percent_off: 5, duration: 'once' });
  const good = idOf('sub');
  await redeemDiscount(deps, m.tenant, { coupon, subscription: good, currency: 'EUR' });
  // A copy whose discount names figures the owner refuses (as if the coupon record were damaged).
  const bad = idOf('sub');
  const badCoupon = idOf('coupon');
  await db.c.coupons.insertOne({ _id: badCoupon, tenant_id: m.tenant, times_redeemed: -1, version: 0, created_at: new Date() } as never);
  await heldAnHourAgo('subscription', subscriptionRecord(bad, badCoupon));
  await heldAnHourAgo('subscription', subscriptionRecord(good, coupon));
  try {
    const outcome = await sweep(7 * 86_400);
    expect(outcome.subscription.named).toContain(good);
    expect(outcome.subscription.named).not.toContain(bad);
    expect(outcome.subscription.unknown).toBeGreaterThanOrEqual(1);
    expect(await heldCopies(bad)).toBe(1);
    expect(await heldCopies(good)).toBe(0);
    expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0 });
  } finally {
    await db.c.strandedTakenBack.deleteMany({ 'record._id': bad } as never);
    await db.c.coupons.deleteOne({ _id: badCoupon } as never);
  }
});

/** The API's deps with some of a collection's methods replaced (the database failing as a test needs). */
function depsFailing(overrides: Partial<Record<'subscriptions' | 'coupons', Record<string, (...args: never[]) => Promise<unknown>>>>, base: AppDeps = deps): AppDeps {
  const c = { ...base.mongo.c };
  for (const [name, methods] of Object.entries(overrides) as ['subscriptions' | 'coupons', Record<string, unknown>][]) {
    const real = base.mongo.c[name];
    (c as Record<string, unknown>)[name] = new Proxy(real, {
      get(target, prop) {
        if (typeof prop === 'string' && prop in methods) return methods[prop];
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }
  return { ...base, mongo: { ...base.mongo, c } };
}

test('a subscription create whose insert failed gives its redemption back, and takes back its record if the insert landed after all', async () => {
  const { customer, card, plan } = await subscribedCustomer();
  const auth = { tenantId: m.tenant, region: 'eu', keyKind: 'secret' as const, claims: [] };
  const create = async (d: AppDeps) => {
    const coupon = await newCoupon({ percent_off: 10, duration: 'once', max_redemptions: 1 });
    const body = subscriptionCreateBody.parse({ customer, items: [{ plan }], default_payment_method: card.body.payment_method_uuid, coupon });
    await expect(createSubscription(d, auth, body)).rejects.toThrow(/connection reset/);
    return coupon;
  };
  // The insert landed, its answer was lost: the record is taken back, then the redemption given back.
  const landed = await create(
    depsFailing({
      subscriptions: {
        insertOne: async (doc: never) => {
          await db.c.subscriptions.insertOne(doc);
          throw new Error('connection reset (the insert landed; its answer was lost)');
        },
      },
    }),
  );
  expect(await subscriptions().countDocuments({ tenant_id: m.tenant, 'snapshot.discount.coupon': landed } as never)).toBe(0);
  expect((await api.get(`${V}/coupons/${landed}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0, valid: true });
  // The insert did not land, and from then on the database answers nothing (the take-back and the coupon's read
  // fail): the redemption is given back all the same, by the coupon's owner, which reads nothing to do it.
  let down = false;
  const refused = async () => {
    throw new Error('connection reset (database down)');
  };
  const lost = await create(
    depsFailing({
      subscriptions: {
        insertOne: async () => {
          down = true;
          return refused();
        },
        findOneAndDelete: refused,
        findOne: refused,
      },
      coupons: { findOne: (...args: never[]) => (down ? refused() : db.c.coupons.findOne(...(args as [never]))) },
    }),
  );
  expect((await api.get(`${V}/coupons/${lost}`, m.secretKey)).body).toMatchObject({ times_redeemed: 0, valid: true });
});

test('a subscription create whose insert failed while a concurrent create with its key stands leaves that one’s redemption counted', async () => {
  const { customer, card, plan } = await subscribedCustomer();
  const auth = { tenantId: m.tenant, region: 'eu', keyKind: 'secret' as const, claims: [] };
  const coupon = await newCoupon({ percent_off: 10, duration: 'once', max_redemptions: 2 });
  const body = subscriptionCreateBody.parse({ customer, items: [{ plan }], default_payment_method: card.body.payment_method_uuid, coupon, idempotency_key: `same-key-${randomUUID()}` });
  // Both creates name one subscription (its id comes from the key), so the coupon counts one redemption, for it.
  // The concurrent create's insert lands first; this one's fails with an error that is not the key's conflict.
  let concurrent: { _id: string } | undefined;
  const failing = depsFailing({
    subscriptions: {
      insertOne: async (doc: never) => {
        concurrent = { ...(doc as { _id: string }), created_at: new Date(Date.now() - 5) } as never;
        await db.c.subscriptions.insertOne(concurrent as never);
        throw new Error('connection reset (this insert never landed)');
      },
    },
  });
  await expect(createSubscription(failing, auth, body)).rejects.toThrow(/connection reset/);
  // The concurrent create's record stands, and its redemption stays counted: the failed create gave back only its secrets.
  expect(await subscriptions().countDocuments({ _id: concurrent!._id } as never)).toBe(1);
  expect((await api.get(`${V}/coupons/${coupon}`, m.secretKey)).body).toMatchObject({ times_redeemed: 1 });
  await subscriptions().deleteOne({ _id: concurrent!._id } as never);
  await releaseRedeemed(deps, coupon, concurrent!._id);
});

test('the worker made the sweep’s Schedule at start (every 5 minutes), and STRANDED_SWEEP_SCHEDULE=off deletes it', async () => {
  const { ensureStrandedSweepScheduleWith } = await import('../../worker/stranded-sweep-schedule');
  const { createLogger } = await import('../../platform/logger');
  const schedule = temporal.schedule.getHandle('stranded-records-sweep');
  const described = await schedule.describe();
  expect(described.spec.calendars).toEqual([expect.objectContaining({ minute: [{ start: 0, end: 59, step: 5 }] })]);
  expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'strandedSweepWorkflow', args: [{ olderThanSeconds: 300 }] });

  const logger = createLogger({ name: 'stranded-sweep-test', level: 'silent' });
  const config = { STRANDED_SWEEP_SCHEDULE: '*/5 * * * *', STRANDED_AFTER_SECONDS: 300, TEMPORAL_TASK_QUEUE: TASK_QUEUE() };
  expect(await ensureStrandedSweepScheduleWith(temporal, { ...config, STRANDED_SWEEP_SCHEDULE: 'off' }, logger)).toBe('deleted');
  expect(await ensureStrandedSweepScheduleWith(temporal, { ...config, STRANDED_SWEEP_SCHEDULE: 'off' }, logger)).toBe('off');
  expect(await ensureStrandedSweepScheduleWith(temporal, config, logger)).toBe('created');
  expect(await ensureStrandedSweepScheduleWith(temporal, config, logger)).toBe('updated');
});
