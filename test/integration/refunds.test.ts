import { tenantAuth } from '../../api/deps';
import { refundCreateBody } from '../../api/refunds/schemas';
import { createRefund } from '../../api/refunds/service';
import { connectMongo } from '../../platform/mongo';
import { api, apiDeps, createMerchant, eventually, getStack, pay, startHookReceiver, temporalClient, withLateAnswers, type Merchant } from './harness';

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

async function paidIntent(amount: number, currency = 'EUR') {
  const pi = await api.post('/v202607/payment-intents', { amount, currency }, m.secretKey);
  expect((await pay(pi.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  return pi.body.payment_intent as string;
}
const refund = (body: Record<string, unknown>, key = m.secretKey) => api.post('/v202607/refunds', body, key);
const settled = (id: string, status: string) =>
  eventually(async () => {
    const r = await api.get(`/v202607/refunds/${id}`, m.secretKey);
    return r.body.status === status ? r.body : undefined;
  }, 15_000, `refund ${id} ${status}`);

test('a refund is created pending, then settles with the gateway transaction id', async () => {
  const pi = await paidIntent(5000);
  const r = await refund({ payment_intent: pi, amount: 1200, currency: 'EUR' });
  expect(r.status).toBe(201);
  expect(r.body).toEqual({
    refund: expect.stringMatching(/^re_eu_/),
    payment_intent: pi,
    status: 'pending',
    amount: 1200,
    currency: 'EUR',
    refundable_amount_left: 3800,
    resource_created: true,
  });
  const done = await settled(r.body.refund, 'success');
  expect(done.gateway_transaction_id).toMatch(/^rf_/);
  expect(done.created_at).toEqual(expect.any(String));
});

test('partial refunds down to zero left, then the balance is exhausted', async () => {
  const pi = await paidIntent(1000);
  expect((await refund({ payment_intent: pi, amount: 400, currency: 'EUR' })).body.refundable_amount_left).toBe(600);
  expect((await refund({ payment_intent: pi, amount: 600, currency: 'EUR' })).body.refundable_amount_left).toBe(0);
  const over = await refund({ payment_intent: pi, amount: 1, currency: 'EUR' });
  expect(over.status).toBe(400);
  expect(over.body.error).toMatchObject({ code: 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT', param: 'amount' });
});

test('50 concurrent refunds of 300 against 10,000: exactly 33 succeed, 17 are refused', async () => {
  const pi = await paidIntent(10_000);
  const replies = await Promise.all(Array.from({ length: 50 }, () => refund({ payment_intent: pi, amount: 300, currency: 'EUR' })));
  const ok = replies.filter((r) => r.status === 201);
  const refused = replies.filter((r) => r.status === 400);
  expect(ok).toHaveLength(33);
  expect(refused).toHaveLength(17);
  expect(refused.every((r) => r.body.error.code === 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT')).toBe(true);
  expect(new Set(ok.map((r) => r.body.refund)).size).toBe(33);
  // the balances handed out never overlap: each admitted refund saw a distinct, decreasing balance
  expect(ok.map((r) => r.body.refundable_amount_left).sort((a, b) => b - a)).toEqual(Array.from({ length: 33 }, (_, i) => 10_000 - 300 * (i + 1)));
  const list = await api.get(`/v202607/refunds?payment_intent=${pi}&limit=100`, m.secretKey);
  expect(list.body.data.reduce((s: number, r: any) => s + r.amount, 0)).toBe(9900);
});

test('idempotency_key returns the existing refund with 200', async () => {
  const pi = await paidIntent(1000);
  const a = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: 'rf-1' });
  const b = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: 'rf-1' });
  expect(a.status).toBe(201);
  expect(b.status).toBe(200);
  expect(b.body).toMatchObject({ refund: a.body.refund, resource_created: false, refundable_amount_left: 900 });
});

test('idempotency_key with another amount or currency is a 400 idempotency_key_in_use, also at once, and holds nothing; another SLA is the same refund', async () => {
  const pi = await paidIntent(1000);
  const key = `rf-other-${Date.now()}`;
  const first = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: key });
  expect(first.status).toBe(201);
  for (const other of [{ amount: 200 }, { currency: 'USD' }]) {
    const r = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: key, ...other });
    expect([JSON.stringify(other), r.status, r.body.error?.code, r.body.error?.param]).toEqual([JSON.stringify(other), 400, 'idempotency_key_in_use', 'idempotency_key']);
  }
  const resent = await refund({ payment_intent: pi, amount: 100, currency: 'eur', idempotency_key: key, refund_sla_timeout: 60 });
  expect([resent.status, resent.body.refund, resent.body.refundable_amount_left]).toEqual([200, first.body.refund, 900]);
  // At once: the workflow answers the later requests with the first one's refund; those of another amount are refused.
  const raced = `rf-race-${Date.now()}`;
  const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => refund({ payment_intent: pi, amount: i % 2 ? 200 : 300, currency: 'EUR', idempotency_key: raced })));
  const winner = replies.findIndex((r) => r.status === 201);
  expect(replies.map((r, i) => (i % 2 === winner % 2 ? r.body.refund : r.body.error?.code))).toEqual(
    replies.map((_, i) => (i % 2 === winner % 2 ? replies[winner]!.body.refund : 'idempotency_key_in_use')),
  );
  const left = 900 - (winner % 2 ? 200 : 300);
  expect((await refund({ payment_intent: pi, amount: left, currency: 'EUR' })).body.refundable_amount_left).toBe(0);
});

