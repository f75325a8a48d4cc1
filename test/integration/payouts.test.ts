import { tenantAuth } from '../../api/deps';
import { payoutCreateBody } from '../../api/payouts/schemas';
import { createPayout as createPayoutCall, payoutGatewayStatus } from '../../api/payouts/service';
import { recipientCreateBody } from '../../api/payout-recipients/schemas';
import { createRecipient } from '../../api/payout-recipients/service';
import { ensureInlineRecipientScopes } from '../../data/payout-recipients';
import type { GatewayAdapter } from '../../gateways/types';
import { DomainError } from '../../domain/errors';
import { createGatewayRegistry } from '../../gateways/registry';
import { createLogger } from '../../platform/logger';
import { connectMongo, type Mongo } from '../../platform/mongo';
import type { Client } from '@temporalio/client';
import { admin, api, apiDeps, call, createMerchant, createPayoutMerchant, eventually, getStack, startHookReceiver, temporalClient, withLateAnswers, type Merchant, type Delivery } from './harness';

// Payouts end to end on the real stack: the sandbox's magic accounts through POST /payouts, the payout
// workflow, the webhooks each status change sends (a real receiver on loopback), the status endpoint and
// the tenancy rules. The sandbox counts effects per idempotency key: one transfer per payout, always.

const ACCOUNTS = {
  rejected: '000111111116',
  technicalFailure: '000222222227',
  neverCompletes: '000333333338',
  completesLater: '000444444449',
  answerLost: '000555555551',
  ordinary: '0123456789',
};

let hooks: Delivery[];
let hookUrl = '';
let closeHooks: () => Promise<void>;
beforeAll(async () => {
  const receiver = await startHookReceiver();
  ({ received: hooks, close: closeHooks } = receiver);
  hookUrl = `${receiver.base}/payouts`;
});
afterAll(() => closeHooks());

/** A merchant whose sandbox connector also pays out. */
async function payoutMerchant(): Promise<Merchant & { tenantNumber: number; tenantName: string }> {
  const m = await createPayoutMerchant();
  const t = await admin.get(`/admin/tenants/${m.tenant}`);
  return { ...m, tenantNumber: t.body.tenant_id, tenantName: t.body.name };
}

let m: Merchant & { tenantNumber: number; tenantName: string };
beforeAll(async () => {
  m = await payoutMerchant();
});

const bank = (account: string) => ({ bank_account_number: account, bank_account_name: 'Ada Obi', bank_code: '058' });
const createPayout = (body: Record<string, unknown>, key = m.secretKey) => api.post('/payouts', { amount: 5000, currency: 'NGN', gateway: 'sandbox', ...body }, key);
const sandboxEffects = async (kind: string, key: string) => (await call('GET', `/v1/effects?kind=${kind}&idempotency_key=${encodeURIComponent(key)}`, { baseUrl: getStack().sandboxUrl })).body;
// Each delivery is its own workflow, so they may arrive in any order; updated_at orders them.
const hooksOf = (uuid: string) => hooks.filter((h) => h.body.uuid === uuid).sort((x, y) => Date.parse(x.body.updated_at) - Date.parse(y.body.updated_at));
const subStatuses = (uuid: string) => hooksOf(uuid).map((h) => h.body.sub_status);
const settled = (uuid: string, subStatus: string, timeoutMs = 20_000) =>
  eventually(async () => {
    const r = await api.get(`/payouts/${uuid}`, m.secretKey);
    return r.body?.sub_status === subStatus ? r.body : undefined;
  }, timeoutMs, `payout ${uuid} ${subStatus}`);

