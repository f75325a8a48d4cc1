import type { MongoClient } from 'mongodb';
import { api, call, createMerchant, getStack, mongo, type Merchant } from './harness';

// Hostile input gets a 4xx in the error shape, never a 500.

let m: Merchant;
let db: MongoClient;
beforeAll(async () => {
  m = await createMerchant();
  db = await mongo();
});
afterAll(() => db.close());

const errorShape = (code: string, param?: string) => ({
  error: { type: 'invalid_request_error', code, message: expect.any(String), ...(param ? { param } : {}), request_id: expect.any(String) },
});

test.each(['_bsontype', '$where', 'a.b', 'nul\u0000key'])('metadata key %j: 400 naming it, and no intent', async (key) => {
  const reference = `hostile-${key.length}-${Date.now()}`;
  const r = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR', metadata: { [key]: 'x' }, customer: { reference } }, m.secretKey);
  expect(r.status).toBe(400);
  expect(r.body).toEqual(errorShape('parameter_invalid', `metadata[${key}]`));
  expect(await db.db().collection('customers').countDocuments({ tenant_id: m.tenant, reference })).toBe(0);
});

test('a NUL inside a metadata value is stored as given', async () => {
  const r = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR', metadata: { note: 'a\u0000b' } }, m.secretKey);
  expect(r.status).toBe(201);
  const stored = await db.db().collection('payment_intents').findOne({ _id: r.body.payment_intent } as never);
  expect(stored?.metadata).toEqual({ note: 'a\u0000b' });
});

test("updating a customer to another customer's reference is a 400 (it was a 500)", async () => {
  // The body schemathesis found; the other customer already holds reference "0".
  const holder = await api.post('/v202607/customers', { reference: '0' }, m.secretKey);
  expect([200, 201]).toContain(holder.status);
  const other = (await api.post('/v202607/customers', {}, m.secretKey)).body.customer;
  const body = { email: '0@0.com', first_name: '', last_name: '0'.repeat(200), phone_number: '0000', reference: '0' };
  const r = await api.post(`/v202607/customers/${other}`, body, m.secretKey);
  expect(r.status).toBe(400);
  expect(r.body).toEqual(errorShape('reference_in_use', 'reference'));
  expect((await api.get(`/v202607/customers/${other}`, m.secretKey)).body).toMatchObject({ reference: null, last_name: null });
  // Its own reference again, or a free one, still works.
  expect((await api.post(`/v202607/customers/${holder.body.customer}`, body, m.secretKey)).status).toBe(200);
  expect((await api.post(`/v202607/customers/${other}`, { ...body, reference: `free-${Date.now()}` }, m.secretKey)).status).toBe(200);
});

test.each(['re_eu_00000000000', 'not-an-id', ''])('a refund of payment_intent %j is a 404', async (paymentIntent) => {
  const r = await api.post('/v202607/refunds', { payment_intent: paymentIntent, amount: 100, currency: 'EUR' }, m.secretKey);
  expect(r.status).toBe(404);
  expect(r.body).toEqual(errorShape('resource_missing', 'payment_intent'));
});

test('a v202607 customer has no address; from v202608 it does', async () => {
  const reference = `addr-${Date.now()}`;
  const address = { line1: '1 Main St', city: 'Berlin', country: 'DE' };
  const pi = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: { reference, address } }, m.secretKey);
  expect(pi.status).toBe(201);
  const id = pi.body.customer;
  const documented = ['created_at', 'customer', 'email', 'first_name', 'last_name', 'phone_number', 'reference', 'test_clock'];
  expect(Object.keys((await api.get(`/v202607/customers/${id}`, m.secretKey)).body).sort()).toEqual(documented);
  expect(Object.keys((await api.get(`/v202607/customers?reference=${reference}`, m.secretKey)).body.data[0]).sort()).toEqual(documented);
  expect(Object.keys((await api.post(`/v202607/customers/${id}`, { first_name: 'A' }, m.secretKey)).body).sort()).toEqual(documented);
  expect((await api.get(`/v202608/customers/${id}`, m.secretKey)).body).toMatchObject({ customer: id, address });
});

