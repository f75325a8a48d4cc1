import type { MongoClient } from 'mongodb';
import { api, createMerchant, mongo } from './harness';

// A refused create writes nothing; a concurrent duplicate makes no side writes of its own.

let db: MongoClient;
beforeAll(async () => {
  db = await mongo();
});
afterAll(() => db.close());

/** What a create may leave behind for a tenant: customers, webhook secrets, intents. */
async function recordsOf(tenant: string) {
  const count = (name: string) => db.db().collection(name).countDocuments({ tenant_id: tenant });
  return { customers: await count('customers'), webhook_secrets: await count('webhook_secrets'), payment_intents: await count('payment_intents') };
}

const nothing = { customers: 0, webhook_secrets: 0, payment_intents: 0 };
const signedHook = { url: 'https://merchant.example.com/hooks', secret: 'whsec_test', events: ['payment.success'] };
const inlineCustomer = { reference: 'cust-1', first_name: 'Ada', email: 'ada@example.com' };

test.each([
  ['a webhook URL we refuse', { webhooks: [signedHook, { url: 'https://user:pass@merchant.example.com/', events: ['payment.success'] }] }, 'webhook_url_invalid'],
  ['a metadata key MongoDB cannot store', { webhooks: [signedHook], metadata: { $set: 'x' } }, 'parameter_invalid'],
  ['a pin to an unknown connector', { webhooks: [signedHook], connector: 'con_eu_0000000000000000' }, 'pin_invalid'],
])('a create refused for %s leaves no customer and no webhook secret', async (_why, extra, code) => {
  const m = await createMerchant();
  const r = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: inlineCustomer, ...extra }, m.secretKey);
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe(code);
  expect(await recordsOf(m.tenant)).toEqual(nothing);
});

test('a create refused for an unknown customer id leaves no webhook secret', async () => {
  const m = await createMerchant();
  const r = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR', customer: 'cus_eu_0000000000000000', webhooks: [signedHook] }, m.secretKey);
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'resource_missing', param: 'customer' });
  expect(await recordsOf(m.tenant)).toEqual(nothing);
});

test('an accepted create writes its customer and its webhook secrets once', async () => {
  const m = await createMerchant();
  const r = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR', customer: inlineCustomer, webhooks: [signedHook] }, m.secretKey);
  expect(r.status).toBe(201);
  expect(await recordsOf(m.tenant)).toEqual({ customers: 1, webhook_secrets: 1, payment_intents: 1 });
  expect((await api.get(`/v202607/customers/${r.body.customer}`, m.secretKey)).body).toMatchObject({ reference: 'cust-1', first_name: 'Ada' });
});

test.each([
  ['without a reference', { first_name: 'Grace' }],
  ['with a reference', { reference: 'cust-concurrent', first_name: 'Grace' }],
])('20 concurrent creates with one idempotency key and an inline customer %s leave one customer', async (_how, customer) => {
  const m = await createMerchant();
  const body = { amount: 100, currency: 'EUR', idempotency_key: 'order-1', customer, webhooks: [signedHook] };
  const replies = await Promise.all(Array.from({ length: 20 }, () => api.post('/v202607/payment-intents', body, m.secretKey)));
  expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
  expect(replies.filter((r) => r.status === 200)).toHaveLength(19);
  expect(new Set(replies.map((r) => r.body.payment_intent)).size).toBe(1);
  expect(new Set(replies.map((r) => r.body.customer)).size).toBe(1);
  expect(await recordsOf(m.tenant)).toEqual({ customers: 1, webhook_secrets: 1, payment_intents: 1 });
  expect((await api.get(`/v202607/customers/${replies[0]!.body.customer}`, m.secretKey)).status).toBe(200);
});