describe('the magic accounts: status, webhooks and one transfer each', () => {
  test('an ordinary account completes at once: 201 success, webhooks pending_created then success with the secret', async () => {
    const r = await createPayout({ ...bank(ACCOUNTS.ordinary), webhook_urls: [hookUrl], webhook_secret: 'whsec-merchant-1', narration: 'June' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ payout_uuid: expect.any(String), recipient_uuid: expect.any(String), status: 'success', gateway_payout_id: expect.stringMatching(/^po_/), resource_created: true });
    const uuid = r.body.payout_uuid;
    await eventually(async () => (subStatuses(uuid).length === 2 ? true : undefined), 15_000, 'two webhooks');
    expect(subStatuses(uuid)).toEqual(['pending_created', 'success']);
    const [first, last] = hooksOf(uuid);
    expect(first!.secret).toBe('whsec-merchant-1');
    expect(last!.body).toMatchObject({
      webhook_type: 'payout',
      uuid,
      status: 'success',
      sub_status: 'success',
      amount: 5000,
      currency: 'NGN',
      gateway: 'sandbox',
      gateway_payout_id: r.body.gateway_payout_id,
      recipient_uuid: r.body.recipient_uuid,
      failure_reason: null,
      tenant_id: m.tenantNumber,
    });
    expect((await sandboxEffects('payout', uuid)).count).toBe(1);
    const stored = await api.get(`/payouts/${uuid}`, m.secretKey);
    expect(stored.body).toMatchObject({ uuid, status: 'success', sub_status: 'success', tenant_id: m.tenantNumber, narration: 'June', recipient: { uuid: r.body.recipient_uuid, tenant_id: m.tenantNumber, recipient_type: 'bank_account', bank_account_number: ACCOUNTS.ordinary } });
    expect(stored.body.tenant).toBeUndefined();
    expect(Number.isInteger(stored.body.id)).toBe(true);
    // A receiver's URL written otherwise is stored as the one receiver it is (the endpoint every interface knows).
    const spelled = await createPayout({ ...bank(ACCOUNTS.ordinary), webhook_urls: [`${hookUrl.replace('http://', 'HTTP://')}#top`] });
    expect((await api.get(`/payouts/${spelled.body.payout_uuid}`, m.secretKey)).body.webhook_urls).toEqual([hookUrl]);
  });

  test('000111111116 is rejected by the gateway: a canceled_rejected payout with its reason', async () => {
    const r = await createPayout({ ...bank(ACCOUNTS.rejected), webhook_urls: [hookUrl] });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('canceled_rejected');
    const stored = await settled(r.body.payout_uuid, 'canceled_rejected');
    expect(stored).toMatchObject({ status: 'canceled', failure_reason: expect.stringMatching(/^invalid_account: /) });
    await eventually(async () => (subStatuses(r.body.payout_uuid).length === 2 ? true : undefined));
    expect(hooksOf(r.body.payout_uuid)[1]!.body).toMatchObject({ status: 'canceled', sub_status: 'canceled_rejected', failure_reason: expect.stringMatching(/^invalid_account/) });
    expect(hooksOf(r.body.payout_uuid)[0]!.secret).toBeUndefined();
  });

  test('000222222227 fails technically: canceled_failure', async () => {
    const r = await createPayout({ ...bank(ACCOUNTS.technicalFailure), webhook_urls: [hookUrl] });
    expect(r.body.status).toBe('canceled_failure');
    expect(await settled(r.body.payout_uuid, 'canceled_failure')).toMatchObject({ failure_reason: expect.stringMatching(/^processing_error: /) });
    await eventually(async () => (subStatuses(r.body.payout_uuid).length === 2 ? true : undefined));
    expect(subStatuses(r.body.payout_uuid)).toEqual(['pending_created', 'canceled_failure']);
  });

  test('000444444449 is accepted, then completes: pending_promise, then success by the confirmed callback', async () => {
    const r = await createPayout({ ...bank(ACCOUNTS.completesLater), webhook_urls: [hookUrl] });
    expect(r.body.status).toBe('pending_promise');
    await settled(r.body.payout_uuid, 'success');
    await eventually(async () => (subStatuses(r.body.payout_uuid).length === 3 ? true : undefined));
    expect(subStatuses(r.body.payout_uuid)).toEqual(['pending_created', 'pending_promise', 'success']);
    expect(hooksOf(r.body.payout_uuid).map((h) => h.body.status)).toEqual(['pending', 'pending', 'success']);
    expect((await sandboxEffects('payout', r.body.payout_uuid)).count).toBe(1);
  });

  test('000333333338 never completes: at the end of its window it is canceled at the gateway, canceled_timeout', async () => {
    const r = await createPayout({ ...bank(ACCOUNTS.neverCompletes), webhook_urls: [hookUrl], payout_timeout_seconds: 10 });
    expect(r.body.status).toBe('pending_promise');
    const stored = await settled(r.body.payout_uuid, 'canceled_timeout', 30_000);
    expect(stored.failure_reason).toMatch(/^timeout: not completed within 10 seconds/);
    expect(new Date(stored.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(stored.expires_at).getTime());
    const effects = await sandboxEffects('payout', r.body.payout_uuid);
    expect(effects.count).toBe(1);
    expect(effects.effects[0].status).toBe('canceled');
    await eventually(async () => (subStatuses(r.body.payout_uuid).length === 3 ? true : undefined));
    expect(subStatuses(r.body.payout_uuid)).toEqual(['pending_created', 'pending_promise', 'canceled_timeout']);
  }, 45_000);

  test('000555555551 makes the transfer and loses the answer: found by its key, success, still one transfer', async () => {
    const r = await createPayout({ ...bank(ACCOUNTS.answerLost), webhook_urls: [hookUrl] });
    expect(r.status).toBe(201);
    await settled(r.body.payout_uuid, 'success', 40_000);
    const effects = await sandboxEffects('payout', r.body.payout_uuid);
    expect(effects.count).toBe(1);
    expect(effects.effects[0].replays).toBeGreaterThanOrEqual(1); // the activity's retry reached it under the same key
  }, 60_000);

  test('a mobile-money wallet with its provider label: the type is inferred, the transfer completes', async () => {
    const r = await createPayout({ mobile_money_number: '+233241234567', mobile_money_provider: 'MTN', currency: 'GHS' });
    expect(r.body.status).toBe('success');
    const rcp = await api.get(`/payout-recipients/${r.body.recipient_uuid}`, m.secretKey);
    expect(rcp.body).toMatchObject({ recipient_type: 'mobile_money', mobile_money_number: '+233241234567', mobile_money_provider: 'MTN', bank_account_number: null, tenant_id: m.tenantNumber });
  });
});

describe('the recipient rule and the request checks', () => {
  test.each([
    ['a partial bank group', { bank_account_number: '0123456789', bank_code: '058' }, 'bank_account_name'],
    ['a bank set plus a wallet', { ...bank(ACCOUNTS.ordinary), mobile_money_number: '+233241234567' }, 'mobile_money_number'],
    ['a wallet plus a bank field', { mobile_money_number: '+233241234567', bank_name: 'GTBank' }, 'bank_name'],
    ['neither, and no recipient_uuid', {}, 'recipient_uuid'],
    ['recipient_uuid and an inline set', { recipient_uuid: '6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c11', ...bank(ACCOUNTS.ordinary) }, 'recipient_uuid'],
    ['a recipient_type the fields contradict', { ...bank(ACCOUNTS.ordinary), recipient_type: 'mobile_money' }, 'recipient_type'],
    ['no gateway', { gateway: undefined, ...bank(ACCOUNTS.ordinary) }, 'gateway'],
    // It goes in an HTTP header: one that cannot would fail every delivery of the payout's webhooks.
    ['a webhook_secret that cannot be a header value', { ...bank(ACCOUNTS.ordinary), webhook_secret: 's€cret' }, 'webhook_secret'],
    ['a webhook_secret with a line break', { ...bank(ACCOUNTS.ordinary), webhook_secret: 'a\nb' }, 'webhook_secret'],
  ])('%s is a 400 naming %s, and nothing is written', async (_, body, param) => {
    const before = (await api.get('/payouts?limit=1', m.secretKey)).body.meta.totalItems;
    const r = await createPayout(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect((await api.get('/payouts?limit=1', m.secretKey)).body.meta.totalItems).toBe(before);
  });

  test('a gateway that is not registered for payouts is a 400, as is a tenant that has no payout connector', async () => {
    expect((await createPayout({ gateway: 'nopay', ...bank(ACCOUNTS.ordinary) })).body.error).toMatchObject({ code: 'gateway_invalid', param: 'gateway' });
    const cardOnly = await createMerchant();
    const r = await createPayout({ ...bank(ACCOUNTS.ordinary) }, cardOnly.secretKey);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('gateway_invalid');
  });

  test('a registered recipient is paid by recipient_uuid; another payout gateway than its own is a mismatch', async () => {
    const rcp = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), name: 'Ada', email: 'ada@example.com' }, m.secretKey);
    expect(rcp.status).toBe(201);
    expect(rcp.body).toEqual({ recipient_uuid: expect.any(String), gateway_recipient_id: expect.stringMatching(/^rcp_/), resource_created: true });
    const paid = await createPayout({ recipient_uuid: rcp.body.recipient_uuid });
    expect(paid.body).toMatchObject({ status: 'success', recipient_uuid: rcp.body.recipient_uuid });
    // The stack has one payout gateway: a recipient stored under another one (a gateway the tenant has since
    // left, say) stands for "a registered gateway that is not the recipient's".
    const elsewhere = (await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary) }, m.secretKey)).body.recipient_uuid;
    const db = await connectMongo(getStack().mongoUri);
    try {
      await db.c.payoutRecipients.updateOne({ _id: elsewhere }, { $set: { gateway: 'retiredgw' } });
    } finally {
      await db.close();
    }
    const mismatch = await createPayout({ recipient_uuid: elsewhere, gateway: 'sandbox' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({ code: 'gateway_mismatch', param: 'gateway', message: 'The recipient is registered with gateway "retiredgw", not "sandbox"' });
    const unknown = await createPayout({ recipient_uuid: '6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c11' });
    expect(unknown.body.error).toMatchObject({ param: 'recipient_uuid' });
  });

  test('with recipient_uuid, a gateway not registered for payouts is gateway_invalid (as inline and on /payout-recipients), not a mismatch', async () => {
    const rcp = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary) }, m.secretKey);
    expect(rcp.status).toBe(201);
    const byUuid = await createPayout({ recipient_uuid: rcp.body.recipient_uuid, gateway: 'nope' });
    const inline = await createPayout({ ...bank(ACCOUNTS.ordinary), gateway: 'nope' });
    const recipient = await api.post('/payout-recipients', { gateway: 'nope', ...bank(ACCOUNTS.ordinary) }, m.secretKey);
    expect([byUuid.status, byUuid.body.error]).toEqual([400, expect.objectContaining({ code: 'gateway_invalid', param: 'gateway' })]);
    const withoutRequestId = ({ request_id: _, ...error }: Record<string, unknown>) => error;
    expect(withoutRequestId(byUuid.body.error)).toEqual(withoutRequestId(inline.body.error));
    expect(recipient.body.error).toMatchObject({ code: 'gateway_invalid', param: 'gateway' });
  });

  test("with recipient_uuid, a recipient_type that is not the recipient's is refused as inline, also on a key's repeat, and nothing is written or sent", async () => {
    const bankRcp = (await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary) }, m.secretKey)).body.recipient_uuid;
    const walletRcp = (await api.post('/payout-recipients', { gateway: 'sandbox', mobile_money_number: '+233241234567', mobile_money_provider: 'MTN' }, m.secretKey)).body.recipient_uuid;
    const inline = await createPayout({ ...bank(ACCOUNTS.ordinary), recipient_type: 'mobile_money' });
    expect(inline.body.error).toMatchObject({ code: 'parameter_invalid', param: 'recipient_type' });
    const before = (await api.get('/payouts?limit=1', m.secretKey)).body.meta.totalItems;
    for (const [uuid, type, kind] of [[bankRcp, 'mobile_money', 'bank_account'], [walletRcp, 'bank_account', 'mobile_money']]) {
      const r = await createPayout({ recipient_uuid: uuid, recipient_type: type });
      expect([r.status, r.body.error?.code, r.body.error?.param]).toEqual([400, inline.body.error.code, 'recipient_type']);
      expect(r.body.error.message).toBe(`Invalid recipient_type: recipient_type is ${type} but the recipient ${uuid} is a ${kind}`);
    }
    expect((await api.get('/payouts?limit=1', m.secretKey)).body.meta.totalItems).toBe(before);
    // The recipient's own type is accepted; sent again under the same key with the other type, still refused.
    const key = `po-type-${Date.now()}`;
    const paid = await createPayout({ recipient_uuid: bankRcp, recipient_type: 'bank_account', idempotency_key: key });
    expect([paid.status, paid.body.resource_created]).toEqual([201, true]);
    const again = await createPayout({ recipient_uuid: bankRcp, recipient_type: 'mobile_money', idempotency_key: key });
    expect([again.status, again.body.error?.param]).toEqual([400, 'recipient_type']);
    expect((await sandboxEffects('payout', paid.body.payout_uuid)).count).toBe(1);
  });

  test("tenant may name the key's own tenant by id, name or integer, as the older POST /payment-intents takes it, and nothing else", async () => {
    expect((await createPayout({ ...bank(ACCOUNTS.ordinary), tenant: m.tenant })).status).toBe(201);
    expect((await createPayout({ ...bank(ACCOUNTS.ordinary), tenant: String(m.tenantNumber) })).status).toBe(201);
    const byName = await createPayout({ ...bank(ACCOUNTS.ordinary), tenant: m.tenantName });
    expect([byName.status, byName.body.error]).toEqual([201, undefined]);
    expect((await api.post('/payment-intents', { gateway: 'sandbox', amount: 100, currency: 'EUR', tenant: m.tenantName }, m.secretKey)).status).toBe(201);
    const other = await payoutMerchant();
    const r = await createPayout({ ...bank(ACCOUNTS.ordinary), tenant: other.tenant });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'tenant_mismatch', param: 'tenant' });
  });

  test('payout recipients refuse webhook fields; a repeated idempotency_key answers 200 with the same recipient', async () => {
    const hooked = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), webhook_urls: [hookUrl] }, m.secretKey);
    expect(hooked.status).toBe(400);
    expect(hooked.body.error).toMatchObject({ code: 'parameter_unknown', param: 'webhook_urls' });
    const body = { gateway: 'sandbox', mobile_money_number: '+233200000001', idempotency_key: `rcp-${Date.now()}` };
    const first = await api.post('/payout-recipients', body, m.secretKey);
    const again = await api.post('/payout-recipients', body, m.secretKey);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual({ ...first.body, resource_created: false });
  });

  test("a payout's inline recipient is never a recipient registered under a key that looks like its own", async () => {
    const n = Date.now();
    // The payout's key K scopes its inline recipient; a recipient registered with the key `payout:K` must not be it.
    const alice = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), bank_account_name: 'Alice', idempotency_key: `payout:${n}` }, m.secretKey);
    expect(alice.status).toBe(201);
    const paid = await createPayout({ ...bank('0123456780'), bank_account_name: 'Bob', idempotency_key: String(n) });
    expect(paid.status).toBe(201);
    expect(paid.body.recipient_uuid).not.toBe(alice.body.recipient_uuid);
    expect((await api.get(`/payout-recipients/${paid.body.recipient_uuid}`, m.secretKey)).body).toMatchObject({ bank_account_name: 'Bob', bank_account_number: '0123456780' });
    // Each key still answers its own.
    const again = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), bank_account_name: 'Alice', idempotency_key: `payout:${n}` }, m.secretKey);
    expect([again.status, again.body.recipient_uuid]).toEqual([200, alice.body.recipient_uuid]);
  });

  test('an inline recipient stored with the scope of before (<tenant>:payout:<key>) is moved to the scope of now at start', async () => {
    const n = Date.now();
    const paid = await createPayout({ ...bank(ACCOUNTS.ordinary), bank_account_name: 'Old Inline', idempotency_key: `old-${n}` });
    expect(paid.status).toBe(201);
    const db = await connectMongo(getStack().mongoUri);
    try {
      // As a payout made before the change stored it.
      await db.c.payoutRecipients.updateOne({ _id: paid.body.recipient_uuid }, { $set: { idempotency_scope: `${m.tenant}:payout:old-${n}` } });
      expect(await ensureInlineRecipientScopes(db)).toBeGreaterThanOrEqual(1);
      expect((await db.c.payoutRecipients.findOne({ _id: paid.body.recipient_uuid }))?.idempotency_scope).toBe(`payout:${m.tenant}:old-${n}`);
      expect(await ensureInlineRecipientScopes(db)).toBe(0); // once
    } finally {
      await db.close();
    }
    // A recipient key that named it before now makes its own recipient.
    const own = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), bank_account_name: 'Own', idempotency_key: `payout:old-${n}` }, m.secretKey);
    expect([own.status, own.body.recipient_uuid === paid.body.recipient_uuid]).toEqual([201, false]);
  });

  test('a recipient idempotency_key sent again with another destination is a 400 idempotency_key_in_use, also at once; contact fields may differ', async () => {
    const key = `rcp-other-${Date.now()}`;
    const body = { gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), name: 'Ada', idempotency_key: key };
    const first = await api.post('/payout-recipients', body, m.secretKey);
    expect(first.status).toBe(201);
    const others: Record<string, unknown>[] = [
      { ...body, bank_account_number: '0123456780' },
      { ...body, bank_account_name: 'Bob Obi' },
      { ...body, bank_code: '044' },
      { gateway: 'sandbox', mobile_money_number: '+233200000002', idempotency_key: key },
    ];
    for (const other of others) {
      const r = await api.post('/payout-recipients', other, m.secretKey);
      expect([JSON.stringify(other), r.status, r.body.error?.code, r.body.error?.param]).toEqual([JSON.stringify(other), 400, 'idempotency_key_in_use', 'idempotency_key']);
    }
    const renamed = await api.post('/payout-recipients', { ...body, name: 'Ada O.', email: 'ada@example.com', bank_name: 'GTBank', metadata: { n: '2' } }, m.secretKey);
    expect([renamed.status, renamed.body]).toEqual([200, { ...first.body, resource_created: false }]);
    // At once: one recipient, registered once; the requests of the other destination are refused.
    const raced = `rcp-race-${Date.now()}`;
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api.post('/payout-recipients', { gateway: 'sandbox', ...bank(i % 2 ? '0123456780' : ACCOUNTS.ordinary), idempotency_key: raced }, m.secretKey)),
    );
    const winner = replies.findIndex((r) => r.status === 201);
    expect(replies.map((r, i) => (i % 2 === winner % 2 ? r.body.recipient_uuid : r.body.error?.code))).toEqual(
      replies.map((_, i) => (i % 2 === winner % 2 ? replies[winner]!.body.recipient_uuid : 'idempotency_key_in_use')),
    );
    expect((await sandboxEffects('recipient', replies[winner]!.body.recipient_uuid)).count).toBe(1);
  });

  test('a recipient the gateway refuses is a 400 and is not kept', async () => {
    const before = (await api.get('/payout-recipients?limit=1', m.secretKey)).body.meta.totalItems;
    const r = await api.post('/payout-recipients', { gateway: 'sandbox', bank_account_number: '12-34', bank_account_name: 'X', bank_code: '058' }, m.secretKey);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'recipient_registration_failed', param: 'bank_account_number' });
    expect((await api.get('/payout-recipients?limit=1', m.secretKey)).body.meta.totalItems).toBe(before);
  });
});

