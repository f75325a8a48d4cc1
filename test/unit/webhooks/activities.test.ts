import { Registry } from 'prom-client';
import { createWebhookActivities, type DeliveryAttemptInput, type SendWebhookInput } from '../../../activities/webhooks';
import { verify } from '../../../activities/webhooks/signing';
import { createLogger } from '../../../platform/logger';
import type { Mongo } from '../../../platform/mongo';
import type { DeliveryAttemptRecord, WebhookSecretsRecord } from '../../../platform/records';
import { receiverPool } from './receiver';

// The delivery activities against a real HTTP receiver. MongoDB is an in-memory stand-in holding the two
// collections these activities touch (lookups by _id and inserts with a unique _id); the real database is
// exercised by the integration layer.

function fakeMongo(secrets: WebhookSecretsRecord[]) {
  const attempts = new Map<string, DeliveryAttemptRecord>();
  const mongo = {
    c: {
      webhookSecrets: {
        findOne: async (q: { _id: string; tenant_id: string }) => secrets.find((s) => s._id === q._id && s.tenant_id === q.tenant_id) ?? null,
      },
      deliveryAttempts: {
        insertOne: async (doc: DeliveryAttemptRecord) => {
          if (attempts.has(doc._id)) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 });
          attempts.set(doc._id, doc);
          return { acknowledged: true, insertedId: doc._id };
        },
      },
    },
  } as unknown as Mongo;
  return { mongo, attempts };
}

const TENANT = 'ten_eu_webhooktest';
const SECRETS: WebhookSecretsRecord[] = [{ _id: 'whs_eu_abc12345', tenant_id: TENANT, secrets: [null, 's3cr3t-value'], created_at: new Date() }];
const ENVELOPE = '{"id":"evt_eu_1","type":"payment.success","created_at":"2026-01-01T00:00:00.000Z","data":{"payment_intent":"pi_eu_1","metadata":{"order":"42"}}}';

function setup(opts: { allowPrivateHosts?: boolean } = {}) {
  const { mongo, attempts } = fakeMongo(SECRETS);
  const registry = new Registry();
  const activities = createWebhookActivities({
    mongo,
    webhooks: { allowPrivateHosts: opts.allowPrivateHosts ?? true, timeoutMs: 2000 },
    logger: createLogger({ name: 'test', level: 'silent' }),
    registry,
  });
  return { activities, attempts, registry };
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
  it('sends the exact body with the secret header and a Standard Webhooks signature that verifies', async () => {
    const r = await receiver();
    const { activities } = setup();
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
    const check = verify({
      secret: 's3cr3t-value',
      id: got.headers['webhook-id'] as string,
      timestamp: got.headers['webhook-timestamp'] as string,
      signature: got.headers['webhook-signature'] as string,
      body: got.body,
    });
    expect(check).toEqual({ ok: true });
  });

  it('sends no secret and no signature to an endpoint without a secret', async () => {
    const r = await receiver();
    const { activities } = setup();
    await activities.sendWebhook(input(r.url()));
    expect(r.received[0]!.headers['service-webhook-secret']).toBeUndefined();
    expect(r.received[0]!.headers['webhook-signature']).toBeUndefined();
    expect(r.received[0]!.headers['webhook-id']).toBe('evt_eu_1');
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
