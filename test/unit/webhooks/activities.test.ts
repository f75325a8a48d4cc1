import pino from 'pino';
import { Registry } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import { createWebhookActivities, type DeliveryAttemptInput, type SendWebhookInput } from '../../../activities/webhooks';
import { webhookSigningSecretData } from '../../../data/webhook-signing-secrets';
import { endpointId } from '../../../data/webhook-endpoints';
import { redactUrl } from '../../../domain/operator-text';
import { createLogger, type Logger } from '../../../platform/logger';
import * as ssrf from '../../../platform/ssrf';
import type { WebhookSecretsRecord } from '../../../platform/records';
import { FakeCollection, fakeMongo as fakeCollections } from './fake-mongo';
import { receiverPool } from './receiver';

// The delivery activities against a real HTTP receiver. MongoDB is an in-memory stand-in holding the
// collections these activities touch (endpoint secrets, signing secrets, attempts); the real database is
// exercised by the integration layer.

function fakeMongo(secrets: WebhookSecretsRecord[]) {
  const attempts = new FakeCollection();
  const signing = new FakeCollection();
  const mongo = fakeCollections({ webhookSecrets: new FakeCollection(secrets), webhookSigningSecrets: signing, deliveryAttempts: attempts });
  return { mongo, attempts: attempts.docs, signing };
}

const TENANT = 'ten_eu_webhooktest';
const SECRETS: WebhookSecretsRecord[] = [{ _id: 'whs_eu_abc12345', tenant_id: TENANT, secrets: [null, 's3cr3t-value'], created_at: new Date() }];
const ENVELOPE = '{"id":"evt_eu_1","type":"payment.success","created_at":"2026-01-01T00:00:00.000Z","data":{"payment_intent":"pi_eu_1","metadata":{"order":"42"}}}';

function setup(opts: { allowPrivateHosts?: boolean; logger?: Logger } = {}) {
  const { mongo, attempts, signing } = fakeMongo(SECRETS);
  const registry = new Registry();
  const activities = createWebhookActivities({
    mongo,
    // Endpoint limits off: their database work (slots, health) is tested against FerretDB in test/integration/webhook-endpoints.test.ts.
    webhooks: { allowPrivateHosts: opts.allowPrivateHosts ?? true, timeoutMs: 2000, disableAfterMs: 0, maxInFlightPerEndpoint: 0, maxInFlightPerTenant: 0 },
    logger: opts.logger ?? createLogger({ name: 'test', level: 'silent' }),
    registry,
  });
  /** The tenant's signing secret, as the admin API shows it (created on first use, by whichever comes first). */
  const signingSecret = async (tenantId = TENANT) => (await webhookSigningSecretData(mongo).ensure(tenantId)).secret;
  return { activities, attempts, registry, signing, mongo, signingSecret };
}

const input = (url: string, extra: Partial<SendWebhookInput> = {}): SendWebhookInput => ({
  deliveryId: 'evt_eu_1-0',
  attempt: 1,
  eventId: 'evt_eu_1',
  tenantId: TENANT,
  url,
  body: ENVELOPE,
  ...extra,
});

const receiver = receiverPool();

