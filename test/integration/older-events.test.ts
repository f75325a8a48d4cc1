import { api, createMerchant, createPayoutMerchant, eventually, pay, startHookReceiver, type Delivery, type Merchant } from './harness';

// One occurrence, one event, whose body is what was delivered: the events list of a merchant of the older
// interface (webhook_urls), the metadata of a v202606 intent on its webhooks, a URL given twice in
// webhook_urls refused, and a v202608 intent's event data in its retrieve's shape. Real stack, real receiver.

let hooks: Delivery[];
let hookBase = '';
let closeHooks: () => Promise<void>;
let m: Merchant;
beforeAll(async () => {
  ({ received: hooks, base: hookBase, close: closeHooks } = await startHookReceiver());
  m = await createMerchant('Older events shop');
});
afterAll(() => closeHooks());

interface ListedEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every event of `type` the merchant's list shows whose data is about `about` (an id somewhere in it). */
async function listed(type: string, about: string): Promise<ListedEvent[]> {
  const r = await api.get(`/v202607/events?type=${type}&limit=100`, m.secretKey);
  expect(r.status).toBe(200);
  return (r.body.data as ListedEvent[]).filter((e) => JSON.stringify(e.data).includes(about));
}

const hookOf = (path: string, event: string) => eventually(async () => hooks.find((h) => h.path === path && h.body.event === event), 15_000, `${event} at ${path}`);

describe('GET /v202607/events: one event per occurrence of the older interface, its data the body delivered', () => {
  test("an older intent's payment.success: listed once, by type too, as the body its webhook_urls got (payload included)", async () => {
    const created = await api.post(
      '/payment-intents',
      { gateway: 'sandbox', amount: 1234, currency: 'EUR', webhook_urls: [`${hookBase}/once`], payload: { cart: { id: 'c-1', $odd: 'kept' } } },
      m.secretKey,
    );
    const uuid = created.body.payment_intent as string;
    const pi = (await api.get(`/payment-intents/${uuid}`, m.secretKey)).body.initial_data.payment_intent_id as string;
    expect((await pay(pi, m.publishableKey)).body.status).toBe('success');
    const delivered = await hookOf('/once', 'payment.success');

    const events = await eventually(async () => {
      const found = await listed('payment.success', uuid);
      return found.length > 0 ? found : undefined;
    }, 15_000, 'the listed event');
    // The envelope twin was recorded in the same write as the older event: a second one would be here already.
    expect(events.map((e) => e.id)).toEqual([delivered.body.event_id]);
    expect(events[0]!.data).toEqual(delivered.body);
    expect(events[0]!.data.payload).toEqual({ cart: { id: 'c-1', $odd: 'kept' } });
    const one = await api.get(`/v202607/events/${events[0]!.id}`, m.secretKey);
    expect(one.body.data).toEqual(delivered.body);
    expect(one.body.deliveries.map((d: { url: string }) => d.url)).toEqual([`${hookBase}/once`]);
  });

  test("an older refund's refund.success: listed once, as the body its webhook_urls got", async () => {
    const pi = (await api.post('/v202607/payment-intents', { amount: 3000, currency: 'EUR' }, m.secretKey)).body.payment_intent as string;
    expect((await pay(pi, m.publishableKey)).body.status).toBe('success');
    const older = await eventually(async () => ((await api.get(`/payment-intents/${pi}`, m.secretKey)).body.transaction_id ? (await api.get(`/payment-intents/${pi}`, m.secretKey)).body : undefined), 15_000, 'transaction_id');
    const r = await api.post('/refunds', { transaction_id: older.transaction_id, amount: 700, currency: 'EUR', webhook_urls: [`${hookBase}/refund-once`] }, m.secretKey);
    expect(r.status).toBe(201);
    const delivered = await eventually(async () => hooks.find((h) => h.path === '/refund-once' && h.body.event === 'refund.success'), 20_000, 'refund.success');

    // The intent's one refund, named in the older body by the intent's UUID and in the versioned one by its pi_ id.
    const found = [...(await listed('refund.success', older.payment_intent)), ...(await listed('refund.success', pi))];
    expect(found.map((e) => e.id)).toEqual([delivered.body.event_id]);
    expect(found[0]!.data).toEqual(delivered.body);
  });
});

