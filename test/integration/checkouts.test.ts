import { createReturnRefunds } from '../../api/returns/refund-port';
import { checkoutCreateBody } from '../../api/checkouts/schemas';
import { createCheckout } from '../../api/checkouts/service';
import { checkoutRoutes } from '../../api/checkouts/routes';
import { productUpdateBody } from '../../api/catalog/schemas';
import { updateProduct } from '../../api/catalog/service';
import { tenantAuth } from '../../api/deps';
import { notAnswered } from '../../api/http/workflow-calls';
import { connectMongo } from '../../platform/mongo';
import type { CheckoutRecord } from '../../platform/records';
import type { Client } from '@temporalio/client';
import { admin, api, apiDeps, call, createMerchant, eventually, getStack, mongo, pay, startHookReceiver, temporalClient, withLateAnswers, withMethod, withWorkflowCall, type HookReceiver, type Merchant } from './harness';

// Checkouts, orders and returns on the real stack: stock held by each product's owner and never oversold,
// the three kinds of cartChanges and continuing with the new cart, payment making the order, cancellation
// releasing the stock, and a return followed to its refund with a webhook for each status.

let m: Merchant;
let hooks: HookReceiver;
let seq = 0;

async function product(price: number, stock: number, merchant = m): Promise<string> {
  const r = await admin.post(`/admin/tenants/${merchant.tenant}/products`, {
    sku: `SKU-${Date.now()}-${++seq}`,
    title: { en: `Thing ${seq}`, ar: `شيء ${seq}` },
    price,
    currency: 'EUR',
    stock,
  });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** A call with the admin token. */
const fetchJson = (method: string, path: string, body: unknown) => call(method, path, { body, key: getStack().adminToken });
const patch = (id: string, body: Record<string, number | string>, merchant = m) => fetchJson('PATCH', `/admin/tenants/${merchant.tenant}/products/${id}`, body);

/** A cart of the user with these lines. */
async function cart(lines: { id: string; quantity: number }[], merchant = m, userId = `user-${++seq}`): Promise<string> {
  const c = await api.post('/commerce/cart', { userId, currency: 'EUR' }, merchant.secretKey);
  expect(c.status).toBe(201);
  const set = await api.post('/cart', { cartId: c.body.cartId, products: lines }, merchant.secretKey);
  expect(set.status).toBe(200);
  return c.body.cartId;
}

const ADDRESS = { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' };
const checkout = (cartId: string, merchant = m) => api.post('/checkouts', { cartId, shippingAddress: ADDRESS }, merchant.secretKey);

async function stockOf(productId: string): Promise<number> {
  const db = await mongo();
  try {
    return (await db.db().collection('products').findOne({ _id: productId as never }))!.stock as number;
  } finally {
    await db.close();
  }
}

/** A cart whose checkout let it go checks out again, holding its stock, once that checkout has ended. */
async function checksOutAgain(cartId: string): Promise<void> {
  const again = await eventually(async () => {
    const r = await checkout(cartId);
    return r.status === 201 ? r : undefined;
  }, 20_000, 'the cart checked out again');
  expect(again.body).toMatchObject({ status: 'awaiting_payment', payment_intent: expect.any(String) });
}

/** The Temporal client, but every workflow describes itself as started `agoMs` before it was. */
function withStartedAgo(temporal: Client, agoMs: number): Client {
  const workflow = temporal.workflow;
  const getHandle = (id: string) => {
    const handle = workflow.getHandle(id);
    return Object.assign(Object.create(handle) as typeof handle, {
      describe: async () => {
        const d = await handle.describe();
        return { ...d, startTime: new Date(d.startTime.getTime() - agoMs) };
      },
    });
  };
  return Object.assign(Object.create(temporal) as Client, { workflow: Object.assign(Object.create(workflow) as typeof workflow, { getHandle }) });
}

/** Pays a checkout's intent and waits for its order. */
async function paidOrder(checkoutId: string, intent: string, merchant = m): Promise<string> {
  expect((await pay(intent, merchant.publishableKey)).body.status).toBe('success');
  return eventually(async () => {
    const c = await api.get(`/checkouts/${checkoutId}`, merchant.secretKey);
    return c.body.status === 'completed' ? (c.body.orderId as string) : undefined;
  }, 20_000, 'the order');
}

beforeAll(async () => {
  m = await createMerchant();
  hooks = await startHookReceiver();
  const settings = await fetchJson('PUT', `/admin/tenants/${m.tenant}/commerce-settings`, {
    taxRateBasisPoints: 1000,
    shippingFlat: 700,
    freeShippingFrom: 100_000,
    webhook_urls: [`${hooks.base}/returns`],
    webhook_secret: 'returns-secret',
  });
  expect(settings.status).toBe(200);
});
afterAll(() => hooks.close());

describe('checkout', () => {
  test('a stock hold refused for coming late, though enough is for sale, never reaches payment: 503, nothing held, and the cart checks out again', async () => {
    const p = await product(1200, 5);
    const cartId = await cart([{ id: p, quantity: 2 }]);
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // A backlogged API: the checkout's hold window (2 minutes from its workflow's start) has passed by the time
      // the product's owner hears the reserve, as if the workflow had started 3 minutes before.
      const late = withStartedAgo(temporal, 3 * 60_000);
      const body = checkoutCreateBody.parse({ cartId, shippingAddress: ADDRESS });
      const intents = async () => (await api.get('/v202607/payment-intents?limit=1', m.secretKey)).body;
      const before = await intents();
      await expect(createCheckout(apiDeps(db, late), tenantAuth(m.tenant, 'eu'), body)).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
      expect(await intents()).toEqual(before); // no payment intent was made for it
      // Nothing was held for it, and its checkout lets the cart go: sent again, the cart checks out and holds.
      expect(await stockOf(p)).toBe(5);
      await checksOutAgain(cartId);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });

  test("the hold window is the workflow's, on the Temporal server's clock: an API whose clock is 10 minutes behind still holds and reaches payment", async () => {
    const p = await product(1250, 5);
    const cartId = await cart([{ id: p, quantity: 2 }]);
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The record as an API whose clock is behind writes it; before, its window was counted from that.
      const behind = withMethod(db, 'checkouts', 'insertOne', (real) => async (doc: CheckoutRecord) => {
        doc.created_at = new Date(Date.now() - 10 * 60_000);
        return real.insertOne(doc);
      });
      const made = await createCheckout(apiDeps(behind, temporal), tenantAuth(m.tenant, 'eu'), checkoutCreateBody.parse({ cartId, shippingAddress: ADDRESS }));
      expect(made).toMatchObject({ status: 201, body: { status: 'awaiting_payment' } });
      expect(await stockOf(p)).toBe(3);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });

  describe('a checkout that cannot reach payment (503) lets its cart and what it held go at once: sent again, the cart checks out', () => {
    // Before, it kept the cart (409 checkout_in_progress) and the units it held for two minutes.
    test.each([
      ['the second product\'s stock owner does not answer', 'stock'],
      ['the payment intent cannot be made', 'intent'],
    ] as const)('%s', async (_what, failing) => {
      // Lines are held in product order: the first is held before anything fails.
      const [held, other] = [await product(1300, 5), await product(1400, 5)].sort();
      const cartId = await cart([{ id: held!, quantity: 2 }, { id: other!, quantity: 1 }]);
      const db = await connectMongo(getStack().mongoUri);
      const temporal = await temporalClient();
      try {
        const silentOwner = withWorkflowCall(temporal, 'executeUpdateWithStart', (real) => (async (update, options) => {
          if (options.startWorkflowOperation.options.workflowId.includes(other!)) throw notAnswered();
          return real(update, options);
        }) as typeof real);
        const noIntent = withMethod(db, 'paymentIntents', 'insertOne', () => async () => {
          throw new Error('connection closed');
        });
        const deps = failing === 'stock' ? apiDeps(db, silentOwner) : apiDeps(noIntent, temporal);
        await expect(createCheckout(deps, tenantAuth(m.tenant, 'eu'), checkoutCreateBody.parse({ cartId, shippingAddress: ADDRESS }))).rejects.toThrow();
        await eventually(async () => ((await stockOf(held!)) === 5 ? true : undefined), 20_000, 'the held units back on sale');
        await checksOutAgain(cartId);
      } finally {
        await db.close();
        await temporal.connection.close();
      }
    });
  });

  test('holds the stock, prices it live with shipping, and its payment makes the order; the cart is converted and the stock sold', async () => {
    const a = await product(2500, 5);
    const b = await product(1000, 3);
    const cartId = await cart([{ id: a, quantity: 2 }, { id: b, quantity: 1 }]);
    const r = await checkout(cartId);
    expect(r.status).toBe(201);
    // 6000 + 10% tax (600) + flat shipping 700
    expect(r.body).toMatchObject({ status: 'awaiting_payment', totals: { subtotal: 6000, tax: 600, shipping: 700, total: 7300 }, payment_intent: expect.stringMatching(/^pi_/) });
    expect(r.body.url).toContain(`/pay/${r.body.payment_intent}`);
    expect([await stockOf(a), await stockOf(b)]).toEqual([3, 2]);
    const intent = await api.get(`/v202607/payment-intents/${r.body.payment_intent}`, m.secretKey);
    expect(intent.body).toMatchObject({ amount: 7300, currency: 'EUR', status: 'pending' });

    const orderId = await paidOrder(r.body.checkoutId, r.body.payment_intent);
    const order = await api.get(`/orders/${orderId}`, m.secretKey);
    expect(order.body).toMatchObject({
      orderId,
      status: 'paid',
      payment_intent: r.body.payment_intent,
      totals: { total: 7300 },
      shippingAddress: { address: '1 Palm Street', city: 'Dubai' },
      returnableProducts: [
        { productId: a, returnableQuantity: 2, returnableReasons: expect.arrayContaining(['damaged']) },
        { productId: b, returnableQuantity: 1 },
      ],
    });
    expect([await stockOf(a), await stockOf(b)]).toEqual([3, 2]);
    expect((await api.get(`/cart/${cartId}`, m.secretKey)).body.status).toBe('converted');
    expect((await api.post('/cart', { cartId, products: [{ id: a, quantity: 1 }] }, m.secretKey)).status).toBe(409);
  });

  test('checking the same cart out again answers its open checkout: one hold, one payment intent', async () => {
    const a = await product(900, 5);
    const cartId = await cart([{ id: a, quantity: 2 }]);
    const first = await checkout(cartId);
    const again = await checkout(cartId);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ checkoutId: first.body.checkoutId, payment_intent: first.body.payment_intent });
    // The document's 200 describes this answer too, not only `changed` (a client generated from it read it as invalid).
    expect(checkoutRoutes.find((r) => r.method === 'post' && r.path === '/checkouts')!.responses[200]!.schema!.safeParse(again.body).success).toBe(true);
    expect(await stockOf(a)).toBe(3);
    // Again with another address: the open checkout ships to the first, so it is a 409, and the new address is
    // not saved for the user.
    const moved = await api.post('/checkouts', { cartId, shippingAddress: { ...ADDRESS, address: '9 Other Street' } }, m.secretKey);
    expect([moved.status, moved.body.error?.code]).toEqual([409, 'checkout_in_progress']);
    const db = await mongo();
    try {
      expect(await db.db().collection('addresses').countDocuments({ tenant_id: m.tenant, address: '9 Other Street' })).toBe(0);
    } finally {
      await db.close();
    }
  });

  test('a cart with an open checkout refuses changes (409 checkout_in_progress) and keeps its contents; once the checkout ends unpaid it changes and checks out anew', async () => {
    const a = await product(1000, 10);
    const b = await product(5000, 10);
    const cartId = await cart([{ id: a, quantity: 1 }]);
    const first = await checkout(cartId);
    expect(first.status).toBe(201);

    const edit = await api.post('/cart', { cartId, products: [{ id: a, quantity: 1 }, { id: b, quantity: 2 }] }, m.secretKey);
    expect(edit.status).toBe(409);
    expect(edit.body.error).toMatchObject({ type: 'invalid_request_error', code: 'checkout_in_progress' });
    expect(edit.body.error.message).toContain(first.body.checkoutId);
    const held = (await api.get(`/cart/${cartId}`, m.secretKey)).body;
    expect(held.products).toEqual([expect.objectContaining({ id: a, quantity: 1 })]);
    // The cart says a checkout holds it (it said `open` while POST /cart answered 409).
    expect(held).toMatchObject({ status: 'checkout_in_progress', checkoutId: first.body.checkoutId });
    // Checking it out again answers the one open checkout, which is of what the cart holds.
    const again = await checkout(cartId);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ checkoutId: first.body.checkoutId, payment_intent: first.body.payment_intent });

    expect((await api.post(`/v202607/payment-intents/${first.body.payment_intent}/cancel`, {}, m.secretKey)).status).toBe(200);
    await eventually(async () => ((await api.get(`/checkouts/${first.body.checkoutId}`, m.secretKey)).body.status === 'canceled' ? true : undefined), 15_000, 'the checkout canceled');
    expect((await api.get(`/cart/${cartId}`, m.secretKey)).body).toMatchObject({ status: 'open', checkoutId: null });
    expect((await api.post('/cart', { cartId, products: [{ id: a, quantity: 1 }, { id: b, quantity: 2 }] }, m.secretKey)).status).toBe(200);
    const next = await checkout(cartId);
    expect(next.status).toBe(201);
    expect(next.body.checkoutId).not.toBe(first.body.checkoutId);
    expect(next.body.payment_intent).not.toBe(first.body.payment_intent);
    expect(next.body.totals).toMatchObject({ subtotal: 11_000 });
  });

  test('checking out again answers the open checkout only when it was made of what the cart holds now', async () => {
    const a = await product(1000, 10);
    const b = await product(5000, 10);
    const cartId = await cart([{ id: a, quantity: 1 }]);
    const first = await checkout(cartId);
    expect(first.status).toBe(201);
    // As a cart edited while its checkout was open before such edits were refused.
    const db = await mongo();
    try {
      const products = [
        { product_id: a, quantity: 1, unit_price: 1000 },
        { product_id: b, quantity: 2, unit_price: 5000 },
      ];
      await db.db().collection('carts').updateOne({ _id: cartId as never }, { $set: { products } });
    } finally {
      await db.close();
    }
    const again = await checkout(cartId);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('checkout_in_progress');
    expect(again.body.error.message).toContain(first.body.checkoutId);
    expect(again.body).not.toHaveProperty('payment_intent');
  });

  test('a cart edited and checked out at the same moment: a checkout that answers 201 is always of what the cart holds', async () => {
    const a = await product(1000, 100);
    const b = await product(5000, 100);
    const carts = await Promise.all(Array.from({ length: 8 }, () => cart([{ id: a, quantity: 1 }])));
    await Promise.all(
      carts.map(async (cartId) => {
        const [made, edit] = await Promise.all([checkout(cartId), api.post('/cart', { cartId, products: [{ id: b, quantity: 2 }] }, m.secretKey)]);
        expect([200, 409]).toContain(edit.status);
        expect([201, 409]).toContain(made.status);
        const held = (await api.get(`/cart/${cartId}`, m.secretKey)).body.products.map((l: { id: string; quantity: number }) => [l.id, l.quantity]);
        expect(held).toEqual(edit.status === 200 ? [[b, 2]] : [[a, 1]]);
        if (made.status === 201) {
          const c = await api.get(`/checkouts/${made.body.checkoutId}`, m.secretKey);
          expect(c.body.products.map((l: { id: string; quantity: number }) => [l.id, l.quantity])).toEqual(held);
        }
      }),
    );
  });

  test('a full address is saved for the user and listed on their next cart; a saved one is used by id', async () => {
    const a = await product(500, 10);
    const userId = `addr-user-${Date.now()}`;
    const first = await checkout(await cart([{ id: a, quantity: 1 }], m, userId));
    expect(first.status).toBe(201);
    const next = await api.post('/commerce/cart', { userId, currency: 'EUR' }, m.secretKey);
    expect(next.body.customerAddresses).toEqual([expect.objectContaining({ id: expect.stringMatching(/^addr_/), address: '1 Palm Street' })]);
    await api.post('/cart', { cartId: next.body.cartId, products: [{ id: a, quantity: 1 }] }, m.secretKey);
    const byId = await api.post('/checkouts', { cartId: next.body.cartId, shippingAddress: { id: next.body.customerAddresses[0].id } }, m.secretKey);
    expect(byId.status).toBe(201);
    // The full Address object as customerAddresses lists it (with its id) names that address too; with a field
    // changed, it names neither that one nor a new one: a 400 (before, any object with an id and fields was one).
    const third = await api.post('/commerce/cart', { userId, currency: 'EUR' }, m.secretKey);
    await api.post('/cart', { cartId: third.body.cartId, products: [{ id: a, quantity: 1 }] }, m.secretKey);
    const listed = third.body.customerAddresses[0];
    const changed = await api.post('/checkouts', { cartId: third.body.cartId, shippingAddress: { ...listed, city: 'Sharjah' } }, m.secretKey);
    expect([changed.status, changed.body.error?.code, changed.body.error?.param]).toEqual([400, 'parameter_invalid', 'shippingAddress']);
    const whole = await api.post('/checkouts', { cartId: third.body.cartId, shippingAddress: listed }, m.secretKey);
    expect(whole.status).toBe(201);
    expect((await api.get(`/checkouts/${whole.body.checkoutId}`, m.secretKey)).body.shippingAddress).toEqual(listed);
  });

  test('canceling the payment intent releases the held stock', async () => {
    const a = await product(800, 4);
    const r = await checkout(await cart([{ id: a, quantity: 3 }]));
    expect(await stockOf(a)).toBe(1);
    expect((await api.post(`/v202607/payment-intents/${r.body.payment_intent}/cancel`, {}, m.secretKey)).status).toBe(200);
    await eventually(async () => ((await stockOf(a)) === 4 ? true : undefined), 15_000, 'the stock released');
    // The checkout tells the stock before it writes its record: the record may follow a moment later.
    const ended = await eventually(async () => {
      const c = (await api.get(`/checkouts/${r.body.checkoutId}`, m.secretKey)).body;
      return c.status === 'canceled' ? c : undefined;
    }, 15_000, 'the checkout canceled');
    expect(ended).toMatchObject({ status: 'canceled', orderId: null });
  });

  test('10 concurrent checkouts of the last unit: exactly one holds it, the others get cartChanges with newQuantity 0', async () => {
    const last = await product(1500, 1);
    const carts = await Promise.all(Array.from({ length: 10 }, () => cart([{ id: last, quantity: 1 }])));
    const replies = await Promise.all(carts.map((c) => checkout(c)));
    const won = replies.filter((r) => r.status === 201);
    const lost = replies.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(9);
    for (const r of lost) {
      expect(r.body.cartChanges).toMatchObject({ type: 'quantity', differences: [{ productId: last, quantityChange: -1, newQuantity: 0, priceChange: 0, newPrice: 1500 }] });
      expect(r.body).not.toHaveProperty('payment_intent');
    }
    expect(await stockOf(last)).toBe(0);
  });
});

