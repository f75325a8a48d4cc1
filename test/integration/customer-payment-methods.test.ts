import { createStoreActivities } from '../../activities/store';
import { connectMongo } from '../../platform/mongo';
import { api, call, createMerchant, getStack, mongo, withMethod, type Merchant } from './harness';

// A customer's saved cards (v202608): list, newest first with cursors, and detach; scoped by tenant and customer.

interface Card {
  payment_method: string;
  customer: string;
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  created_at: string;
}

const CARD_FIELDS = ['brand', 'created_at', 'customer', 'exp_month', 'exp_year', 'last4', 'payment_method'].sort();

let m: Merchant;
let other: Merchant;

const newCustomer = async (merchant: Merchant, name = 'Saver') => {
  const r = await api.post('/v202607/customers', { first_name: name }, merchant.secretKey);
  expect(r.status).toBe(201);
  return r.body.customer as string;
};

/** Pays an intent of `customer` with save_payment_method; the saved card's id. */
const saveCard = async (merchant: Merchant, customer: string): Promise<string> => {
  const pi = await api.post('/v202607/payment-intents', { amount: 1200, currency: 'EUR', customer }, merchant.secretKey);
  expect(pi.status).toBe(201);
  const r = await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, merchant.publishableKey);
  expect({ ...r.body, http: r.status }).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  return r.body.payment_method_uuid as string;
};

const list = (customer: string, key = m.secretKey, query = '') => api.get(`/v202608/customers/${customer}/payment-methods${query}`, key);
const detach = (customer: string, pm: string, key = m.secretKey) => api.del(`/v202608/customers/${customer}/payment-methods/${pm}`, key);
const ids = (body: { data: { payment_method: string }[] }) => body.data.map((c) => c.payment_method);

const expectError = (r: { status: number; body: unknown }, status: number, code: string, param?: string) => {
  expect(r.status).toBe(status);
  expect(r.body).toEqual({ error: { type: 'invalid_request_error', code, message: expect.any(String), ...(param ? { param } : {}), request_id: expect.any(String) } });
};

beforeAll(async () => {
  [m, other] = await Promise.all([createMerchant(), createMerchant()]);
});

describe('list', () => {
  let customer: string;
  let cards: string[]; // oldest first
  beforeAll(async () => {
    customer = await newCustomer(m);
    cards = [];
    // One after the other: each is saved later than the one before.
    for (let i = 0; i < 3; i += 1) cards.push(await saveCard(m, customer));
  });

  test('shows each saved card with its fields, and never the gateway token', async () => {
    const r = await list(customer);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'has_more']);
    expect(r.body.data).toHaveLength(3);
    for (const card of r.body.data) {
      expect(Object.keys(card).sort()).toEqual(CARD_FIELDS);
      // The sandbox's tok_success is its visa •••• 4242 expiring 12/2034 (sandbox/cards.ts).
      expect(card).toEqual({ payment_method: expect.stringMatching(/^pm_eu_/), customer, brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, created_at: expect.any(String) });
      expect(new Date(card.created_at).toISOString()).toBe(card.created_at);
    }
    expect(JSON.stringify(r.body)).not.toMatch(/gateway|token|connector|payment_intent/);
  });

  test('newest first, and cursor pages of limit 2 in both directions', async () => {
    const [c1, c2, c3] = cards as [string, string, string];
    const all = await list(customer);
    expect(ids(all.body)).toEqual([c3, c2, c1]);
    const times = (all.body.data as Card[]).map((c) => Date.parse(c.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const first = await list(customer, m.secretKey, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true });
    expect(ids(first.body)).toEqual([c3, c2]);

    const second = await list(customer, m.secretKey, `?limit=2&starting_after=${c2}`);
    expect(second.body).toMatchObject({ has_more: false });
    expect(ids(second.body)).toEqual([c1]);

    const back = await list(customer, m.secretKey, `?limit=2&ending_before=${c1}`);
    expect(back.body).toMatchObject({ has_more: false });
    expect(ids(back.body)).toEqual([c3, c2]);
  });

  test('a customer without cards has an empty list', async () => {
    const empty = await list(await newCustomer(m, 'No cards'));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [], has_more: false });
  });

  test("another tenant's key gets 404 for this customer, and for detaching its card", async () => {
    expectError(await list(customer, other.secretKey), 404, 'resource_missing', 'customer');
    expectError(await detach(customer, cards[0]!, other.secretKey), 404, 'resource_missing', 'payment_method');
    // and nothing was detached
    expect(ids((await list(customer)).body)).toHaveLength(3);
  });

  test('a deleted or unknown customer is 404', async () => {
    const gone = await newCustomer(m, 'Gone');
    await saveCard(m, gone);
    expect((await api.del(`/v202607/customers/${gone}`, m.secretKey)).status).toBe(200);
    expectError(await list(gone), 404, 'resource_missing', 'customer');
    expectError(await list('cus_eu_doesnotexist000000'), 404, 'resource_missing', 'customer');
  });

  test.each([['0'], ['101'], ['abc'], ['2.5']])('limit=%s is 400 in the error shape', async (limit) => {
    expectError(await list(customer, m.secretKey, `?limit=${limit}`), 400, 'parameter_invalid', 'limit');
  });

  test('a cursor that is not a pm_ id, or both cursors, or an unknown parameter is 400', async () => {
    expectError(await list(customer, m.secretKey, '?starting_after=cus_eu_abcdefgh12345678'), 400, 'parameter_invalid', 'starting_after');
    expectError(await list(customer, m.secretKey, `?starting_after=${cards[0]}&ending_before=${cards[1]}`), 400, 'parameter_invalid', 'ending_before');
    expectError(await list(customer, m.secretKey, '?customer=x'), 400, 'parameter_unknown', 'customer');
  });

  test('a secret key is required', async () => {
    expect((await list(customer, m.publishableKey)).status).toBe(403);
    expect((await list(customer, '')).status).toBe(401);
  });
});

