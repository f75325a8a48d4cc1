import type { MongoClient } from 'mongodb';
import { api, call, createMerchant, eventually, getStack, mongo, pay, startHookReceiver, temporalClient, type Merchant, type Delivery } from './harness';
import { connectMongo } from '../../platform/mongo';
import { ensureRefundOlderIds } from '../../data/refunds';

// The older interface's refunds (unprefixed POST/GET /refunds) on the real stack: a payment named by its
// integer transaction_id, admitted by the same payment-intent workflow as POST /v202607/refunds (one
// balance for both, also under concurrency and after the workflow closed), integer ids, the sub-statuses the
// refund workflow writes (the sandbox's magic refund amounts), the webhooks each sub-status change sends
// (a real receiver on loopback, Service-Webhook-Secret) and the page-numbered list with every filter.

let hooks: Delivery[];
let hookBase = '';
let closeHooks: () => Promise<void>;
let db: MongoClient;
let m: Merchant;

beforeAll(async () => {
  ({ received: hooks, base: hookBase, close: closeHooks } = await startHookReceiver());
  db = await mongo();
  m = await createMerchant();
});
afterAll(async () => {
  await closeHooks();
  await db.close();
});

interface Paid {
  pi: string;
  tx: number;
  uuid: string;
  secret: number;
}

/** An intent's older ids, as its MongoDB record has them (every intent has a transaction_id from its create). */
async function olderIds(pi: string): Promise<Paid> {
  const r = await db.db().collection('payment_intents').findOne({ _id: pi as never });
  if (!r || typeof r.transaction_id !== 'number') throw new Error(`intent ${pi} has no transaction_id`);
  return { pi, tx: r.transaction_id, uuid: r.uuid, secret: r.payment_intent_secret };
}

async function paid(amount: number, currency = 'EUR', merchant = m): Promise<Paid> {
  const pi = await api.post('/v202607/payment-intents', { amount, currency }, merchant.secretKey);
  expect(pi.status).toBe(201);
  expect((await pay(pi.body.payment_intent, merchant.publishableKey)).body.status).toBe('success');
  return olderIds(pi.body.payment_intent);
}

const olderRefund = (body: Record<string, unknown>, key = m.secretKey) => api.post('/refunds', body, key);
const v202607Refund = (body: Record<string, unknown>, key = m.secretKey) => api.post('/v202607/refunds', body, key);
const list = (query: string, key = m.secretKey) => api.get(`/refunds${query}`, key);
const row = async (id: number, key = m.secretKey) => {
  const r = await list(`?filter.id=$eq:${id}`, key);
  expect(r.status).toBe(200);
  return r.body.data[0];
};
const settled = (id: number, subStatus: string, timeoutMs = 20_000) =>
  eventually(async () => {
    const r = await row(id);
    return r?.sub_status === subStatus ? r : undefined;
  }, timeoutMs, `refund ${id} ${subStatus}`);
const hooksOf = (id: number) => hooks.filter((h) => h.body.id === id);
/** The events one URL received, in the order they were emitted (each delivery is its own workflow: arrival order may differ). */
const eventsOf = (id: number, path = '/a') =>
  hooksOf(id)
    .filter((h) => h.path === path)
    .sort((x, y) => Date.parse(x.body.updated_at) - Date.parse(y.body.updated_at))
    .map((h) => h.body.event);
const sandbox = async (path: string, body?: unknown) => (await call(body === undefined ? 'GET' : 'POST', path, { baseUrl: getStack().sandboxUrl, ...(body === undefined ? {} : { body }) })).body;
const recordOf = async (id: number, tenant = m.tenant) => db.db().collection('refunds').findOne({ id, tenant_id: tenant });

