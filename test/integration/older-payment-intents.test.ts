import { createCheckoutIntent } from '../../api/checkout-intents/service';
import { checkoutIntentCreateBody } from '../../api/checkout-intents/schemas';
import { tenantAuth } from '../../api/deps';
import { createGatewayRegistry } from '../../gateways/registry';
import { connectMongo } from '../../platform/mongo';
import { api, apiDeps, call, createMerchant, eventually, getStack, mongo, pay, startHookReceiver, temporalClient, withMethod, type Merchant, type Delivery } from './harness';

// The older interface's payment intents on the real stack: the unprefixed create bound to a gateway, the
// v202606 create, checkout intents, the three ids of an intent, the front-end-safe retrieve, the
// page-numbered list, cancel, and the older webhooks. Underneath are the same records and workflows as
// v202607's, so every crossing between the interfaces is tested too.

let hooks: Delivery[];
let hookBase = '';
let closeHooks: () => Promise<void>;
beforeAll(async () => {
  ({ received: hooks, base: hookBase, close: closeHooks } = await startHookReceiver());
});
afterAll(() => closeHooks());

let m: Merchant;
let other: Merchant;
beforeAll(async () => {
  [m, other] = await Promise.all([createMerchant('Older shop'), createMerchant()]);
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const put = (path: string, key?: string) => call('PUT', path, { key });
const create = (body: Record<string, unknown>, key = m.secretKey) => api.post('/payment-intents', { gateway: 'sandbox', amount: 2500, currency: 'EUR', ...body }, key);
const retrieve = (ref: string | number, key = m.secretKey) => api.get(`/payment-intents/${ref}`, key);
/** The older intent's `pi_` id, which the hosted page and the attempts endpoint use. */
const piOf = async (uuid: string) => (await retrieve(uuid)).body.initial_data.payment_intent_id as string;
const olderSettled = (uuid: string, subStatus: string) =>
  eventually(async () => {
    const r = await retrieve(uuid);
    return r.body.sub_status === subStatus ? r.body : undefined;
  }, 15_000, `intent ${uuid} ${subStatus}`);

describe('POST /payment-intents (bound to a gateway)', () => {
  test('creates an intent: its UUID, resource_created and the hosted page as target_url', async () => {
    const r = await create({ human_friendly_payment_intent_secret: 'ORDER-17', lg: 'ar', feature_flag: 'beta', payment_intent_timeout_seconds: 600 });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ payment_intent: expect.stringMatching(UUID), resource_created: true, target_url: expect.stringMatching(/\/pay\/pi_eu_.+client_secret=pics_/) });
    const v = (await retrieve(r.body.payment_intent)).body;
    expect(v).toMatchObject({
      payment_intent: r.body.payment_intent,
      payment_intent_secret: expect.any(Number),
      amount: 2500,
      currency: 'EUR',
      status: 'pending',
      sub_status: 'pending_created',
      step_number: 1,
      last_reason: '',
      gateway: 'sandbox',
      human_friendly_payment_intent_secret: 'ORDER-17',
      payment_intent_timeout_seconds: 600,
      lg: 'ar',
      feature_flag: 'beta',
      transaction_id: null,
      checkout_intent: null,
      tenant_initial_user_data: { payment_intent_channel: 'api', redirect_to: r.body.target_url },
    });
    expect(r.body.target_url).toContain(v.initial_data.payment_intent_id);
  });

  test('checkout_intent_idempotency_key with another amount, currency, gateway or checkout intent is a 400 idempotency_key_in_use, also at once; page fields may differ', async () => {
    const key = `ord-other-${Date.now()}`;
    const first = await create({ checkout_intent_idempotency_key: key, human_friendly_payment_intent_secret: 'ORDER-1' });
    expect(first.status).toBe(201);
    const checkout = await api.post('/checkout-intents', { amount: 2500, currency: 'EUR' }, m.secretKey);
    const others: Record<string, unknown>[] = [{ amount: 2600 }, { currency: 'USD' }, { gateway: 'elsewhere' }, { checkout_intent: checkout.body.checkout_intent, amount: undefined, currency: undefined }];
    for (const other of others) {
      const r = await create({ checkout_intent_idempotency_key: key, ...other });
      expect([JSON.stringify(other), r.status, r.body.error?.code, r.body.error?.param]).toEqual([JSON.stringify(other), 400, 'idempotency_key_in_use', 'checkout_intent_idempotency_key']);
    }
    const repage = await create({ checkout_intent_idempotency_key: key, human_friendly_payment_intent_secret: 'ORDER-1b', lg: 'fr', final_success_url: 'https://shop.example/ok', payment_intent_timeout_seconds: 60 });
    expect([repage.status, repage.body]).toEqual([200, { ...first.body, resource_created: false }]);
    // At once: one intent, answered to the requests of its amount; the others are refused.
    const raced = `ord-race-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ checkout_intent_idempotency_key: raced, amount: i % 2 ? 2600 : 2500 })));
    const winner = replies.findIndex((r) => r.status === 201);
    expect(replies.map((r, i) => (i % 2 === winner % 2 ? r.body.payment_intent : r.body.error?.code))).toEqual(
      replies.map((_, i) => (i % 2 === winner % 2 ? replies[winner]!.body.payment_intent : 'idempotency_key_in_use')),
    );
    expect((await retrieve(replies[winner]!.body.payment_intent)).body.amount).toBe(winner % 2 ? 2600 : 2500);
  });

  test('defaults: a 1800 s timeout, no final URLs, no line items', async () => {
    const v = (await retrieve((await create({})).body.payment_intent)).body;
    expect(v).toMatchObject({ payment_intent_timeout_seconds: 1800, final_success_url: null, final_failure_url: null, line_items: [], lg: null });
  });

  test('checkout_intent_idempotency_key: a repeat answers the same intent, resource_created false, 200', async () => {
    const key = `ord-${Date.now()}`;
    const [a, b] = await Promise.all([create({ checkout_intent_idempotency_key: key }), create({ checkout_intent_idempotency_key: key })]);
    expect(a.body.payment_intent).toBe(b.body.payment_intent);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    const again = await create({ checkout_intent_idempotency_key: key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ payment_intent: a.body.payment_intent, resource_created: false, target_url: a.body.target_url });
  });

  test('a gateway the tenant has no live connector for is a 400 naming gateway', async () => {
    const r = await create({ gateway: 'acquirer-x' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'gateway_invalid', param: 'gateway' });
    expect(r.body.error.message).toContain('sandbox');
  });

  test('tenant must be the key\'s own (by id or name); another is a 400', async () => {
    expect((await create({ tenant: m.tenant })).status).toBe(201);
    expect((await create({ tenant: 'Older shop' })).status).toBe(201);
    const r = await create({ tenant: other.tenant });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'tenant_mismatch', param: 'tenant' });
  });

  test('amount and currency are required without a checkout intent; a bad line item is named', async () => {
    const r = await api.post('/payment-intents', { gateway: 'sandbox' }, m.secretKey);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('amount');
    const li = await create({ line_items: [{ name: 'Tea', quantity: 0, price: 100 }] });
    expect(li.status).toBe(400);
    expect(li.body.error.param).toBe('line_items[0][quantity]');
  });

  test('no key is a 401; a publishable key cannot create', async () => {
    expect((await api.post('/payment-intents', { gateway: 'sandbox', amount: 1, currency: 'EUR' })).status).toBe(401);
    expect((await create({}, m.publishableKey)).status).toBe(403);
  });
});

describe('three ids, one intent', () => {
  test('the UUID, the pi_ id and the integer secret retrieve the same intent; v202607 retrieves it by UUID and pi_', async () => {
    const uuid = (await create({ amount: 777 })).body.payment_intent;
    const byUuid = (await retrieve(uuid)).body;
    const pi = byUuid.initial_data.payment_intent_id;
    expect((await retrieve(pi)).body).toEqual(byUuid);
    expect((await retrieve(byUuid.payment_intent_secret)).body).toEqual(byUuid);
    for (const ref of [uuid, pi, String(byUuid.payment_intent_secret)]) {
      const v = await api.get(`/v202607/payment-intents/${ref}`, m.secretKey);
      expect(v.status).toBe(200);
      expect(v.body).toMatchObject({ payment_intent: pi, amount: 777, status: 'pending' });
    }
  });

  test('an intent made with v202607 has a UUID and a secret too, and the older interface shows it', async () => {
    const pi = (await api.post('/v202607/payment-intents', { amount: 900, currency: 'EUR' }, m.secretKey)).body.payment_intent;
    const v = await retrieve(pi);
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ payment_intent: expect.stringMatching(UUID), gateway: null, amount: 900, sub_status: 'pending_created' });
    expect((await retrieve(v.body.payment_intent)).body.initial_data.payment_intent_id).toBe(pi);
  });

  test("another tenant's ids are 404 with its own secret key", async () => {
    const uuid = (await create({})).body.payment_intent;
    const secret = (await retrieve(uuid)).body.payment_intent_secret;
    expect((await retrieve(uuid, other.secretKey)).status).toBe(404);
    expect((await retrieve(secret, other.secretKey)).status).toBe(404);
    expect((await api.get(`/v202607/payment-intents/${uuid}`, other.secretKey)).status).toBe(404);
  });
});

describe('GET /payment-intents/{payment_intent} is safe for front-end code', () => {
  let uuid: string;
  let pi: string;
  let clientSecret: string;
  beforeAll(async () => {
    const r = await create({ payload: { basket: 'secret-basket' }, webhook_urls: [`${hookBase}/fe`], webhook_secret: 'fe-secret' });
    uuid = r.body.payment_intent;
    clientSecret = new URL(r.body.target_url).searchParams.get('client_secret')!;
    pi = await piOf(uuid);
  });

  test('a publishable key of the tenant reads it by UUID or pi_ id: public fields only', async () => {
    for (const ref of [uuid, pi]) {
      const r = await retrieve(ref, m.publishableKey);
      expect(r.status).toBe(200);
      expect(r.body.payment_intent).toBe(uuid);
      const text = JSON.stringify(r.body);
      for (const hidden of ['secret-basket', 'fe-secret', '/fe', 'payload', 'webhook']) expect(text).not.toContain(hidden);
    }
  });

  test("a publishable key sees neither the customer's contact details nor the client secret in redirect_to; the secret key and the client secret do", async () => {
    const made = await api.post('/v202606/payment-intents', { amount: 900, currency: 'EUR', customer: { email: 'fe-ada@example.com', phone_number: '+2348012345679' } }, m.secretKey);
    const full = (await retrieve(made.body.payment_intent)).body;
    expect(full.tenant_initial_user_data).toMatchObject({ email: 'fe-ada@example.com', phone_number: '+2348012345679', redirect_to: expect.stringContaining('client_secret=pics_') });
    const shown = await retrieve(made.body.payment_intent, m.publishableKey);
    expect(shown.status).toBe(200);
    expect(shown.body.tenant_initial_user_data).toEqual({ email: null, phone_number: null, redirect_to: null, payment_intent_channel: 'api' });
    for (const hidden of ['pics_', 'fe-ada@example.com', '2348012345679']) expect(JSON.stringify(shown.body)).not.toContain(hidden);
    const secret = new URL(full.tenant_initial_user_data.redirect_to).searchParams.get('client_secret')!;
    expect((await retrieve(made.body.payment_intent, secret)).body.tenant_initial_user_data).toEqual(full.tenant_initial_user_data);
  });

  test('the client secret reads its own intent', async () => {
    const r = await retrieve(uuid, clientSecret);
    expect(r.status).toBe(200);
    expect(r.body.payment_intent).toBe(uuid);
    expect((await retrieve(pi, clientSecret)).status).toBe(200);
    const another = (await create({})).body.payment_intent;
    expect((await retrieve(another, clientSecret)).status).toBe(401);
  });

  test('the integer secret, which can be guessed, needs the secret key', async () => {
    const secret = (await retrieve(uuid)).body.payment_intent_secret;
    expect((await retrieve(secret, m.publishableKey)).status).toBe(404);
    expect((await retrieve(secret, m.secretKey)).status).toBe(200);
  });

  test('nor can a publishable key submit an attempt by the integer: 404, and the intent is untouched', async () => {
    const fresh = (await create({})).body.payment_intent;
    const secret = (await retrieve(fresh)).body.payment_intent_secret;
    const r = await api.post(`/v202607/payment-intents/${secret}/attempts`, { token: 'tok_nope' }, m.publishableKey);
    expect(r.status).toBe(404);
    expect(JSON.stringify(r.body)).not.toContain('pi_');
    expect((await retrieve(fresh)).body.sub_status).toBe('pending_created');
  });

  test("another tenant's publishable key and no credential at all read nothing", async () => {
    expect((await retrieve(uuid, other.publishableKey)).status).toBe(404);
    const none = await api.get(`/payment-intents/${uuid}`);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('invalid_api_key');
  });
});

describe('progress: status, sub_status, step_number, last_reason, transaction_id', () => {
  test('a paid intent: success, step 4, an integer transaction_id; the older list row shows it too', async () => {
    const uuid = (await create({ amount: 4100 })).body.payment_intent;
    expect((await pay(await piOf(uuid), m.publishableKey)).body.status).toBe('success');
    const v = await olderSettled(uuid, 'success');
    expect(v).toMatchObject({ status: 'success', step_number: 4, last_reason: '', transaction_id: expect.any(Number) });
    const row = (await api.get(`/payment-intents?filter.payment_intent=$eq:${uuid}`, m.secretKey)).body.data[0];
    expect(row).toMatchObject({ transaction_id: v.transaction_id, amount_paid_by_customer: 4100, gateway_transaction_id: expect.stringMatching(/^ch_/) });
  });

  test('a declined attempt: pending_failed_attempt, last_reason the response code', async () => {
    const uuid = (await create({})).body.payment_intent;
    expect((await pay(await piOf(uuid), m.publishableKey, 'tok_decline')).body.status).toBe('failed');
    const v = await olderSettled(uuid, 'pending_failed_attempt');
    expect(v).toMatchObject({ status: 'pending', step_number: 1, last_reason: 'card_declined', transaction_id: null });
  });

  test('a 3DS challenge: pending_requires_action at step 3; canceled then, step 3 stays the last step reached', async () => {
    const uuid = (await create({})).body.payment_intent;
    expect((await pay(await piOf(uuid), m.publishableKey, 'tok_3ds')).body.status).toBe('requires_action');
    await olderSettled(uuid, 'pending_requires_action');
    expect((await retrieve(uuid)).body.step_number).toBe(3);
    const c = await put(`/payment-intents/${uuid}/cancel`, m.secretKey);
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ status: 'canceled', sub_status: 'canceled_requested', step_number: 3, last_reason: null });
  });
});

describe('PUT /payment-intents/{payment_intent}/cancel', () => {
  test('200 with the canceled intent (by UUID or pi_ id), then 409; unknown 404', async () => {
    const a = (await create({})).body.payment_intent;
    const r = await put(`/payment-intents/${a}/cancel`, m.secretKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ payment_intent: a, status: 'canceled', sub_status: 'canceled_requested', step_number: 1, last_reason: null });
    expect((await put(`/payment-intents/${a}/cancel`, m.secretKey)).status).toBe(409);
    const b = (await create({})).body.payment_intent;
    expect((await put(`/payment-intents/${await piOf(b)}/cancel`, m.secretKey)).body.status).toBe('canceled');
    expect((await put('/payment-intents/7d0c1b7e-2f57-4c43-9d4a-2c1f4f3e9b11/cancel', m.secretKey)).status).toBe(404);
    expect((await put(`/payment-intents/${b}/cancel`, other.secretKey)).status).toBe(404);
  });

  test('a paid intent is not mutable: 409', async () => {
    const uuid = (await create({})).body.payment_intent;
    await pay(await piOf(uuid), m.publishableKey);
    const r = await put(`/payment-intents/${uuid}/cancel`, m.secretKey);
    expect(r.status).toBe(409);
  });
});

describe('GET /payment-intents: page-numbered', () => {
  let lister: Merchant;
  const made: { uuid: string; amount: number; secret: number }[] = [];
  beforeAll(async () => {
    lister = await createMerchant();
    for (const [i, amount] of [300, 100, 200, 500, 400].entries()) {
      const uuid = (await create({ amount, currency: i % 2 ? 'usd' : 'EUR', checkout_intent_idempotency_key: `list-${i}` }, lister.secretKey)).body.payment_intent;
      made.push({ uuid, amount, secret: (await retrieve(uuid, lister.secretKey)).body.payment_intent_secret });
    }
    await api.post('/v202607/payment-intents', { amount: 50, currency: 'EUR' }, lister.secretKey);
  });
  const list = (q: string) => api.get(`/payment-intents${q}`, lister.secretKey);

  test('newest first by payment_intent_secret, with the envelope; only the tenant\'s intents', async () => {
    const r = await list('?limit=2');
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ itemsPerPage: 2, totalItems: 6, currentPage: 1, totalPages: 3, sortBy: [['payment_intent_secret', 'DESC']] });
    expect(r.body.links.next).toBe('/payment-intents?page=2&limit=2&sortBy=payment_intent_secret:DESC');
    const secrets = r.body.data.map((d: any) => d.payment_intent_secret);
    expect(secrets[0]).toBeGreaterThan(secrets[1]);
  });

  test('one record by filter.payment_intent_secret=$eq:<n>', async () => {
    const r = await list(`?filter.payment_intent_secret=$eq:${made[2]!.secret}`);
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({ payment_intent: made[2]!.uuid, status: 'pending', checkout_intent_idempotency_key: 'list-2' });
  });

  test('sort by amount and amount_paid_by_customer; filters by currency, amount, gateway, status, key', async () => {
    expect((await list('?sortBy=amount:ASC&filter.gateway=$eq:sandbox')).body.data.map((d: any) => d.amount)).toEqual([100, 200, 300, 400, 500]);
    expect((await list('?sortBy=amount_paid_by_customer:DESC')).body.meta.sortBy).toEqual([['amount_paid_by_customer', 'DESC']]);
    expect((await list('?filter.currency=$eq:USD')).body.data.map((d: any) => d.amount).sort()).toEqual([100, 500]);
    // Created as 'usd', stored and shown upper case; a filter takes any case, as the create does, in every form.
    expect((await list('?filter.currency=USD')).body.data.map((d: any) => d.currency)).toEqual(['USD', 'USD']);
    expect((await list('?filter.currency=usd')).body.data.map((d: any) => d.amount).sort()).toEqual([100, 500]);
    expect((await list('?filter.currency=$eq:uSd')).body.meta.totalItems).toBe(2);
    expect((await list('?filter.currency=$in:usd,eur')).body.meta.totalItems).toBe(6);
    expect((await list('?filter.currency=$not:$eq:eur')).body.meta.totalItems).toBe(2);
    expect((await list('?filter.currency=$not:$in:usd')).body.meta.totalItems).toBe(4);
    expect((await list('?filter.amount=$btw:200,400')).body.meta.totalItems).toBe(3);
    expect((await list('?filter.gateway=$null')).body.data.map((d: any) => d.amount)).toEqual([50]);
    expect((await list('?filter.status=$eq:pending')).body.meta.totalItems).toBe(6);
    expect((await list('?filter.checkout_intent_idempotency_key=$sw:list-')).body.meta.totalItems).toBe(5);
    expect((await list(`?filter.payment_intent=$in:${made[0]!.uuid},${made[1]!.uuid}`)).body.meta.totalItems).toBe(2);
  });

  test('bad queries are 400s naming the parameter; limit above 1000 too', async () => {
    const bad = await list('?sortBy=created_at:ASC');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('sortBy');
    expect((await list('?filter.payload=$eq:x')).status).toBe(400);
    expect((await list('?limit=1001')).status).toBe(400);
  });
});

describe('older webhooks', () => {
  test('every webhook_urls entry gets the same body: the older intent, the event and the payload, with Service-Webhook-Secret', async () => {
    const urls = [`${hookBase}/older-a`, `${hookBase}/older-b`];
    const uuid = (await create({ amount: 1234, webhook_urls: urls, webhook_secret: 'older-secret', payload: { cart: { id: 'c-9', $odd: 'kept as JSON' } } })).body.payment_intent;
    await pay(await piOf(uuid), m.publishableKey);
    const got = await eventually(async () => {
      const h = hooks.filter((x) => x.body.payment_intent === uuid && x.body.event === 'payment.success');
      return h.length === 2 ? h : undefined;
    }, 15_000, 'two older webhooks');
    expect(got.map((h) => h.path).sort()).toEqual(['/older-a', '/older-b']);
    for (const h of got) {
      expect(h.secret).toBe('older-secret');
      expect(h.body).toMatchObject({
        webhook_type: 'payment_intent',
        event: 'payment.success',
        payment_intent: uuid,
        status: 'success',
        sub_status: 'success',
        step_number: 4,
        amount: 1234,
        transaction_id: expect.any(Number),
        payload: { cart: { id: 'c-9', $odd: 'kept as JSON' } },
      });
    }
    expect(got[0]!.body.event_id).toBe(got[1]!.body.event_id);
    expect(got[0]!.body.transaction_id).toBe((await retrieve(uuid)).body.transaction_id);
  });
});

describe('POST /v202606/payment-intents', () => {
  test('no gateway; a customer object by merchant_id is created, then matched; list, retrieve and cancel are unprefixed', async () => {
    const ref = `m-${Date.now()}`;
    const a = await api.post('/v202606/payment-intents', { amount: 1500, currency: 'EUR', customer: { merchant_id: ref, email: 'ada@example.com', phone_number: '+2348012345678' }, metadata: { order: '1' } }, m.secretKey);
    expect(a.status).toBe(201);
    expect(a.body).toEqual({ payment_intent: expect.stringMatching(/^pi_eu_/), payment_intent_created: true, customer: { customer: expect.stringMatching(/^cus_/), merchant_id: ref, created: true } });
    const b = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', customer: { merchant_id: ref } }, m.secretKey);
    expect(b.body.customer).toEqual({ customer: a.body.customer.customer, merchant_id: ref, created: false });
    const byId = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', customer: a.body.customer.customer }, m.secretKey);
    expect(byId.body.customer.customer).toBe(a.body.customer.customer);
    const none = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR' }, m.secretKey);
    expect(none.body.customer).toBeUndefined();

    const v = (await retrieve(a.body.payment_intent)).body;
    expect(v).toMatchObject({ gateway: null, amount: 1500, tenant_initial_user_data: { email: 'ada@example.com', phone_number: '+2348012345678' } });
    expect((await api.get(`/payment-intents?filter.payment_intent=$eq:${v.payment_intent}`, m.secretKey)).body.data[0].phone_number).toBe('+2348012345678');
    // The list filter takes the `pi_` id this create answered too, and the UUID in capitals, as retrieve does.
    for (const ref of [a.body.payment_intent, String(v.payment_intent).toUpperCase()]) {
      const rows = (await api.get(`/payment-intents?filter.payment_intent=$eq:${ref}`, m.secretKey)).body.data;
      expect(rows.map((r: { payment_intent: string }) => r.payment_intent)).toEqual([v.payment_intent]);
    }
    expect((await put(`/payment-intents/${a.body.payment_intent}/cancel`, m.secretKey)).body.status).toBe('canceled');
    // The versioned interface sees the same intent.
    expect((await api.get(`/v202607/payment-intents/${a.body.payment_intent}`, m.secretKey)).body.customer).toBe(a.body.customer.customer);
  });

  test('every create with a customer records its contact as it was then, so the older retrieve and list show it', async () => {
    const ref = `vx-${Date.now()}`;
    const contactOf = async (pi: string) => {
      const v = (await retrieve(pi)).body;
      const row = (await api.get(`/payment-intents?filter.payment_intent=$eq:${v.payment_intent}`, m.secretKey)).body.data[0];
      return { email: v.tenant_initial_user_data.email, phone_number: v.tenant_initial_user_data.phone_number, row_phone_number: row.phone_number };
    };
    const v7 = await api.post('/v202607/payment-intents', { amount: 1234, currency: 'eur', customer: { reference: ref, first_name: 'Ann', email: 'ann@example.com' } }, m.secretKey);
    expect(await contactOf(v7.body.payment_intent)).toEqual({ email: 'ann@example.com', phone_number: null, row_phone_number: null });
    // The same customer matched by reference: what the create gives is laid over what the customer had.
    const v8 = await api.post('/v202608/payment-intents', { amount: 1234, currency: 'eur', customer: { reference: ref, phone_number: '+2348012345670' } }, m.secretKey);
    expect(await contactOf(v8.body.payment_intent)).toEqual({ email: 'ann@example.com', phone_number: '+2348012345670', row_phone_number: '+2348012345670' });
    const byId = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', customer: v7.body.customer }, m.secretKey);
    expect(await contactOf(byId.body.payment_intent)).toEqual({ email: 'ann@example.com', phone_number: '+2348012345670', row_phone_number: '+2348012345670' });
    // A snapshot: the customer changed later leaves the intents made before as they were.
    await api.post(`/v202607/customers/${v7.body.customer}`, { email: 'ann@elsewhere.example' }, m.secretKey);
    expect((await contactOf(v7.body.payment_intent)).email).toBe('ann@example.com');
  });

  test('idempotency_key: the same intent, payment_intent_created false; the list filters by it', async () => {
    const key = `v6-${Date.now()}`;
    const a = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', idempotency_key: key }, m.secretKey);
    const b = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', idempotency_key: key }, m.secretKey);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body).toEqual({ payment_intent: a.body.payment_intent, payment_intent_created: false });
    const rows = (await api.get(`/payment-intents?filter.idempotency_key=$eq:${key}`, m.secretKey)).body.data;
    expect(rows.map((r: any) => r.initial_data.payment_intent_id)).toEqual([a.body.payment_intent]);
  });

  test('a v202606 intent is paid through the hosted flow and webhooks its webhook_urls in the older body', async () => {
    const r = await api.post('/v202606/payment-intents', { amount: 640, currency: 'EUR', webhook_urls: [`${hookBase}/v6`] }, m.secretKey);
    await pay(r.body.payment_intent, m.publishableKey);
    const h = await eventually(async () => hooks.find((x) => x.path === '/v6' && x.body.event === 'payment.success'), 15_000, 'v202606 webhook');
    expect(h.secret).toBeUndefined();
    expect(h.body).toMatchObject({ initial_data: { payment_intent_id: r.body.payment_intent }, status: 'success', payload: null });
  });

  test('crossing: an older refund (by transaction_id) of a v202606 intent, seen by the v202607 refund list too', async () => {
    const pi = (await api.post('/v202606/payment-intents', { amount: 2000, currency: 'EUR' }, m.secretKey)).body.payment_intent;
    await pay(pi, m.publishableKey);
    const tx = (await olderSettled((await retrieve(pi)).body.payment_intent, 'success')).transaction_id;
    const r = await api.post('/refunds', { transaction_id: tx, amount: 500, currency: 'EUR' }, m.secretKey);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ refund_id: expect.any(Number), refundable_amount_left: 1500, resource_created: true });
    const v7 = await api.get(`/v202607/refunds?payment_intent=${pi}`, m.secretKey);
    expect(v7.body.data).toEqual([expect.objectContaining({ payment_intent: pi, amount: 500 })]);
    // The list's filter names the intent as a create does: its UUID and its integer id find the same refund.
    const older = (await retrieve(pi)).body;
    for (const ref of [older.payment_intent, String(older.payment_intent_secret)]) {
      const byRef = await api.get(`/v202607/refunds?payment_intent=${ref}`, m.secretKey);
      expect([byRef.status, byRef.body.data]).toEqual([200, v7.body.data]);
    }
    expect((await api.get('/v202607/refunds?payment_intent=999999999999', m.secretKey)).body.data).toEqual([]);
  });

  test('an unknown customer id is a 400; v202606 has no gateway parameter', async () => {
    const r = await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', customer: 'cus_eu_00000000000000000000' }, m.secretKey);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('customer');
    expect((await api.post('/v202606/payment-intents', { amount: 10, currency: 'EUR', gateway: 'sandbox' }, m.secretKey)).status).toBe(400);
  });
});

describe('checkout intents', () => {
  const createCheckout = (body: Record<string, unknown> = {}) =>
    api.post('/checkout-intents', { amount: 3000, currency: 'EUR', webhook_urls: [`${hookBase}/checkout`], webhook_secret: 'co-secret', final_success_url: 'https://shop.example/ok', ...body }, m.secretKey);

  test('the gateway list and a checkout intent with its gateways', async () => {
    const g = await api.get('/gateways', m.secretKey);
    expect(g.body).toEqual({ data: [{ gateway: 'sandbox', payment_methods: ['card'] }] });
    const c = await createCheckout({ checkout_intent_idempotency_key: `co-${Date.now()}` });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ checkout_intent: expect.stringMatching(UUID), status: 'open', amount: 3000, currency: 'EUR', gateways: g.body.data, payment_intent: null, resource_created: true });
    const again = await createCheckout({ checkout_intent_idempotency_key: c.body.checkout_intent_idempotency_key });
    expect(again.status).toBe(200);
    expect(again.body.checkout_intent).toBe(c.body.checkout_intent);
    expect((await createCheckout({ gateways: ['nope'] })).body.error).toMatchObject({ code: 'gateway_invalid', param: 'gateways' });
    expect((await api.get(`/checkout-intents/${c.body.checkout_intent}`, other.secretKey)).status).toBe(404);
  });

  test('a payment intent under it needs only gateway, and takes its amount, currency and final URLs', async () => {
    const co = (await createCheckout()).body.checkout_intent;
    const r = await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co }, m.secretKey);
    expect(r.status).toBe(201);
    expect((await retrieve(r.body.payment_intent)).body).toMatchObject({ amount: 3000, currency: 'EUR', checkout_intent: co, final_success_url: 'https://shop.example/ok', tenant_initial_user_data: { payment_intent_channel: 'checkout_intent' } });
    const mismatch = await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co, amount: 1 }, m.secretKey);
    expect(mismatch.body.error).toMatchObject({ code: 'amount_mismatch', param: 'amount' });
    expect((await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co }, other.secretKey)).body.error.param).toBe('checkout_intent');
    // The list finds it by its checkout intent in any case, as the checkout intent's own path takes it.
    const rows = (await api.get(`/payment-intents?filter.checkout_intent=$eq:${String(co).toUpperCase()}`, m.secretKey)).body.data;
    expect(rows.map((row: { payment_intent: string }) => row.payment_intent)).toEqual([r.body.payment_intent]);
  });

  test('under a checkout intent, an unknown gateway is gateway_invalid, and amount or currency contradicting it are refused, not ignored (any case)', async () => {
    const co = (await createCheckout()).body.checkout_intent;
    const before = (await api.get('/payment-intents?limit=1', m.secretKey)).body.meta.totalItems;
    const nope = await api.post('/payment-intents', { gateway: 'nope', checkout_intent: co }, m.secretKey);
    expect([nope.status, nope.body.error?.code, nope.body.error?.param]).toEqual([400, 'gateway_invalid', 'gateway']);
    const usd = await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co, currency: 'usd' }, m.secretKey);
    expect([usd.status, usd.body.error?.code, usd.body.error?.param]).toEqual([400, 'currency_mismatch', 'currency']);
    expect((await api.get('/payment-intents?limit=1', m.secretKey)).body.meta.totalItems).toBe(before);
    const same = await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co, amount: 3000, currency: 'eur' }, m.secretKey);
    expect(same.status).toBe(201);
  });

  test('two payment intents paid at the same moment: exactly one succeeds, the other capture is given back', async () => {
    const co = (await createCheckout()).body.checkout_intent;
    const uuids = await Promise.all([1, 2].map(async () => (await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co }, m.secretKey)).body.payment_intent as string));
    const pis = await Promise.all(uuids.map(piOf));
    const results = await Promise.all(pis.map((pi) => pay(pi, m.publishableKey)));
    const outcomes = results.map((r) => r.body.status ?? r.body.error?.code).sort();
    expect(outcomes).toEqual(['failed', 'success']);
    const loser = results.findIndex((r) => r.body.status !== 'success');
    expect(results[loser]!.body.failure_code).toBe('checkout_intent_completed');
    const winner = 1 - loser;
    const lost = await olderSettled(uuids[loser]!, 'canceled_checkout_completed');
    expect(lost.status).toBe('canceled');
    expect((await retrieve(uuids[winner]!)).body.status).toBe('success');
    const checkout = (await api.get(`/checkout-intents/${co}`, m.secretKey)).body;
    expect(checkout).toMatchObject({ status: 'completed', payment_intent: uuids[winner] });
    // The losing capture was refunded at the gateway: it is recorded on the intent for operators.
    const db = await mongo();
    try {
      const loserRecord = await eventually(async () => {
        const r = await db.db().collection('payment_intents').findOne({ _id: pis[loser] as never });
        return (r as any)?.voided_charges?.length ? r : undefined;
      }, 45_000, 'voided charge'); // a refund at the gateway: seconds, more when the suite loads both cores
      expect((loserRecord as any).voided_charges[0]).toMatchObject({ outcome: 'refunded' });
    } finally {
      await db.close();
    }
    // The checkout intent's webhook_urls heard both intents.
    await eventually(async () => {
      const heard = new Set(hooks.filter((h) => h.path === '/checkout' && h.secret === 'co-secret').map((h) => h.body.payment_intent));
      return uuids.every((u) => heard.has(u)) ? true : undefined;
    }, 15_000, 'checkout webhooks for both intents');
  });

  test('once paid, a new attempt on another intent and a new intent under it are 409 checkout_intent_completed', async () => {
    const co = (await createCheckout()).body.checkout_intent;
    const [a, b] = await Promise.all([1, 2].map(async () => (await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co }, m.secretKey)).body.payment_intent as string));
    expect((await pay(await piOf(a!), m.publishableKey)).body.status).toBe('success');
    const late = await pay(await piOf(b!), m.publishableKey);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('checkout_intent_completed');
    const fresh = await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co }, m.secretKey);
    expect(fresh.status).toBe(409);
    expect(fresh.body.error.code).toBe('checkout_intent_completed');
  });

  test('once paid, the other pending intents of the checkout intent are canceled at once as canceled_checkout_completed, not left to time out', async () => {
    const co = (await createCheckout()).body.checkout_intent;
    const [a, b, c] = await Promise.all([1, 2, 3].map(async () => (await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co }, m.secretKey)).body.payment_intent as string));
    expect((await pay(await piOf(a!), m.publishableKey)).body.status).toBe('success');
    for (const sibling of [b!, c!]) {
      const v = await olderSettled(sibling, 'canceled_checkout_completed');
      expect(v.status).toBe('canceled');
    }
    expect((await retrieve(a!)).body.status).toBe('success');
  });

  test('concurrent creates with one key make one checkout intent and leave one secret: the losers take theirs back', async () => {
    const secrets = async () => {
      const db = await mongo();
      try {
        return await db.db().collection('webhook_secrets').countDocuments({ tenant_id: m.tenant });
      } finally {
        await db.close();
      }
    };
    const before = await secrets();
    const key = `co-burst-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 5 }, () => createCheckout({ checkout_intent_idempotency_key: key })));
    expect(new Set(replies.map((r) => r.body.checkout_intent)).size).toBe(1);
    expect(replies.filter((r) => r.body.resource_created === true)).toHaveLength(1);
    expect(await secrets()).toBe(before + 1);
  });

  test('a checkout intent whose create was never answered is found by its key with its webhook secret: its payments are announced', async () => {
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      const key = `co-unanswered-${Date.now()}`;
      const body = { amount: 3000, currency: 'EUR', webhook_urls: [`${hookBase}/co-unanswered`], webhook_secret: 'co-unanswered-secret', checkout_intent_idempotency_key: key };
      // The insert lands, and its answer is lost (the database went away just after).
      const unanswered = withMethod(db, 'checkoutIntents', 'insertOne', (real) => async (doc: unknown) => {
        await (real as unknown as { insertOne(d: unknown): Promise<unknown> }).insertOne(doc);
        throw new Error('connection closed before the answer');
      });
      const deps = apiDeps(unanswered, temporal);
      deps.gateways = createGatewayRegistry({ sandboxUrl: deps.config.SANDBOX_URL, sandboxCallbackSecret: deps.config.SANDBOX_CALLBACK_SECRET });
      await expect(createCheckoutIntent(deps, tenantAuth(m.tenant, 'eu'), checkoutIntentCreateBody.parse(body))).rejects.toThrow('connection closed');
      const again = await api.post('/checkout-intents', body, m.secretKey);
      expect([again.status, again.body.resource_created]).toEqual([200, false]);
      // Before, the secret was to be written after the insert, so the record named one never stored: every
      // webhook of its payments failed for good.
      const uuid = (await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: again.body.checkout_intent }, m.secretKey)).body.payment_intent as string;
      await pay(await piOf(uuid), m.publishableKey);
      const hook = await eventually(async () => hooks.find((h) => h.path === '/co-unanswered' && h.body.payment_intent === uuid && h.body.event === 'payment.success'), 15_000, 'its webhook');
      expect(hook.secret).toBe('co-unanswered-secret');
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });
});

test('the OpenAPI document lists the older routes', async () => {
  const doc = (await call('GET', '/openapi.json', { baseUrl: getStack().apiUrl })).body;
  for (const p of ['/payment-intents', '/payment-intents/{payment_intent}', '/payment-intents/{payment_intent}/cancel', '/v202606/payment-intents', '/checkout-intents', '/gateways']) expect(doc.paths[p]).toBeDefined();
});
