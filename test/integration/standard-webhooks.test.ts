import { Webhook } from 'standardwebhooks';
import {
  admin,
  api,
  call,
  closeHookReceivers,
  createMerchant,
  eventually,
  getStack,
  mongo,
  pay,
  signingSecretOf,
  startHookReceiver,
  type Delivery,
  type HookReceiver,
  type Merchant,
} from './harness';

// Our deliveries as a merchant verifies them: the `standardwebhooks` library (what a merchant installs),
// given the tenant's `whsec_` signing secret from the admin API, verifies REAL deliveries made by the
// running stack to a receiver on loopback: before and after a rotation (old and new secret both verify
// during the overlap, only the new one after it), and refuses a tampered body, a stale timestamp, a
// re-dated request and another tenant's secret.

afterAll(closeHookReceivers);

afterEach(() => jest.restoreAllMocks());

const headersOf = (d: Delivery) => d.headers as Record<string, string>;

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant('Standard Webhooks shop');
});

async function paidIntentDelivery(webhook: Record<string, unknown>, rx: HookReceiver) {
  const created = await api.post('/v202607/payment-intents', { amount: 1800, currency: 'EUR', webhooks: [{ url: rx.url, events: ['payment.success'], ...webhook }] }, m.secretKey);
  expect(created.status).toBe(201);
  const pi = created.body.payment_intent as string;
  expect((await pay(pi, m.publishableKey)).body.status).toBe('success');
  return eventually(async () => rx.received.find((d) => d.body?.type === 'payment.success' && d.body.data?.payment_intent === pi), 15_000, `payment.success of ${pi}`);
}

describe('the signing secret in the admin API', () => {
  test('is whsec_ + base64 of 32 bytes, created once, per tenant, admin only', async () => {
    const first = await signingSecretOf(m.tenant);
    expect(first).toEqual({ tenant: m.tenant, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), created_at: expect.any(String), previous: [] });
    expect(Buffer.from(first.secret.slice(6), 'base64')).toHaveLength(32);
    expect((await signingSecretOf(m.tenant)).secret).toBe(first.secret);
    const other = await createMerchant();
    expect((await signingSecretOf(other.tenant)).secret).not.toBe(first.secret);

    expect((await admin.get('/admin/tenants/ten_eu_doesnotexist0000/webhook-signing-secret')).status).toBe(404);
    expect((await admin.post('/admin/tenants/ten_eu_doesnotexist0000/webhook-signing-secret/rotate', {})).status).toBe(404);
    expect((await call('GET', `/admin/tenants/${m.tenant}/webhook-signing-secret`)).status).toBe(401);
    expect((await call('GET', `/admin/tenants/${m.tenant}/webhook-signing-secret`, { key: m.secretKey })).status).toBe(401);
    expect((await call('POST', `/admin/tenants/${m.tenant}/webhook-signing-secret/rotate`, { key: m.secretKey, body: {} })).status).toBe(401);
  });


  test('a rotate retried with its idempotency key (body or Idempotency-Key header) rotates once; a fourth rotation says the cap and when it lifts', async () => {
    const shop = await createMerchant();
    const rotate = (opts: { body?: Record<string, unknown>; headers?: Record<string, string> } = {}) =>
      call('POST', `/admin/tenants/${shop.tenant}/webhook-signing-secret/rotate`, { key: getStack().adminToken, body: opts.body ?? {}, ...(opts.headers ? { headers: opts.headers } : {}) });
    const first = await rotate({ body: { idempotency_key: 'rot-a' } });
    expect(first.status).toBe(200);
    // Sent again after the first landed (the retry of a rotate whose answer was lost): the same rotation.
    const retried = await rotate({ body: { idempotency_key: 'rot-a' } });
    expect(retried.status).toBe(200);
    expect(retried.body.secret).toBe(first.body.secret);
    expect(retried.body.previous).toHaveLength(1);
    // The Stripe header is the same key; two at once with one key rotate once.
    const [h1, h2] = await Promise.all([rotate({ headers: { 'idempotency-key': 'rot-b' } }), rotate({ headers: { 'idempotency-key': 'rot-b' } })]);
    expect([h1.status, h2.status]).toEqual([200, 200]);
    expect(h1.body.secret).toBe(h2.body.secret);
    expect(h1.body.previous).toHaveLength(2);
    const third = await rotate();
    expect(third.status).toBe(200);
    expect(third.body.previous).toHaveLength(3);
    const fourth = await rotate({ body: { idempotency_key: 'rot-d' } });
    expect(fourth.status).toBe(409);
    const oldest = third.body.previous.at(-1).expires_at as string;
    expect(fourth.body.error).toMatchObject({
      code: 'webhook_signing_secret_rotation_limit',
      message: expect.stringContaining(`at most 3 previous secrets sign beside the current one. The oldest of them expires at ${oldest}`),
    });
    expect((await signingSecretOf(shop.tenant)).secret).toBe(third.body.secret);
  });
});

