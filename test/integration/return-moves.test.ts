import { admin, api, call, createMerchant, eventually, getStack, pay, startHookReceiver, type HookReceiver, type Merchant, type Reply } from './harness';

// PUT /returns/{id} sent several times at once, as a merchant's retries or two of its workers do: "the same
// move again changes nothing". Every copy answers 200 with the return as it stands after that move, never
// the status from before it, never a 409; the move is made once (one webhook for it).

let m: Merchant;
let hooks: HookReceiver;
let seq = 0;

const ADDRESS = { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' };

async function paidOrderOf(quantity: number): Promise<{ orderId: string; productId: string; paymentIntent: string }> {
  const p = await admin.post(`/admin/tenants/${m.tenant}/products`, { sku: `MOVES-${Date.now()}-${++seq}`, title: { en: `Thing ${seq}`, ar: `شيء ${seq}` }, price: 1000, currency: 'EUR', stock: 10 });
  expect(p.status).toBe(201);
  const c = await api.post('/commerce/cart', { userId: `user-moves-${++seq}`, currency: 'EUR' }, m.secretKey);
  expect((await api.post('/cart', { cartId: c.body.cartId, products: [{ id: p.body.id, quantity }] }, m.secretKey)).status).toBe(200);
  const co = await api.post('/checkouts', { cartId: c.body.cartId, shippingAddress: ADDRESS }, m.secretKey);
  expect(co.status).toBe(201);
  expect((await pay(co.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  const orderId = await eventually(async () => {
    const r = await api.get(`/checkouts/${co.body.checkoutId}`, m.secretKey);
    return r.body.status === 'completed' ? (r.body.orderId as string) : undefined;
  }, 20_000, 'the order');
  return { orderId, productId: p.body.id, paymentIntent: co.body.payment_intent };
}

async function returnOf(order: { orderId: string; productId: string }): Promise<string> {
  const r = await api.post('/returns', { orderId: order.orderId, idempotencyKey: `moves-${Date.now()}-${++seq}`, productId: order.productId, quantity: 1, reasonCode: 'damaged', address: ADDRESS }, m.secretKey);
  expect(r.status).toBe(200);
  return r.body.id;
}

const put = (id: string, body: Record<string, string>) => call('PUT', `/returns/${id}`, { body, key: m.secretKey });
/** The same PUT, `n` copies sent at once. */
const atOnce = (n: number, id: string, body: Record<string, string>) => Promise.all(Array.from({ length: n }, () => put(id, body)));
const answers = (replies: Reply[]) => replies.map((r) => [r.status, r.body.status ?? r.body.error?.code]);
const statusOf = async (id: string) => (await api.get(`/returns?filter.id=$eq:${id}`, m.secretKey)).body.returns[0].status as string;
/** The webhooks of this return telling `status`, once the deliveries have had time to come. */
const hooksTelling = async (id: string, status: string) => {
  await new Promise((r) => setTimeout(r, 1_500));
  return hooks.received.filter((h) => h.body.id === id && h.body.status === status);
};

beforeAll(async () => {
  m = await createMerchant();
  hooks = await startHookReceiver();
  const settings = await call('PUT', `/admin/tenants/${m.tenant}/commerce-settings`, {
    body: { taxRateBasisPoints: 1000, shippingFlat: 700, freeShippingFrom: 100_000, webhook_urls: [`${hooks.base}/returns`], webhook_secret: 'moves-secret' },
    key: getStack().adminToken,
  });
  expect(settings.status).toBe(200);
});
afterAll(() => hooks.close());

describe('the same PUT /returns/{id} sent four times at once', () => {
  let order: { orderId: string; productId: string; paymentIntent: string };
  beforeAll(async () => {
    order = await paidOrderOf(6);
  });

  test.each([
    ['approved', 'approved', {}],
    ['rejected', 'rejected.worn', { reason: 'worn' }],
  ])('%s: all four answer 200 %s (before: three answered requested, the status before it), and it is made once', async (move, after, extra) => {
    const id = await returnOf(order);
    const replies = await atOnce(4, id, { status: move, ...extra });
    expect(answers(replies)).toEqual([0, 1, 2, 3].map(() => [200, after]));
    // One record, as written by the one move: the same updatedAt in every answer.
    expect(new Set(replies.map((r) => r.body.updatedAt)).size).toBe(1);
    expect(await statusOf(id)).toBe(after);
    expect(await hooksTelling(id, after)).toHaveLength(1);
  });

  test('received: all four answer 200 with the one refund it made', async () => {
    const id = await returnOf(order);
    expect((await put(id, { status: 'approved' })).status).toBe(200);
    const replies = await atOnce(4, id, { status: 'received' });
    // Its refund may settle while they are answered: received, or refunded since; one refund either way.
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const r of replies) expect(['received', 'refunded']).toContain(r.body.status);
    expect(new Set(replies.map((r) => r.body.refund)).size).toBe(1);
    expect(replies[0]!.body.refund).toMatch(/^re_/);
    expect(await hooksTelling(id, 'received')).toHaveLength(1);
  });
});

test('received three times at once, its refund refused (the payment was refunded just before): all three answer 200 refund_failed, saying why (before: two 409s)', async () => {
  const order = await paidOrderOf(2);
  const id = await returnOf(order);
  expect((await put(id, { status: 'approved' })).status).toBe(200);
  // The whole payment (2 x 1000, 200 tax, 700 shipping) refunded through the refunds API: the return's refund is refused.
  expect((await api.post('/v202607/refunds', { payment_intent: order.paymentIntent, amount: 2900, currency: 'EUR' }, m.secretKey)).status).toBe(201);
  const replies = await atOnce(3, id, { status: 'received' });
  expect(answers(replies)).toEqual([0, 1, 2].map(() => [200, 'refund_failed']));
  for (const r of replies) expect(r.body).toMatchObject({ refund: null, refundFailure: { code: expect.stringMatching(/^REFUND_/), message: expect.any(String) } });
  expect(await statusOf(id)).toBe('refund_failed');
  expect(await hooksTelling(id, 'refund_failed')).toHaveLength(1);
  // And once more afterwards, as it always answered.
  expect(answers([await put(id, { status: 'received' })])).toEqual([[200, 'refund_failed']]);
});