test('20 concurrent identical creates with one idempotency_key: one payout, one recipient, one transfer', async () => {
  // A tenant of its own, so its counts are this test's alone.
  const shop = await payoutMerchant();
  const key = `po-burst-${Date.now()}`;
  const create = () => createPayout({ ...bank(ACCOUNTS.ordinary), idempotency_key: key }, shop.secretKey);
  const replies = await Promise.all(Array.from({ length: 20 }, create));
  expect(replies.map((r) => r.status)).toEqual(Array(20).fill(201));
  expect(replies.filter((r) => r.body.resource_created)).toHaveLength(1);
  expect(new Set(replies.map((r) => r.body.payout_uuid)).size).toBe(1);
  expect(new Set(replies.map((r) => r.body.recipient_uuid)).size).toBe(1);
  const uuid = replies[0]!.body.payout_uuid;
  const stored = await eventually(async () => {
    const r = await api.get(`/payouts/${uuid}`, shop.secretKey);
    return r.body?.sub_status === 'success' ? r.body : undefined;
  });
  expect((await sandboxEffects('payout', uuid)).count).toBe(1);
  expect((await api.get('/payouts', shop.secretKey)).body.meta.totalItems).toBe(1);
  const recipients = await api.get('/payout-recipients', shop.secretKey);
  expect(recipients.body.data.map((r: any) => r.uuid)).toEqual([stored.recipient_uuid]);
  expect((await sandboxEffects('recipient', stored.recipient_uuid)).count).toBe(1);
  const again = await create();
  expect(again.body).toMatchObject({ payout_uuid: uuid, status: 'success', resource_created: false });
});