describe("the merchant's stock: a count or a change", () => {
  test('a count is of units on hand (an open checkout’s hold counts against it); a delivery adds to them without a read, and a loss below 0 is refused', async () => {
    const a = await product(900, 10);
    const r = await checkout(await cart([{ id: a, quantity: 2 }]));
    expect(r.status).toBe(201);
    expect(await stockOf(a)).toBe(8);
    // The shelf holds 10, 2 of them promised to the open checkout: 8 for sale.
    expect((await patch(a, { stock: 10 })).body.stock).toBe(8);
    // A delivery of 5, however many are on hand by then: 15 on hand, 13 for sale (a count of 13 would have lost 2).
    const delivered = await patch(a, { stockChange: 5 });
    expect(delivered.status).toBe(200);
    expect(delivered.body.stock).toBe(13);
    expect((await patch(a, { stockChange: -15 })).body.stock).toBe(0);
    const refused = await patch(a, { stockChange: -1 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'stock_change_too_large', param: 'stockChange' });
    expect((await patch(a, { stock: 1, stockChange: 1 })).status).toBe(400);
    // 3 more arrive: 3 on hand, 1 for sale while the checkout holds 2; it ends unpaid, and its 2 go back on sale.
    expect((await patch(a, { stockChange: 3 })).body.stock).toBe(1);
    expect((await api.post(`/v202607/payment-intents/${r.body.payment_intent}/cancel`, {}, m.secretKey)).status).toBe(200);
    await eventually(async () => ((await stockOf(a)) === 3 ? true : undefined), 15_000, 'the hold released');
  });
});