test("a key shaped like the service's own (a return's, a credit note's, a card check's, a checkout session's) is refused: it would be answered as that refund", async () => {
  const pi = await paidIntent(1000);
  for (const key of ['return:ret_eu_0123456789abcdef', 'credit_note:cn_eu_0123456789abcdef', 'billing_portal:bps_eu_1:pi_eu_1:card_check', 'checkout_session:cs_eu_1:card_check']) {
    const r = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: key });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'parameter_invalid', param: 'idempotency_key' });
  }
  const older = await api.post('/refunds', { transaction_id: 1, amount: 100, currency: 'EUR', checkout_intent_idempotency_key: 'return:ret_eu_0123456789abcdef' }, m.secretKey);
  expect(older.status).toBe(400);
  expect(older.body.error).toMatchObject({ param: 'checkout_intent_idempotency_key' });
  // Nothing was held: the whole amount is still refundable.
  expect((await refund({ payment_intent: pi, amount: 1000, currency: 'EUR', idempotency_key: 'returned-goods' })).body).toMatchObject({ refundable_amount_left: 0 });
});

test("a merchant's key that only starts like the service's (return:RMA-1001) is the merchant's, on both interfaces", async () => {
  const pi = await paidIntent(1000);
  const n = Date.now();
  const made = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: `return:RMA-${n}` });
  expect([made.status, made.body.resource_created]).toEqual([201, true]);
  const again = await refund({ payment_intent: pi, amount: 100, currency: 'EUR', idempotency_key: `return:RMA-${n}` });
  expect([again.status, again.body.refund]).toEqual([200, made.body.refund]);
  const tx = (await api.get(`/payment-intents/${pi}`, m.secretKey)).body.transaction_id;
  const older = await api.post('/refunds', { transaction_id: tx, amount: 200, currency: 'EUR', checkout_intent_idempotency_key: `credit_note:${n}` }, m.secretKey);
  expect([older.status, older.body.refundable_amount_left]).toEqual([201, 700]);
});

test('currency mismatch, unpaid and canceled intents are refused with the spec codes', async () => {
  const pi = await paidIntent(1000);
  const ccy = await refund({ payment_intent: pi, amount: 100, currency: 'USD' });
  expect(ccy.status).toBe(400);
  expect(ccy.body.error.code).toBe('REFUND_CCY_MISMATCH');
  const pending = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR' }, m.secretKey);
  expect((await refund({ payment_intent: pending.body.payment_intent, amount: 10, currency: 'EUR' })).body.error.code).toBe('REFUND_TX_MUST_BE_SUCCESSFUL');
  await api.post(`/v202607/payment-intents/${pending.body.payment_intent}/cancel`, undefined, m.secretKey);
  const canceled = await refund({ payment_intent: pending.body.payment_intent, amount: 10, currency: 'EUR' });
  expect(canceled.status).toBe(400);
  expect(canceled.body.error.code).toBe('REFUND_TX_MUST_BE_SUCCESSFUL');
});

test('unknown and cross-tenant intents are 404', async () => {
  expect((await refund({ payment_intent: 'pi_eu_unknown00000000000000', amount: 1, currency: 'EUR' })).status).toBe(404);
  const other = await createMerchant();
  const pi = await paidIntent(1000);
  expect((await refund({ payment_intent: pi, amount: 1, currency: 'EUR' }, other.secretKey)).status).toBe(404);
  const mine = await refund({ payment_intent: pi, amount: 1, currency: 'EUR' });
  expect((await api.get(`/v202607/refunds/${mine.body.refund}`, other.secretKey)).status).toBe(404);
  expect((await api.get('/v202607/refunds?limit=100', other.secretKey)).body.data).toEqual([]);
});

