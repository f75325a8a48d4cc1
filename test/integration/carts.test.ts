import type { Client } from '@temporalio/client';
import type { MongoClient } from 'mongodb';
import type { Proc } from '../../scripts/stack';
import { cartRetentionWorkflowId, type CartRetentionResult } from '../../workflows/cart-retention/messages';
import { SA } from '../../workflows/search-attributes';
import { admin, api, call, createMerchant, getStack, mongo, startApiProcess, temporalClient, withMethod, type Merchant, type Reply } from './harness';
import { addMonths } from '../../domain/billing/periods';
import { createCartActivities } from '../../activities/carts';
import { cartData } from '../../data/carts';
import { connectMongo } from '../../platform/mongo';

// Carts, addresses and commerce settings on the real stack: create (idempotent, also concurrently), read,
// replace the contents at live prices with the tenant's tax, every refusal naming its product (and writing
// nothing), saved addresses listed on a new cart, the admin settings with their webhook URL checks, another
// tenant's cart, and the retention: a second API process on the shared stack configured with a 3-second
// retention (the shared API keeps the default, so no other test is touched).

let db: MongoClient;
let temporal: Client;
let a: Merchant;
let b: Merchant;

beforeAll(async () => {
  db = await mongo();
  temporal = await temporalClient();
  [a, b] = await Promise.all([createMerchant('Cart shop A'), createMerchant('Cart shop B')]);
});
afterAll(async () => {
  await db.close();
  await temporal.connection.close();
});

interface ProductSpec {
  price: number;
  stock: number;
  currency?: string;
  title?: { en: string; ar: string };
  imageUrl?: string | null;
}