describe('units sold that were not on hand', () => {
  test('a count below an open hold is taken and says what is held past it; the hold paid counts 1 oversold, and a delivery of 5 leaves 4', async () => {
    const a = await product(900, 8);
    const r = await checkout(await cart([{ id: a, quantity: 1 }]));
    expect(r.status).toBe(201);
    const counted = await patch(a, { stock: 0 });
    expect(counted.status).toBe(200);
    expect(counted.body).toMatchObject({ stock: 0, isInStock: false, onHand: 0, held: 1, oversold: 0, heldPastOnHand: 1 });
    await paidOrder(r.body.checkoutId, r.body.payment_intent);
    // The unit sold was not on hand: the product's owner counts it, where it used to stay at 0 and drop it.
    const after = await eventually(async () => {
      const p = await patch(a, { price: 900 });
      return p.body.held === 0 ? p : undefined;
    }, 15_000, 'the hold sold');
    expect(after.body).toMatchObject({ stock: 0, onHand: -1, held: 0, oversold: 1, heldPastOnHand: 0 });
    const lost = await patch(a, { stockChange: -1 });
    expect([lost.status, lost.body.error?.code]).toEqual([400, 'stock_change_too_large']);
    expect(lost.body.error.message).toMatch(/1 units were sold that were not on hand/);
    const delivered = await patch(a, { stockChange: 5 });
    expect(delivered.body).toMatchObject({ stock: 4, onHand: 4, held: 0, oversold: 0 });
    expect(await stockOf(a)).toBe(4);
  });
});

