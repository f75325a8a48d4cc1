import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  cursorItems,
  createPayorchClient,
  idempotencyKey,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type PayorchClient,
} from '../../clients/typescript/src';
import { createShop } from '../../examples/merchant-backend/app';
import { fillCollection } from '../../examples/http/fill';
import { runCollection } from '../../examples/http/run';
import { ARTIFACTS, useBrowser } from './browser';
import { closeHookReceivers, createMerchant, eventually, getStack, startHookReceiver, type Merchant } from './harness';

// The typed client (clients/typescript) on the real stack: a merchant's whole flow through it (create,
// pay, refund, receive and verify the webhooks), so the document it is generated from cannot drift from
// the server unnoticed. Then the examples/ against the same stack: the merchant backend driven in
// Chromium through its embedded form, and the .http collection as `npm run dev` fills it in.

const servers: http.Server[] = [];

afterAll(async () => {
  await closeHookReceivers();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const { newPage } = useBrowser();

let m: Merchant;
let admin: PayorchClient;
let merchant: PayorchClient;
let signingSecret: string;

beforeAll(async () => {
  m = await createMerchant('Client Flow Shop');
  const { apiUrl, adminToken } = getStack();
  admin = createPayorchClient({ apiKey: adminToken, baseUrl: apiUrl });
  merchant = createPayorchClient({ apiKey: m.secretKey, baseUrl: apiUrl });
  signingSecret = (await unwrap(admin.GET('/admin/tenants/{tenant}/webhook-signing-secret', { params: { path: { tenant: m.tenant } } }))).secret;
  expect(signingSecret).toMatch(/^whsec_/);
});

test('create, pay, refund and both webhooks verified, all through the typed client', async () => {
  const rx = await startHookReceiver();
  const endpointSecret = 'client-flow-endpoint-secret';
  const key = idempotencyKey('client-flow-');

  // Create: 201, and the same idempotency key answers the same intent (200, not created).
  const create = await merchant.POST('/v202607/payment-intents', {
    body: {
      amount: 4200,
      currency: 'EUR',
      idempotency_key: key,
      metadata: { order: 'client-1' },
      webhooks: [{ url: rx.url, secret: endpointSecret, events: ['payment.success'] }],
    },
  });
  expect(create.response.status).toBe(201);
  const pi = create.data!;
  expect(pi).toMatchObject({ status: 'pending', amount: 4200, currency: 'EUR', resource_created: true });
  const again = await merchant.POST('/v202607/payment-intents', { body: { amount: 4200, currency: 'EUR', idempotency_key: key } });
  expect(again.response.status).toBe(200);
  expect(again.data).toMatchObject({ payment_intent: pi.payment_intent, resource_created: false });

  // Pay: the attempts endpoint with the publishable key and a sandbox token, as the payment form does.
  const browserSide = createPayorchClient({ apiKey: m.publishableKey, baseUrl: getStack().apiUrl });
  const attempt = await unwrap(
    browserSide.POST('/v202607/payment-intents/{payment_intent}/attempts', { params: { path: { payment_intent: pi.payment_intent } }, body: { token: 'tok_success' } }),
  );
  expect(attempt.status).toBe('success');
  const paid = await unwrap(merchant.GET('/v202607/payment-intents/{payment_intent}', { params: { path: { payment_intent: pi.payment_intent } } }));
  expect(paid.status).toBe('success');

  // Refund part of it, with its own webhook endpoint.
  const refund = await unwrap(
    merchant.POST('/v202607/refunds', {
      body: {
        payment_intent: pi.payment_intent,
        amount: 1500,
        currency: 'EUR',
        idempotency_key: idempotencyKey(),
        webhooks: [{ url: rx.url, secret: endpointSecret, events: ['refund.success'] }],
      },
    }),
  );
  expect(refund).toMatchObject({ payment_intent: pi.payment_intent, amount: 1500, refundable_amount_left: 2700 });

  // Both deliveries arrive and verify: Standard Webhooks signature with the tenant's whsec_ secret, and
  // Service-Webhook-Secret with the endpoint's own.
  const both = await eventually(async () => (rx.received.length >= 2 ? rx.received : undefined), 20_000, 'payment.success and refund.success');
  const events = both.map((d) => verifyWebhook(d.raw, d.headers, { signingSecret, endpointSecret }));
  expect(events.map((e) => e.type).sort()).toEqual(['payment.success', 'refund.success']);
  const success = events.find((e) => e.type === 'payment.success')!;
  expect(success.id).toBe(both[events.indexOf(success)].headers['webhook-id']);
  expect(success.data).toMatchObject({ payment_intent: pi.payment_intent, amount: 4200, status: 'success', metadata: { order: 'client-1' } });
  expect(events.find((e) => e.type === 'refund.success')!.data).toMatchObject({ refund: refund.refund, payment_intent: pi.payment_intent, amount: 1500 });

  // What a forgery gets: another signing secret, another endpoint secret, a body changed in transit.
  const [d] = both;
  const otherSecret = 'whsec_' + Buffer.from('not-the-tenant-secret-0123456789').toString('base64');
  expect(() => verifyWebhook(d.raw, d.headers, { signingSecret: otherSecret })).toThrow(WebhookVerificationError);
  expect(() => verifyWebhook(d.raw, d.headers, { endpointSecret: 'guess' })).toThrow(WebhookVerificationError);
  expect(() => verifyWebhook(d.raw.replace('4200', '4300').replace('1500', '1600'), d.headers, { signingSecret })).toThrow(WebhookVerificationError);

  // The cursor iterator finds the intent, and its events, through has_more pages of 1.
  const seen: string[] = [];
  for await (const item of cursorItems((page) => merchant.GET('/v202607/payment-intents', { params: { query: { ...page, limit: 1 } } }))) seen.push(item.payment_intent);
  expect(seen).toContain(pi.payment_intent);
  expect(new Set(seen).size).toBe(seen.length);
  const types: string[] = [];
  for await (const e of cursorItems((page) => merchant.GET('/v202607/events', { params: { query: { ...page, limit: 1 } } }))) types.push(e.type);
  expect(types).toEqual(expect.arrayContaining(['payment.success', 'refund.success']));

  // The API's errors arrive as the typed error shape.
  const missing = await merchant.GET('/v202607/payment-intents/{payment_intent}', { params: { path: { payment_intent: 'pi_eu_000000000000' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.error.code).toBeDefined();
});

test('examples/merchant-backend: an order pays through the embedded form and its webhook is verified', async () => {
  const { apiUrl } = getStack();
  const shopServer = http.createServer();
  servers.push(shopServer);
  await new Promise<void>((r) => shopServer.listen(0, '127.0.0.1', r));
  const shopUrl = `http://127.0.0.1:${(shopServer.address() as AddressInfo).port}`;
  const { app, orders } = createShop({
    apiUrl,
    secretKey: m.secretKey,
    publishableKey: m.publishableKey,
    webhookSigningSecret: signingSecret,
    endpointSecret: 'example-shop-secret',
    publicUrl: shopUrl,
  });
  shopServer.on('request', app.callback());

  const page = await newPage();
  await page.goto(shopUrl);
  await page.getByRole('button', { name: 'Buy now' }).click();
  await page.waitForURL(/\/orders\/ord_[0-9a-f]+$/);
  const orderId = page.url().split('/').pop()!;
  const form = page.frameLocator('iframe[title="Secure payment form"]');
  await form.getByLabel('Card number').fill('4242 4242 4242 4242');
  await form.getByLabel('Expiry date').fill('12 / 34');
  await form.getByLabel('CVC').fill('123');
  await form.getByRole('button', { name: 'Pay 25.00 EUR' }).click();
  // The page reloads on the form's event; the shop asks the API, and the webhook lands too.
  await page.locator('#order-status', { hasText: 'paid' }).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'example-shop-paid.png'), fullPage: true });
  await page.close();

  const order = await eventually(async () => {
    const o = orders.get(orderId);
    return o?.events.some((e) => e.type === 'payment.success') ? o : undefined;
  }, 20_000, 'the verified payment.success at the example shop');
  expect(order.status).toBe('paid');

  // A forged delivery is refused by the shop.
  const forged = await fetch(`${shopUrl}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-webhook-secret': 'example-shop-secret', 'webhook-id': 'evt_x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: JSON.stringify({ id: 'evt_x', type: 'payment.canceled', data: { payment_intent: order.paymentIntent } }),
  });
  expect(forged.status).toBe(400);
  expect(orders.get(orderId)!.status).toBe('paid');
});

test('examples/http/payorch.http, filled in as npm run dev does, runs top to bottom', async () => {
  const { apiUrl, adminToken } = getStack();
  const text = fillCollection({ baseUrl: apiUrl, secretKey: m.secretKey, publishableKey: m.publishableKey, adminToken, tenant: m.tenant });
  expect(text).not.toMatch(/REPLACE_ME/);
  const sent = await runCollection(text);
  expect(sent.filter((s) => s.status >= 300).map((s) => `${s.status} ${s.method} ${s.url}: ${JSON.stringify(s.body)}`)).toEqual([]);
  expect(sent.length).toBeGreaterThanOrEqual(12);
  const pay = sent.find((s) => s.title.startsWith('Pay it'))!;
  expect(pay.body).toMatchObject({ status: 'success' });
});