test('a callback for an unknown gateway is a 404 in the error shape', async () => {
  for (const gateway of ['nope', 'constructor']) {
    const r = await call('POST', `/callbacks/${gateway}/pi_eu_00000000000`, { body: { kind: 'charge' } });
    expect(r.status).toBe(404);
    expect(r.body).toEqual(errorShape('resource_missing', 'gateway'));
  }
});

describe('what the body is made of, before any endpoint reads it', () => {
  const post = (path: string, rawBody: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${getStack().apiUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${m.secretKey}`, 'content-type': 'application/json', ...headers }, body: typeof rawBody === 'string' ? rawBody : new Uint8Array(rawBody) }).then(async (r) => ({ status: r.status, body: await r.json() }));

  test('a lone surrogate in a key or value is 400 naming where, and nothing is stored (MongoDB would keep U+FFFD, and two such keys collided)', async () => {
    const reference = `lone-${Date.now()}`;
    const lone = await post('/v202607/payment-intents', `{"amount":100,"currency":"EUR","idempotency_key":"k-${reference}-\\ud800","customer":{"reference":"${reference}","first_name":"\\udc00"}}`);
    expect([lone.status, lone.body]).toEqual([400, errorShape('parameter_invalid', 'idempotency_key')]);
    expect(lone.body.error.message).toMatch(/not well-formed Unicode/);
    const keys = await post('/v202607/payment-intents', `{"amount":100,"currency":"EUR","customer":{"reference":"${reference}"},"metadata":{"a\\ud800":"1","a\\udc00":"2"}}`);
    expect([keys.status, keys.body]).toEqual([400, errorShape('parameter_invalid', 'metadata')]);
    expect(await db.db().collection('customers').countDocuments({ tenant_id: m.tenant, reference })).toBe(0);
  });

  test('a body nested 5,000 levels deep is 400 naming the field, not a 500 from a stack overflow', async () => {
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    for (const path of ['/payment-intents', '/checkout-intents']) {
      const r = await post(path, `{"gateway":"sandbox","amount":100,"currency":"EUR","payload":{"x":${deep}}}`);
      expect([path, r.status, r.body]).toEqual([path, 400, errorShape('parameter_invalid', 'payload')]);
    }
  });

  test('a charset other than UTF-8 is 415; bytes that are not UTF-8 are 400, not stored as U+FFFD', async () => {
    const latin1 = await post('/v202607/payment-intents', Buffer.from('{"amount":100,"currency":"EUR","metadata":{"n":"caf\u00e9"}}', 'latin1'), { 'content-type': 'application/json; charset=iso-8859-1' });
    expect([latin1.status, latin1.body]).toEqual([415, errorShape('unsupported_media_type')]);
    expect(latin1.body.error.message).toMatch(/UTF-8/);
    const invalid = await post('/v202607/payment-intents', Buffer.from('{"amount":100,"currency":"EUR","metadata":{"n":"caf\u00e9"}}', 'latin1'));
    expect([invalid.status, invalid.body]).toEqual([400, errorShape('malformed_json')]);
    expect(invalid.body.error.message).toMatch(/not valid UTF-8/);
  });

  test('a Content-Encoding the API does not decode (br, zstd) is 415 unsupported_encoding', async () => {
    for (const coding of ['br', 'zstd']) {
      const r = await post('/v202607/payment-intents', '{"amount":100,"currency":"EUR"}', { 'content-encoding': coding });
      expect([coding, r.status, r.body]).toEqual([coding, 415, errorShape('unsupported_encoding')]);
    }
  });

  test('a request line over the header limit is 431 in the error shape, with the connection closed', async () => {
    const r = await fetch(`${getStack().apiUrl}/v202607/payment-intents/pi_eu_${'x'.repeat(20_000)}`, { headers: { authorization: `Bearer ${m.secretKey}` } });
    expect(r.status).toBe(431);
    expect([r.headers.get('content-type'), r.headers.get('connection')]).toEqual(['application/json', 'close']);
    expect(await r.json()).toEqual(errorShape('request_header_too_large'));
  });
});