describe('a delivery sent again with its stockChangeKey', () => {
  test('after an answer that came too late (503), and once more: counted once', async () => {
    const a = await product(900, 10);
    const key = `delivery-${Date.now()}`;
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The owner applies the change, but its answer misses the API's deadline.
      const late = apiDeps(db, withLateAnswers(temporal));
      await expect(updateProduct(late, m.tenant, a, productUpdateBody.parse({ stockChange: 5, stockChangeKey: key }))).rejects.toMatchObject({ code: 'service_unavailable' });
      // It was applied: what follows proves the resend is not applied again.
      expect(await stockOf(a)).toBe(15);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
    const again = await patch(a, { stockChange: 5, stockChangeKey: key });
    expect([again.status, again.body.stock]).toEqual([200, 15]);
    expect((await patch(a, { stockChange: 5, stockChangeKey: key })).body.stock).toBe(15);
    // The key with another change is refused; another key is another delivery; a key without a change is refused.
    const reused = await patch(a, { stockChange: 8, stockChangeKey: key });
    expect([reused.status, reused.body.error?.code, reused.body.error?.param]).toEqual([400, 'idempotency_key_in_use', 'stockChangeKey']);
    expect((await patch(a, { stockChange: 5, stockChangeKey: `${key}-2` })).body.stock).toBe(20);
    const keyOnly = await patch(a, { price: 950, stockChangeKey: key });
    expect([keyOnly.status, keyOnly.body.error?.param]).toEqual([400, 'stockChangeKey']);
    expect(await stockOf(a)).toBe(20);
  });
});