let skuCounter = 0;
/** A product of a tenant, made with the admin API. */
async function product(m: Merchant, spec: ProductSpec): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/products`, {
    sku: `SKU-${Date.now()}-${++skuCounter}`,
    title: spec.title ?? { en: `Product ${skuCounter}`, ar: `منتج ${skuCounter}` },
    price: spec.price,
    currency: spec.currency ?? 'EUR',
    stock: spec.stock,
    ...(spec.imageUrl ? { imageUrl: spec.imageUrl } : {}),
  });
  expect(r.status).toBe(201);
  return r.body.id;
}

const carts = () => db.db().collection('carts');
const adminCall = (method: string, p: string, body?: unknown) => call(method, p, { key: getStack().adminToken, ...(body !== undefined ? { body } : {}) });
const putSettings = (m: Merchant, body: unknown) => adminCall('PUT', `/admin/tenants/${m.tenant}/commerce-settings`, body);
const getSettings = (m: Merchant) => adminCall('GET', `/admin/tenants/${m.tenant}/commerce-settings`);

async function newCart(m: Merchant, body: Record<string, unknown> = {}, baseUrl?: string): Promise<Reply> {
  return call('POST', '/commerce/cart', { key: m.secretKey, body: { userId: 'user-1', currency: 'EUR', ...body }, ...(baseUrl ? { baseUrl } : {}) });
}
async function cartId(m: Merchant, body: Record<string, unknown> = {}): Promise<string> {
  const r = await newCart(m, body);
  expect(r.status).toBe(201);
  return r.body.cartId;
}
const setContents = (m: Merchant, id: string, products: unknown) => api.post('/cart', { cartId: id, products }, m.secretKey);
const getCart = (m: Merchant, id: string) => api.get(`/cart/${id}`, m.secretKey);

function expectRefusal(r: Reply, code: string, param: string, mentions: string) {
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  expect(r.body.error.message).toContain(mentions);
}

describe('create and read', () => {
  test('a new cart: 201 with its id and no addresses; read back empty, open, totals zero, shipping null', async () => {
    const created = await newCart(a, { userId: 'fresh-user', currency: 'eur' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ cartId: expect.stringMatching(/^cart_eu_[0-9A-Za-z]+$/), customerAddresses: [] });
    const got = await getCart(a, created.body.cartId);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      cartId: created.body.cartId,
      userId: 'fresh-user',
      status: 'open',
      checkoutId: null,
      currency: 'EUR',
      idempotencyKey: null,
      totals: { subtotal: 0, tax: 0, shipping: null, total: 0 },
      products: [],
    });
  });

  test('a repeated idempotencyKey answers the same cart: 201 first, 200 after', async () => {
    const key = `cart-key-${Date.now()}`;
    const first = await newCart(a, { idempotencyKey: key });
    const again = await newCart(a, { idempotencyKey: key });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.cartId).toBe(first.body.cartId);
    expect((await getCart(a, first.body.cartId)).body.idempotencyKey).toBe(key);
    // The same key of another tenant is another cart.
    const other = await newCart(b, { idempotencyKey: key });
    expect(other.status).toBe(201);
    expect(other.body.cartId).not.toBe(first.body.cartId);
  });

  test("a key reused for another user or currency is a 400 idempotency_key_in_use: no one gets another user's cart and addresses", async () => {
    const key = `reused-${Date.now()}`;
    const alice = `alice-${Date.now()}`;
    expect((await api.post('/commerce/addresses', { userId: alice, phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' }, a.secretKey)).status).toBe(201);
    const first = await newCart(a, { userId: alice, currency: 'EUR', idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.body.customerAddresses).toHaveLength(1);

    for (const other of [{ userId: `bob-${Date.now()}`, currency: 'USD' }, { userId: `bob-${Date.now()}`, currency: 'EUR' }, { userId: alice, currency: 'USD' }]) {
      const r = await newCart(a, { ...other, idempotencyKey: key });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'idempotency_key_in_use', param: 'idempotencyKey' });
      expect(r.body).not.toHaveProperty('cartId');
      expect(r.body).not.toHaveProperty('customerAddresses');
    }
    // The same user and currency still repeat the create.
    const again = await newCart(a, { userId: alice, currency: 'eur', idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await carts().countDocuments({ tenant_id: a.tenant, idempotency_key: key })).toBe(1);
  });

  test('concurrent creates with one key make one cart (one 201, the rest 200) and one retention', async () => {
    const key = `race-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 8 }, () => newCart(a, { idempotencyKey: key })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(replies.map((r) => r.body.cartId));
    expect(ids.size).toBe(1);
    expect(await carts().countDocuments({ tenant_id: a.tenant, idempotency_key: key })).toBe(1);
    const [id] = [...ids] as [string];
    const d = await temporal.workflow.getHandle(cartRetentionWorkflowId(id)).describe();
    expect(d.status.name).toBe('RUNNING');
    expect(d.type).toBe('cartRetentionWorkflow');
  });

  test("the retention runs 6 calendar months (the spec's, by default) from the cart's creation", async () => {
    const id = await cartId(a);
    const stored = await carts().findOne({ _id: id as never });
    const d = await temporal.workflow.getHandle(cartRetentionWorkflowId(id)).describe();
    const due = d.typedSearchAttributes.get(SA.ExpiresAt);
    expect(due?.getTime()).toBe(addMonths(stored!.created_at.getTime(), 6));
    expect(due!.getTime() - stored!.created_at.getTime()).toBeGreaterThanOrEqual(181 * 86_400_000);
    expect(d.typedSearchAttributes.get(SA.TenantId)).toBe(a.tenant);
  });

  test('invalid bodies are 400s naming the parameter', async () => {
    expectRefusal(await api.post('/commerce/cart', { currency: 'EUR' }, a.secretKey), 'parameter_missing', 'userId', 'userId');
    expectRefusal(await api.post('/commerce/cart', { userId: 'u', currency: 'EURO' }, a.secretKey), 'parameter_invalid', 'currency', 'currency');
    expectRefusal(await api.post('/commerce/cart', { userId: 'u', currency: 'EUR', extra: 1 }, a.secretKey), 'parameter_unknown', 'extra', 'extra');
    expect((await getCart(a, 'not-a-cart')).status).toBe(400);
  });
});