describe('detach', () => {
  test('answers the card with detached: true; it is then not listed, and stored as detached', async () => {
    const customer = await newCustomer(m);
    const keep = await saveCard(m, customer);
    const pm = await saveCard(m, customer);
    const before = ((await list(customer)).body.data as Card[]).find((c) => c.payment_method === pm);

    const r = await detach(customer, pm);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...before, detached: true });
    expect(ids((await list(customer)).body)).toEqual([keep]);

    const client = await mongo();
    try {
      const stored = await client.db().collection('saved_payment_methods').findOne({ _id: pm as never });
      expect(stored?.detached_at).toBeInstanceOf(Date);
    } finally {
      await client.close();
    }
  });

  test('detaching twice is 404', async () => {
    const customer = await newCustomer(m);
    const pm = await saveCard(m, customer);
    expect((await detach(customer, pm)).status).toBe(200);
    expectError(await detach(customer, pm), 404, 'resource_missing', 'payment_method');
  });

  test("another customer's card, or an unknown id, is 404 and nothing changes", async () => {
    const owner = await newCustomer(m, 'Owner');
    const stranger = await newCustomer(m, 'Stranger');
    const pm = await saveCard(m, owner);
    expectError(await detach(stranger, pm), 404, 'resource_missing', 'payment_method');
    expectError(await detach(owner, 'pm_eu_doesnotexist000000'), 404, 'resource_missing', 'payment_method');
    expectError(await detach(owner, 'not-an-id'), 404, 'resource_missing', 'payment_method');
    expect(ids((await list(owner)).body)).toEqual([pm]);
  });
});

describe('versions', () => {
  test('the endpoints exist from v202608: a v202607 path is 404 like any undefined endpoint', async () => {
    const customer = await newCustomer(m);
    const pm = await saveCard(m, customer);
    expectError(await api.get(`/v202607/customers/${customer}/payment-methods`, m.secretKey), 404, 'route_not_found');
    expectError(await api.del(`/v202607/customers/${customer}/payment-methods/${pm}`, m.secretKey), 404, 'route_not_found');
    // a later month falls back to v202608
    expect(ids((await api.get(`/v202609/customers/${customer}/payment-methods`, m.secretKey)).body)).toEqual([pm]);
    // and the v202607 attempt did not detach it
    expect(ids((await list(customer)).body)).toEqual([pm]);
  });

  test('the OpenAPI document describes them under v202608 only', async () => {
    const doc = (await api.get('/openapi.json')).body;
    expect(doc.paths['/v202607/customers/{customer}/payment-methods']).toBeUndefined();
    const listOp = doc.paths['/v202608/customers/{customer}/payment-methods'].get;
    const delOp = doc.paths['/v202608/customers/{customer}/payment-methods/{payment_method}'].delete;
    expect(listOp.summary).toEqual(expect.any(String));
    expect(delOp.summary).toEqual(expect.any(String));
    const row = listOp.responses['200'].content['application/json'].schema.properties.data.items;
    expect(Object.keys(row.properties).sort()).toEqual(CARD_FIELDS);
    for (const field of CARD_FIELDS) expect(row.properties[field].description).toEqual(expect.any(String));
    expect((listOp.parameters as { name: string }[]).map((p) => p.name)).toEqual(expect.arrayContaining(['customer', 'limit', 'starting_after', 'ending_before']));
    const detached = delOp.responses['200'].content['application/json'].schema;
    expect(Object.keys(detached.properties).sort()).toEqual([...CARD_FIELDS, 'detached'].sort());
  });
});