describe('an idempotency_key names one payout: the same request is answered, another is a 400 and moves nothing', () => {
  test('sent again with another amount, currency, gateway or recipient: 400 idempotency_key_in_use; with other words and metadata: the payout', async () => {
    const shop = await payoutMerchant();
    const key = `po-other-${Date.now()}`;
    const body = { ...bank(ACCOUNTS.ordinary), idempotency_key: key, narration: 'June' };
    const first = await createPayout(body, shop.secretKey);
    expect([first.status, first.body.resource_created]).toEqual([201, true]);
    const elsewhere = await api.post('/payout-recipients', { gateway: 'sandbox', ...bank('0123456780') }, shop.secretKey);
    const others: Record<string, unknown>[] = [
      { ...body, amount: 7000 },
      { ...body, currency: 'GHS' },
      { ...body, gateway: 'elsewhere' },
      { ...body, bank_account_number: '0123456780' },
      { ...body, bank_account_name: 'Bob Obi' },
      { ...body, bank_code: '044' },
      { recipient_uuid: elsewhere.body.recipient_uuid, idempotency_key: key },
      { mobile_money_number: '+233200000002', idempotency_key: key },
    ];
    for (const other of others) {
      const r = await createPayout(other, shop.secretKey);
      expect([JSON.stringify(other), r.status, r.body.error?.code, r.body.error?.param]).toEqual([JSON.stringify(other), 400, 'idempotency_key_in_use', 'idempotency_key']);
    }
    // What does not move money may differ; the recipient may be named by its uuid.
    const reworded = await createPayout({ ...body, narration: 'June (again)', name: 'Ada O.', metadata: { retry: '1' }, webhook_urls: [hookUrl] }, shop.secretKey);
    expect([reworded.status, reworded.body]).toEqual([201, { ...first.body, status: 'success', resource_created: false }]);
    const byUuid = await createPayout({ recipient_uuid: first.body.recipient_uuid, idempotency_key: key }, shop.secretKey);
    expect(byUuid.body).toMatchObject({ payout_uuid: first.body.payout_uuid, resource_created: false });
    expect((await api.get('/payouts', shop.secretKey)).body.meta.totalItems).toBe(1);
    expect((await sandboxEffects('payout', first.body.payout_uuid)).count).toBe(1);
  });

  const amount = (i: number) => (i % 2 ? 7000 : 5000);
  const account = (i: number) => (i % 2 ? '0123456780' : ACCOUNTS.ordinary);
  test.each<[string, (i: number) => Record<string, unknown>, (i: number) => Record<string, unknown>]>([
    ['amounts', (i) => ({ amount: amount(i), ...bank(ACCOUNTS.ordinary) }), (i) => ({ amount: amount(i) })],
    ['destinations', (i) => bank(account(i)), (i) => ({ amount: 5000, recipient: { bank_account_number: account(i) } })],
  ])('six same-key requests at once, of two %s: one payout, the requests that asked for it answered, the others 400', async (_, variant, payoutOf) => {
    const shop = await payoutMerchant();
    const key = `po-race-${Date.now()}`;
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => createPayout({ ...variant(i), idempotency_key: key }, shop.secretKey)));
    const made = replies.filter((r) => r.status === 201);
    expect(made.filter((r) => r.body.resource_created)).toHaveLength(1);
    expect(new Set(made.map((r) => r.body.payout_uuid)).size).toBe(1);
    // Every request of the payout's kind was answered it; every one of the other kind was refused.
    const winner = replies.findIndex((r) => r.body.resource_created);
    expect(replies.map((r, i) => (i % 2 === winner % 2 ? r.status : r.body.error?.code))).toEqual(replies.map((_, i) => (i % 2 === winner % 2 ? 201 : 'idempotency_key_in_use')));
    const stored = await eventually(async () => {
      const r = await api.get(`/payouts/${made[0]!.body.payout_uuid}`, shop.secretKey);
      return r.body?.sub_status === 'success' ? r.body : undefined;
    });
    expect(stored).toMatchObject(payoutOf(winner));
    expect((await api.get('/payouts', shop.secretKey)).body.meta.totalItems).toBe(1);
    expect((await sandboxEffects('payout', stored.uuid)).count).toBe(1);
  });
});