describe('cartChanges', () => {
  test('prices: a price changed since the cart was set; continuing with newCart checks out at the new price', async () => {
    const a = await product(2000, 5);
    const cartId = await cart([{ id: a, quantity: 2 }]);
    expect((await patch(a, { price: 2200 })).status).toBe(200);
    const r = await checkout(cartId);
    expect(r.status).toBe(200);
    expect(r.body.cartChanges).toMatchObject({
      type: 'prices',
      differences: [{ productId: a, quantityChange: 0, newQuantity: 2, priceChange: 200, newPrice: 2200 }],
      newCart: { cartId: expect.stringMatching(/^cart_/), currency: 'EUR', products: [expect.objectContaining({ id: a, quantity: 2, unitPrice: 2200 })], totals: { subtotal: 4400 } },
    });
    // Nothing stays held: the checkout's workflow lets the lines go.
    await eventually(async () => ((await stockOf(a)) === 5 ? true : undefined), 10_000, 'the hold released');
    const again = await checkout(r.body.cartChanges.newCart.cartId);
    expect(again.status).toBe(201);
    expect(again.body.totals).toMatchObject({ subtotal: 4400, tax: 440 });
  });

  test('quantity: fewer in stock than asked', async () => {
    const a = await product(300, 5);
    const cartId = await cart([{ id: a, quantity: 4 }]);
    await patch(a, { stock: 2 });
    const r = await checkout(cartId);
    expect(r.body.cartChanges).toMatchObject({ type: 'quantity', differences: [{ productId: a, quantityChange: -2, newQuantity: 2, priceChange: 0 }] });
    expect((await checkout(r.body.cartChanges.newCart.cartId)).status).toBe(201);
  });

  test('price_and_quantity: both, on different lines; an unchanged line keeps its hold released too', async () => {
    const a = await product(300, 5);
    const b = await product(400, 5);
    const c = await product(500, 5);
    const cartId = await cart([{ id: a, quantity: 1 }, { id: b, quantity: 3 }, { id: c, quantity: 1 }]);
    await patch(a, { price: 350 });
    await patch(b, { stock: 1 });
    const r = await checkout(cartId);
    expect(r.body.cartChanges.type).toBe('price_and_quantity');
    expect(r.body.cartChanges.differences).toEqual(
      expect.arrayContaining([expect.objectContaining({ productId: a, priceChange: 50 }), expect.objectContaining({ productId: b, newQuantity: 1 })]),
    );
    await eventually(async () => ((await stockOf(c)) === 5 ? true : undefined), 10_000, 'the unchanged line released');
  });
});