describe('POST /refunds', () => {
  test('201 with an integer refund_id; the row shows every field; the refund settles as success', async () => {
    const p = await paid(5000);
    const r = await olderRefund({ transaction_id: p.tx, amount: 1200, currency: 'eur' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ refund_id: expect.any(Number), refundable_amount_left: 3800, resource_created: true });
    expect(Number.isInteger(r.body.refund_id)).toBe(true);
    const first = await row(r.body.refund_id);
    expect(Object.keys(first).sort()).toEqual(
      [
        'amount', 'checkout_intent_idempotency_key', 'created_at', 'currency', 'gateway', 'gateway_transaction_human_readable', 'gateway_transaction_id',
        'id', 'payment_intent', 'status', 'sub_status', 'succeeded_at', 'transaction_id', 'updated_at', 'uuid',
      ].sort(),
    );
    expect(first).toMatchObject({ id: r.body.refund_id, amount: 1200, currency: 'EUR', gateway: 'sandbox', transaction_id: p.tx, payment_intent: p.uuid, checkout_intent_idempotency_key: null });
    expect(first.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const done = await settled(r.body.refund_id, 'success');
    expect(done.status).toBe('success');
    expect(done.gateway_transaction_id).toMatch(/^rf_/);
    expect(done.gateway_transaction_human_readable).toBe(done.gateway_transaction_id);
    expect(Date.parse(done.succeeded_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    // its success was the record's last write
    expect(done.succeeded_at).toBe(done.updated_at);
    // the record keeps the older fields, including the refunded intent's integer secret
    const record = await recordOf(r.body.refund_id);
    expect(record).toMatchObject({ uuid: first.uuid, gateway: 'sandbox', transaction_id: p.tx, payment_intent_uuid: p.uuid, payment_intent_secret: p.secret, sub_status: 'success' });
    expect(record).not.toHaveProperty('succeeded_at');
  });

  test('checkout_intent_idempotency_key: the second call answers 200 with the same refund; a key of another payment is a 400', async () => {
    const p = await paid(1000);
    const key = `older-${Date.now()}`;
    const a = await olderRefund({ transaction_id: p.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key });
    const b = await olderRefund({ transaction_id: p.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ refund_id: a.body.refund_id, refundable_amount_left: 900, resource_created: false });
    expect((await row(a.body.refund_id)).checkout_intent_idempotency_key).toBe(key);
    const other = await paid(1000);
    const clash = await olderRefund({ transaction_id: other.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key });
    expect(clash.status).toBe(400);
    expect(clash.body.error).toMatchObject({ code: 'idempotency_key_in_use', param: 'checkout_intent_idempotency_key' });
  });

  test('checkout_intent_idempotency_key with another amount or currency is a 400 idempotency_key_in_use, also through the other interface', async () => {
    const p = await paid(1000);
    const key = `older-other-${Date.now()}`;
    const a = await olderRefund({ transaction_id: p.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key });
    expect(a.status).toBe(201);
    for (const other of [{ amount: 150 }, { currency: 'USD' }]) {
      const r = await olderRefund({ transaction_id: p.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key, ...other });
      expect([JSON.stringify(other), r.status, r.body.error?.code, r.body.error?.param]).toEqual([JSON.stringify(other), 400, 'idempotency_key_in_use', 'checkout_intent_idempotency_key']);
    }
    const v = await v202607Refund({ payment_intent: p.pi, amount: 150, currency: 'EUR', idempotency_key: key });
    expect([v.status, v.body.error?.code, v.body.error?.param]).toEqual([400, 'idempotency_key_in_use', 'idempotency_key']);
    const same = await olderRefund({ transaction_id: p.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: key, refund_sla_timeout: 60 });
    expect(same.body).toEqual({ refund_id: a.body.refund_id, refundable_amount_left: 900, resource_created: false });
  });

  test('one idempotency key across the interfaces: a v202607 refund is answered by POST /refunds with its integer id', async () => {
    const p = await paid(1000);
    const key = `cross-${Date.now()}`;
    const v = await v202607Refund({ payment_intent: p.pi, amount: 250, currency: 'EUR', idempotency_key: key });
    expect(v.status).toBe(201);
    expect(v.body.refund).toMatch(/^re_eu_/); // the v202607 shape is unchanged
    const o = await olderRefund({ transaction_id: p.tx, amount: 250, currency: 'EUR', checkout_intent_idempotency_key: key });
    expect(o.status).toBe(200);
    expect(o.body.resource_created).toBe(false);
    expect((await recordOf(o.body.refund_id))?._id).toBe(v.body.refund);
    // and the v202607 refund is a row of the older list
    expect((await row(o.body.refund_id)).checkout_intent_idempotency_key).toBe(key);
  });

  test('404 for an unknown transaction_id and for another tenant\'s', async () => {
    const unknown = await olderRefund({ transaction_id: 9_000_000_000, amount: 1, currency: 'EUR' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'transaction_id' });
    const other = await createMerchant();
    const theirs = await paid(1000, 'EUR', other);
    expect((await olderRefund({ transaction_id: theirs.tx, amount: 1, currency: 'EUR' })).status).toBe(404);
    // nor does another tenant see this tenant's refunds
    const mine = await olderRefund({ transaction_id: (await paid(1000)).tx, amount: 1, currency: 'EUR' });
    expect(mine.status).toBe(201);
    expect((await list(`?filter.id=$eq:${mine.body.refund_id}`, other.secretKey)).body.data).toEqual([]);
    expect((await list('', other.secretKey)).body.data.every((r: any) => r.transaction_id === theirs.tx)).toBe(true);
  });

  test('400 REFUND_TX_MUST_BE_SUCCESSFUL for a pending and a canceled payment, REFUND_CCY_MISMATCH, REFUND_RQST_AMT_GREATER_THAN_TX_AMT', async () => {
    const pending = await api.post('/v202607/payment-intents', { amount: 1000, currency: 'EUR' }, m.secretKey);
    const pendingIds = await olderIds(pending.body.payment_intent);
    const notPaid = await olderRefund({ transaction_id: pendingIds.tx, amount: 10, currency: 'EUR' });
    expect(notPaid.status).toBe(400);
    expect(notPaid.body.error).toMatchObject({ code: 'REFUND_TX_MUST_BE_SUCCESSFUL', param: 'transaction_id' });
    await api.post(`/v202607/payment-intents/${pending.body.payment_intent}/cancel`, undefined, m.secretKey);
    const canceled = await olderRefund({ transaction_id: pendingIds.tx, amount: 10, currency: 'EUR' });
    expect(canceled.status).toBe(400);
    expect(canceled.body.error.code).toBe('REFUND_TX_MUST_BE_SUCCESSFUL');

    const p = await paid(1000);
    const ccy = await olderRefund({ transaction_id: p.tx, amount: 10, currency: 'USD' });
    expect(ccy.status).toBe(400);
    expect(ccy.body.error).toMatchObject({ code: 'REFUND_CCY_MISMATCH', param: 'currency' });
    const over = await olderRefund({ transaction_id: p.tx, amount: 1001, currency: 'EUR' });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT', param: 'amount' });
    expect((await olderRefund({ transaction_id: p.tx, amount: 1000, currency: 'EUR' })).body.refundable_amount_left).toBe(0);
    expect((await olderRefund({ transaction_id: p.tx, amount: 1, currency: 'EUR' })).body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
  });

  test('400 for an invalid body, 401 without a key', async () => {
    const p = await paid(1000);
    const bad = async (body: Record<string, unknown>, param: string) => {
      const r = await olderRefund(body);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toContain(param);
    };
    await bad({ amount: 10, currency: 'EUR' }, 'transaction_id');
    await bad({ transaction_id: String(p.tx), amount: 10, currency: 'EUR' }, 'transaction_id');
    await bad({ transaction_id: p.tx, amount: 0, currency: 'EUR' }, 'amount');
    await bad({ transaction_id: p.tx, amount: 10.5, currency: 'EUR' }, 'amount');
    await bad({ transaction_id: p.tx, amount: 10 }, 'currency');
    await bad({ transaction_id: p.tx, amount: 10, currency: 'EUR', refund_sla_timeout: 0 }, 'refund_sla_timeout');
    await bad({ transaction_id: p.tx, amount: 10, currency: 'EUR', webhook_urls: Array.from({ length: 11 }, (_, i) => `${hookBase}/${i}`) }, 'webhook_urls');
    await bad({ transaction_id: p.tx, amount: 10, currency: 'EUR', webhook_urls: ['ftp://example.com/x'] }, 'webhook_urls');
    await bad({ transaction_id: p.tx, amount: 10, currency: 'EUR', webhook_secret: 'has space' }, 'webhook_secret');
    // a URL the webhook target policy refuses is named by its place in webhook_urls
    const refused = await olderRefund({ transaction_id: p.tx, amount: 10, currency: 'EUR', webhook_urls: ['https://user:pass@merchant.example.com/'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'webhook_url_invalid', param: 'webhook_urls[0]' });
    await bad({ transaction_id: p.tx, amount: 10, currency: 'EUR', payment_intent: p.pi }, 'payment_intent');
    expect((await api.post('/refunds', { transaction_id: p.tx, amount: 10, currency: 'EUR' })).status).toBe(401);
    expect((await api.get('/refunds')).status).toBe(401);
    // nothing was refunded by any of these
    expect((await olderRefund({ transaction_id: p.tx, amount: 1000, currency: 'EUR' })).body.refundable_amount_left).toBe(0);
  });

  test('a payment whose workflow has closed is reopened from its stored balance, shared with its v202607 refund', async () => {
    const p = await paid(1000);
    const early = await v202607Refund({ payment_intent: p.pi, amount: 300, currency: 'EUR' });
    await eventually(async () => ((await api.get(`/v202607/refunds/${early.body.refund}`, m.secretKey)).body.status === 'success' ? true : undefined));
    const client = await temporalClient();
    try {
      await client.workflow.getHandle(p.pi).terminate('refund window over (test)');
    } finally {
      await client.connection.close();
    }
    const late = await olderRefund({ transaction_id: p.tx, amount: 700, currency: 'EUR' });
    expect(late.status).toBe(201);
    expect(late.body.refundable_amount_left).toBe(0);
    const over = await olderRefund({ transaction_id: p.tx, amount: 1, currency: 'EUR' });
    expect(over.body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
    await settled(late.body.refund_id, 'success');
  });
});

describe('sub-statuses and webhooks', () => {
  const secret = 'whsec-older-refund-1';
  const withHooks = (body: Record<string, unknown>) => olderRefund({ ...body, webhook_urls: [`${hookBase}/a`, `${hookBase}/b`], webhook_secret: secret });

  test('success: webhooks pending_created, pending_promise, success to both URLs with Service-Webhook-Secret; the body is the row', async () => {
    const p = await paid(2000);
    const r = await withHooks({ transaction_id: p.tx, amount: 500, currency: 'EUR', checkout_intent_idempotency_key: `hooks-${Date.now()}` });
    expect(r.status).toBe(201);
    const id = r.body.refund_id;
    const done = await settled(id, 'success');
    await eventually(async () => (hooksOf(id).length === 6 ? true : undefined), 20_000, 'six webhooks');
    expect(eventsOf(id)).toEqual(['refund.pending_created', 'refund.pending_promise', 'refund.success']);
    expect(eventsOf(id, '/b')).toEqual(eventsOf(id));
    expect(hooksOf(id).every((h) => h.secret === secret)).toBe(true);
    const last = hooksOf(id).find((h) => h.path === '/a' && h.body.event === 'refund.success')!.body;
    const { updated_at: _u, ...rest } = done;
    expect(last).toMatchObject({ webhook_type: 'refund', event: 'refund.success', ...rest, event_id: expect.stringMatching(/^evt_/) });
    expect(Object.keys(last).sort()).toEqual([...Object.keys(done), 'webhook_type', 'event', 'event_id'].sort());
    const firstHook = hooksOf(id).find((h) => h.path === '/a' && h.body.event === 'refund.pending_created')!.body;
    expect(firstHook).toMatchObject({ status: 'pending', sub_status: 'pending_created', succeeded_at: null, gateway_transaction_id: null });
  });

  test('rejected by the gateway (...98): canceled_rejected, its amount released', async () => {
    const p = await paid(1000);
    const r = await withHooks({ transaction_id: p.tx, amount: 198, currency: 'EUR' });
    expect(r.body.refundable_amount_left).toBe(802);
    const done = await settled(r.body.refund_id, 'canceled_rejected');
    expect(done.status).toBe('canceled');
    await eventually(async () => (eventsOf(r.body.refund_id).length === 2 ? true : undefined), 20_000, 'two webhooks');
    expect(eventsOf(r.body.refund_id)).toEqual(['refund.pending_created', 'refund.canceled_rejected']);
    const full = await eventually(async () => {
      const x = await olderRefund({ transaction_id: p.tx, amount: 1000, currency: 'EUR' });
      return x.status === 201 ? x : undefined;
    });
    expect(full.body.refundable_amount_left).toBe(0);
  });

  test('the gateway has it but never settles (...99): pending_promise, then canceled_timeout_e2e_manual at the SLA', async () => {
    const p = await paid(1000);
    const r = await withHooks({ transaction_id: p.tx, amount: 199, currency: 'EUR', refund_sla_timeout: 2 });
    const done = await settled(r.body.refund_id, 'canceled_timeout_e2e_manual');
    expect(done.status).toBe('canceled');
    expect(done.succeeded_at).toBeNull();
    await eventually(async () => (eventsOf(r.body.refund_id).length === 3 ? true : undefined), 20_000, 'three webhooks');
    expect(eventsOf(r.body.refund_id)).toEqual(['refund.pending_created', 'refund.pending_promise', 'refund.canceled_timeout_e2e_manual']);
  });

  test('the gateway has it and the SLA is far (...99): the record reads pending_promise, for refunds of both interfaces', async () => {
    const p = await paid(1000);
    const o = await withHooks({ transaction_id: p.tx, amount: 199, currency: 'EUR', refund_sla_timeout: 3600 });
    expect(o.status).toBe(201);
    const v = await v202607Refund({ payment_intent: p.pi, amount: 299, currency: 'EUR', refund_sla_timeout: 3600 });
    expect(v.status).toBe(201);
    const vId = (await db.db().collection('refunds').findOne({ _id: v.body.refund }))!.id as number;
    for (const id of [o.body.refund_id, vId]) {
      const now = await settled(id, 'pending_promise');
      expect(now).toMatchObject({ status: 'pending', succeeded_at: null });
      expect(await recordOf(id)).toMatchObject({ status: 'pending', sub_status: 'pending_promise' });
    }
    await eventually(async () => (eventsOf(o.body.refund_id).length === 2 ? true : undefined), 20_000, 'two webhooks');
    expect(eventsOf(o.body.refund_id)).toEqual(['refund.pending_created', 'refund.pending_promise']);
  });

  test('the gateway never acknowledges it before the SLA (...97, answered after 3 s): canceled_timeout_potential_ghost', async () => {
    const p = await paid(1000);
    const r = await withHooks({ transaction_id: p.tx, amount: 197, currency: 'EUR', refund_sla_timeout: 2 });
    const reId = (await recordOf(r.body.refund_id))!._id as unknown as string;
    // The sandbox takes a ...97 refund at once and executes it a second later, but answers only after three:
    // stop it executing (as the workflow's own cancel at the SLA would, had it come first), so the SLA finds
    // a refund the gateway never acknowledged to us and will never execute.
    await eventually(async () => ((await call('GET', `/v1/refunds?idempotency_key=${reId}`, { baseUrl: getStack().sandboxUrl })).status === 200 ? true : undefined), 5_000, 'the sandbox has the refund');
    expect((await sandbox('/v1/refunds/cancel', { idempotency_key: reId })).status).toBe('canceled');
    const done = await settled(r.body.refund_id, 'canceled_timeout_potential_ghost');
    expect(done.status).toBe('canceled');
    await eventually(async () => (eventsOf(r.body.refund_id).length === 2 ? true : undefined), 20_000, 'two webhooks');
    expect(eventsOf(r.body.refund_id)).toEqual(['refund.pending_created', 'refund.canceled_timeout_potential_ghost']);
    // the gateway confirmed the cancel, so the amount is released
    const full = await eventually(async () => {
      const x = await olderRefund({ transaction_id: p.tx, amount: 1000, currency: 'EUR' });
      return x.status === 201 ? x : undefined;
    });
    expect(full.body.refundable_amount_left).toBe(0);
  });
});

describe('v202607 and older refunds on one balance', () => {
  test('20 concurrent refunds of 300 against 3,000, half by pi_ id through /v202607/refunds, half by transaction_id through /refunds: exactly 10 admitted', async () => {
    const p = await paid(3000);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0 ? v202607Refund({ payment_intent: p.pi, amount: 300, currency: 'EUR' }) : olderRefund({ transaction_id: p.tx, amount: 300, currency: 'EUR' }),
      ),
    );
    const ok = replies.filter((r) => r.status === 201);
    const refused = replies.filter((r) => r.status === 400);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(10);
    expect(refused.every((r) => r.body.error.code === 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT')).toBe(true);
    // each admitted refund saw a distinct balance: 2700, 2400, ..., 0
    expect(ok.map((r) => r.body.refundable_amount_left).sort((a, b) => b - a)).toEqual(Array.from({ length: 10 }, (_, i) => 3000 - 300 * (i + 1)));
    const byInterface = { v202607: ok.filter((r) => 'refund' in r.body).length, older: ok.filter((r) => 'refund_id' in r.body).length };
    process.stdout.write(`[older-refunds] race on one balance: ${byInterface.v202607} admitted through /v202607/refunds, ${byInterface.older} through /refunds\n`);
    // both interfaces' refunds are rows of the older list, found by the intent's integer secret
    const rows = (await list(`?filter.checkout_intent_secret=$eq:${p.secret}&limit=100`)).body.data;
    expect(rows).toHaveLength(10);
    expect(rows.reduce((s: number, r: any) => s + r.amount, 0)).toBe(3000);
    expect(new Set(rows.map((r: any) => r.id)).size).toBe(10);
  });
});

describe('GET /refunds', () => {
  let lm: Merchant;
  const ids: Record<string, number> = {};
  let secretA = 0;
  let between = '';
  const get = (q: string) => list(q, lm.secretKey);
  const idsOf = async (q: string) => {
    const r = await get(q);
    expect(r.status).toBe(200);
    return r.body.data.map((x: any) => x.id as number);
  };

  beforeAll(async () => {
    lm = await createMerchant();
    const a = await paid(5000, 'EUR', lm);
    const b = await paid(5000, 'USD', lm);
    secretA = a.secret;
    const mk = async (name: string, body: Record<string, unknown>) => {
      const r = await olderRefund(body, lm.secretKey);
      expect(r.status).toBe(201);
      ids[name] = r.body.refund_id;
    };
    await mk('eur100', { transaction_id: a.tx, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: `list-key-${Date.now()}` });
    await mk('eur298', { transaction_id: a.tx, amount: 298, currency: 'EUR' }); // rejected
    await new Promise((r) => setTimeout(r, 20));
    between = new Date().toISOString();
    await mk('usd400', { transaction_id: b.tx, amount: 400, currency: 'usd' }); // stored USD
    const v = await v202607Refund({ payment_intent: a.pi, amount: 700, currency: 'EUR' }, lm.secretKey);
    expect(v.status).toBe(201);
    ids.v700 = (await db.db().collection('refunds').findOne({ _id: v.body.refund }))!.id;
    for (const [name, id] of Object.entries(ids)) {
      await eventually(async () => {
        const r = (await list(`?filter.id=$eq:${id}`, lm.secretKey)).body.data[0];
        return r && r.status !== 'pending' ? true : undefined;
      }, 20_000, `${name} final`);
    }
  });

  test('default order id:DESC, the envelope, page and limit', async () => {
    const all = await get('');
    expect(all.body.data.map((r: any) => r.id)).toEqual(Object.values(ids).sort((x, y) => y - x));
    expect(all.body.meta).toEqual({ itemsPerPage: 50, totalItems: 4, currentPage: 1, totalPages: 1, sortBy: [['id', 'DESC']] });
    const page2 = await get('?limit=3&page=2');
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.meta).toMatchObject({ itemsPerPage: 3, totalItems: 4, currentPage: 2, totalPages: 2 });
    expect(page2.body.links).toMatchObject({ previous: expect.stringMatching(/^\/refunds\?page=1&limit=3/), next: null });
    expect((await get('?limit=1001')).status).toBe(400);
    expect((await get('?limit=1000')).status).toBe(200);
  });

  test('sortBy id and amount, both directions', async () => {
    const byId = Object.values(ids).sort((x, y) => x - y);
    expect(await idsOf('?sortBy=id:ASC')).toEqual(byId);
    expect(await idsOf('?sortBy=id:DESC')).toEqual([...byId].reverse());
    expect(await idsOf('?sortBy=amount:ASC')).toEqual([ids.eur100, ids.eur298, ids.usd400, ids.v700]);
    expect(await idsOf('?sortBy=amount:DESC')).toEqual([ids.v700, ids.usd400, ids.eur298, ids.eur100]);
    expect((await get('?sortBy=created_at:DESC')).status).toBe(400);
  });

  test('filter.uuid takes the UUID in any case, as ids in paths and bodies are taken', async () => {
    const one = (await get(`?filter.id=$eq:${ids.eur100}`)).body.data[0];
    expect(await idsOf(`?filter.uuid=$eq:${one.uuid.toUpperCase()}`)).toEqual([ids.eur100]);
    expect(await idsOf(`?filter.uuid=$in:${one.uuid.toUpperCase()},${one.uuid}`)).toEqual([ids.eur100]);
  });

  test('every filter', async () => {
    const one = (await get(`?filter.id=$eq:${ids.eur100}`)).body.data[0];
    const settledRow = (await get(`?filter.id=$eq:${ids.usd400}`)).body.data[0];
    expect(settledRow.status).toBe('success');
    const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
    const expectIds = async (q: string, expected: number[]) => expect(sorted(await idsOf(q))).toEqual(sorted(expected));

    await expectIds(`?filter.id=$eq:${ids.eur100}`, [ids.eur100]);
    await expectIds(`?filter.id=$in:${ids.eur100},${ids.usd400}`, [ids.eur100, ids.usd400]);
    await expectIds(`?filter.uuid=$eq:${one.uuid}`, [ids.eur100]);
    await expectIds('?filter.currency=$eq:USD', [ids.usd400]);
    await expectIds('?filter.currency=$not:$eq:USD', [ids.eur100, ids.eur298, ids.v700]);
    // Any case, as the creates take it (stored upper case), in every operator form.
    expect((await get(`?filter.id=$eq:${ids.usd400}`)).body.data[0].currency).toBe('USD');
    await expectIds('?filter.currency=usd', [ids.usd400]);
    await expectIds('?filter.currency=$eq:Usd', [ids.usd400]);
    await expectIds('?filter.currency=$in:usd,eur', Object.values(ids));
    await expectIds('?filter.currency=$not:$eq:usd', [ids.eur100, ids.eur298, ids.v700]);
    await expectIds('?filter.currency=$not:$in:eur', [ids.usd400]);
    await expectIds(`?filter.created_at=$gte:${between}`, [ids.usd400, ids.v700]);
    await expectIds(`?filter.created_at=$lt:${between}`, [ids.eur100, ids.eur298]);
    await expectIds(`?filter.updated_at=$gte:${one.created_at}`, Object.values(ids));
    await expectIds('?filter.updated_at=$lt:2000-01-01', []);
    await expectIds('?filter.status=$eq:canceled', [ids.eur298]);
    await expectIds('?filter.status=$eq:success', [ids.eur100, ids.usd400, ids.v700]);
    await expectIds('?filter.sub_status=$eq:canceled_rejected', [ids.eur298]);
    await expectIds('?filter.sub_status=$in:success,pending_promise', [ids.eur100, ids.usd400, ids.v700]);
    await expectIds('?filter.amount=$btw:200,500', [ids.eur298, ids.usd400]);
    await expectIds('?filter.amount=$gt:400', [ids.v700]);
    await expectIds(`?filter.checkout_intent_idempotency_key=$eq:${encodeURIComponent(one.checkout_intent_idempotency_key)}`, [ids.eur100]);
    await expectIds('?filter.checkout_intent_idempotency_key=$null', [ids.eur298, ids.usd400, ids.v700]);
    await expectIds(`?filter.checkout_intent_secret=$eq:${secretA}`, [ids.eur100, ids.eur298, ids.v700]);
    await expectIds('?filter.gateway=$eq:sandbox', Object.values(ids));
    await expectIds('?filter.gateway=$eq:othergateway', []);
    await expectIds(`?filter.gateway_transaction_id=$eq:${settledRow.gateway_transaction_id}`, [ids.usd400]);
    await expectIds(`?filter.gateway_transaction_human_readable=$eq:${settledRow.gateway_transaction_id}`, [ids.usd400]);
    await expectIds('?filter.gateway_transaction_id=$sw:rf_', [ids.eur100, ids.usd400, ids.v700]);
    await expectIds('?filter.currency=$eq:EUR&filter.status=$eq:success&sortBy=amount:DESC', [ids.v700, ids.eur100]);
    expect((await get('?filter.payment_intent=$eq:x')).status).toBe(400);
    expect((await get('?filter.id=$eq:abc')).status).toBe(400);
  });
});

test('refunds from before the older interface get their integer ids and older fields once (the API start backfill)', async () => {
  const p = await paid(1000);
  const v = await v202607Refund({ payment_intent: p.pi, amount: 100, currency: 'EUR' });
  const refunds = db.db().collection('refunds');
  await eventually(async () => ((await refunds.findOne({ _id: v.body.refund }))?.status === 'success' ? true : undefined));
  const before = (await refunds.findOne({ _id: v.body.refund }))!;
  // As a record written before the older interface looked.
  await refunds.updateOne(
    { _id: v.body.refund },
    { $unset: { id: '', uuid: '', sub_status: '', gateway: '', transaction_id: '', payment_intent_uuid: '', payment_intent_secret: '' } },
  );
  const conn = await connectMongo(getStack().mongoUri);
  try {
    expect(await ensureRefundOlderIds(conn)).toBeGreaterThanOrEqual(1);
    expect(await ensureRefundOlderIds(conn)).toBe(0);
  } finally {
    await conn.close();
  }
  const after = (await refunds.findOne({ _id: v.body.refund }))!;
  expect(after.id).toEqual(expect.any(Number));
  expect(after.id).not.toBe(before.id);
  expect(after).toMatchObject({ gateway: 'sandbox', transaction_id: p.tx, payment_intent_uuid: p.uuid, payment_intent_secret: p.secret, sub_status: 'success' });
  expect(await row(after.id)).toMatchObject({ status: 'success', sub_status: 'success', succeeded_at: after.updated_at.toISOString() });
});
