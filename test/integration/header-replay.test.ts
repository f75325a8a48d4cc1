import { connectMongo } from '../../platform/mongo';
import { ABANDONED_AFTER_MS, KEPT_FOR_MS } from '../../api/http/header-replay';
import { api, call, createMerchant, getStack, type Merchant } from './harness';

// Creates whose body has no idempotency key field keep their first answer under Stripe's Idempotency-Key header,
// so a client retrying a create it never heard back from makes one object.

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

let seq = 0;
const fresh = (what: string) => `${what}-${Date.now()}-${++seq}`;
const post = (path: string, body: unknown, key?: string) => call('POST', path, { key: m.secretKey, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

test('a customer create repeated under the header gives the first answer again, marked replayed, and makes one customer', async () => {
  const key = fresh('cus');
  const email = `${fresh('ana')}@shop.example`;
  const first = await post('/v202607/customers', { first_name: 'Ana', email }, key);
  const again = await post('/v202607/customers', { email, first_name: 'Ana' }, key);
  expect([first.status, again.status]).toEqual([201, 201]);
  expect(again.body).toEqual(first.body);
  expect([first.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
  const listed = await api.get(`/v202607/customers?email=${encodeURIComponent(email)}`, m.secretKey);
  expect(listed.body.data.map((c: { customer: string }) => c.customer)).toEqual([first.body.customer]);
  // Without the header nothing is kept: two creates are two customers, as before.
  const bare = [await post('/v202607/customers', { email: `bare-${email}` }), await post('/v202607/customers', { email: `bare-${email}` })];
  expect(new Set(bare.map((r) => r.body.customer)).size).toBe(2);
});

test('other parameters, or another route, under a used key are a 400 naming the header, and make nothing', async () => {
  const key = fresh('reuse');
  const email = `${fresh('bo')}@shop.example`;
  const clocks = async () => (await api.get('/v202607/test-clocks?limit=100', m.secretKey)).body.data.length as number;
  const clocksBefore = await clocks();
  await post('/v202607/customers', { email }, key);
  for (const [path, body] of [
    ['/v202607/customers', { email, first_name: 'Bo' }],
    ['/v202608/customers', { email }],
    ['/v202607/test-clocks', { frozen_time: Math.floor(Date.now() / 1000) }],
  ] as const) {
    const r = await post(path, body, key);
    expect({ path, status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ path, status: 400, code: 'idempotency_key_in_use', param: 'Idempotency-Key' });
  }
  expect((await api.get(`/v202607/customers?email=${encodeURIComponent(email)}`, m.secretKey)).body.data).toHaveLength(1);
  expect(await clocks()).toBe(clocksBefore);
});

test('keys are the tenant\'s: another tenant may use the same key for its own customer', async () => {
  const other = await createMerchant();
  const key = fresh('shared');
  const mine = await post('/v202607/customers', { email: 'same@shop.example' }, key);
  const theirs = await call('POST', '/v202607/customers', { key: other.secretKey, body: { email: 'same@shop.example' }, headers: { 'idempotency-key': key } });
  expect([mine.status, theirs.status]).toEqual([201, 201]);
  expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  expect(theirs.body.customer).not.toBe(mine.body.customer);
  // Each tenant's repeat gets its own first answer.
  const [mineAgain, theirsAgain] = [await post('/v202607/customers', { email: 'same@shop.example' }, key), await call('POST', '/v202607/customers', { key: other.secretKey, body: { email: 'same@shop.example' }, headers: { 'idempotency-key': key } })];
  expect([mineAgain.body.customer, theirsAgain.body.customer]).toEqual([mine.body.customer, theirs.body.customer]);
  expect([mineAgain.headers.get('idempotent-replayed'), theirsAgain.headers.get('idempotent-replayed')]).toEqual(['true', 'true']);
});

test('ten concurrent repeats make one customer: each gets its answer, or a 409 to retry while the first is answered', async () => {
  const key = fresh('burst');
  const email = `${fresh('cy')}@shop.example`;
  const replies = await Promise.all(Array.from({ length: 10 }, () => post('/v202607/customers', { email }, key)));
  const ok = replies.filter((r) => r.status === 201);
  const busy = replies.filter((r) => r.status === 409);
  expect(ok.length + busy.length).toBe(10);
  expect(new Set(ok.map((r) => r.body.customer)).size).toBe(1);
  for (const r of busy) expect([r.body.error.code, r.headers.get('retry-after')]).toEqual(['idempotency_request_in_progress', '1']);
  const retried = await post('/v202607/customers', { email }, key);
  expect([retried.status, retried.body.customer]).toEqual([201, ok[0]!.body.customer]);
  expect((await api.get(`/v202607/customers?email=${encodeURIComponent(email)}`, m.secretKey)).body.data).toHaveLength(1);
});

test('a create that was refused keeps nothing: the key is free for the corrected request', async () => {
  const key = fresh('refused');
  const refused = await post('/v202607/customers', { email: 'di@shop.example', test_clock: 'clock_eu_000000000000000000000' }, key);
  expect(refused.status).toBe(400);
  const made = await post('/v202607/customers', { email: 'di@shop.example' }, key);
  expect([made.status, made.headers.get('idempotent-replayed')]).toEqual([201, null]);
  // The corrected request's answer is the one kept.
  const again = await post('/v202607/customers', { email: 'di@shop.example' }, key);
  expect([again.body.customer, again.headers.get('idempotent-replayed')]).toEqual([made.body.customer, 'true']);
});

test('a first request that died holding its key (its process crashed) is taken over after a minute, and answered once', async () => {
  const key = fresh('crashed');
  const body = { email: `${fresh('ed')}@shop.example` };
  // What a request leaves when its API process dies between claiming the key and answering: a running claim.
  const db = await connectMongo(getStack().mongoUri);
  try {
    const planted = { _id: `${m.tenant}:${key}`, tenant_id: m.tenant, route: 'POST /v202607/customers', state: 'running' as const };
    const fingerprintOf = async () => {
      // The fingerprint the API computes for this request: read it from a request made under a twin key.
      await post('/v202607/customers', body, `${key}-twin`);
      return (await db.c.replayedRequests.findOne({ _id: `${m.tenant}:${key}-twin` }))!.fingerprint;
    };
    const fingerprint = await fingerprintOf();
    await db.c.replayedRequests.insertOne({ ...planted, fingerprint, started_at: new Date() });
    const whileRunning = await post('/v202607/customers', body, key);
    expect([whileRunning.status, whileRunning.body.error?.code]).toEqual([409, 'idempotency_request_in_progress']);
    await db.c.replayedRequests.updateOne({ _id: planted._id }, { $set: { started_at: new Date(Date.now() - ABANDONED_AFTER_MS - 1000) } });
    const takenOver = await post('/v202607/customers', body, key);
    const replayed = await post('/v202607/customers', body, key);
    expect([takenOver.status, replayed.status, replayed.body.customer, replayed.headers.get('idempotent-replayed')]).toEqual([201, 201, takenOver.body.customer, 'true']);
  } finally {
    await db.close();
  }
});

test('a claim left by a dead request is taken over by one of five repeats at once: one customer', async () => {
  const key = fresh('crashed-burst');
  const email = `${fresh('fi')}@shop.example`;
  const db = await connectMongo(getStack().mongoUri);
  try {
    await post('/v202607/customers', { email }, `${key}-twin`);
    const fingerprint = (await db.c.replayedRequests.findOne({ _id: `${m.tenant}:${key}-twin` }))!.fingerprint;
    const dead = new Date(Date.now() - ABANDONED_AFTER_MS - 1000);
    await db.c.replayedRequests.insertOne({ _id: `${m.tenant}:${key}`, tenant_id: m.tenant, route: 'POST /v202607/customers', fingerprint, state: 'running', started_at: dead });
    const replies = await Promise.all(Array.from({ length: 5 }, () => post('/v202607/customers', { email }, key)));
    const made = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(made).toHaveLength(1);
    for (const r of replies.filter((x) => !made.includes(x))) expect([409, 201]).toContain(r.status);
    const listed = (await api.get(`/v202607/customers?email=${encodeURIComponent(email)}`, m.secretKey)).body.data;
    // The twin request made one customer with this email; the take-over one more, and only one.
    expect(listed).toHaveLength(2);
  } finally {
    await db.close();
  }
});

test('an answer is kept for 24 hours: past that the key is free again, for any request, and the old answer is purged', async () => {
  const key = fresh('old');
  const db = await connectMongo(getStack().mongoUri);
  try {
    const first = await post('/v202607/customers', { email: 'then@shop.example' }, key);
    const dayAgo = new Date(Date.now() - KEPT_FOR_MS - 1000);
    await db.c.replayedRequests.updateOne({ _id: `${m.tenant}:${key}` }, { $set: { started_at: dayAgo } });
    const now = await post('/v202607/customers', { email: 'now@shop.example' }, key);
    expect([now.status, now.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(now.body.customer).not.toBe(first.body.customer);
    // Another key's first create purges the tenant's answers past their keeping (here, a planted one).
    await db.c.replayedRequests.insertOne({ _id: `${m.tenant}:${key}-stale`, tenant_id: m.tenant, route: 'POST /v202607/customers', fingerprint: 'x', state: 'done', started_at: dayAgo, status: 201, body: '{}' });
    await post('/v202607/customers', { email: 'purge@shop.example' }, fresh('purger'));
    expect(await db.c.replayedRequests.findOne({ _id: `${m.tenant}:${key}-stale` })).toBeNull();
  } finally {
    await db.close();
  }
});

test('a header key over 255 characters is a 400 naming it, as a body key would be', async () => {
  const r = await post('/v202607/customers', { email: 'long@shop.example' }, 'k'.repeat(256));
  expect([r.status, r.body.error?.code, r.body.error?.param]).toEqual([400, 'parameter_invalid', 'Idempotency-Key']);
  expect((await post('/v202607/customers', { email: 'long@shop.example' }, 'k'.repeat(255))).status).toBe(201);
});

test('promotion codes, test clocks and commerce addresses keep their first answer too', async () => {
  const coupon = (await post('/v202607/coupons', { percent_off: 10, duration: 'forever' })).body.coupon as string;
  const code = `HDR${Date.now()}${++seq}`;
  const promoKey = fresh('promo2');
  const p1 = await post('/v202607/promotion-codes', { coupon, code: `${code}B` }, promoKey);
  const p2 = await post('/v202607/promotion-codes', { coupon, code: `${code}B` }, promoKey);
  // Before, the repeat was a 409 promotion_code_exists: the client could not tell its own create from a clash.
  expect([p1.status, p2.status, p2.body.promotion_code]).toEqual([201, 201, p1.body.promotion_code]);

  const clockKey = fresh('clock');
  const frozen = Math.floor(Date.now() / 1000);
  const c1 = await post('/v202607/test-clocks', { frozen_time: frozen, name: 'replay' }, clockKey);
  const c2 = await post('/v202607/test-clocks', { frozen_time: frozen, name: 'replay' }, clockKey);
  expect([c1.status, c2.status, c2.body.test_clock]).toEqual([201, 201, c1.body.test_clock]);

  const addressKey = fresh('addr');
  const address = { userId: fresh('user'), phone: '+20 100 000 0001', address: '12 Nile St', region: 'Cairo', city: 'Giza' };
  const a1 = await post('/commerce/addresses', address, addressKey);
  const a2 = await post('/commerce/addresses', address, addressKey);
  expect([a1.status, a2.status, a2.body.id]).toEqual([201, 201, a1.body.id]);
  const cart = await post('/commerce/cart', { userId: address.userId, currency: 'EUR', idempotencyKey: fresh('cart') });
  expect(cart.body.customerAddresses).toHaveLength(1);
});