test('a refund the gateway rejects is canceled and its amount returns to the balance', async () => {
  const pi = await paidIntent(1000);
  const r = await refund({ payment_intent: pi, amount: 198, currency: 'EUR' }); // ends in 98: rejected
  await settled(r.body.refund, 'canceled');
  const again = await eventually(async () => {
    const x = await refund({ payment_intent: pi, amount: 1000, currency: 'EUR' });
    return x.status === 201 ? x : undefined;
  });
  expect(again.body.refundable_amount_left).toBe(0);
});

test('a refund the gateway never settles is canceled at its SLA and releases its amount', async () => {
  const pi = await paidIntent(1000);
  const r = await refund({ payment_intent: pi, amount: 199, currency: 'EUR', refund_sla_timeout: 2 }); // ends in 99: never settles
  expect(r.body.refundable_amount_left).toBe(801);
  await settled(r.body.refund, 'canceled');
  const full = await eventually(async () => {
    const x = await refund({ payment_intent: pi, amount: 1000, currency: 'EUR' });
    return x.status === 201 ? x : undefined;
  });
  expect(full.body.refundable_amount_left).toBe(0);
});

test('list filters and validation', async () => {
  const pi = await paidIntent(1000);
  await refund({ payment_intent: pi, amount: 100, currency: 'EUR' });
  const rows = (await api.get(`/v202607/refunds?payment_intent=${pi}&currency=eur`, m.secretKey)).body.data;
  expect(rows).toHaveLength(1);
  expect(Object.keys(rows[0]).sort()).toEqual(['amount', 'created_at', 'currency', 'payment_intent', 'refund', 'status']);
  expect((await api.get('/v202607/refunds?status=bogus', m.secretKey)).status).toBe(400);
  expect((await refund({ payment_intent: pi, amount: 0, currency: 'EUR' })).status).toBe(400);
  expect((await refund({ payment_intent: pi, amount: 10, currency: 'EUR', refund_sla_timeout: 0 })).status).toBe(400);
});

test('one idempotency_key sent for two different intents at once: one refund, one clear refusal', async () => {
  const [a, b] = await Promise.all([paidIntent(1000), paidIntent(1000)]);
  const key = `shared-${Date.now()}`;
  const replies = await Promise.all([
    refund({ payment_intent: a, amount: 100, currency: 'EUR', idempotency_key: key }),
    refund({ payment_intent: b, amount: 100, currency: 'EUR', idempotency_key: key }),
  ]);
  expect(replies.map((r) => r.status).sort()).toEqual([201, 400]);
  const refused = replies.find((r) => r.status === 400)!;
  expect(refused.body.error).toMatchObject({ code: 'idempotency_key_in_use', param: 'idempotency_key' });
  // the refused intent's balance is whole again
  const loser = replies[0]!.status === 400 ? a : b;
  expect((await refund({ payment_intent: loser, amount: 1000, currency: 'EUR' })).body.refundable_amount_left).toBe(0);
});

test("a refund admitted after its create answered 503 (no answer in time) still delivers its events with the endpoint's secret", async () => {
  const pi = await paidIntent(2000);
  const hooks = await startHookReceiver();
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    // The Update lands in the workflow, but its answer does not reach the API in time.
    const late = withLateAnswers(temporal);
    const body = refundCreateBody.parse({ payment_intent: pi, amount: 700, currency: 'EUR', idempotency_key: `late-${Date.now()}`, webhooks: [{ url: hooks.url, secret: 'whsec_late_answer', events: ['refund.success'] }] });
    await expect(createRefund(apiDeps(db, late), tenantAuth(m.tenant, 'eu'), body)).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
    // Sent again with its key, it answers the refund the first request made.
    const again = await refund(body);
    expect([again.status, again.body.resource_created, again.body.amount]).toEqual([200, false, 700]);
    await settled(again.body.refund, 'success');
    const delivered = await eventually(async () => hooks.of('refund.success').find((d) => d.body.data.refund === again.body.refund), 30_000, 'refund.success delivered');
    expect(delivered.secret).toBe('whsec_late_answer');
  } finally {
    await hooks.close();
    await db.close();
    await temporal.connection.close();
  }
}, 60_000);