describe('refused checkouts', () => {
  test("an unknown cart, another tenant's cart, an empty cart, an unknown saved address", async () => {
    const other = await createMerchant();
    const a = await product(100, 5);
    const mine = await cart([{ id: a, quantity: 1 }]);
    expect((await checkout('cart_eu_000000000000000000000')).status).toBe(404);
    expect((await checkout(mine, other)).status).toBe(404);
    const empty = await api.post('/commerce/cart', { userId: 'u-empty', currency: 'EUR' }, m.secretKey);
    const r = await checkout(empty.body.cartId);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('cart_empty');
    const bad = await api.post('/checkouts', { cartId: mine, shippingAddress: { id: 'addr_eu_000000000000000000000' } }, m.secretKey);
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('shippingAddress[id]');
  });

  test('a checkout that would total 0 is a 400 checkout_total_zero: nothing held, saved or made; with shipping to pay, it checks out', async () => {
    const free = await createMerchant(); // never set its commerce settings: no tax, no shipping
    const gift = await product(0, 5, free);
    const userId = `free-user-${Date.now()}`;
    const cartId = await cart([{ id: gift, quantity: 2 }], free, userId);
    const r = await checkout(cartId, free);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'checkout_total_zero', param: 'cartId' });
    expect(await stockOf(gift)).toBe(5);
    const db = await mongo();
    try {
      expect(await db.db().collection('checkouts').countDocuments({ cart_id: cartId })).toBe(0);
    } finally {
      await db.close();
    }
    expect((await api.post('/commerce/cart', { userId, currency: 'EUR' }, free.secretKey)).body.customerAddresses).toEqual([]);

    const shipped = await product(0, 5); // this tenant charges 700 for shipping
    const paid = await checkout(await cart([{ id: shipped, quantity: 1 }]));
    expect(paid.status).toBe(201);
    expect(paid.body.totals).toEqual({ subtotal: 0, tax: 0, shipping: 700, total: 700 });
  });

  test('a price raised since the cart was set that takes the checkout past the largest payment is a 400 cart_total_too_large: nothing held', async () => {
    const p = await product(1000, 5);
    const cartId = await cart([{ id: p, quantity: 2 }]);
    expect((await patch(p, { price: 90_000_000_000 })).status).toBe(200);
    const r = await checkout(cartId);
    expect([r.status, r.body.error?.code, r.body.error?.param]).toEqual([400, 'cart_total_too_large', 'cartId']);
    expect(await stockOf(p)).toBe(5);
  });
});