describe('contents and totals', () => {
  let p1: string;
  let p2: string;

  beforeAll(async () => {
    expect((await putSettings(a, { taxRateBasisPoints: 1500, shippingFlat: 500, freeShippingFrom: 100_000 })).status).toBe(200);
    p1 = await product(a, { price: 2000, stock: 10, title: { en: 'Red shirt', ar: 'قميص أحمر' }, imageUrl: 'https://img.example.com/red.png' });
    p2 = await product(a, { price: 350, stock: 5 });
  });

  test('replaced at live prices; tax at the tenant rate rounded half up once per cart; no shipping on a cart', async () => {
    const id = await cartId(a);
    const r = await setContents(a, id, [
      { id: p1, quantity: 2 },
      { id: p2, quantity: 3 },
    ]);
    expect(r.status).toBe(200);
    // 4000 + 1050 = 5050; 15 % = 757.5 -> 758
    expect(r.body.totals).toEqual({ subtotal: 5050, tax: 758, shipping: null, total: 5808 });
    expect(r.body).toMatchObject({ cartId: id, currency: 'EUR', idempotencyKey: null, status: 'open' });
    expect(r.body.products).toEqual([
      { id: p1, sku: expect.any(String), title: { en: 'Red shirt', ar: 'قميص أحمر' }, imageUrl: 'https://img.example.com/red.png', quantity: 2, unitPrice: 2000, lineTotal: 4000 },
      { id: p2, sku: expect.any(String), title: expect.any(Object), imageUrl: null, quantity: 3, unitPrice: 350, lineTotal: 1050 },
    ]);
    expect((await getCart(a, id)).body).toEqual(r.body);
    const stored = await carts().findOne({ _id: id as never });
    expect(stored!.products).toEqual([
      { product_id: p1, quantity: 2, unit_price: 2000 },
      { product_id: p2, quantity: 3, unit_price: 350 },
    ]);
  });

  test('the list replaces the contents entirely; an empty list empties the cart', async () => {
    const id = await cartId(a);
    await setContents(a, id, [{ id: p1, quantity: 1 }, { id: p2, quantity: 1 }]);
    const r = await setContents(a, id, [{ id: p2, quantity: 4 }]);
    expect(r.status).toBe(200);
    expect(r.body.products.map((l: { id: string; quantity: number }) => [l.id, l.quantity])).toEqual([[p2, 4]]);
    expect(r.body.totals).toEqual({ subtotal: 1400, tax: 210, shipping: null, total: 1610 });
    const emptied = await setContents(a, id, []);
    expect(emptied.body.products).toEqual([]);
    expect(emptied.body.totals).toEqual({ subtotal: 0, tax: 0, shipping: null, total: 0 });
  });

  test('a line keeps the price it was set at until the contents are set again (a checkout compares)', async () => {
    const p = await product(a, { price: 1000, stock: 3 });
    const id = await cartId(a);
    await setContents(a, id, [{ id: p, quantity: 1 }]);
    expect((await adminCall('PATCH', `/admin/tenants/${a.tenant}/products/${p}`, { price: 1200 })).status).toBe(200);
    expect((await getCart(a, id)).body.products[0].unitPrice).toBe(1000);
    const again = await setContents(a, id, [{ id: p, quantity: 1 }]);
    expect(again.body.products[0]).toMatchObject({ unitPrice: 1200, lineTotal: 1200 });
  });

  test('1 bp of tax rounds half up on the cart (5000 -> 1; 4999 -> 0)', async () => {
    const c = await createMerchant('Cart shop 1bp');
    expect((await putSettings(c, { taxRateBasisPoints: 1, shippingFlat: 0 })).status).toBe(200);
    const half = await product(c, { price: 2500, stock: 10 });
    const below = await product(c, { price: 4999, stock: 10 });
    const id = await cartId(c);
    expect((await setContents(c, id, [{ id: half, quantity: 2 }])).body.totals).toEqual({ subtotal: 5000, tax: 1, shipping: null, total: 5001 });
    expect((await setContents(c, id, [{ id: below, quantity: 1 }])).body.totals).toEqual({ subtotal: 4999, tax: 0, shipping: null, total: 4999 });
  });

  test('a tenant without settings pays no tax', async () => {
    const p = await product(b, { price: 999, stock: 1 });
    const id = await cartId(b);
    expect((await setContents(b, id, [{ id: p, quantity: 1 }])).body.totals).toEqual({ subtotal: 999, tax: 0, shipping: null, total: 999 });
  });

  describe('every refusal names its product and writes nothing', () => {
    let id: string;
    let before: unknown;
    let usd: string;
    let soldOut: string;
    let others: string;

    beforeAll(async () => {
      id = await cartId(a);
      usd = await product(a, { price: 100, stock: 5, currency: 'USD' });
      soldOut = await product(a, { price: 100, stock: 0 });
      others = await product(b, { price: 100, stock: 5 });
      expect((await setContents(a, id, [{ id: p1, quantity: 1 }])).status).toBe(200);
      before = (await getCart(a, id)).body;
    });
    afterEach(async () => {
      expect((await getCart(a, id)).body).toEqual(before);
    });

    test('an unknown product', async () => {
      expectRefusal(await setContents(a, id, [{ id: p1, quantity: 1 }, { id: 'prod_eu_doesnotexist0001', quantity: 1 }]), 'product_unknown', 'products[1][id]', "'prod_eu_doesnotexist0001'");
    });
    test("another tenant's product is unknown here", async () => {
      expectRefusal(await setContents(a, id, [{ id: others, quantity: 1 }]), 'product_unknown', 'products[0][id]', others);
    });
    test('a quantity below 1', async () => {
      expectRefusal(await setContents(a, id, [{ id: p2, quantity: 1 }, { id: p1, quantity: 0 }]), 'quantity_invalid', 'products[1][quantity]', p1);
      expectRefusal(await setContents(a, id, [{ id: p1, quantity: -3 }]), 'quantity_invalid', 'products[0][quantity]', p1);
    });
    test('a quantity above the current stock', async () => {
      const r = await setContents(a, id, [{ id: p1, quantity: 1 }, { id: p2, quantity: 6 }]);
      expectRefusal(r, 'quantity_above_stock', 'products[1][quantity]', p2);
      expect(r.body.error.message).toMatch(/Only 5 of product/);
      const out = await setContents(a, id, [{ id: soldOut, quantity: 1 }]);
      expectRefusal(out, 'quantity_above_stock', 'products[0][quantity]', soldOut);
      expect(out.body.error.message).toMatch(/out of stock/);
    });
    test('a product in another currency', async () => {
      const r = await setContents(a, id, [{ id: p1, quantity: 1 }, { id: p2, quantity: 1 }, { id: usd, quantity: 1 }]);
      expectRefusal(r, 'product_currency_mismatch', 'products[2][id]', usd);
      expect(r.body.error.message).toMatch(/USD.*EUR/);
    });
    test('a product listed twice', async () => {
      expectRefusal(await setContents(a, id, [{ id: p1, quantity: 1 }, { id: p2, quantity: 1 }, { id: p1, quantity: 2 }]), 'product_duplicate', 'products[2][id]', p1);
    });
    test('a quantity that is not an integer', async () => {
      expectRefusal(await setContents(a, id, [{ id: p1, quantity: 1.5 }]), 'parameter_invalid', 'products[0][quantity]', 'products[0][quantity]');
    });
  });

  test('a converted cart refuses changes with 409 and stays as it was', async () => {
    const id = await cartId(a);
    await setContents(a, id, [{ id: p1, quantity: 1 }]);
    await carts().updateOne({ _id: id as never }, { $set: { status: 'converted' } });
    const r = await setContents(a, id, [{ id: p2, quantity: 1 }]);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('cart_converted');
    const got = await getCart(a, id);
    expect(got.body.status).toBe('converted');
    expect(got.body.products.map((l: { id: string }) => l.id)).toEqual([p1]);
  });
});

