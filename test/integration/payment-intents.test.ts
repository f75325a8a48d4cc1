import http from 'node:http';
import { cancelIntentAsRead, createPaymentIntent } from '../../api/payment-intents/service';
import { createBodyV202607 } from '../../api/payment-intents/schemas';
import { tenantAuth } from '../../api/deps';
import { connectMongo } from '../../platform/mongo';
import { workflowExistence } from '../../platform/temporal';
import { admin, api, apiDeps, call, createMerchant, eventually, getStack, pay, temporalClient, withMethod, withWinnerTakenBack, withWorkflowCall, type Merchant } from './harness';

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

const create = (body: Record<string, unknown>, key = m.secretKey, version = 'v202607') => api.post(`/${version}/payment-intents`, body, key);

describe('create', () => {
  test('answers the spec fields, with the hosted page url and expires_at = creation + timeout', async () => {
    const before = Date.now();
    const r = await create({ amount: 10025, currency: 'EUR', timeout: 600, return_url: 'https://shop.example/done' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['amount', 'currency', 'expires_at', 'payment_intent', 'resource_created', 'status', 'url'].sort());
    expect(r.body.url).toMatch(new RegExp(`/pay/${r.body.payment_intent}\\?client_secret=pics_`));
    const expires = new Date(r.body.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 600_000);
  });
  test('defaults timeout to 1800 s', async () => {
    const r = await create({ amount: 1, currency: 'EUR' });
    const got = await api.get(`/v202607/payment-intents/${r.body.payment_intent}`, m.secretKey);
    expect(new Date(r.body.expires_at).getTime() - new Date(got.body.created_at).getTime()).toBe(1800_000);
  });
  test.each([
    [{ amount: -1, currency: 'EUR' }, 'amount'],
    [{ amount: 1.5, currency: 'EUR' }, 'amount'],
    [{ amount: 1, currency: 'EURO' }, 'currency'],
    [{ amount: 1, currency: 'XXY' }, 'currency'],
    [{ amount: 1, currency: 'EUR', timeout: 0 }, 'timeout'],
    [{ amount: 1, currency: 'EUR', metadata: { k: 1 } }, 'metadata[k]'],
    [{ amount: 1, currency: 'EUR', customer: 'cus_eu_doesnotexist0000' }, 'customer'],
    [{ amount: 1, currency: 'EUR', webhooks: [{ url: 'https://x.example', events: ['nope'] }] }, 'webhooks[0][events][0]'],
  ])('refuses %j naming %s', async (body, param) => {
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });
  test('zero is a valid amount', async () => expect((await create({ amount: 0, currency: 'EUR' })).status).toBe(201));
});

describe('idempotency', () => {
  test('the same key returns the same intent with resource_created false', async () => {
    const a = await create({ amount: 500, currency: 'EUR', idempotency_key: 'order-1' });
    const b = await create({ amount: 500, currency: 'EUR', idempotency_key: 'order-1' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ ...a.body, resource_created: false });
  });
  test('the same key with another amount or currency is a 400 idempotency_key_in_use, also when the two race; other fields may differ', async () => {
    const key = `order-money-${Date.now()}`;
    const a = await create({ amount: 500, currency: 'EUR', idempotency_key: key });
    expect(a.status).toBe(201);
    for (const [version, body] of [['v202607', { amount: 501, currency: 'EUR' }], ['v202608', { amount: 500, currency: 'USD' }]] as const) {
      const r = await create({ ...body, idempotency_key: key }, m.secretKey, version);
      expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status: 400, code: 'idempotency_key_in_use', param: 'idempotency_key' });
    }
    // The currency in another case is the same currency; metadata is not compared.
    expect((await create({ amount: 500, currency: 'eur', metadata: { retry: 'yes' }, idempotency_key: key })).body).toEqual({ ...a.body, resource_created: false });
    const raced = `order-race-${Date.now()}`;
    const both = await Promise.all([create({ amount: 700, currency: 'EUR', idempotency_key: raced }), create({ amount: 800, currency: 'EUR', idempotency_key: raced })]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(both.find((r) => r.status === 400)!.body.error.code).toBe('idempotency_key_in_use');
    const v6 = await create({ amount: 999, currency: 'EUR', idempotency_key: key }, m.secretKey, 'v202606');
    expect({ status: v6.status, code: v6.body.error?.code }).toEqual({ status: 400, code: 'idempotency_key_in_use' });
  });
  test("Stripe's Idempotency-Key header is the body's idempotency_key: a retry with it answers the first intent; a different key in the body is a 400", async () => {
    const key = `hdr-${Date.now()}`;
    const send = (body: Record<string, unknown>) =>
      call('POST', '/v202607/payment-intents', { key: m.secretKey, body, headers: { 'idempotency-key': key } });
    const first = await send({ amount: 1200, currency: 'EUR' });
    const again = await send({ amount: 1200, currency: 'EUR' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual({ ...first.body, resource_created: false });
    // The same key sent in the body finds it too; a different one beside the header is refused.
    expect((await create({ amount: 1200, currency: 'EUR', idempotency_key: key })).body.payment_intent).toBe(first.body.payment_intent);
    const both = await send({ amount: 1200, currency: 'EUR', idempotency_key: `${key}-other` });
    expect({ status: both.status, code: both.body.error?.code, param: both.body.error?.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'idempotency_key' });
    // Every create whose body takes a key takes the header: a refund here.
    const paid = await create({ amount: 900, currency: 'EUR' });
    await pay(paid.body.payment_intent, m.publishableKey);
    const refund = (body: Record<string, unknown>) => call('POST', '/v202607/refunds', { key: m.secretKey, body, headers: { 'idempotency-key': `${key}-re` } });
    const r1 = await refund({ payment_intent: paid.body.payment_intent, amount: 100, currency: 'EUR' });
    const r2 = await refund({ payment_intent: paid.body.payment_intent, amount: 100, currency: 'EUR' });
    expect([r1.status, r2.status, r2.body.refund]).toEqual([201, 200, r1.body.refund]);
  });
  test('the Idempotency-Key header is read as UTF-8 text; sent twice or empty it is a 400, not another key or none', async () => {
    // Raw headers, as a client sends them: fetch would join two headers and cannot send UTF-8 bytes as such.
    const send = (headers: string[]) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const body = JSON.stringify({ amount: 700, currency: 'EUR' });
        const url = new URL(`${getStack().apiUrl}/v202607/payment-intents`);
        const req = http.request(url, {
          method: 'POST',
          headers: ['Host', url.host, 'Authorization', `Bearer ${m.secretKey}`, 'Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), ...headers],
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
        });
        req.on('error', reject);
        // A Buffer: a string body would be written with the header in one UTF-8 write, re-encoding its bytes.
        req.end(Buffer.from(body));
      });
    const key = `café-${Date.now()}`;
    const viaHeader = await send(['Idempotency-Key', Buffer.from(key, 'utf8').toString('latin1')]);
    const viaBody = await create({ amount: 700, currency: 'EUR', idempotency_key: key });
    expect([viaHeader.status, viaBody.status, viaBody.body.payment_intent]).toEqual([201, 200, viaHeader.body.payment_intent]);
    const refused = async (headers: string[]) => {
      const r = await send(headers);
      return [r.status, r.body.error?.code, r.body.error?.param];
    };
    expect(await refused(['Idempotency-Key', `a-${Date.now()}`, 'Idempotency-Key', `b-${Date.now()}`])).toEqual([400, 'parameter_invalid', 'idempotency_key']);
    expect(await refused(['Idempotency-Key', ''])).toEqual([400, 'parameter_invalid', 'idempotency_key']);
    expect(await refused(['Idempotency-Key', Buffer.from([0x6b, 0xe9, 0x79]).toString('latin1')])).toEqual([400, 'parameter_invalid', 'idempotency_key']);
  });
  test('50 concurrent identical creates make exactly one intent and one workflow', async () => {
    const key = `burst-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 50 }, () => create({ amount: 700, currency: 'EUR', idempotency_key: key })));
    expect(replies.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    const ids = new Set(replies.map((r) => r.body.payment_intent));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => r.body.resource_created === true)).toHaveLength(1);
    const list = await api.get('/v202607/payment-intents?limit=100&currency=EUR', m.secretKey);
    expect(list.body.data.filter((d: any) => d.payment_intent === [...ids][0])).toHaveLength(1);
    // and the one workflow runs: the intent is payable
    expect((await pay([...ids][0]!, m.publishableKey)).body.status).toBe('success');
  });
  test('a concurrent create whose winner took its record back (its workflow did not start) makes the intent: the key is free again', async () => {
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // Another request with the key (its own id) inserted first; ours meets its record, which it then takes back.
      const race = withWinnerTakenBack(db, 'paymentIntents', (doc) => ({ ...doc, _id: `${doc._id}0` }));
      const deps = apiDeps(race.db, temporal);
      const key = `taken-back-${Date.now()}`;
      const auth = tenantAuth(m.tenant, 'eu');
      const made = await createPaymentIntent(deps, auth, createBodyV202607.parse({ amount: 1234, currency: 'EUR', idempotency_key: key }), 'v202607');
      expect(race.collided()).toBe(true);
      expect(made.status).toBe(201);
      // It stands with its workflow: the key answers it, and it can be paid.
      const again = await create({ amount: 1234, currency: 'EUR', idempotency_key: key });
      expect(again.body).toMatchObject({ payment_intent: made.body.payment_intent, resource_created: false });
      expect((await pay(made.body.payment_intent, m.publishableKey)).body.status).toBe('success');
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });

  describe('a resend whose first request died after its insert, before its side writes were all stored, is a 503 and starts nothing', () => {
    // Before, the resend started the intent: its webhooks could never be signed, or it named a customer never made.
    test.each([
      ['its webhook secrets', 'webhookSecrets'],
      ['its inline customer', 'customers'],
    ] as const)('missing %s', async (_what, collection) => {
      const db = await connectMongo(getStack().mongoUri);
      const temporal = await temporalClient();
      try {
        const key = `died-after-insert-${collection}-${Date.now()}`;
        const body = { amount: 1500, currency: 'EUR', idempotency_key: key, customer: { reference: `died-${key}` }, webhooks: [{ url: 'https://shop.example/hooks', events: ['payment.success'], secret: 'whsec_shop' }] };
        // That side write fails, and so does the take-back of the record (the database was going away).
        const failing = (what: string) => () => async () => {
          throw new Error(`${what}: connection closed`);
        };
        const dying = withMethod(withMethod(db, collection, 'insertOne', failing(collection)), 'paymentIntents', 'findOneAndDelete', failing('take-back'));
        await expect(createPaymentIntent(apiDeps(dying, temporal), tenantAuth(m.tenant, 'eu'), createBodyV202607.parse(body), 'v202607')).rejects.toThrow('connection closed');
        const left = await db.c.paymentIntents.findOne({ tenant_id: m.tenant, idempotency_key: key } as never);
        expect(left).toMatchObject({ version: 0 });
        const again = await create(body);
        expect([again.status, again.body.error?.code]).toEqual([503, 'service_unavailable']);
        expect(await workflowExistence(temporal, left!._id)).toBe(false);
      } finally {
        await db.close();
        await temporal.connection.close();
      }
    });
  });

  test('a resend whose first request could not start it, nor take its record back, starts that intent: a record left standing keeps its side writes', async () => {
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      const key = `died-before-start-${Date.now()}`;
      const body = { amount: 1600, currency: 'EUR', idempotency_key: key, webhooks: [{ url: 'https://shop.example/hooks', events: ['payment.success'], secret: 'whsec_shop' }] };
      // Everything written; the start fails, and so does the take-back of the record. Before, the secrets were
      // discarded all the same, and the record left standing could never be started whole.
      const stops = withMethod(db, 'paymentIntents', 'findOneAndDelete', () => async () => {
        throw new Error('the API process stopped here');
      });
      const noStart = withWorkflowCall(temporal, 'start', () => async () => {
        throw new Error('the API process stopped here');
      });
      await expect(createPaymentIntent(apiDeps(stops, noStart), tenantAuth(m.tenant, 'eu'), createBodyV202607.parse(body), 'v202607')).rejects.toThrow('stopped here');
      const again = await create(body);
      expect([again.status, again.body.resource_created]).toEqual([200, false]);
      expect((await pay(again.body.payment_intent, m.publishableKey)).body.status).toBe('success');
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });

  test('keys are per tenant', async () => {
    const other = await createMerchant();
    const a = await create({ amount: 1, currency: 'EUR', idempotency_key: 'shared-key' });
    const b = await create({ amount: 1, currency: 'EUR', idempotency_key: 'shared-key' }, other.secretKey);
    expect(b.status).toBe(201);
    expect(b.body.payment_intent).not.toBe(a.body.payment_intent);
  });
  test("a key shaped like the service's own (an invoice's, a checkout session's, a shop checkout's intent) is refused: that intent would be charged for the invoice", async () => {
    for (const key of ['billing:in_eu_0123456789abcdef:1', 'checkout_session:cs_eu_0123456789abcdef', 'checkout:chk_eu_0123456789abcdef']) {
      const r = await create({ amount: 1, currency: 'EUR', idempotency_key: key });
      expect([r.status, r.body.error?.code, r.body.error?.param]).toEqual([400, 'parameter_invalid', 'idempotency_key']);
      const older = await api.post('/payment-intents', { amount: 1, currency: 'EUR', gateway: 'sandbox', checkout_intent_idempotency_key: key }, m.secretKey);
      expect([older.status, older.body.error?.param]).toEqual([400, 'checkout_intent_idempotency_key']);
    }
    // A merchant's own scheme that merely starts the same way is the merchant's.
    expect((await create({ amount: 1, currency: 'EUR', idempotency_key: `billing:order-${Date.now()}` })).status).toBe(201);
  });
});

describe('cancel', () => {
  test('a pending intent is canceled: 200 with the retrieve shape', async () => {
    const pi = await create({ amount: 300, currency: 'EUR' });
    const r = await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/cancel`, undefined, m.secretKey);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ payment_intent: pi.body.payment_intent, status: 'canceled', amount: 300, created_at: expect.any(String) });
    await eventually(async () => ((await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey)).body.status === 'canceled' ? true : undefined));
  });
  test('canceling twice, or a paid intent, is 409', async () => {
    const pi = await create({ amount: 300, currency: 'EUR' });
    await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/cancel`, undefined, m.secretKey);
    expect((await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/cancel`, undefined, m.secretKey)).status).toBe(409);
    const paid = await create({ amount: 300, currency: 'EUR' });
    await pay(paid.body.payment_intent, m.publishableKey);
    const r = await api.post(`/v202607/payment-intents/${paid.body.payment_intent}/cancel`, undefined, m.secretKey);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('payment_intent_unexpected_state');
  });
  test('a cancel that read the intent pending, sent after another cancel ended it, says it is canceled', async () => {
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      const pi = await create({ amount: 300, currency: 'EUR' });
      const stale = (await db.c.paymentIntents.findOne({ _id: pi.body.payment_intent }))!;
      expect(stale.status).toBe('pending');
      expect((await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/cancel`, undefined, m.secretKey)).status).toBe(200);
      await eventually(async () => ((await workflowExistence(temporal, pi.body.payment_intent)) === false || (await temporal.workflow.getHandle(pi.body.payment_intent).describe()).status.name !== 'RUNNING' ? true : undefined));
      // Before, the refusal named the status the request had read: "This payment intent is pending and can no longer be canceled".
      await expect(cancelIntentAsRead(apiDeps(db, temporal), stale)).rejects.toMatchObject({
        code: 'payment_intent_unexpected_state',
        message: 'This payment intent is canceled and can no longer be canceled',
      });
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });
  test('an unknown intent is 404', async () => {
    expect((await api.post('/v202607/payment-intents/pi_eu_unknown0000000000000/cancel', undefined, m.secretKey)).status).toBe(404);
  });
  test('an intent expires by itself after its timeout and cannot be paid then', async () => {
    const pi = await create({ amount: 300, currency: 'EUR', timeout: 1 });
    await eventually(async () => ((await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey)).body.status === 'canceled' ? true : undefined), 10_000);
    expect((await pay(pi.body.payment_intent, m.publishableKey)).status).toBe(409);
  });
});

describe('attempts', () => {
  test('a declined card keeps the intent pending; a good one then succeeds', async () => {
    const pi = await create({ amount: 900, currency: 'EUR' });
    const failed = await pay(pi.body.payment_intent, m.publishableKey, 'tok_insufficient_funds');
    expect(failed.body).toEqual({ payment_intent: pi.body.payment_intent, status: 'failed', failure_code: 'insufficient_funds' });
    expect((await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey)).body.status).toBe('pending');
    expect((await pay(pi.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  });
  test('an intent of amount 0 is paid by a zero-value authorization (the card checked, no money moved); it has nothing to refund', async () => {
    const pi = await create({ amount: 0, currency: 'EUR', customer: { reference: `zero-${Date.now()}` } });
    const r = await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
    expect(r.body).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
    expect((await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey)).body).toMatchObject({ status: 'success', amount: 0 });
    const refund = await api.post('/v202607/refunds', { payment_intent: pi.body.payment_intent, amount: 1, currency: 'EUR' }, m.secretKey);
    expect(refund.status).toBe(400);
  });
  test('3DS returns a redirect to the challenge', async () => {
    const pi = await create({ amount: 900, currency: 'EUR' });
    const r = await pay(pi.body.payment_intent, m.publishableKey, 'tok_3ds');
    expect(r.body).toMatchObject({ status: 'requires_action', next_action: { type: 'redirect_to_url', url: expect.stringContaining('/3ds/') } });
  });
  test('an async charge settles by the gateway callback', async () => {
    const pi = await create({ amount: 900, currency: 'EUR' });
    expect((await pay(pi.body.payment_intent, m.publishableKey, 'tok_async')).body.status).toBe('pending');
    await eventually(async () => ((await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey)).body.status === 'success' ? true : undefined), 10_000);
  });
  test('save_payment_method stores a saved card', async () => {
    const pi = await create({ amount: 900, currency: 'EUR', customer: { reference: `saver-${Date.now()}` } });
    const r = await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
    expect(r.body).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  });
  test('the client secret in url authorizes attempts for that intent only', async () => {
    const a = await create({ amount: 900, currency: 'EUR' });
    const b = await create({ amount: 900, currency: 'EUR' });
    const secretA = new URL(a.body.url).searchParams.get('client_secret')!;
    const onB = await api.post(`/v202607/payment-intents/${b.body.payment_intent}/attempts`, { token: 'tok_success' }, secretA);
    expect(onB.status).toBe(401);
    const onA = await api.post(`/v202607/payment-intents/${a.body.payment_intent}/attempts`, { token: 'tok_success' }, secretA);
    expect(onA.body.status).toBe('success');
  });
  test("another tenant's publishable key cannot pay this intent", async () => {
    const other = await createMerchant();
    const pi = await create({ amount: 900, currency: 'EUR' });
    expect((await pay(pi.body.payment_intent, other.publishableKey)).status).toBe(404);
  });
});

describe('list', () => {
  let shop: Merchant;
  const ids: string[] = [];
  beforeAll(async () => {
    shop = await createMerchant();
    for (let i = 0; i < 7; i += 1) ids.push((await create({ amount: 100 + i, currency: i % 2 ? 'USD' : 'EUR' }, shop.secretKey)).body.payment_intent);
  });
  const list = (q: string) => api.get(`/v202607/payment-intents${q}`, shop.secretKey);
  test('newest first with has_more', async () => {
    const r = await list('?limit=3');
    expect(r.body.data.map((d: any) => d.payment_intent)).toEqual(ids.slice(-3).reverse());
    expect(r.body.has_more).toBe(true);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(['amount', 'created_at', 'currency', 'payment_intent', 'status']);
  });
  test('starting_after and ending_before walk the pages both ways', async () => {
    const first = await list('?limit=3');
    const second = await list(`?limit=3&starting_after=${first.body.data[2].payment_intent}`);
    expect(second.body.data.map((d: any) => d.payment_intent)).toEqual(ids.slice(1, 4).reverse());
    const back = await list(`?limit=3&ending_before=${second.body.data[0].payment_intent}`);
    expect(back.body.data.map((d: any) => d.payment_intent)).toEqual(first.body.data.map((d: any) => d.payment_intent));
    const last = await list(`?limit=3&starting_after=${ids[1]}`);
    expect(last.body).toEqual({ data: [expect.objectContaining({ payment_intent: ids[0] })], has_more: false });
  });
  test('an empty page', async () => {
    expect((await list(`?starting_after=${ids[0]}`)).body).toEqual({ data: [], has_more: false });
  });
  test('filters by currency and status', async () => {
    expect((await list('?currency=usd')).body.data).toHaveLength(3);
    expect((await list('?status=success')).body.data).toHaveLength(0);
  });
  test('filters by created range in Unix seconds and ISO 8601', async () => {
    const all = (await list('?limit=100')).body.data;
    const oldest = all[all.length - 1].created_at;
    const sec = Math.floor(new Date(oldest).getTime() / 1000);
    expect((await list(`?created[gte]=${sec}&limit=100`)).body.data).toHaveLength(7);
    expect((await list(`?created[lt]=${encodeURIComponent(new Date(new Date(oldest).getTime() - 60_000).toISOString())}`)).body.data).toHaveLength(0);
  });
  test('a range bound takes or leaves the whole second it names: `lte T` finds an intent made during T, `gt T` does not', async () => {
    const newest = (await list('?limit=1')).body.data[0];
    const sec = Math.floor(new Date(newest.created_at).getTime() / 1000);
    const found = async (q: string) => ((await list(q)).body.data as { payment_intent: string }[]).map((p) => p.payment_intent);
    expect(await found(`?created[lte]=${sec}&limit=1`)).toEqual([newest.payment_intent]);
    expect(await found(`?created[gt]=${sec}`)).not.toContain(newest.payment_intent);
    expect(await found(`?created[lte]=${encodeURIComponent(newest.created_at.slice(0, 10))}&limit=1`)).toEqual([newest.payment_intent]);
  });
  test.each(['?limit=0', '?limit=101', '?limit=abc', '?status=paid', '?created[foo]=1'])('refuses %s', async (q) => {
    expect((await list(q)).status).toBe(400);
  });
  test("a foreign cursor is refused like an unknown one", async () => {
    const r = await api.get(`/v202607/payment-intents?starting_after=${ids[0]}`, m.secretKey);
    expect(r.status).toBe(400);
  });
});

describe('v202608', () => {
  test('pins to a live connector of the tenant', async () => {
    const r = await create({ amount: 100, currency: 'EUR', connector: m.connector }, m.secretKey, 'v202608');
    expect(r.status).toBe(201);
  });
  test("a pin to another tenant's target is 400 and reads like an unknown one", async () => {
    const other = await createMerchant();
    const foreign = await create({ amount: 100, currency: 'EUR', connector: other.connector }, m.secretKey, 'v202608');
    const unknown = await create({ amount: 100, currency: 'EUR', connector: 'con_eu_unknown0000000000000' }, m.secretKey, 'v202608');
    expect(foreign.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(foreign.body.error.code).toBe(unknown.body.error.code);
  });
  test('a pin to a connector that is not live is 400', async () => {
    const test = await admin.post(`/admin/tenants/${m.tenant}/connectors`, { gateway: 'sandbox', live: false });
    expect((await create({ amount: 100, currency: 'EUR', connector: test.body.connector }, m.secretKey, 'v202608')).status).toBe(400);
  });
  test('at most one pin', async () => {
    const orc = await admin.post(`/admin/tenants/${m.tenant}/orchestrators`, { connectors: [m.connector] });
    const r = await create({ amount: 100, currency: 'EUR', connector: m.connector, orchestrator: orc.body.orchestrator }, m.secretKey, 'v202608');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('pin_conflict');
  });
  test('inline customer address is accepted on v202608 only', async () => {
    const customer = { reference: `addr-${Date.now()}`, address: { line1: '1 Main St', city: 'Berlin', country: 'DE' } };
    expect((await create({ amount: 100, currency: 'EUR', customer }, m.secretKey, 'v202608')).status).toBe(201);
    expect((await create({ amount: 100, currency: 'EUR', customer }, m.secretKey, 'v202607')).status).toBe(400);
  });
  test('GET on v202608 falls back to v202607', async () => {
    expect((await api.get('/v202608/payment-intents', m.secretKey)).status).toBe(200);
  });
});