describe('sendWebhook', () => {
  it('sends the exact body with the secret header and a Standard Webhooks signature the library verifies', async () => {
    const r = await receiver();
    const { activities, signingSecret } = setup();
    const res = await activities.sendWebhook(input(r.url(), { secretRef: 'whs_eu_abc12345#1' }));
    expect(res).toMatchObject({ outcome: 'delivered', statusCode: 200, error: null, permanent: false });
    const got = r.received[0]!;
    expect(got.body).toBe(ENVELOPE);
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'payorch-webhooks/1',
      'service-webhook-secret': 's3cr3t-value',
      'webhook-id': 'evt_eu_1',
    });
    expect(Number(got.headers['webhook-timestamp'])).toBe(Math.floor(Date.parse(res.attemptedAt) / 1000));
    const secret = await signingSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(ENVELOPE));
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/); // one secret, one signature
    // the endpoint's own secret is not a signing key
    expect(() => new Webhook(`whsec_${Buffer.from('s3cr3t-value').toString('base64')}`).verify(got.body, got.headers as Record<string, string>)).toThrow('No matching signature found');
  });

  it('signs a delivery to an endpoint without a secret too, but sends no secret header', async () => {
    const r = await receiver();
    const { activities, signingSecret } = setup();
    await activities.sendWebhook(input(r.url()));
    const got = r.received[0]!;
    expect(got.headers['service-webhook-secret']).toBeUndefined();
    expect(got.headers['webhook-id']).toBe('evt_eu_1');
    expect(new Webhook(await signingSecret()).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(ENVELOPE));
  });

  it("bounds the exchange by the delivery's own timeout (the one its activity timeout was set from), not the live setting", async () => {
    // The service's setting is 2 s; this receiver answers in 2.3 s; the deliveries were planned with 200 ms and 5 s.
    const slow = await receiver((_req, res) => void setTimeout(() => res.end('ok'), 2300));
    const { activities } = setup();
    expect(await activities.sendWebhook(input(slow.url(), { timeoutMs: 200 }))).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/^timeout.*200 ms/) });
    expect(await activities.sendWebhook(input(slow.url(), { attempt: 2, timeoutMs: 5000 }))).toMatchObject({ outcome: 'delivered', statusCode: 200 });
  });

  it("creates the tenant's signing secret once, at its first delivery, and keeps each tenant's apart", async () => {
    const r = await receiver();
    const { activities, signing, signingSecret } = setup();
    await activities.sendWebhook(input(r.url()));
    await activities.sendWebhook(input(r.url(), { attempt: 2 }));
    await activities.sendWebhook(input(r.url(), { tenantId: 'ten_eu_other', deliveryId: 'evt_eu_1-1' }));
    expect([...signing.docs.keys()].sort()).toEqual(['ten_eu_other', TENANT].sort());
    const [a, b, other] = r.received;
    const mine = new Webhook(await signingSecret());
    expect(() => mine.verify(a!.body, a!.headers as Record<string, string>)).not.toThrow();
    expect(() => mine.verify(b!.body, b!.headers as Record<string, string>)).not.toThrow();
    expect(() => mine.verify(other!.body, other!.headers as Record<string, string>)).toThrow('No matching signature found');
    const theirs = new Webhook(await signingSecret('ten_eu_other'));
    expect(() => theirs.verify(other!.body, other!.headers as Record<string, string>)).not.toThrow();
  });

  it('signs with the new and the previous secret for 24 h after a rotation, then with the new one only', async () => {
    const r = await receiver();
    const { activities, mongo, signingSecret } = setup();
    const before = await signingSecret();
    const rotatedAt = new Date();
    const rotated = await webhookSigningSecretData(mongo).rotate(TENANT, rotatedAt);
    expect(rotated.secret).not.toBe(before);
    expect(rotated.previous).toEqual([{ secret: before, expires_at: new Date(rotatedAt.getTime() + 24 * 3600_000) }]);

    await activities.sendWebhook(input(r.url()));
    const during = r.received[0]!;
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, before]) expect(new Webhook(secret).verify(during.body, during.headers as Record<string, string>)).toEqual(JSON.parse(ENVELOPE));

    // 24 h later (the attempt's clock), the previous secret no longer signs
    const later = rotatedAt.getTime() + 24 * 3600_000 + 1000;
    jest.useFakeTimers({ now: later, doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask'] });
    try {
      await activities.sendWebhook(input(r.url(), { attempt: 2 }));
    } finally {
      jest.useRealTimers();
    }
    const after = r.received[1]!;
    expect(Number(after.headers['webhook-timestamp'])).toBe(Math.floor(later / 1000));
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    // (signed a day ahead of the real clock: the receiver's clock is moved there too)
    jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(new Webhook(rotated.secret).verify(after.body, after.headers as Record<string, string>)).toEqual(JSON.parse(ENVELOPE));
      expect(() => new Webhook(before).verify(after.body, after.headers as Record<string, string>)).toThrow('No matching signature found');
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('sends a legacy body byte for byte: nothing assumes the envelope', async () => {
    const r = await receiver();
    const { activities } = setup();
    const legacy = '{"webhook_type":"payout","uuid":"6c1f…","status":"success","amount":1000, "event_id":"evt_eu_2"}';
    await activities.sendWebhook(input(r.url(), { body: legacy, eventId: 'evt_eu_2', secretRef: 'whs_eu_abc12345#1' }));
    expect(r.received[0]!.body).toBe(legacy);
    expect(r.received[0]!.headers['service-webhook-secret']).toBe('s3cr3t-value');
  });

  it('fails permanently when the secret can no longer be found (never sends unauthenticated)', async () => {
    const r = await receiver();
    const { activities } = setup();
    for (const ref of ['whs_eu_missing#0', 'whs_eu_abc12345#0', 'whs_eu_abc12345#7', 'garbage']) {
      const res = await activities.sendWebhook(input(r.url(), { secretRef: ref }));
      expect(res).toMatchObject({ outcome: 'failed', permanent: true, error: expect.stringMatching(/^secret_unavailable/) });
    }
    // Another tenant's secrets record is not this tenant's.
    const foreign = await activities.sendWebhook(input(r.url(), { secretRef: 'whs_eu_abc12345#1', tenantId: 'ten_eu_other' }));
    expect(foreign).toMatchObject({ permanent: true });
    expect(r.received).toHaveLength(0);
  });

  it('refuses a loopback target for good when private hosts are not allowed', async () => {
    const r = await receiver();
    const { activities } = setup({ allowPrivateHosts: false });
    const res = await activities.sendWebhook(input(r.url()));
    expect(res).toMatchObject({ outcome: 'failed', permanent: true, statusCode: null, error: 'ssrf_refused: 127.0.0.1 is a loopback address' });
    expect(r.received).toHaveLength(0);
  });

  it('reports 410 as gone, 3xx as a redirect not followed, 5xx with the start of the answer', async () => {
    const answers: Record<string, [number, Record<string, string>, string]> = {
      '/gone': [410, {}, ''],
      '/moved': [301, { Location: 'https://elsewhere.example/' }, ''],
      '/broken': [500, {}, 'upstream\n  exploded'],
    };
    const r = await receiver((req, res) => {
      const [code, headers, body] = answers[req.path]!;
      res.writeHead(code, headers);
      res.end(body);
    });
    const { activities } = setup();
    expect(await activities.sendWebhook(input(r.url('/gone')))).toMatchObject({ outcome: 'gone', statusCode: 410 });
    expect(await activities.sendWebhook(input(r.url('/moved')))).toMatchObject({
      outcome: 'failed',
      permanent: false,
      statusCode: 301,
      error: 'redirect_not_followed: 301 to https://elsewhere.example/',
    });
    expect(await activities.sendWebhook(input(r.url('/broken')))).toMatchObject({ outcome: 'failed', statusCode: 500, error: 'http_500: upstream exploded' });
  });

  it('passes on Retry-After of a 429 or 503, and ignores it elsewhere', async () => {
    const r = await receiver((req, res) => {
      res.writeHead(Number(req.path.slice(1)), { 'Retry-After': '120' });
      res.end();
    });
    const { activities } = setup();
    expect(await activities.sendWebhook(input(r.url('/429')))).toMatchObject({ retryAfterMs: 120_000 });
    expect(await activities.sendWebhook(input(r.url('/503')))).toMatchObject({ retryAfterMs: 120_000 });
    expect(await activities.sendWebhook(input(r.url('/500')))).toMatchObject({ retryAfterMs: null });
  });

  it('counts failed attempts by reason and times every attempt', async () => {
    const r = await receiver((req, res) => {
      res.writeHead(req.path === '/ok' ? 204 : 502);
      res.end();
    });
    const { activities, registry } = setup();
    await activities.sendWebhook(input(r.url('/ok')));
    await activities.sendWebhook(input(r.url('/bad')));
    const metrics = await registry.getMetricsAsJSON();
    const failed = metrics.find((m) => m.name === 'webhook_failed_attempts_total')!;
    expect(failed.values).toEqual([expect.objectContaining({ labels: { reason: 'http_status' }, value: 1 })]);
    const duration = metrics.find((m) => m.name === 'webhook_attempt_duration_seconds')!;
    const counts = duration.values.filter((v) => (v as { metricName?: string }).metricName === 'webhook_attempt_duration_seconds_count');
    expect(counts.map((c) => [c.labels.outcome, c.value]).sort()).toEqual([
      ['delivered', 1],
      ['failed', 1],
    ]);
  });
});