test('a payout without a key whose answer comes too late is answered as made (201), not 503: a resend would pay twice', async () => {
  const shop = await payoutMerchant();
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    const body = payoutCreateBody.parse({ amount: 5000, currency: 'NGN', gateway: 'sandbox', ...bank(ACCOUNTS.ordinary) });
    const auth = tenantAuth(shop.tenant, 'eu');
    const deps = apiDeps(db, withLateAnswers(temporal));
    const gateways = createGatewayRegistry({ sandboxUrl: deps.config.SANDBOX_URL, sandboxCallbackSecret: deps.config.SANDBOX_CALLBACK_SECRET });
    const made = await createPayoutCall({ ...deps, gateways, logger: createLogger({ name: 'payouts-test', level: 'silent' }) }, auth, body);
    expect(made).toMatchObject({ status: 201, body: { resource_created: true, status: expect.stringMatching(/^(pending_created|success)$/) } });
    const uuid = made.body.payout_uuid;
    await eventually(async () => ((await api.get(`/payouts/${uuid}`, shop.secretKey)).body?.sub_status === 'success' ? true : undefined), 20_000, 'the payout paid');
    expect((await sandboxEffects('payout', uuid)).count).toBe(1);
    expect((await api.get('/payouts', shop.secretKey)).body.meta.totalItems).toBe(1);
  } finally {
    await db.close();
    await temporal.connection.close();
  }
});

type Register = GatewayAdapter['registerRecipient'];
/** The API's service deps on the real stack, but every recipient registration goes through `register` (given the real one). */
function depsRegisteringWith(db: Mongo, temporal: Client, register: (real: Register, ...req: Parameters<Register>) => ReturnType<Register>) {
  const base = apiDeps(db, temporal);
  const real = createGatewayRegistry({ sandboxUrl: base.config.SANDBOX_URL, sandboxCallbackSecret: base.config.SANDBOX_CALLBACK_SECRET });
  const gateways = {
    names: () => real.names(),
    get: (...args: Parameters<typeof real.get>): GatewayAdapter =>
      new Proxy(real.get(...args), {
        get: (a, p) => (p === 'registerRecipient' ? (...req: Parameters<Register>) => register(a.registerRecipient.bind(a), ...req) : Reflect.get(a, p, a)),
      }),
  };
  return { ...base, gateways, logger: createLogger({ name: 'payouts-test', level: 'silent' }) };
}
const registrationLost = () => Promise.reject(new Error('sandbox POST /v1/recipients timed out after 10000 ms'));

describe('two same-key recipient requests, one of whose gateway registrations gets no answer', () => {
  /**
   * Runs two same-key POST /payout-recipients through the service with the real sandbox behind a hook: the first
   * registration (the request that inserted the record) waits at the gateway until the second request has its
   * answer, then goes as `first` says; the second goes as `second` says.
   */
  async function race(first: 'registers' | 'no answer', second: 'registers' | 'no answer') {
    const shop = await payoutMerchant();
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      let calls = 0;
      let firstArrived!: () => void;
      const arrived = new Promise<void>((r) => (firstArrived = r));
      let letFirstGo!: () => void;
      const released = new Promise<void>((r) => (letFirstGo = r));
      const deps = depsRegisteringWith(db, temporal, async (register, ...req) => {
        if (++calls === 1) {
          firstArrived();
          await released;
          return first === 'registers' ? register(...req) : registrationLost();
        }
        return second === 'registers' ? register(...req) : registrationLost();
      });
      const auth = tenantAuth(shop.tenant, 'eu');
      const body = recipientCreateBody.parse({ gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), idempotency_key: `rcp-race-${Date.now()}` });
      const settle = <T,>(p: Promise<T>) => p.then((v) => ({ ok: v }), (err: unknown) => ({ err }));
      const a = settle(createRecipient(deps, auth, body));
      await arrived;
      const b = await settle(createRecipient(deps, auth, body));
      letFirstGo();
      return { shop, body, first: await a, second: b };
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }

  test('the second: the record stays to the request that made it, whose registration succeeds', async () => {
    const { shop, body, first, second } = await race('registers', 'no answer');
    expect(second).toMatchObject({ err: { code: 'gateway_unavailable' } });
    expect(first).toMatchObject({ ok: { status: 201, body: { resource_created: true, gateway_recipient_id: expect.any(String) } } });
    const made = (first as { ok: Awaited<ReturnType<typeof createRecipient>> }).ok.body;
    // It stands, registered: before, the failed request had taken it back under the one that made it.
    expect((await api.get(`/payout-recipients/${made.recipient_uuid}`, shop.secretKey)).body).toMatchObject({ uuid: made.recipient_uuid, gateway_recipient_id: made.gateway_recipient_id });
    expect((await api.post('/payout-recipients', body, shop.secretKey)).body).toMatchObject({ recipient_uuid: made.recipient_uuid, resource_created: false });
  });

  test('the first, after the second registered it: the record stays, and both answer it', async () => {
    const { shop, first, second } = await race('no answer', 'registers');
    expect(second).toMatchObject({ ok: { status: 200, body: { resource_created: false, gateway_recipient_id: expect.any(String) } } });
    const registered = (second as { ok: Awaited<ReturnType<typeof createRecipient>> }).ok.body;
    // Before, the request that made it took it back after the other had answered it.
    expect(first).toMatchObject({ ok: { status: 201, body: { recipient_uuid: registered.recipient_uuid, gateway_recipient_id: registered.gateway_recipient_id } } });
    expect((await api.get(`/payout-recipients/${registered.recipient_uuid}`, shop.secretKey)).body).toMatchObject({ gateway_recipient_id: registered.gateway_recipient_id });
  });
});