describe('a customer deleted while its intent is pending', () => {
  // Deleting a customer detaches its cards for good; a card saved to it afterwards could never be charged.
  const pendingIntentOfDeleted = async () => {
    const customer = await newCustomer(m, 'Leaver');
    const pi = await api.post('/v202608/payment-intents', { amount: 1500, currency: 'EUR', customer, setup_future_usage: 'off_session' }, m.secretKey);
    expect(pi.status).toBe(201);
    const page = async () => (await call('GET', new URL(pi.body.url).pathname + new URL(pi.body.url).search)).body as string;
    expect(await page()).toContain('id="save-card"');
    expect((await api.del(`/v202607/customers/${customer}`, m.secretKey)).status).toBe(200);
    return { customer, intent: pi.body.payment_intent as string, page };
  };

  test('its page no longer offers to save the card, and an attempt asking to save it is refused before any charge', async () => {
    const { customer, intent, page } = await pendingIntentOfDeleted();
    expect(await page()).not.toContain('id="save-card"');
    const attempt = (body: Record<string, unknown>) => api.post(`/v202607/payment-intents/${intent}/attempts`, { token: 'tok_success', ...body }, m.publishableKey);
    expectError(await attempt({ save_payment_method: true }), 400, 'customer_required', 'save_payment_method');
    expect((await api.get(`/v202607/payment-intents/${intent}`, m.secretKey)).body.status).toBe('pending');
    // Paying without saving is still the customer's to do.
    const paid = await attempt({});
    expect([paid.body.status, paid.body.payment_method_uuid ?? null]).toEqual(['success', null]);
    const client = await mongo();
    try {
      expect(await client.db().collection('saved_payment_methods').countDocuments({ customer, detached_at: null })).toBe(0);
    } finally {
      await client.close();
    }
  });

  test('a card whose save was already under way when the customer was deleted is kept detached', async () => {
    const { customer, intent } = await pendingIntentOfDeleted();
    const db = await connectMongo(getStack().mongoUri);
    try {
      // The workflow's save, as it runs after the attempt was let through and the customer deleted meanwhile.
      const store = createStoreActivities({ mongo: db, gateways: {} as never });
      const pm = `pm_eu_${Date.now()}deleted`;
      const save = { id: pm, tenantId: m.tenant, customer, paymentIntent: intent, connectorId: 'con_none', chargeId: `ch_${Date.now()}`, createdAt: new Date().toISOString(), card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, reusableToken: null } };
      await store.savePaymentMethod(save);
      await store.savePaymentMethod(save); // a retried activity: still detached
      const saved = await db.c.savedPaymentMethods.findOne({ _id: pm });
      expect(saved?.detached_at).toEqual(expect.any(Date));
      // Deleted between the save's first look and its insert (the delete's detach-all ran before the card existed):
      // the look after the insert detaches it.
      let looks = 0;
      const lateDelete = withMethod(db, 'customers', 'findOne', (real) => async (...args: unknown[]) =>
        ++looks === 1 ? { deleted_at: null } : (real as unknown as { findOne(...a: unknown[]): Promise<unknown> }).findOne(...args),
      );
      const pm2 = `${pm}2`;
      await createStoreActivities({ mongo: lateDelete, gateways: {} as never }).savePaymentMethod({ ...save, id: pm2 });
      expect(looks).toBe(2);
      expect((await db.c.savedPaymentMethods.findOne({ _id: pm2 }))?.detached_at).toEqual(expect.any(Date));
    } finally {
      await db.close();
    }
  });
});