describe('returns', () => {
  let orderId: string;
  let productId: string;
  let paymentIntent: string;
  beforeAll(async () => {
    productId = await product(1000, 10);
    const r = await checkout(await cart([{ id: productId, quantity: 3 }]));
    paymentIntent = r.body.payment_intent;
    orderId = await paidOrder(r.body.checkoutId, paymentIntent);
  });
  const ask = (quantity: number, idempotencyKey: string, order = orderId, key = m.secretKey) =>
    api.post('/returns', { orderId: order, idempotencyKey, productId, quantity, reasonCode: 'damaged', address: ADDRESS }, key);
  const put = (id: string, body: Record<string, string>) => call('PUT', `/returns/${id}`, { body, key: m.secretKey });

  test('a return is followed to its refund, with a webhook for each status; its quantity is no longer returnable', async () => {
    const r = await ask(1, `ret-${Date.now()}`);
    expect(r.status).toBe(200);
    const id = r.body.id;
    expect((await api.get(`/orders/${orderId}`, m.secretKey)).body.returnableProducts[0].returnableQuantity).toBe(2);
    expect((await put(id, { status: 'approved' })).body.status).toBe('approved');
    const received = await put(id, { status: 'received' });
    expect(received.status).toBe(200);
    expect(received.body).toMatchObject({ status: 'received', refund: expect.stringMatching(/^re_/), amount: 1100 });
    await eventually(async () => {
      const list = await api.get(`/returns?filter.id=$eq:${id}`, m.secretKey);
      return list.body.returns[0]?.status === 'refunded' ? true : undefined;
    }, 30_000, 'the return refunded');
    const refund = await api.get(`/v202607/refunds/${received.body.refund}`, m.secretKey);
    expect(refund.body).toMatchObject({ payment_intent: paymentIntent, amount: 1100, status: 'success' });
    // What the return's workflow runs when no PUT handed the refund over: the same admission under the same
    // key, so it names the same refund and makes none more.
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      expect(await createReturnRefunds(apiDeps(db, temporal)).start(temporal, { tenantId: m.tenant, region: 'eu', returnId: id })).toEqual({ refund: received.body.refund });
    } finally {
      await db.close();
      await temporal.connection.close();
    }
    expect((await api.get(`/v202607/refunds?payment_intent=${paymentIntent}`, m.secretKey)).body.data.filter((x: { amount: number }) => x.amount === 1100)).toHaveLength(1);
    const bodies = await eventually(async () => {
      const mine = hooks.received.filter((h) => h.body.id === id);
      return mine.length >= 4 ? mine : undefined;
    }, 15_000, 'four return webhooks');
    // Each delivery is its own workflow: they may arrive in any order; updatedAt orders them.
    expect(bodies.map((h) => h.body.status).sort()).toEqual(['approved', 'received', 'refunded', 'requested']);
    expect([...bodies].sort((x, y) => x.body.updatedAt.localeCompare(y.body.updatedAt)).map((h) => h.body.status)).toEqual(['requested', 'approved', 'received', 'refunded']);
    expect(bodies.every((h) => h.secret === 'returns-secret' && h.body.webhook_type === 'return' && h.body.orderId === orderId)).toBe(true);
    // The Return object as the API answers it, its address too (before, the webhook carried the stored `_id`, `additional_phone`...).
    expect(received.body.address).toEqual(expect.objectContaining({ id: expect.stringMatching(/^addr_/), additionalPhone: null }));
    expect(bodies.map((h) => h.body.address)).toEqual(bodies.map(() => received.body.address));
  });

  test('the same idempotencyKey answers the same return; a quantity above what is still returnable is 400', async () => {
    const key = `ret-same-${Date.now()}`;
    const a = await ask(1, key);
    const b = await ask(1, key);
    expect(b.body.id).toBe(a.body.id);
    // The key with another quantity would answer a return that does not exist as the one that does.
    const other = await ask(2, key);
    expect([other.status, other.body.error?.code, other.body.error?.param]).toEqual([400, 'idempotency_key_in_use', 'idempotencyKey']);
    const left = (await api.get(`/orders/${orderId}`, m.secretKey)).body.returnableProducts[0].returnableQuantity;
    const tooMany = await ask(left + 1, `ret-big-${Date.now()}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'return_quantity_exceeded', param: 'quantity' });
  });

  test('a rejected return gives its quantity back; moves out of order are 409', async () => {
    const before = (await api.get(`/orders/${orderId}`, m.secretKey)).body.returnableProducts[0].returnableQuantity;
    const r = await ask(1, `ret-rej-${Date.now()}`);
    expect((await put(r.body.id, { status: 'received' })).status).toBe(409);
    expect((await put(r.body.id, { status: 'rejected', reason: 'worn' })).body.status).toBe('rejected.worn');
    await eventually(async () => {
      const now = (await api.get(`/orders/${orderId}`, m.secretKey)).body.returnableProducts[0].returnableQuantity;
      return now === before ? true : undefined;
    }, 10_000, 'the quantity back');
    // ...and the order's workflow admits it again
    expect((await ask(before, `ret-after-${Date.now()}`)).status).toBe(200);
  });

  test('GET /returns filters by user, status and amount, with pagination', async () => {
    const all = await api.get('/returns?perPage=2', m.secretKey);
    expect(all.status).toBe(200);
    expect(all.body.pagination).toMatchObject({ currentPage: 1, pageSize: 2 });
    expect(all.body.returns).toHaveLength(2); // the tests above asked for more than two
    // Each carries its product as its order sold it, as the spec's Return has it.
    for (const r of all.body.returns) expect(r.product).toEqual({ id: r.productId, title: { en: expect.any(String), ar: expect.any(String) } });
    const rejected = await api.get('/returns?filter.status=$in:[rejected.worn,refunded]&perPage=100', m.secretKey);
    const statuses = rejected.body.returns.map((r: { status: string }) => r.status);
    expect(new Set(statuses)).toEqual(new Set(['refunded', 'rejected.worn']));
    const user = all.body.returns[0].userId;
    const byUser = await api.get(`/returns?filter.userId=$eq:${encodeURIComponent(user)}&filter.amount=$gte:1000`, m.secretKey);
    expect(byUser.body.returns.every((r: { userId: string; amount: number }) => r.userId === user && r.amount >= 1000)).toBe(true);
    expect((await api.get('/returns?perPage=101', m.secretKey)).status).toBe(400);
    // A bracketed list with spaces after its commas, and a filter given twice (both hold).
    const spaced = await api.get('/returns?filter.status=$in:[rejected.worn, refunded]&perPage=100', m.secretKey);
    expect(spaced.body.returns.map((r: { id: string }) => r.id).sort()).toEqual(rejected.body.returns.map((r: { id: string }) => r.id).sort());
    const amounts = rejected.body.returns.map((r: { amount: number }) => r.amount).sort((a: number, b: number) => a - b);
    const [low, high] = [amounts[0], amounts[amounts.length - 1]];
    const between = await api.get(`/returns?filter.status=$in:[rejected.worn,refunded]&filter.amount=$gte:${low}&filter.amount=$lte:${high}&perPage=100`, m.secretKey);
    expect([between.status, between.body.returns.length]).toEqual([200, rejected.body.returns.length]);
    const none = await api.get(`/returns?filter.amount=$gte:${high + 1}&filter.amount=$lte:${high}`, m.secretKey);
    expect([none.status, none.body.returns]).toEqual([200, []]);
  });

  test('a return of a free item (amount 0) is refunded at once without a refund, instead of staying received', async () => {
    const freeItem = await product(0, 5);
    const r = await checkout(await cart([{ id: productId, quantity: 1 }, { id: freeItem, quantity: 1 }]));
    const order = await paidOrder(r.body.checkoutId, r.body.payment_intent);
    const ret = await api.post('/returns', { orderId: order, idempotencyKey: `free-${Date.now()}`, productId: freeItem, quantity: 1, reasonCode: 'damaged', address: ADDRESS }, m.secretKey);
    expect(ret.status).toBe(200);
    expect((await put(ret.body.id, { status: 'approved' })).status).toBe(200);
    // Before: 400 parameter_invalid on `amount` (a refund of 0), on every retry, and the return stayed received.
    const received = await put(ret.body.id, { status: 'received' });
    expect([received.status, received.body]).toEqual([200, expect.objectContaining({ status: 'refunded', refund: null, amount: 0 })]);
    expect((await put(ret.body.id, { status: 'received' })).body).toMatchObject({ status: 'refunded', refund: null });
    const refunds = await api.get(`/v202607/refunds?payment_intent=${r.body.payment_intent}`, m.secretKey);
    expect(refunds.body.data).toEqual([]);
    const statuses = await eventually(async () => {
      const mine = hooks.received.filter((h) => h.body.id === ret.body.id).map((h) => h.body.status);
      return mine.length >= 4 ? mine.sort() : undefined;
    }, 15_000, 'four return webhooks');
    expect(statuses).toEqual(['approved', 'received', 'refunded', 'requested']);
  });

  test('an order refunded in full outside returns: nothing returnable, a return refused; one admitted before the refund ends refund_failed saying why', async () => {
    const r = await checkout(await cart([{ id: productId, quantity: 2 }]));
    const order = await paidOrder(r.body.checkoutId, r.body.payment_intent);
    const early = await api.post('/returns', { orderId: order, idempotencyKey: `early-${Date.now()}`, productId, quantity: 1, reasonCode: 'damaged', address: ADDRESS }, m.secretKey);
    expect(early.status).toBe(200);
    // The whole payment (2 x 1000, 200 tax, 700 shipping) refunded through the refunds API.
    const refunded = await api.post('/v202607/refunds', { payment_intent: r.body.payment_intent, amount: 2900, currency: 'EUR' }, m.secretKey);
    expect(refunded.status).toBe(201);
    // Before: returnableQuantity 1 and the return admitted, to fail at its receipt.
    expect((await api.get(`/orders/${order}`, m.secretKey)).body.returnableProducts[0].returnableQuantity).toBe(0);
    const late = await api.post('/returns', { orderId: order, idempotencyKey: `late-${Date.now()}`, productId, quantity: 1, reasonCode: 'damaged', address: ADDRESS }, m.secretKey);
    expect([late.status, late.body.error?.code, late.body.error?.param]).toEqual([400, 'return_quantity_exceeded', 'quantity']);
    expect(late.body.error.message).toMatch(/Nothing of this order's payment is left to refund/);
    // The return admitted before the refund: its own refund is refused when it is received, and it says why.
    expect((await put(early.body.id, { status: 'approved' })).status).toBe(200);
    const received = await put(early.body.id, { status: 'received' });
    expect(received.status).toBe(200);
    const failed = await eventually(async () => {
      const list = await api.get(`/returns?filter.id=$eq:${early.body.id}`, m.secretKey);
      return list.body.returns[0]?.status === 'refund_failed' ? list.body.returns[0] : undefined;
    }, 20_000, 'the return refund_failed');
    expect(failed).toMatchObject({ refund: null, refundFailure: { code: expect.stringMatching(/^REFUND_/), message: expect.any(String) } });
    expect((await put(early.body.id, { status: 'received' })).body.refundFailure).toEqual(failed.refundFailure);
    // Its webhook says why too (by the refusal's code); the ones before it carry none.
    const hooked = await eventually(async () => {
      const mine = hooks.received.filter((h) => h.body.id === early.body.id);
      return mine.some((h) => h.body.status === 'refund_failed') ? mine : undefined;
    }, 15_000, 'the refund_failed webhook');
    expect(hooked.find((h) => h.body.status === 'refund_failed')!.body.refundFailure).toEqual(failed.refundFailure); // the same words as GET: the refusal's own message
    expect(hooked.filter((h) => h.body.status !== 'refund_failed').map((h) => h.body.refundFailure)).toEqual(hooked.filter((h) => h.body.status !== 'refund_failed').map(() => null));
  });

  test('what is left to refund bounds the returnable units with their tax: 1,000 left does not pay back a 1,000 unit taxed 10 %', async () => {
    const r = await checkout(await cart([{ id: productId, quantity: 2 }]));
    const order = await paidOrder(r.body.checkoutId, r.body.payment_intent);
    // 2 x 1000 + 200 tax + 700 shipping = 2900; 1900 refunded outside returns leaves 1000, a unit pays back 1100.
    expect((await api.post('/v202607/refunds', { payment_intent: r.body.payment_intent, amount: 1900, currency: 'EUR' }, m.secretKey)).status).toBe(201);
    expect((await api.get(`/orders/${order}`, m.secretKey)).body.returnableProducts[0].returnableQuantity).toBe(0);
    const refused = await api.post('/returns', { orderId: order, idempotencyKey: `taxed-${Date.now()}`, productId, quantity: 1, reasonCode: 'damaged', address: ADDRESS }, m.secretKey);
    expect([refused.status, refused.body.error?.code]).toEqual([400, 'return_quantity_exceeded']);
  });

  test("another tenant cannot read the order or ask for a return of it", async () => {
    const other = await createMerchant();
    expect((await api.get(`/orders/${orderId}`, other.secretKey)).status).toBe(404);
    expect((await ask(1, `x-${Date.now()}`, orderId, other.secretKey)).status).toBe(404);
    expect((await api.get('/returns', other.secretKey)).body.returns).toEqual([]);
  });
});