test('a keyed recipient whose registration got no answer is registered by the first payout to it (it was refused recipient_not_registered for good)', async () => {
  const shop = await payoutMerchant();
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    const deps = depsRegisteringWith(db, temporal, () => registrationLost());
    const body = recipientCreateBody.parse({ gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), idempotency_key: `rcp-unanswered-${Date.now()}` });
    await expect(createRecipient(deps, tenantAuth(shop.tenant, 'eu'), body)).rejects.toMatchObject({ code: 'gateway_unavailable' });
    const [kept] = (await api.get('/payout-recipients', shop.secretKey)).body.data;
    expect(kept).toMatchObject({ gateway_recipient_id: null });

    const paid = await createPayout({ recipient_uuid: kept.uuid }, shop.secretKey);
    expect(paid.status).toBe(201);
    const registered = (await api.get(`/payout-recipients/${kept.uuid}`, shop.secretKey)).body;
    expect(registered.gateway_recipient_id).toEqual(expect.any(String));
    // The recipient's own key now answers it, registered.
    expect((await api.post('/payout-recipients', body, shop.secretKey)).body).toMatchObject({ recipient_uuid: kept.uuid, gateway_recipient_id: registered.gateway_recipient_id, resource_created: false });
  } finally {
    await db.close();
    await temporal.connection.close();
  }
});

test("a payout whose unregistered recipient the gateway refuses is a 400 naming recipient_uuid, the field it sent", async () => {
  const shop = await payoutMerchant();
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    const auth = tenantAuth(shop.tenant, 'eu');
    const body = recipientCreateBody.parse({ gateway: 'sandbox', ...bank(ACCOUNTS.ordinary), idempotency_key: `rcp-refused-${Date.now()}` });
    await expect(createRecipient(depsRegisteringWith(db, temporal, () => registrationLost()), auth, body)).rejects.toMatchObject({ code: 'gateway_unavailable' });
    const [kept] = (await api.get('/payout-recipients', shop.secretKey)).body.data;
    const refusing = depsRegisteringWith(db, temporal, async () => ({ status: 'rejected', failureCode: 'invalid_account', failureMessage: 'no such account' }));
    const payout = payoutCreateBody.parse({ amount: 5000, currency: 'NGN', gateway: 'sandbox', recipient_uuid: kept.uuid });
    await expect(createPayoutCall(refusing, auth, payout)).rejects.toMatchObject({ code: 'recipient_registration_failed', param: 'recipient_uuid' });
  } finally {
    await db.close();
    await temporal.connection.close();
  }
});

describe('reads: the status endpoint, null bodies and other tenants', () => {
  test('the status endpoint asks the gateway and changes nothing stored', async () => {
    const done = await createPayout({ ...bank(ACCOUNTS.ordinary) });
    const before = await api.get(`/payouts/${done.body.payout_uuid}`, m.secretKey);
    const s = await api.get(`/payouts/${done.body.payout_uuid}/status`, m.secretKey);
    expect(s.status).toBe(200);
    expect(s.body).toEqual({ code: { type: 'succeeded', success: true, code: 200 }, response: expect.objectContaining({ id: done.body.gateway_payout_id, status: 'succeeded' }) });
    expect((await api.get(`/payouts/${done.body.payout_uuid}`, m.secretKey)).body).toEqual(before.body);
    // A uuid is the same payout in capitals: the path is read case-insensitively, as RFC 9562 says of uuids.
    const upper = String(done.body.payout_uuid).toUpperCase();
    expect((await api.get(`/payouts/${upper}`, m.secretKey)).body).toEqual(before.body);
    expect((await api.get(`/payouts/${upper}/status`, m.secretKey)).status).toBe(200);

    const open = await createPayout({ ...bank(ACCOUNTS.neverCompletes) });
    const pendingStatus = await api.get(`/payouts/${open.body.payout_uuid}/status`, m.secretKey);
    expect(pendingStatus.body).toMatchObject({ code: { type: 'pending', success: false, code: 202 }, error_message: expect.any(String) });

    const rejected = await createPayout({ ...bank(ACCOUNTS.rejected) });
    const rejectedStatus = await api.get(`/payouts/${rejected.body.payout_uuid}/status`, m.secretKey);
    expect(rejectedStatus.body).toMatchObject({ code: { type: 'rejected', success: false, code: 422 }, error_message: expect.stringMatching(/^invalid_account/) });
  });

  test("a gateway that does not answer the status question is a 503 gateway_unavailable that names none of the gateway's internals", async () => {
    const done = await createPayout({ ...bank(ACCOUNTS.ordinary) });
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      const down = createGatewayRegistry({ sandboxUrl: 'http://127.0.0.1:9', sandboxCallbackSecret: 'unused', timeoutMs: 2000 });
      const deps = { ...apiDeps(db, temporal), gateways: down, logger: createLogger({ name: 'payouts-test', level: 'silent' }) };
      const refused = await payoutGatewayStatus(deps, tenantAuth(m.tenant, 'eu'), done.body.payout_uuid).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ kind: 'unavailable', code: 'gateway_unavailable' });
      expect((refused as Error).message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|sandbox/);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });

  test('malformed uuids are 400; unknown ones read as a null body, or 404 on the status endpoint', async () => {
    expect((await api.get('/payouts/not-a-uuid', m.secretKey)).status).toBe(400);
    expect((await api.get('/payout-recipients/not-a-uuid', m.secretKey)).status).toBe(400);
    expect((await api.get('/payouts/not-a-uuid/status', m.secretKey)).status).toBe(400);
    const unknown = '6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c11';
    const missing = await api.get(`/payouts/${unknown}`, m.secretKey);
    expect([missing.status, missing.body, missing.headers.get('content-type')]).toEqual([200, null, 'application/json; charset=utf-8']);
    expect((await api.get(`/payout-recipients/${unknown}`, m.secretKey)).body).toBeNull();
    expect((await api.get(`/payouts/${unknown}/status`, m.secretKey)).status).toBe(404);
  });

  test("another tenant's payout and recipient read exactly like missing ones, and never appear in its lists", async () => {
    const mine = await createPayout({ ...bank(ACCOUNTS.ordinary) });
    const other = await payoutMerchant();
    expect((await api.get(`/payouts/${mine.body.payout_uuid}`, other.secretKey)).body).toBeNull();
    expect((await api.get(`/payout-recipients/${mine.body.recipient_uuid}`, other.secretKey)).body).toBeNull();
    const status = await api.get(`/payouts/${mine.body.payout_uuid}/status`, other.secretKey);
    expect(status.status).toBe(404);
    expect((await api.get(`/payouts?filter.uuid=$eq:${mine.body.payout_uuid}`, other.secretKey)).body.meta.totalItems).toBe(0);
    expect((await api.get('/payout-recipients', other.secretKey)).body.data).toEqual([]);
    const theirs = await createPayout({ ...bank(ACCOUNTS.ordinary), recipient_uuid: undefined }, other.secretKey);
    expect((await createPayout({ recipient_uuid: theirs.body.recipient_uuid })).body.error).toMatchObject({ param: 'recipient_uuid' });
  });

  test('every payout route answers 401 without a valid key', async () => {
    for (const [method, path] of [
      ['POST', '/payouts'],
      ['GET', '/payouts'],
      ['GET', '/payouts/6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c11'],
      ['GET', '/payouts/6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c11/status'],
      ['POST', '/payout-recipients'],
      ['GET', '/payout-recipients'],
    ] as const) {
      expect((await call(method, path, { key: 'sk_eu_not_a_real_key_000000000000', body: method === 'POST' ? {} : undefined })).status).toBe(401);
      expect((await call(method, path, { body: method === 'POST' ? {} : undefined })).status).toBe(401);
    }
  });
});