describe('real deliveries, verified by the standardwebhooks library', () => {
  test("verify with the tenant's signing secret; Service-Webhook-Secret still carries the endpoint's own", async () => {
    const rx = await startHookReceiver();
    const { secret } = await signingSecretOf(m.tenant);
    const d = await paidIntentDelivery({ secret: 'merchant-own-secret' }, rx);
    expect(d.headers['service-webhook-secret']).toBe('merchant-own-secret');
    expect(d.headers['webhook-id']).toBe(d.body?.id);
    expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(d.raw, headersOf(d))).toEqual(d.body);
    // The endpoint's secret is not the key, in either reading of it.
    expect(() => new Webhook(`whsec_${Buffer.from('merchant-own-secret').toString('base64')}`).verify(d.raw, headersOf(d))).toThrow('No matching signature found');
    expect(() => new Webhook('merchant-own-secret', { format: 'raw' }).verify(d.raw, headersOf(d))).toThrow('No matching signature found');
  });

  test('an endpoint without a secret is signed too, and gets no Service-Webhook-Secret', async () => {
    const rx = await startHookReceiver();
    const d = await paidIntentDelivery({}, rx);
    expect(d.headers['service-webhook-secret']).toBeUndefined();
    expect(new Webhook((await signingSecretOf(m.tenant)).secret).verify(d.raw, headersOf(d))).toEqual(d.body);
  });

  test("refuses a tampered body, a stale timestamp, a re-dated request and another tenant's secret", async () => {
    const rx = await startHookReceiver();
    const webhook = new Webhook((await signingSecretOf(m.tenant)).secret);
    const d = await paidIntentDelivery({ secret: 'tamper-test' }, rx);
    expect(() => webhook.verify(d.raw, headersOf(d))).not.toThrow();

    expect(() => webhook.verify(d.raw.replace('"amount":1800', '"amount":1'), headersOf(d))).toThrow('No matching signature found');
    expect(() => webhook.verify(JSON.stringify(d.body, null, 2), headersOf(d))).toThrow('No matching signature found');
    const sentAt = Number(d.headers['webhook-timestamp']);
    // The captured request replayed 5 minutes and 1 second later...
    jest.spyOn(Date, 'now').mockReturnValue((sentAt + 301) * 1000);
    expect(() => webhook.verify(d.raw, headersOf(d))).toThrow('Message timestamp too old');
    // ...or re-dated to look fresh: the signature covers the timestamp.
    expect(() => webhook.verify(d.raw, { ...headersOf(d), 'webhook-timestamp': String(sentAt + 301) })).toThrow('No matching signature found');
    jest.restoreAllMocks();

    const other = new Webhook((await signingSecretOf((await createMerchant()).tenant)).secret);
    expect(() => other.verify(d.raw, headersOf(d))).toThrow('No matching signature found');
  });

  test('an older-interface delivery (webhook_urls, webhook_secret) verifies the same way', async () => {
    const rx = await startHookReceiver();
    const created = await api.post('/payment-intents', { gateway: 'sandbox', amount: 2500, currency: 'EUR', webhook_urls: [rx.url], webhook_secret: 'older-secret' }, m.secretKey);
    expect(created.status).toBe(201);
    const pi = (await api.get(`/payment-intents/${created.body.payment_intent}`, m.secretKey)).body.initial_data.payment_intent_id as string;
    await pay(pi, m.publishableKey);
    const d = await eventually(async () => rx.received.find((x) => x.body?.event === 'payment.success'), 15_000, 'the older payment.success');
    expect(d.headers['service-webhook-secret']).toBe('older-secret');
    expect(new Webhook((await signingSecretOf(m.tenant)).secret).verify(d.raw, headersOf(d))).toEqual(d.body);
  });
});

