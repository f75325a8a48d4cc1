import { updateCustomer, upsertCustomer } from '../../api/customers/service';
import { connectMongo } from '../../platform/mongo';
import { api, createMerchant, getStack, withMethod, type Merchant } from './harness';

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

test('upsert by reference creates, then partially updates', async () => {
  const ref = `c-${Date.now()}`;
  const a = await api.post('/v202607/customers', { reference: ref, first_name: 'Ada', email: 'ada@example.com' }, m.secretKey);
  expect(a.status).toBe(201);
  expect(a.body).toMatchObject({ customer: expect.stringMatching(/^cus_eu_/), reference: ref, first_name: 'Ada', resource_created: true });
  const b = await api.post('/v202607/customers', { reference: ref, last_name: 'Lovelace' }, m.secretKey);
  expect(b.status).toBe(200);
  expect(b.body).toMatchObject({ customer: a.body.customer, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', resource_created: false });
});

test('phone numbers are taken as merchants keep them: dots, slashes, brackets and an extension', async () => {
  for (const phone of ['555.123.4567', '0151/12345678', '+1 555-1234 x12', '+1 (555) 123-4567 ext. 7', '+4915112345678', '+ 49 151 1234567']) {
    const r = await api.post('/v202607/customers', { phone_number: phone }, m.secretKey);
    expect([r.status, r.body.phone_number]).toEqual([201, phone]);
  }
  // Spaces around it, which the earlier pattern took, are trimmed.
  expect((await api.post('/v202607/customers', { phone_number: ' +4915112345678 ' }, m.secretKey)).body.phone_number).toBe('+4915112345678');
  for (const phone of ['call me', '--', '+1 555 1234 ask for Bo']) {
    const r = await api.post('/v202607/customers', { phone_number: phone }, m.secretKey);
    expect([r.status, r.body.error?.param]).toEqual([400, 'phone_number']);
  }
});

test('no reference always creates', async () => {
  const a = await api.post('/v202607/customers', { first_name: 'X' }, m.secretKey);
  const b = await api.post('/v202607/customers', { first_name: 'X' }, m.secretKey);
  expect(a.body.customer).not.toBe(b.body.customer);
});

test('retrieve, update, list, delete', async () => {
  const c = (await api.post('/v202607/customers', { reference: `r-${Date.now()}`, email: 'z@example.com' }, m.secretKey)).body;
  expect((await api.get(`/v202607/customers/${c.customer}`, m.secretKey)).body).toMatchObject({ customer: c.customer, email: 'z@example.com' });
  const u = await api.post(`/v202607/customers/${c.customer}`, { phone_number: '+4915112345678' }, m.secretKey);
  expect(u.body).toMatchObject({ email: 'z@example.com', phone_number: '+4915112345678' });
  const byEmail = await api.get('/v202607/customers?email=z@example.com', m.secretKey);
  expect(byEmail.body.data.map((x: any) => x.customer)).toContain(c.customer);
  // An empty filter is a 400, not every customer (a lookup by an empty reference took the first for its own).
  for (const filter of ['reference', 'email']) {
    const empty = await api.get(`/v202607/customers?${filter}=&limit=2`, m.secretKey);
    expect([empty.status, empty.body.error?.code, empty.body.error?.param]).toEqual([400, 'parameter_invalid', filter]);
  }
  const pi = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR', customer: c.customer }, m.secretKey);
  expect(pi.body.customer).toBe(c.customer);
  expect((await api.del(`/v202607/customers/${c.customer}`, m.secretKey)).body).toEqual({ customer: c.customer, deleted: true });
  expect((await api.get(`/v202607/customers/${c.customer}`, m.secretKey)).status).toBe(404);
  expect((await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey)).body.customer).toBe(c.customer);
  // Repeated, the same answer (a repeat finishes a delete that failed part-way).
  expect((await api.del(`/v202607/customers/${c.customer}`, m.secretKey)).body).toEqual({ customer: c.customer, deleted: true });
});

test('a delete sent with updates of the same customer deletes it: it never reads live again', async () => {
  // FerretDB writes a guarded update as a whole document: an update that read the customer before the delete
  // wrote could put it back undeleted after the delete had answered (explorer: 6 of 12 rounds).
  for (let round = 0; round < 6; round++) {
    const ref = `race-${Date.now()}-${round}`;
    const c = (await api.post('/v202607/customers', { reference: ref, first_name: 'Ana' }, m.secretKey)).body.customer as string;
    const [deleted] = await Promise.all([
      api.del(`/v202607/customers/${c}`, m.secretKey),
      ...Array.from({ length: 4 }, (_, i) => api.post(`/v202607/customers/${c}`, { first_name: `upd${i}` }, m.secretKey)),
      ...Array.from({ length: 2 }, () => api.post('/v202607/customers', { reference: ref, last_name: 'again' }, m.secretKey)),
    ]);
    expect(deleted.status).toBe(200);
    expect({ round, status: (await api.get(`/v202607/customers/${c}`, m.secretKey)).status }).toEqual({ round, status: 404 });
  }
});

test('an update that reads the customer just before its delete is a 404, and leaves its new reference free', async () => {
  const c = (await api.post('/v202607/customers', { reference: `before-${Date.now()}` }, m.secretKey)).body;
  const next = `after-${Date.now()}`;
  const db = await connectMongo(getStack().mongoUri);
  try {
    // The update reads the live customer; the delete lands before the update writes.
    let deleted = false;
    const racing = withMethod(db, 'customers', 'findOne', (real) => async (...args: unknown[]) => {
      const found = await (real as unknown as { findOne(...a: unknown[]): Promise<unknown> }).findOne(...args);
      if (!deleted) {
        deleted = true;
        expect((await api.del(`/v202607/customers/${c.customer}`, m.secretKey)).status).toBe(200);
      }
      return found;
    });
    await expect(updateCustomer(racing, m.tenant, c.customer, { reference: next })).rejects.toMatchObject({ code: 'resource_missing' });
  } finally {
    await db.close();
  }
  // Before, the deleted customer was given the reference for good: every later create with it was a 404.
  const made = await api.post('/v202607/customers', { reference: next }, m.secretKey);
  expect([made.status, made.body.resource_created]).toEqual([201, true]);
  expect(made.body.customer).not.toBe(c.customer);
});

test('an upsert by reference whose customer is deleted just after it was found makes a new customer with that reference', async () => {
  const reference = `gone-${Date.now()}`;
  const c = (await api.post('/v202607/customers', { reference }, m.secretKey)).body;
  const db = await connectMongo(getStack().mongoUri);
  try {
    // The upsert finds the customer by its reference; the delete lands before the upsert updates it.
    let deleted = false;
    const racing = withMethod(db, 'customers', 'findOne', (real) => async (...args: unknown[]) => {
      const found = await (real as unknown as { findOne(...a: unknown[]): Promise<unknown> }).findOne(...args);
      if (!deleted && found) {
        deleted = true;
        expect((await api.del(`/v202607/customers/${c.customer}`, m.secretKey)).status).toBe(200);
      }
      return found;
    });
    const made = await upsertCustomer(racing, m.tenant, 'eu', { reference, first_name: 'Ada' });
    expect(made).toMatchObject({ created: true, record: { reference, first_name: 'Ada' } });
    expect(made.record._id).not.toBe(c.customer);
    expect((await api.get(`/v202607/customers/${made.record._id}`, m.secretKey)).body).toMatchObject({ reference });
  } finally {
    await db.close();
  }
});

test('inline customer on intent create is reconciled by reference', async () => {
  const ref = `inline-${Date.now()}`;
  const a = await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', customer: { reference: ref, first_name: 'A' } }, m.secretKey);
  const b = await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', customer: { reference: ref, email: 'a@example.com' } }, m.secretKey);
  expect(b.body.customer).toBe(a.body.customer);
  expect((await api.get(`/v202607/customers/${a.body.customer}`, m.secretKey)).body).toMatchObject({ first_name: 'A', email: 'a@example.com' });
});

test('v202608 customers take an address at create and update (merged field by field) and answer it; v202607 takes none', async () => {
  const made = await api.post('/v202608/customers', { reference: `addr-${Date.now()}`, first_name: 'Ada', address: { line1: '1 Main St', city: 'Lagos', country: 'NG' } }, m.secretKey);
  expect([made.status, made.body.address]).toEqual([201, { line1: '1 Main St', city: 'Lagos', country: 'NG' }]);
  const id = made.body.customer;
  const updated = await api.post(`/v202608/customers/${id}`, { address: { postal_code: '100001' } }, m.secretKey);
  expect([updated.status, updated.body.address]).toEqual([200, { line1: '1 Main St', city: 'Lagos', country: 'NG', postal_code: '100001' }]);
  expect((await api.get(`/v202608/customers/${id}`, m.secretKey)).body.address).toEqual(updated.body.address);
  // v202607 neither shows nor takes it.
  expect((await api.get(`/v202607/customers/${id}`, m.secretKey)).body.address).toBeUndefined();
  const refused = await api.post(`/v202607/customers/${id}`, { address: { city: 'Abuja' } }, m.secretKey);
  expect([refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([400, 'parameter_unknown', 'address']);
  const invalid = await api.post('/v202608/customers', { address: { country: 'Nigeria' } }, m.secretKey);
  expect([invalid.status, invalid.body.error?.param]).toEqual([400, 'address[country]']);
});

test("another tenant's customer is a 404 everywhere", async () => {
  const other = await createMerchant();
  const c = (await api.post('/v202607/customers', { first_name: 'Hidden' }, other.secretKey)).body;
  expect((await api.get(`/v202607/customers/${c.customer}`, m.secretKey)).status).toBe(404);
  expect((await api.post(`/v202607/customers/${c.customer}`, { first_name: 'x' }, m.secretKey)).status).toBe(404);
  expect((await api.del(`/v202607/customers/${c.customer}`, m.secretKey)).status).toBe(404);
  expect((await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', customer: c.customer }, m.secretKey)).status).toBe(400);
});
