import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import {
  createPayorchClient,
  idempotencyKeyFor,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '../../clients/typescript/src';

// A minimal merchant backend: a product page, an order that creates a payment intent with the typed client,
// a checkout page with the embedded payment form, and a webhook endpoint that verifies every delivery with
// the client's verifier before it changes an order. Orders live in memory: this is an example.

export interface ShopConfig {
  /** Where this server calls the API (server to server). */
  apiUrl: string;
  /** Where customers' browsers load the embedded form from; apiUrl when not given. */
  browserApiUrl?: string;
  secretKey: string;
  publishableKey: string;
  /** The tenant's `whsec_...` webhook signing secret (admin: GET /admin/tenants/{tenant}/webhook-signing-secret). */
  webhookSigningSecret: string;
  /** Our own secret for our endpoint: the API sends it back in Service-Webhook-Secret. */
  endpointSecret: string;
  /** This shop's address as the API reaches it, for the webhook URL. */
  publicUrl: string;
}

export interface Order {
  id: string;
  amount: number;
  currency: string;
  paymentIntent: string;
  status: 'awaiting_payment' | 'paid' | 'canceled';
  /** Verified events applied to this order, by webhook-id (a redelivery is applied once). */
  events: Array<{ id: string; type: string }>;
}

const PRODUCT = { name: 'Espresso cup', amount: 2500, currency: 'EUR' as const };

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const money = (amount: number, currency: string) => `${(amount / 100).toFixed(2)} ${currency}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Example shop</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1rem}</style>
</head><body><header><a href="/">Example shop</a></header><main>${body}</main></body></html>`;
}

async function rawBody(req: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

export function createShop(config: ShopConfig) {
  const payorch = createPayorchClient({ apiKey: config.secretKey, baseUrl: config.apiUrl });
  const browserApiUrl = config.browserApiUrl ?? config.apiUrl;
  const orders = new Map<string, Order>();
  const router = new Router();

  router.get('/', (ctx) => {
    ctx.type = 'html';
    ctx.body = page(
      'Shop',
      `<h1>${esc(PRODUCT.name)}</h1><p>${money(PRODUCT.amount, PRODUCT.currency)}</p>
<form method="post" action="/orders"><button type="submit">Buy now</button></form>`,
    );
  });

  // The order and its payment intent. The idempotency key is derived from the order: a create sent again
  // (the client retries 429 and 503 itself; a crashed process retries the order) answers the same intent.
  router.post('/orders', async (ctx) => {
    const id = `ord_${randomBytes(6).toString('hex')}`;
    const intent = await unwrap(
      payorch.POST('/v202607/payment-intents', {
        body: {
          amount: PRODUCT.amount,
          currency: PRODUCT.currency,
          idempotency_key: idempotencyKeyFor('order', id, 'payment'),
          metadata: { order: id },
          webhooks: [
            {
              url: `${config.publicUrl}/webhooks`,
              secret: config.endpointSecret,
              events: ['payment.success', 'payment.canceled', 'payment.attempt_failed'],
            },
          ],
        },
      }),
    );
    orders.set(id, { id, amount: intent.amount, currency: intent.currency, paymentIntent: intent.payment_intent, status: 'awaiting_payment', events: [] });
    ctx.redirect(`/orders/${id}`);
    ctx.status = 303;
  });

  // The checkout page: the embedded form (an iframe of the API's, so card data never touches this page).
  router.get('/orders/:id', async (ctx) => {
    const order = orders.get(ctx.params.id);
    if (!order) return void (ctx.status = 404);
    // The browser's `payorch:payment` event only says when to look; the intent's state is asked here.
    if (order.status === 'awaiting_payment') {
      const pi = await unwrap(payorch.GET('/v202607/payment-intents/{payment_intent}', { params: { path: { payment_intent: order.paymentIntent } } }));
      if (pi.status === 'success') order.status = 'paid';
      if (pi.status === 'canceled') order.status = 'canceled';
    }
    ctx.type = 'html';
    ctx.body = page(
      `Order ${order.id}`,
      `<h1>Order ${esc(order.id)}</h1>
<p>${esc(PRODUCT.name)}: ${money(order.amount, order.currency)}</p>
<p>Status: <strong id="order-status">${esc(order.status)}</strong></p>
${
  order.status === 'awaiting_payment'
    ? `<div id="pay"></div>
<script src="${esc(browserApiUrl)}/js/v1/embed.js" data-publishable-key="${esc(config.publishableKey)}" data-payment-intent="${esc(order.paymentIntent)}" data-target="#pay"></script>
<script>
  document.getElementById('pay').addEventListener('payorch:payment', function (e) {
    if (e.detail.status === 'succeeded') setTimeout(function () { location.reload(); }, 500);
  });
</script>`
    : ''
}`,
    );
  });

  router.get('/api/orders/:id', (ctx) => {
    const order = orders.get(ctx.params.id);
    if (!order) return void (ctx.status = 404);
    ctx.body = order;
  });

  // Webhooks: the raw body, verified (Standard Webhooks signature and Service-Webhook-Secret) before
  // anything is trusted; 400 for a forgery, 2xx once applied (else the API retries).
  router.post('/webhooks', async (ctx) => {
    const raw = await rawBody(ctx.req);
    let event: WebhookEvent;
    try {
      event = verifyWebhook(raw, ctx.req.headers, { signingSecret: config.webhookSigningSecret, endpointSecret: config.endpointSecret });
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      ctx.status = 400;
      ctx.body = { error: err.message };
      return;
    }
    const data = event.data as { payment_intent?: string; metadata?: Record<string, string> };
    const order = [...orders.values()].find((o) => o.paymentIntent === data.payment_intent);
    if (order && !order.events.some((e) => e.id === event.id)) {
      order.events.push({ id: event.id, type: event.type });
      if (event.type === 'payment.success') order.status = 'paid';
      if (event.type === 'payment.canceled') order.status = 'canceled';
    }
    ctx.status = 204;
  });

  const app = new Koa();
  app.use(router.routes()).use(router.allowedMethods());
  return { app, orders };
}