describe('addresses', () => {
  test("saved addresses are listed, newest first, on the user's next cart, and on no one else's", async () => {
    const user = `addr-user-${Date.now()}`;
    const first = await api.post('/commerce/addresses', { userId: user, phone: '+20 100 000 0001', address: '12 Nile St, floor 3', region: 'Cairo', city: 'Giza' }, a.secretKey);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^addr_eu_/),
      phone: '+20 100 000 0001',
      additionalPhone: null,
      address: '12 Nile St, floor 3',
      additionalInfo: null,
      region: 'Cairo',
      city: 'Giza',
    });
    const second = await api.post(
      '/commerce/addresses',
      { userId: user, phone: '0100', additionalPhone: '0111', address: 'شارع التحرير ٥', additionalInfo: 'ring twice', region: 'Alexandria', city: 'Alexandria' },
      a.secretKey,
    );
    expect(second.status).toBe(201);
    const cart = await newCart(a, { userId: user });
    expect(cart.status).toBe(201);
    // Newest first (two saves within one millisecond have no order between them).
    expect(cart.body.customerAddresses).toHaveLength(2);
    expect(cart.body.customerAddresses).toEqual(expect.arrayContaining([first.body, second.body]));
    const saved = await db.db().collection('addresses').find({ tenant_id: a.tenant, user_id: user }).toArray();
    const at = (id: string) => saved.find((r) => String(r._id) === id)!.created_at.getTime();
    if (at(first.body.id) !== at(second.body.id)) expect(cart.body.customerAddresses).toEqual([second.body, first.body]);
    expect((await newCart(a, { userId: `${user}-other` })).body.customerAddresses).toEqual([]);
    expect((await newCart(b, { userId: user })).body.customerAddresses).toEqual([]); // another tenant's user of that id
  });

  test('a missing or unknown field is a 400 naming it', async () => {
    expectRefusal(await api.post('/commerce/addresses', { userId: 'u', phone: '1', address: 'x', region: 'r' }, a.secretKey), 'parameter_missing', 'city', 'city');
    expectRefusal(await api.post('/commerce/addresses', { userId: 'u', phone: '1', address: 'x', region: 'r', city: 'c', zip: '1' }, a.secretKey), 'parameter_unknown', 'zip', 'zip');
  });
});

