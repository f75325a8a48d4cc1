import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { EVENT_TYPES } from '../../api/http/common-schemas';
import { forkTs, freePort, type Proc } from '../../scripts/stack';
import { admin, api, eventually, getStack, pay, type Merchant, type Reply, listening, startHookReceiver, type HookReceiver } from './harness';

// Where the spec contradicts itself or is silent, the choice we made, on the real stack (issue 18):
//   (1) the base address is region-specific: an intent's `url` and a method's `logo_url` name the host of
//       the intent's (the request's) region;
//   (a) an idempotent create answers the intent's current state;
//   (b) `currency` is answered in upper case;
//   (c) the webhook event types are a closed list, published in the OpenAPI document;
//   (d) refund events go only to the refund's own `webhooks`.

/**
 * A request with a Host header of our choosing (fetch does not send one): the host decides the region a
 * request is addressed to, and the test hosts (api-us.pay.test) need not resolve.
 */
function at(baseUrl: string, host: string | null, method: string, p: string, opts: { key?: string; body?: unknown } = {}): Promise<Reply> {
  const target = new URL(p, baseUrl);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(host ? { host } : {}),
    ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
    ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method, headers }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (raw += c));
      res.on('end', () => {
        let body: unknown = raw;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          /* not JSON: keep the text */
        }
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve({ status: res.statusCode ?? 0, body, headers: h });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A tenant of `region` with a live sandbox card connector (createMerchant makes eu ones). */
async function merchantIn(region: string): Promise<Merchant> {
  const t = await admin.post('/admin/tenants', { name: `Spec choices ${region}`, region });
  expect(t.status).toBe(201);
  const c = await admin.post(`/admin/tenants/${t.body.tenant}/connectors`, { gateway: 'sandbox', live: true, payment_methods: ['card'] });
  expect(c.status).toBe(201);
  return { tenant: t.body.tenant, secretKey: t.body.secret_key, publishableKey: t.body.publishable_key, connector: c.body.connector };
}


let eu: Merchant;
let us: Merchant;
beforeAll(async () => {
  [eu, us] = await Promise.all([merchantIn('eu'), merchantIn('us')]);
});

describe('(1) the base address is region-specific', () => {
  // The shared stack's PUBLIC_BASE_URL is http://127.0.0.1:<port>, an IP, which takes no `api-<region>.`
  // prefix. A second API process (same MongoDB, Temporal and worker) gets a public base on a domain,
  // http://pay.test:<port>, so each region's links name their own host: api-eu.pay.test, api-us.pay.test.
  let regional: Proc;
  let regionalUrl: string;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const logDir = mkdtempSync(path.join(os.tmpdir(), 'payorch-spec-choices-'));
    regional = forkTs('api-regional', 'api/main.ts', { ...getStack().env, PORT: String(port), PUBLIC_BASE_URL: `http://pay.test:${port}` }, logDir);
    await listening(regional, 60_000);
    regionalUrl = `http://127.0.0.1:${port}`;
  }, 90_000);
  afterAll(async () => {
    await regional?.stop();
  });

  const hostOf = (region: string) => `api-${region}.pay.test:${port}`;
  const on = (host: string, method: string, p: string, opts: { key?: string; body?: unknown } = {}) => at(regionalUrl, host, method, p, opts);

  test.each([['eu'], ['us']])("an intent of region %s: its url is on api-<region>. and that host serves the region's key", async (region) => {
    const m = region === 'eu' ? eu : us;
    const created = await on(hostOf(region), 'POST', '/v202607/payment-intents', { key: m.secretKey, body: { amount: 1500, currency: 'EUR' } });
    expect(created.status).toBe(201);
    expect(created.body.payment_intent).toMatch(new RegExp(`^pi_${region}_`));
    const url = new URL(created.body.url);
    expect(url.host).toBe(hostOf(region));
    expect(url.pathname).toBe(`/pay/${created.body.payment_intent}`);

    // region detection accepts the generated host for that region: the key works there ...
    const got = await on(url.host, 'GET', `/v202607/payment-intents/${created.body.payment_intent}`, { key: m.secretKey });
    expect(got.status).toBe(200);
    expect(got.body.url).toBe(created.body.url);
    // ... and the key of the other region does not
    const other = region === 'eu' ? us : eu;
    const wrong = await on(url.host, 'GET', `/v202607/payment-intents/${created.body.payment_intent}`, { key: other.secretKey });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('wrong_region');

    // the hosted page opens at its url
    const page = await on(url.host, 'GET', `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);

    // cancel answers the workflow's view: the same url
    const canceled = await on(url.host, 'POST', `/v202607/payment-intents/${created.body.payment_intent}/cancel`, { key: m.secretKey });
    expect(canceled.status).toBe(200);
    expect(canceled.body.url).toBe(created.body.url);
  });

  test.each([['eu'], ['us']])("a payment-method listing of region %s names logos on that region's host", async (region) => {
    const m = region === 'eu' ? eu : us;
    const r = await on(hostOf(region), 'GET', '/v202607/payment-methods', { key: m.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.payment_methods.map((e: { name: string }) => e.name)).toEqual(['card']); // merchantIn's one card connector
    for (const entry of r.body.payment_methods) {
      expect(new URL(entry.logo_url).host).toBe(hostOf(region));
      expect(new URL(entry.favicon_url).host).toBe(hostOf(region));
    }
    const logo = new URL(r.body.payment_methods[0].logo_url);
    const svg = await on(logo.host, 'GET', logo.pathname);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  test('on an IP base (the shared stack) every region keeps the plain base, served as the default region', async () => {
    const { apiUrl } = getStack();
    const fromEu = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR' }, eu.secretKey);
    const fromUs = await at(apiUrl, `api-us.pay.test:${new URL(apiUrl).port}`, 'POST', '/v202607/payment-intents', {
      key: us.secretKey,
      body: { amount: 100, currency: 'EUR' },
    });
    expect([fromEu.status, fromUs.status]).toEqual([201, 201]);
    expect(new URL(fromEu.body.url).origin).toBe(apiUrl);
    expect(new URL(fromUs.body.url).origin).toBe(apiUrl);
    // a us intent's hosted page opens on the default-region host: it needs its client secret, not a key
    const page = await fetch(fromUs.body.url);
    expect(page.status).toBe(200);
  });
});

describe('(a) an idempotent create answers the intent in its current state', () => {
  const create = (body: Record<string, unknown>) => api.post('/v202607/payment-intents', body, eu.secretKey);
  const stateOf = (id: string) => api.get(`/v202607/payment-intents/${id}`, eu.secretKey);

  test('after payment: success', async () => {
    const key = `paid-${Date.now()}`;
    const first = await create({ amount: 900, currency: 'EUR', idempotency_key: key });
    expect([first.status, first.body.status, first.body.resource_created]).toEqual([201, 'pending', true]);
    expect((await pay(first.body.payment_intent, eu.publishableKey)).body.status).toBe('success');
    await eventually(async () => ((await stateOf(first.body.payment_intent)).body.status === 'success' ? true : undefined));

    const again = await create({ amount: 900, currency: 'EUR', idempotency_key: key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, status: 'success', resource_created: false });
  });

  test('after cancel: canceled', async () => {
    const key = `canceled-${Date.now()}`;
    const first = await create({ amount: 901, currency: 'EUR', idempotency_key: key });
    expect((await api.post(`/v202607/payment-intents/${first.body.payment_intent}/cancel`, undefined, eu.secretKey)).status).toBe(200);
    await eventually(async () => ((await stateOf(first.body.payment_intent)).body.status === 'canceled' ? true : undefined));

    const again = await create({ amount: 901, currency: 'EUR', idempotency_key: key });
    expect([again.status, again.body.status, again.body.resource_created, again.body.payment_intent]).toEqual([200, 'canceled', false, first.body.payment_intent]);
  });

  test('the OpenAPI document says so on the create response', async () => {
    const doc = (await api.get('/openapi.json')).body;
    for (const version of ['v202607', 'v202608']) {
      const op = doc.paths[`/${version}/payment-intents`].post;
      const status = op.responses['200'].content['application/json'].schema.properties.status;
      expect(status.description).toMatch(/current state/);
      expect(op.requestBody.content['application/json'].schema.properties.idempotency_key.description).toMatch(/current state/);
    }
  });
});

describe('(b) currency is answered in upper case', () => {
  test('on create, retrieve, list and refund, whatever case was sent', async () => {
    const created = await api.post('/v202607/payment-intents', { amount: 1200, currency: 'eur' }, eu.secretKey);
    expect([created.status, created.body.currency]).toEqual([201, 'EUR']);
    const id = created.body.payment_intent;
    expect((await api.get(`/v202607/payment-intents/${id}`, eu.secretKey)).body.currency).toBe('EUR');
    const listed = await api.get('/v202607/payment-intents?currency=eUr&limit=100', eu.secretKey);
    expect((listed.body.data as { payment_intent: string; currency: string }[]).find((d) => d.payment_intent === id)?.currency).toBe('EUR');

    expect((await pay(id, eu.publishableKey)).body.status).toBe('success');
    await eventually(async () => ((await api.get(`/v202607/payment-intents/${id}`, eu.secretKey)).body.status === 'success' ? true : undefined));
    const refund = await api.post('/v202607/refunds', { payment_intent: id, amount: 200, currency: 'Eur' }, eu.secretKey);
    expect([refund.status, refund.body.currency]).toEqual([201, 'EUR']);
    expect((await api.get(`/v202607/refunds/${refund.body.refund}`, eu.secretKey)).body.currency).toBe('EUR');

    const usd = await api.post('/v202608/payment-intents', { amount: 1, currency: 'uSd' }, eu.secretKey);
    expect([usd.status, usd.body.currency]).toEqual([201, 'USD']);
  });

  test('the OpenAPI document says so', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const body = (p: string) => doc.paths[p].post.requestBody.content['application/json'].schema;
    expect(body('/v202607/payment-intents').properties.currency.description).toMatch(/upper case/);
    expect(body('/v202608/payment-intents').properties.currency.description).toMatch(/upper case/);
    expect(body('/v202607/refunds').properties.currency.description).toMatch(/upper case/);
    expect(doc.paths['/v202607/payment-intents/{payment_intent}'].get.responses['200'].content['application/json'].schema.properties.currency.description).toMatch(
      /upper case/,
    );
  });
});

describe('(c) the webhook event types are a closed list, published in the OpenAPI document', () => {
  test('the document lists them as WebhookEventType, referenced by every v202607 webhooks field', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const listed = doc.components.schemas.WebhookEventType;
    expect(listed.type).toBe('string');
    expect(listed.enum).toEqual([...EVENT_TYPES]);
    expect(listed.description).toMatch(/closed/);
    for (const p of ['/v202607/payment-intents', '/v202608/payment-intents', '/v202607/refunds']) {
      const events = doc.paths[p].post.requestBody.content['application/json'].schema.properties.webhooks.items.properties.events;
      expect({ p, items: events.items }).toEqual({ p, items: { $ref: '#/components/schemas/WebhookEventType' } });
    }
  });

  test('every listed type an intent sends is accepted; a well-formed type outside the list, or one an intent never sends, is refused, naming it', async () => {
    const intentTypes = EVENT_TYPES.filter((t) => t.startsWith('payment.') || t.startsWith('refund.'));
    const all = await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', webhooks: [{ url: 'https://hooks.example/a', events: intentTypes }] }, eu.secretKey);
    expect(all.status).toBe(201);
    const billing = await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', webhooks: [{ url: 'https://hooks.example/a', events: ['payment.success', 'invoice.paid'] }] }, eu.secretKey);
    expect({ status: billing.status, param: billing.body.error?.param, message: billing.body.error?.message }).toEqual({ status: 400, param: 'webhooks[0][events][1]', message: expect.stringContaining('a payment intent never sends invoice.paid') });
    for (const type of ['payment.refunded', 'refund.created', 'payment.*']) {
      const r = await api.post(
        '/v202607/payment-intents',
        { amount: 1, currency: 'EUR', webhooks: [{ url: 'https://hooks.example/a', events: ['payment.success', type] }] },
        eu.secretKey,
      );
      expect({ type, status: r.status, param: r.body.error?.param }).toEqual({ type, status: 400, param: 'webhooks[0][events][1]' });
    }
  });
});

describe("(d) refund events go only to the refund's own webhooks", () => {
  let intentRx: HookReceiver;
  let refundRx: HookReceiver;
  beforeAll(async () => {
    [intentRx, refundRx] = await Promise.all([startHookReceiver(), startHookReceiver()]);
  });
  afterAll(async () => {
    await Promise.all([intentRx?.close(), refundRx?.close()]);
  });

  /** The refund.success event of `refund`, once recorded, with the endpoints it was sent to. */
  const refundEvent = (refund: string) =>
    eventually(async () => {
      const list = await api.get('/v202607/events?type=refund.success&limit=100', eu.secretKey);
      const e = (list.body.data as { id: string; data?: { refund?: string } }[]).find((x) => x.data?.refund === refund);
      return e ? (await api.get(`/v202607/events/${e.id}`, eu.secretKey)).body : undefined;
    }, 20_000, `refund.success of ${refund}`);

  test("an intent endpoint subscribed to refund events gets none of them; the refund's endpoint does", async () => {
    const intent = await api.post(
      '/v202607/payment-intents',
      { amount: 3000, currency: 'EUR', webhooks: [{ url: intentRx.url, events: ['payment.success', 'refund.success', 'refund.canceled'] }] },
      eu.secretKey,
    );
    expect(intent.status).toBe(201);
    const pi = intent.body.payment_intent;
    expect((await pay(pi, eu.publishableKey)).body.status).toBe('success');
    await eventually(async () => (intentRx.of('payment.success').length > 0 ? true : undefined), 15_000, 'payment.success at the intent endpoint');

    const withHooks = await api.post(
      '/v202607/refunds',
      { payment_intent: pi, amount: 1000, currency: 'EUR', webhooks: [{ url: refundRx.url, events: ['refund.success'] }] },
      eu.secretKey,
    );
    const without = await api.post('/v202607/refunds', { payment_intent: pi, amount: 500, currency: 'EUR' }, eu.secretKey);
    expect([withHooks.status, without.status]).toEqual([201, 201]);

    // the events record where each was sent: the refund's endpoint, and nowhere for the refund without one
    const [sent, unsent] = await Promise.all([refundEvent(withHooks.body.refund), refundEvent(without.body.refund)]);
    expect((sent.deliveries as { url: string }[]).map((d) => d.url)).toEqual([refundRx.url]);
    expect(unsent.deliveries).toEqual([]);
    await eventually(async () => (refundRx.of('refund.success').length > 0 ? true : undefined), 15_000, 'refund.success at the refund endpoint');

    // the intent's endpoint got its payment event and nothing of either refund
    expect(intentRx.received.map((d) => d.body?.type)).toEqual(['payment.success']);
    expect(refundRx.received.map((d) => d.body?.type)).toEqual(['refund.success']);
  });

  test('the OpenAPI document says so on refund create and on the intent webhooks', async () => {
    const doc = (await api.get('/openapi.json')).body;
    const webhooks = (p: string) => doc.paths[p].post.requestBody.content['application/json'].schema.properties.webhooks.description;
    expect(webhooks('/v202607/refunds')).toMatch(/go only here/);
    expect(webhooks('/v202607/payment-intents')).toMatch(/A merchant's refund sends its events only to the `webhooks` given when it is created/);
    expect(webhooks('/v202608/payment-intents')).toMatch(/A merchant's refund sends its events only to the `webhooks` given when it is created/);
  });
});