describe('page-numbered lists', () => {
  let shop: Merchant & { tenantNumber: number };
  const made: Array<{ uuid: string; amount: number; currency: string; narration: string; sub: string }> = [];
  beforeAll(async () => {
    shop = await payoutMerchant();
    const plan = [
      { amount: 100, currency: 'NGN', narration: 'Rent (May)', account: ACCOUNTS.ordinary },
      { amount: 250, currency: 'NGN', narration: 'rent june', account: ACCOUNTS.ordinary },
      { amount: 400, currency: 'GHS', narration: 'Bonus.*', account: ACCOUNTS.rejected },
      { amount: 550, currency: 'kes', narration: 'Refund a|b', account: ACCOUNTS.technicalFailure }, // stored KES
      { amount: 700, currency: 'NGN', narration: 'Salary', account: ACCOUNTS.ordinary },
      { amount: 850, currency: 'GHS', narration: '$where', account: ACCOUNTS.ordinary },
      { amount: 1000, currency: 'NGN', narration: 'Salary bonus', account: ACCOUNTS.neverCompletes },
    ];
    for (const p of plan) {
      const r = await createPayout({ amount: p.amount, currency: p.currency, narration: p.narration, ...bank(p.account) }, shop.secretKey);
      expect(r.status).toBe(201);
      made.push({ uuid: r.body.payout_uuid, amount: p.amount, currency: p.currency, narration: p.narration, sub: r.body.status });
    }
  }, 60_000);
  const list = (q: string) => api.get(`/payouts?${q}`, shop.secretKey);
  const amounts = async (q: string) => {
    const r = await list(q);
    expect(r.status).toBe(200);
    return r.body.data.map((p: any) => p.amount);
  };

  test('the envelope: data, meta and links; newest first by default', async () => {
    const r = await list('limit=3');
    expect(r.body.meta).toEqual({ itemsPerPage: 3, totalItems: 7, currentPage: 1, totalPages: 3, sortBy: [['created_at', 'DESC']] });
    expect(r.body.data.map((p: any) => p.amount)).toEqual([1000, 850, 700]);
    expect(r.body.data[0]).toMatchObject({ tenant_id: shop.tenantNumber, recipient: { tenant_id: shop.tenantNumber } });
    expect(r.body.links.previous).toBeNull();
    expect(r.body.links.next).toContain('page=2');
    expect(r.body.links.last).toContain('page=3');
    const last = await list('limit=3&page=3');
    expect(last.body.data.map((p: any) => p.amount)).toEqual([100]);
    expect(last.body.links.next).toBeNull();
    const past = await list('limit=3&page=9');
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ currentPage: 9, totalPages: 3, totalItems: 7 });
    const followed = await call('GET', r.body.links.next, { key: shop.secretKey });
    expect(followed.body.data.map((p: any) => p.amount)).toEqual([550, 400, 250]);
  });

  test('every sort column in both directions', async () => {
    expect(await amounts('sortBy=amount:ASC')).toEqual([100, 250, 400, 550, 700, 850, 1000]);
    expect(await amounts('sortBy=amount:DESC')).toEqual([1000, 850, 700, 550, 400, 250, 100]);
    expect(await amounts('sortBy=id:ASC')).toEqual([100, 250, 400, 550, 700, 850, 1000]);
    expect(await amounts('sortBy=id:DESC')).toEqual([1000, 850, 700, 550, 400, 250, 100]);
    expect(await amounts('sortBy=created_at:ASC')).toEqual([100, 250, 400, 550, 700, 850, 1000]);
    expect((await list('sortBy=currency:ASC')).body.error).toMatchObject({ param: 'sortBy' });
  });

  test('every filter operator, and $not with them', async () => {
    expect(await amounts('filter.currency=$eq:GHS&sortBy=amount:ASC')).toEqual([400, 850]);
    expect(await amounts('filter.currency=GHS&sortBy=amount:ASC')).toEqual([400, 850]);
    expect(await amounts('filter.currency=$not:$eq:NGN&sortBy=amount:ASC')).toEqual([400, 550, 850]);
    expect(await amounts('filter.currency=$in:GHS,KES&sortBy=amount:ASC')).toEqual([400, 550, 850]);
    expect(await amounts('filter.currency=$not:$in:GHS,KES&sortBy=amount:ASC')).toEqual([100, 250, 700, 1000]);
    expect(await amounts('filter.amount=$gt:700&sortBy=amount:ASC')).toEqual([850, 1000]);
    expect(await amounts('filter.amount=$gte:700&sortBy=amount:ASC')).toEqual([700, 850, 1000]);
    expect(await amounts('filter.amount=$lt:250&sortBy=amount:ASC')).toEqual([100]);
    expect(await amounts('filter.amount=$lte:250&sortBy=amount:ASC')).toEqual([100, 250]);
    expect(await amounts('filter.amount=$btw:250,700&sortBy=amount:ASC')).toEqual([250, 400, 550, 700]);
    expect(await amounts('filter.amount=$gte:250&filter.amount=$lt:700&sortBy=amount:ASC')).toEqual([250, 400, 550]);
    expect(await amounts('filter.narration=$ilike:rent&sortBy=amount:ASC')).toEqual([100, 250]);
    expect(await amounts('filter.narration=$sw:Salary&sortBy=amount:ASC')).toEqual([700, 1000]);
    expect(await amounts('filter.narration=$not:$sw:Salary&sortBy=amount:ASC')).toEqual([100, 250, 400, 550, 850]);
    expect(await amounts('filter.narration=$contains:bonus&sortBy=amount:ASC')).toEqual([1000]);
    expect(await amounts('filter.gateway_payout_id=$null&sortBy=amount:ASC')).toEqual([]);
    expect(await amounts('filter.gateway_payout_id=$not:$null&sortBy=amount:ASC')).toEqual([100, 250, 400, 550, 700, 850, 1000]);
    expect(await amounts('filter.sub_status=$eq:success&sortBy=amount:ASC')).toEqual([100, 250, 700, 850]);
    expect(await amounts('filter.status=$eq:canceled&sortBy=amount:ASC')).toEqual([400, 550]);
    expect(await amounts('filter.currency=$eq:EUR')).toEqual([]);
  });

  test('currency filters take the code in any case, as the create does (stored upper case), in every operator form', async () => {
    expect(await amounts('filter.currency=$eq:KES')).toEqual([550]);
    expect(await amounts('filter.currency=kes')).toEqual([550]);
    expect(await amounts('filter.currency=$eq:gHs&sortBy=amount:ASC')).toEqual([400, 850]);
    expect(await amounts('filter.currency=$in:ghs,Kes&sortBy=amount:ASC')).toEqual([400, 550, 850]);
    expect(await amounts('filter.currency=$not:$eq:ngn&sortBy=amount:ASC')).toEqual([400, 550, 850]);
    expect(await amounts('filter.currency=$not:$in:ghs,kes&sortBy=amount:ASC')).toEqual([100, 250, 700, 1000]);
    expect(await amounts('filter.currency=$contains:ke')).toEqual([550]);
    expect(await amounts('filter.currency=$gte:ngn&sortBy=amount:ASC')).toEqual([100, 250, 700, 1000]);
  });

  test('filter values are data: regex characters, operators and JSON match literally or nothing', async () => {
    expect(await amounts('filter.narration=$ilike:.*')).toEqual([400]);
    expect(await amounts('filter.narration=$ilike:a|b')).toEqual([550]);
    expect(await amounts('filter.narration=$eq:$where')).toEqual([850]);
    expect(await amounts('filter.narration=$sw:^Sal')).toEqual([]);
    expect(await amounts(`filter.currency=${encodeURIComponent('{"$ne":null}')}`)).toEqual([]);
    expect(await amounts('filter.narration=$contains:(May)')).toEqual([100]);
  });

  test('uuid and recipient_uuid filters take the ids in any case, as the paths do; so does the recipients list', async () => {
    const [a, b] = made;
    const upper = (uuid: string) => uuid.toUpperCase();
    const stored = (await api.get(`/payouts/${upper(a!.uuid)}`, shop.secretKey)).body;
    expect(stored.uuid).toBe(a!.uuid);
    expect(await amounts(`filter.uuid=$eq:${upper(a!.uuid)}`)).toEqual([a!.amount]);
    expect(await amounts(`filter.uuid=$in:${upper(a!.uuid)},${b!.uuid}&sortBy=amount:ASC`)).toEqual([a!.amount, b!.amount]);
    expect(await amounts(`filter.recipient_uuid=$eq:${upper(stored.recipient_uuid)}`)).toEqual([a!.amount]);
    const recipients = await api.get(`/payout-recipients?filter.uuid=$eq:${upper(stored.recipient_uuid)}`, shop.secretKey);
    expect(recipients.body.data.map((r: { uuid: string }) => r.uuid)).toEqual([stored.recipient_uuid]);
  });

  test('unknown properties, operators, bad values and limits are 400s naming them', async () => {
    const cases: Array<[string, string]> = [
      ['filter.secret=$eq:x', 'filter.secret'],
      ['filter.amount=$regex:1', 'filter.amount'],
      ['filter.amount=$gt:ten', 'filter.amount'],
      ['filter.amount=$btw:1', 'filter.amount'],
      ['limit=1001', 'limit'],
      ['limit=0', 'limit'],
      ['page=0', 'page'],
      ['sortBy=amount:UP', 'sortBy'],
      ['colour=red', 'colour'],
    ];
    for (const [q, param] of cases) {
      const r = await list(q);
      expect([q, r.status, r.body.error?.param]).toEqual([q, 400, param]);
    }
  });

  test('recipients are listed page-numbered too, by id and created_at, with their filters', async () => {
    const r = await api.get('/payout-recipients?sortBy=id:ASC&limit=2', shop.secretKey);
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ itemsPerPage: 2, totalItems: 7, totalPages: 4, sortBy: [['id', 'ASC']] });
    expect(r.body.data[0].id).toBeLessThan(r.body.data[1].id);
    const desc = await api.get('/payout-recipients?sortBy=created_at:DESC&filter.bank_account_number=$eq:000111111116', shop.secretKey);
    expect(desc.body.data).toHaveLength(1);
    expect((await api.get('/payout-recipients?sortBy=amount:ASC', shop.secretKey)).status).toBe(400);
  });
});

test('200 concurrent recipient creates get 200 distinct integer ids', async () => {
  const shop = await payoutMerchant();
  const replies = await Promise.all(
    Array.from({ length: 200 }, (_, i) => api.post('/payout-recipients', { gateway: 'sandbox', mobile_money_number: `+2332${String(i).padStart(8, '0')}` }, shop.secretKey)),
  );
  expect(replies.filter((r) => r.status !== 201).map((r) => [r.status, r.body])).toEqual([]);
  const ids: number[] = [];
  for (let page = 1; page <= 2; page++) {
    const r = await api.get(`/payout-recipients?limit=100&page=${page}&sortBy=id:ASC`, shop.secretKey);
    ids.push(...r.body.data.map((x: any) => x.id));
  }
  expect(ids).toHaveLength(200);
  expect(ids.every(Number.isInteger)).toBe(true);
  expect(new Set(ids).size).toBe(200);
}, 60_000);