describe('commerce settings (admin)', () => {
  test('defaults when never set: no tax, no shipping, no webhooks', async () => {
    const c = await createMerchant('Settings default');
    const r = await getSettings(c);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ tenant: c.tenant, taxRateBasisPoints: 0, shippingFlat: 0, freeShippingFrom: null, webhook_urls: [], webhook_secret_set: false, updatedAt: null });
  });

  test('PUT stores them whole and answers them without the secret; the secret is kept apart, by reference', async () => {
    const c = await createMerchant('Settings put');
    const body = { taxRateBasisPoints: 1400, shippingFlat: 750, freeShippingFrom: 20_000, webhook_urls: ['http://127.0.0.1:9/returns', 'https://hooks.example.com/r'], webhook_secret: 'ret-secret-123' };
    const r = await putSettings(c, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tenant: c.tenant,
      taxRateBasisPoints: 1400,
      shippingFlat: 750,
      freeShippingFrom: 20_000,
      webhook_urls: body.webhook_urls,
      webhook_secret_set: true,
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(r.body)).not.toContain('ret-secret-123');
    expect((await getSettings(c)).body).toEqual(r.body);
    const stored = await db.db().collection('commerce_settings').findOne({ _id: c.tenant as never });
    expect(stored!.webhook_urls).toEqual([
      { url: body.webhook_urls[0], secretRef: expect.stringMatching(/^whs_eu_[0-9A-Za-z]+#0$/) },
      { url: body.webhook_urls[1], secretRef: expect.stringMatching(/^whs_eu_[0-9A-Za-z]+#1$/) },
    ]);
    expect(JSON.stringify(stored)).not.toContain('ret-secret-123');
    const secrets = await db.db().collection('webhook_secrets').findOne({ _id: stored!.webhook_urls[0].secretRef.split('#')[0] });
    expect(secrets).toMatchObject({ tenant_id: c.tenant, secrets: ['ret-secret-123', 'ret-secret-123'] });

    // Replaced whole: what is left out goes back to its default.
    const plain = await putSettings(c, { taxRateBasisPoints: 0, shippingFlat: 0 });
    expect(plain.body).toMatchObject({ freeShippingFrom: null, webhook_urls: [], webhook_secret_set: false });
  });

  test('webhook URLs pass the same checks as every webhook of the service; a refused PUT writes nothing', async () => {
    const c = await createMerchant('Settings checks');
    const good = { taxRateBasisPoints: 500, shippingFlat: 100, webhook_urls: ['http://127.0.0.1:9/ok'], webhook_secret: 'first-secret' };
    expect((await putSettings(c, good)).status).toBe(200);
    const before = (await getSettings(c)).body;
    const secretsBefore = await db.db().collection('webhook_secrets').countDocuments({ tenant_id: c.tenant });

    const refused = [
      [{ ...good, webhook_urls: ['ftp://hooks.example.com/x'] }, 'webhook_urls[0]'],
      [{ ...good, webhook_urls: ['https://hooks.example.com/ok', 'http://user:pw@hooks.example.com/x'] }, 'webhook_urls[1]'],
      [{ ...good, webhook_urls: ['http://169.254.169.254/latest/meta-data'] }, 'webhook_urls[0]'],
      [{ ...good, webhook_urls: ['not a url'] }, 'webhook_urls[0]'],
      [{ ...good, webhook_secret: 'has a space' }, 'webhook_secret'],
      [{ taxRateBasisPoints: 500, shippingFlat: 100, webhook_secret: 'alone' }, 'webhook_secret'],
      [{ ...good, taxRateBasisPoints: 10_001 }, 'taxRateBasisPoints'],
      [{ ...good, taxRateBasisPoints: 1.5 }, 'taxRateBasisPoints'],
      [{ ...good, shippingFlat: -1 }, 'shippingFlat'],
      [{ ...good, freeShippingFrom: 'lots' }, 'freeShippingFrom'],
      [{ shippingFlat: 100 }, 'taxRateBasisPoints'],
    ] as const;
    for (const [body, param] of refused) {
      const r = await putSettings(c, body);
      expect([param, r.status]).toEqual([param, 400]);
      expect(r.body.error.param).toBe(param);
    }
    const credentials = await putSettings(c, { ...good, webhook_urls: ['http://user:pw@hooks.example.com/x'] });
    expect(credentials.body.error).toMatchObject({ code: 'webhook_url_invalid', message: expect.stringMatching(/credentials/) });
    expect((await getSettings(c)).body).toEqual(before);
    expect(await db.db().collection('webhook_secrets').countDocuments({ tenant_id: c.tenant })).toBe(secretsBefore);
  });

  test('an unknown tenant is 404; without the admin token, 401', async () => {
    expect((await adminCall('GET', '/admin/tenants/ten_eu_nosuchtenant0001/commerce-settings')).status).toBe(404);
    expect((await adminCall('PUT', '/admin/tenants/ten_eu_nosuchtenant0001/commerce-settings', { taxRateBasisPoints: 0, shippingFlat: 0 })).status).toBe(404);
    expect((await call('GET', `/admin/tenants/${a.tenant}/commerce-settings`, { key: a.secretKey })).status).toBe(401);
  });
});

describe('tenancy and keys', () => {
  test("another tenant's cart is 404 to read and to change; no key is 401, a publishable key 403", async () => {
    const p = await product(a, { price: 100, stock: 5 });
    const id = await cartId(a);
    expect((await setContents(a, id, [{ id: p, quantity: 1 }])).status).toBe(200);
    const read = await getCart(b, id);
    expect(read.status).toBe(404);
    expect(read.body.error).toMatchObject({ code: 'resource_missing', param: 'cartId' });
    const bp = await product(b, { price: 100, stock: 5 });
    expect((await setContents(b, id, [{ id: bp, quantity: 1 }])).status).toBe(404);
    expect((await getCart(a, id)).body.products.map((l: { id: string }) => l.id)).toEqual([p]);
    expect((await api.get(`/cart/${id}`)).status).toBe(401);
    expect((await api.post('/commerce/cart', { userId: 'u', currency: 'EUR' }, a.publishableKey)).status).toBe(403); // a secret key's
  });
});

describe('retention with a short setting (a second API process on the shared stack)', () => {
  let short: Proc;
  let shortUrl: string;

  beforeAll(async () => {
    ({ proc: short, url: shortUrl } = await startApiProcess('api-cart-retention', { CART_RETENTION_SECONDS: '3' }));
  }, 90_000);
  afterAll(async () => {
    await short?.stop();
  });

  test('an open cart is deleted after the retention; a converted one is kept', async () => {
    const p = await product(a, { price: 100, stock: 5 });
    const keys = { open: `short-open-${Date.now()}`, converted: `short-converted-${Date.now()}` };
    const [open, converted] = await Promise.all([
      newCart(a, { userId: 'short-1', idempotencyKey: keys.open }, shortUrl),
      newCart(a, { userId: 'short-2', idempotencyKey: keys.converted }, shortUrl),
    ]);
    expect([open.status, converted.status]).toEqual([201, 201]);
    expect((await setContents(a, open.body.cartId, [{ id: p, quantity: 1 }])).status).toBe(200);
    await carts().updateOne({ _id: converted.body.cartId as never }, { $set: { status: 'converted' } });

    const created = (await carts().findOne({ _id: open.body.cartId as never }))!.created_at.getTime();
    const [openResult, convertedResult] = (await Promise.all([
      temporal.workflow.getHandle(cartRetentionWorkflowId(open.body.cartId)).result(),
      temporal.workflow.getHandle(cartRetentionWorkflowId(converted.body.cartId)).result(),
    ])) as CartRetentionResult[];
    expect(openResult.outcome).toBe('deleted');
    expect(Date.parse(openResult.at)).toBeGreaterThanOrEqual(created + 3000);
    expect(convertedResult.outcome).toBe('converted');
    expect((await getCart(a, open.body.cartId)).status).toBe(404);
    expect((await getCart(a, converted.body.cartId)).body.status).toBe('converted');
    expect(await carts().countDocuments({ _id: open.body.cartId as never })).toBe(0);

    // Repeats of the keys afterwards: the kept cart is answered (its retention, over, is not started again);
    // the deleted cart's key is free, so it makes a new cart.
    const keptAgain = await newCart(a, { userId: 'short-2', idempotencyKey: keys.converted });
    expect([keptAgain.status, keptAgain.body.cartId]).toEqual([200, converted.body.cartId]);
    const deletedAgain = await newCart(a, { userId: 'short-1', idempotencyKey: keys.open });
    expect(deletedAgain.status).toBe(201);
    expect(deletedAgain.body.cartId).not.toBe(open.body.cartId);
  }, 60_000);

  test('a cart being checked out when its retention falls due is kept until its checkout ends; paid then, it is converted, not deleted', async () => {
    const p = await product(a, { price: 300, stock: 5 });
    const c = await newCart(a, { userId: `short-checkout-${Date.now()}` }, shortUrl);
    expect((await setContents(a, c.body.cartId, [{ id: p, quantity: 1 }])).status).toBe(200);
    const out = await api.post('/checkouts', { cartId: c.body.cartId, shippingAddress: { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' } }, a.secretKey);
    expect(out.status).toBe(201);
    // Past the 3 s retention: the cart stands while its checkout waits for payment.
    await new Promise((r) => setTimeout(r, 5000));
    expect((await getCart(a, c.body.cartId)).status).toBe(200);
    const paid = await api.post(`/v202607/payment-intents/${out.body.payment_intent}/attempts`, { token: 'tok_success' }, a.publishableKey);
    expect(paid.body.status).toBe('success');
    const result = (await temporal.workflow.getHandle(cartRetentionWorkflowId(c.body.cartId)).result()) as CartRetentionResult;
    expect(result.outcome).toBe('converted');
    expect((await getCart(a, c.body.cartId)).body.status).toBe('converted');
  }, 90_000);

  test("a checkout claiming the cart between the retention's look at its checkouts and its delete keeps the cart", async () => {
    const c = await newCart(a, { userId: `race-${Date.now()}` });
    const cartId = c.body.cartId as string;
    const readAt = (await carts().findOne({ _id: cartId } as never))!.updated_at as Date;
    const workerDb = await connectMongo(getStack().mongoUri);
    try {
      // The interleaving, made exact: right after the retention found no checkout of the cart, one claims it.
      let claimed = false;
      const racing = withMethod(workerDb, 'checkouts', 'findOne', (real) => async (...args: Parameters<typeof real.findOne>) => {
        const found = await real.findOne(...args);
        claimed = await cartData(workerDb).claimForCheckout(a.tenant, cartId, readAt);
        return found;
      });
      const { deleteUnconvertedCart } = createCartActivities({ mongo: racing });
      await expect(deleteUnconvertedCart({ tenantId: a.tenant, cartId })).rejects.toMatchObject({ type: 'cart_changed' });
      expect(claimed).toBe(true);
      expect(await carts().findOne({ _id: cartId } as never)).toMatchObject({ status: 'open' });
      // Tried again with no checkout in the way (this claim had none behind it), it deletes the cart.
      expect(await createCartActivities({ mongo: workerDb }).deleteUnconvertedCart({ tenantId: a.tenant, cartId })).toBe('deleted');
    } finally {
      await workerDb.close();
    }
  });
});