describe('rotation', () => {
  test('both secrets verify during the 24 h overlap, only the new one after it', async () => {
    const shop = await createMerchant('Rotating shop');
    const rx = await startHookReceiver();
    const before = (await signingSecretOf(shop.tenant)).secret;
    const created = await api.post('/v202607/payment-intents', { amount: 900, currency: 'EUR', webhooks: [{ url: rx.url, secret: 'rot', events: ['payment.success'] }] }, shop.secretKey);
    await pay(created.body.payment_intent, shop.publishableKey);
    const first = await eventually(async () => rx.received[0], 15_000, 'the first delivery');
    expect(() => new Webhook(before).verify(first.raw, headersOf(first))).not.toThrow();
    const eventId = first.headers['webhook-id'] as string;

    const rotatedAt = Date.now();
    const rotated = await admin.post(`/admin/tenants/${shop.tenant}/webhook-signing-secret/rotate`, {});
    expect(rotated.status).toBe(200);
    const after = rotated.body.secret as string;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    expect(rotated.body.previous).toHaveLength(1);
    const expiresAt = Date.parse(rotated.body.previous[0].expires_at);
    expect(Math.abs(expiresAt - rotatedAt - 24 * 3600_000)).toBeLessThan(60_000);
    expect(await signingSecretOf(shop.tenant)).toEqual(rotated.body);

    // A redelivery of the same event after the rotation: signed with both, each verifies alone.
    const redeliver = async () => {
      const n = rx.received.length;
      expect((await api.post(`/v202607/events/${eventId}/redeliver`, {}, shop.secretKey)).status).toBe(202);
      return eventually(async () => rx.received[n], 15_000, 'the redelivery');
    };
    const during = await redeliver();
    expect(during.raw).toBe(first.raw);
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(new Webhook(after).verify(during.raw, headersOf(during))).toEqual(first.body);
    expect(new Webhook(before).verify(during.raw, headersOf(during))).toEqual(first.body);

    // A new event during the overlap: the same.
    const second = await api.post('/v202607/payment-intents', { amount: 901, currency: 'EUR', webhooks: [{ url: rx.url, events: ['payment.success'] }] }, shop.secretKey);
    await pay(second.body.payment_intent, shop.publishableKey);
    const fresh = await eventually(async () => rx.received.find((d) => d.body?.data?.payment_intent === second.body.payment_intent), 15_000, 'the second event');
    for (const secret of [after, before]) expect(() => new Webhook(secret).verify(fresh.raw, headersOf(fresh))).not.toThrow();

    // 24 h later: the overlap is over (the stored expiry moved to the past, as time would have).
    const client = await mongo();
    try {
      const r = await client.db().collection('webhook_signing_secrets').updateOne({ _id: shop.tenant as never }, { $set: { 'previous.0.expires_at': new Date(Date.now() - 1000) } });
      expect(r.matchedCount).toBe(1);
    } finally {
      await client.close();
    }
    expect((await signingSecretOf(shop.tenant)).previous).toEqual([]);
    const later = await redeliver();
    expect(later.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(after).verify(later.raw, headersOf(later))).toEqual(first.body);
    expect(() => new Webhook(before).verify(later.raw, headersOf(later))).toThrow('No matching signature found');
  });

  test('a rotation that died between claiming its version and writing it blocks the next one only briefly, not for good', async () => {
    const shop = await createMerchant('Rotation that died');
    const before = (await signingSecretOf(shop.tenant)).secret;
    const client = await mongo();
    try {
      const stored = () => client.db().collection('webhook_signing_secrets').findOne({ _id: shop.tenant as never });
      const version = (await stored())!.version as number;
      // As a rotation leaves it when its process dies after the claim: the next version claimed, never written.
      await client.db().collection('webhook_signing_rotations').insertOne({ _id: `${shop.tenant}:${version + 1}` as never, tenant_id: shop.tenant, created_at: new Date(Date.now() - 3_600_000) });
      const rotated = await admin.post(`/admin/tenants/${shop.tenant}/webhook-signing-secret/rotate`, {});
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(before);
      expect((await stored())!.version).toBe(version + 1);
    } finally {
      await client.close();
    }
  });
});