describe('POST /v202606/payment-intents: metadata on its webhooks', () => {
  test('the body every webhook_urls entry gets carries the metadata given, beside payload', async () => {
    const r = await api.post('/v202606/payment-intents', { amount: 640, currency: 'EUR', metadata: { order: 'ord-606', channel: 'pos' }, webhook_urls: [`${hookBase}/v6-meta`] }, m.secretKey);
    expect(r.status).toBe(201);
    await pay(r.body.payment_intent, m.publishableKey);
    const h = await hookOf('/v6-meta', 'payment.success');
    expect(h.body).toMatchObject({ initial_data: { payment_intent_id: r.body.payment_intent }, payload: null, metadata: { order: 'ord-606', channel: 'pos' } });
  });
});

describe('older webhook_urls: a URL given twice is refused, as v202607 webhooks refuse it', () => {
  const twice = (path: string) => [`${hookBase}/${path}`, `${hookBase}/${path}-other`, `${hookBase}/${path}`];
  const refusedAs400 = (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.param]; // eslint-disable-line @typescript-eslint/no-explicit-any

  test('POST /payment-intents, /v202606/payment-intents, /checkout-intents and /refunds answer 400 naming webhook_urls[2]', async () => {
    const expected = [400, 'parameter_invalid', 'webhook_urls[2]'];
    expect(refusedAs400(await api.post('/payment-intents', { gateway: 'sandbox', amount: 100, currency: 'EUR', webhook_urls: twice('pi') }, m.secretKey))).toEqual(expected);
    expect(refusedAs400(await api.post('/v202606/payment-intents', { amount: 100, currency: 'EUR', webhook_urls: twice('v6') }, m.secretKey))).toEqual(expected);
    expect(refusedAs400(await api.post('/checkout-intents', { amount: 100, currency: 'EUR', webhook_urls: twice('co') }, m.secretKey))).toEqual(expected);
    const pi = (await api.post('/v202607/payment-intents', { amount: 1000, currency: 'EUR' }, m.secretKey)).body.payment_intent as string;
    await pay(pi, m.publishableKey);
    const tx = await eventually(async () => (await api.get(`/payment-intents/${pi}`, m.secretKey)).body.transaction_id ?? undefined, 15_000, 'transaction_id');
    const refund = await api.post('/refunds', { transaction_id: tx, amount: 100, currency: 'EUR', webhook_urls: twice('re') }, m.secretKey);
    expect(refusedAs400(refund)).toEqual(expected);
    expect(refund.body.error.message).toContain('the same URL as webhook_urls[0]');
  });

  test('POST /payouts answers 400 naming webhook_urls[2]', async () => {
    const payer = await createPayoutMerchant();
    const r = await api.post(
      '/payouts',
      { amount: 5000, currency: 'NGN', gateway: 'sandbox', bank_account_number: '0123456789', bank_account_name: 'Ada Obi', bank_code: '058', webhook_urls: twice('po') },
      payer.secretKey,
    );
    expect(refusedAs400(r)).toEqual([400, 'parameter_invalid', 'webhook_urls[2]']);
  });
});

describe('v202608: an event of the intent is its v202608 retrieve at that moment', () => {
  test('payment.success carries connector and setup_future_usage, as GET /v202608/payment-intents/{id} answers', async () => {
    const rx = await startHookReceiver();
    try {
      const customer = (await api.post('/v202607/customers', { email: 'ada@example.com' }, m.secretKey)).body.customer as string;
      const r = await api.post(
        '/v202608/payment-intents',
        { amount: 900, currency: 'EUR', customer, setup_future_usage: 'off_session', metadata: { order: 'ord-608' }, webhooks: [{ url: `${rx.base}/v8`, events: ['payment.success'] }] },
        m.secretKey,
      );
      expect(r.status).toBe(201);
      const pi = r.body.payment_intent as string;
      expect((await pay(pi, m.publishableKey)).body.status).toBe('success');
      const d = await eventually(async () => rx.received.find((h) => h.body?.type === 'payment.success'), 15_000, 'payment.success');
      const retrieved = (await api.get(`/v202608/payment-intents/${pi}`, m.secretKey)).body;
      expect(retrieved).toMatchObject({ connector: expect.stringMatching(/^con_/), setup_future_usage: 'off_session' });
      expect(d.body.data).toEqual({ ...retrieved, metadata: { order: 'ord-608' } });
    } finally {
      await rx.close();
    }
  });
});