describe('the endpoint an attempt makes', () => {
  it("is enabled from the attempt's own instant, so its health (attempts at or after enabled_at) counts that attempt", async () => {
    const r = await receiver((_req, res) => void res.writeHead(500).end());
    const { activities, mongo } = setup();
    // The clock moves on between the attempt's start and the endpoint's creation (a loaded worker).
    const check = ssrf.checkWebhookUrl;
    const spy = jest.spyOn(ssrf, 'checkWebhookUrl').mockImplementation((...args) => {
      const until = Date.now() + 3;
      while (Date.now() < until);
      return check(...args);
    });
    const res = await activities.sendWebhook(input(r.url())).finally(() => spy.mockRestore());
    expect(res).toMatchObject({ outcome: 'failed', statusCode: 500 });
    const made = await mongo.c.webhookEndpoints.findOne({ _id: endpointId(TENANT, r.url()) });
    expect(made).toMatchObject({ state: 'enabled', created_at: new Date(res.attemptedAt), enabled_at: new Date(res.attemptedAt) });
  });
});

describe('recordDeliveryAttempt', () => {
  const attempt = (n: number, final: DeliveryAttemptInput['final'], outcome: DeliveryAttemptInput['outcome'] = 'failed'): DeliveryAttemptInput => ({
    deliveryId: 'evt_eu_1-0',
    tenantId: TENANT,
    eventId: 'evt_eu_1',
    url: 'https://hooks.example.com/x',
    attempt: n,
    attemptedAt: '2026-01-01T00:00:00.000Z',
    statusCode: 500,
    latencyMs: 12,
    error: 'http_500',
    outcome,
    final,
  });
  const value = async (registry: Registry, name: string, labels: Record<string, string> = {}) =>
    (await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;

  it('writes one record per attempt keyed <delivery>:<attempt>, and a retried write changes nothing', async () => {
    const { activities, attempts, registry } = setup();
    await activities.recordDeliveryAttempt(attempt(1, null));
    await activities.recordDeliveryAttempt(attempt(1, null));
    expect([...attempts.keys()]).toEqual(['evt_eu_1-0:1']);
    expect(attempts.get('evt_eu_1-0:1')).toMatchObject({ endpoint_url: 'https://hooks.example.com/x', status_code: 500, latency_ms: 12, outcome: 'failed' });
    expect(await value(registry, 'webhook_deliveries_pending')).toBe(1);
  });

  it('counts a delivery once when it ends, and takes it out of pending', async () => {
    const { activities, registry } = setup();
    await activities.recordDeliveryAttempt(attempt(1, null));
    await activities.recordDeliveryAttempt(attempt(2, 'delivered', 'delivered'));
    await activities.recordDeliveryAttempt(attempt(2, 'delivered', 'delivered'));
    expect(await value(registry, 'webhook_deliveries_pending')).toBe(0);
    expect(await value(registry, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
  });

  it('shares metrics when the factory runs twice on one registry', () => {
    const { registry } = setup();
    expect(() =>
      createWebhookActivities({ mongo: fakeMongo([]).mongo, webhooks: { allowPrivateHosts: false, timeoutMs: 1000 }, logger: createLogger({ name: 't', level: 'silent' }), registry }),
    ).not.toThrow();
  });
});

describe('deliveryPlan', () => {
  it('is the default schedule unless WEBHOOK_RETRY_SCHEDULE replaces it', async () => {
    const { activities } = setup();
    expect(await activities.deliveryPlan()).toEqual({
      waitsMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
      windowMs: 259_200_000,
      attemptTimeoutMs: 2000,
    });
    const custom = createWebhookActivities({
      mongo: fakeMongo([]).mongo,
      webhooks: { allowPrivateHosts: false, timeoutMs: 1000, retrySchedule: [100, 200] },
      logger: createLogger({ name: 't', level: 'silent' }),
      registry: new Registry(),
    });
    expect(await custom.deliveryPlan()).toMatchObject({ waitsMs: [100, 200], attemptTimeoutMs: 1000 });
  });
});

describe('log lines', () => {
  /** A logger writing JSON lines where the test reads them (the worker's logger writes the same to stdout). */
  function capturedLogs() {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    return { logger, lines };
  }
  const SECRET_PATH = '/services/T0001/B0002/XyZsEcReT0123456789';

  it('name the endpoint by scheme, host and port and by its id, never by the path and query that carry its secret', async () => {
    const r = await receiver((req, res) => {
      if (req.path.startsWith('/ok')) return void res.writeHead(204).end();
      if (req.path.startsWith('/moved')) return void res.writeHead(301, { location: `https://hooks.example.com${SECRET_PATH}?token=t0k3n` }).end();
      if (req.path.startsWith('/relative')) return void res.writeHead(302, { location: `${SECRET_PATH}?token=t0k3n` }).end();
      // A framework's default 404 echoes the path it was sent to.
      res.writeHead(404).end(`Cannot POST ${req.path}`);
    });
    const { logger, lines } = capturedLogs();
    const { activities, mongo } = setup({ logger });
    const origin = `http://127.0.0.1:${r.port}`;
    const urls = [r.url(`/ok${SECRET_PATH}?token=t0k3n`), r.url(`/fail${SECRET_PATH}?token=t0k3n`), r.url(`/moved${SECRET_PATH}`), r.url(`/relative${SECRET_PATH}`)];
    for (const url of urls) await activities.sendWebhook(input(url));
    // A delivery parked at its disabled endpoint logs it too.
    await mongo.c.webhookEndpoints.updateOne({ _id: endpointId(TENANT, urls[1]!) }, { $set: { state: 'disabled' } });
    await activities.parkDelivery({ deliveryId: 'evt_eu_1-0', tenantId: TENANT, eventId: 'evt_eu_1', endpointIndex: 0, url: urls[1]! });

    expect(lines.map((l) => [l.msg, l.url, l.endpoint])).toEqual([
      ['webhook delivered', `${origin}/[redacted]`, endpointId(TENANT, urls[0]!)],
      ['webhook attempt failed', `${origin}/[redacted]`, endpointId(TENANT, urls[1]!)],
      ['webhook attempt failed', `${origin}/[redacted]`, endpointId(TENANT, urls[2]!)],
      ['webhook attempt failed', `${origin}/[redacted]`, endpointId(TENANT, urls[3]!)],
      ['webhook delivery parked: endpoint disabled', `${origin}/[redacted]`, endpointId(TENANT, urls[1]!)],
    ]);
    // Errors are logged by their kind only: a Location, or a receiver echoing its path, would name the secret (the
    // merchant's own attempt record keeps the whole error).
    expect(lines.slice(1, 4).map((l) => l.error)).toEqual(['http_404', 'redirect_not_followed', 'redirect_not_followed']);
    const logged = JSON.stringify(lines);
    for (const secret of ['XyZsEcReT', 't0k3n', '/services/']) expect(logged).not.toContain(secret);
  });
});

test('a logged URL keeps its scheme, host and port; path, query, fragment and any credentials go', () => {
  expect(redactUrl('https://hooks.slack.com/services/T0/B0/secret')).toBe('https://hooks.slack.com/[redacted]');
  expect(redactUrl('https://shop.example:8443/hook?token=abc#x')).toBe('https://shop.example:8443/[redacted]');
  expect(redactUrl('https://shop.example/')).toBe('https://shop.example');
  expect(redactUrl('https://shop.example')).toBe('https://shop.example');
  expect(redactUrl('https://user:pw@shop.example/x')).toBe('https://shop.example/[redacted]');
  expect(redactUrl('not a url')).toBe('[redacted]');
});
