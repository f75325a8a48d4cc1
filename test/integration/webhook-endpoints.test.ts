import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { Registry } from 'prom-client';
import { createWebhookActivities, tenantSlotGroup, type WebhookActivities } from '../../activities/webhooks';
import { redeliverWebhook } from '../../api/admin/webhook-endpoints';
import { replayPage } from '../../api/events/routes';
import { endpointId, sendSlots, webhookEndpointData } from '../../data/webhook-endpoints';
import { createLogger } from '../../platform/logger';
import { workflowExistence } from '../../platform/temporal';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver';
import { admin, api, apiDeps, createMerchant, eventually, getStack, pay, temporalClient, type Merchant } from './harness';

// Webhook endpoints at scale on the real stack: disable after failing for the period, parking, re-enable
// with replay, replay since T, the in-flight cap over FerretDB, an operator's redelivery of a closed delivery.
// The stack's worker runs with the default 3-day disable period; the disable itself is triggered here by the
// same activities built with a 1 s period against the stack's database (what a worker with
// WEBHOOK_DISABLE_AFTER=1s does), so the stack's own worker then sees the endpoint disabled.

let m: Merchant;
let db: Mongo;
let temporal: Client;

/**
 * How an event's delivery `id` (`<event>-<n>`) ended. Its intent's workflow starts deliveries without waiting for
 * them, so on a loaded machine the event can be read before the delivery exists: waited for first.
 */
async function deliveryOutcome(id: string) {
  await eventually(async () => ((await workflowExistence(temporal, id)) === true ? true : undefined), 15_000, `delivery ${id} started`);
  return temporal.workflow.getHandle(id).result();
}
let activities: WebhookActivities;
/** The metrics of `activities` (this test's own, not the stack worker's). */
const registry = new Registry();
const metric = async (name: string, labels: Record<string, string> = {}) =>
  (await registry.getMetricsAsJSON()).find((x) => x.name === name)?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
const receivers: Receiver[] = [];

beforeAll(async () => {
  m = await createMerchant();
  db = await connectMongo(getStack().mongoUri);
  temporal = await temporalClient();
  activities = createWebhookActivities({
    mongo: db,
    logger: createLogger({ name: 'webhook-endpoints-test', level: 'warn' }),
    registry,
    webhooks: { allowPrivateHosts: true, timeoutMs: 5000, disableAfterMs: 1000, maxInFlightPerEndpoint: 1 },
  });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await db?.close();
  await temporal?.connection.close();
});

/** A receiver whose answer the test changes: `status.code`, and an optional delay before answering. */
async function receiver(status: { code: number; delayMs?: number }) {
  const rx = await startReceiver((_r, res) => {
    setTimeout(() => res.writeHead(status.code).end(status.code >= 400 ? 'no' : undefined), status.delayMs ?? 0);
  });
  receivers.push(rx);
  return rx;
}

async function paidIntent(url: string): Promise<string> {
  const r = await api.post('/v202607/payment-intents', { amount: 1200, currency: 'EUR', webhooks: [{ url, events: ['payment.success'] }] }, m.secretKey);
  expect(r.status).toBe(201);
  expect((await pay(r.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  return r.body.payment_intent as string;
}

async function successEventOf(pi: string): Promise<string> {
  return eventually(async () => {
    const r = await api.get('/v202607/events?type=payment.success&limit=100', m.secretKey);
    return (r.body.data as Array<{ id: string; data: unknown }>).find((e) => JSON.stringify(e.data).includes(pi))?.id;
  });
}

async function endpointView(url: string) {
  const r = await admin.get(`/admin/tenants/${m.tenant}/webhook-endpoints`);
  expect(r.status).toBe(200);
  return (r.body.data as Array<{ id: string; url: string; parked: number; disabled_event: string | null; failing_since: string | null; last_success_at: string | null }>).find((e) => e.url === url);
}

test('an endpoint failing for the period is disabled with an event; its deliveries are parked, and re-enabling replays them', async () => {
  const status = { code: 500 };
  const rx = await receiver(status);
  const url = rx.url('/hook');
  const since = new Date(Date.now() - 1000).toISOString();

  // 1. The stack's worker delivers and fails all 4 attempts (schedule 1s,2s,4s).
  const pi1 = await paidIntent(url);
  const evt1 = await successEventOf(pi1);
  await eventually(async () => ((await db.c.deliveryAttempts.countDocuments({ event_id: evt1 })) >= 4 ? true : undefined), 30_000, '4 failed attempts');
  const failing = await endpointView(url);
  expect(failing).toMatchObject({ id: endpointId(m.tenant, url), state: 'enabled', last_success_at: null, failing_since: expect.any(String), parked: 0 });

  // 2. One more failed attempt, recorded by activities with a 1 s period: every attempt failed for longer.
  const attempt = await activities.sendWebhook({ deliveryId: `${evt1}-0-probe`, attempt: 1, eventId: evt1, tenantId: m.tenant, url, body: '{}' });
  expect(attempt).toMatchObject({ outcome: 'failed', statusCode: 500 });
  const recorded = await activities.recordDeliveryAttempt({
    deliveryId: `${evt1}-0-probe`, tenantId: m.tenant, eventId: evt1, url, attempt: 1, attemptedAt: attempt.attemptedAt,
    statusCode: attempt.statusCode, latencyMs: attempt.latencyMs, error: attempt.error, outcome: 'failed', final: 'failed',
  });
  expect(recorded).toEqual({ endpointDisabled: true });
  // Its final failure disabled the endpoint, so the delivery is parked next: counted there, once, not as failed too.
  expect(await metric('webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
  expect(await metric('webhook_deliveries_pending')).toBe(1);
  const probePark = { deliveryId: `${evt1}-0-probe`, tenantId: m.tenant, eventId: evt1, endpointIndex: 0, url, attempted: true, lastAttemptFailed: true };
  expect(await activities.parkDelivery(probePark)).toEqual({ resumed: false });
  expect([await metric('webhook_deliveries_total', { outcome: 'parked' }), await metric('webhook_deliveries_total', { outcome: 'failed' }), await metric('webhook_deliveries_pending')]).toEqual([1, 0, 0]);
  expect(await webhookEndpointData(db).unpark(probePark.deliveryId)).toBe(true); // the probe is no delivery to replay

  const disabled = await endpointView(url);
  expect(disabled).toMatchObject({ state: 'disabled', disabled_at: expect.any(String), disabled_event: expect.stringMatching(/^evt_eu_/) });
  const events = await api.get('/v202607/events?type=webhook_endpoint.disabled', m.secretKey);
  expect(events.body.data).toEqual([
    expect.objectContaining({ id: disabled!.disabled_event, type: 'webhook_endpoint.disabled', data: expect.objectContaining({ url, status: 'disabled', failing_since: failing!.failing_since }) }),
  ]);
  // Another tenant sees nothing of it.
  const other = await createMerchant();
  expect((await api.get('/v202607/events?type=webhook_endpoint.disabled', other.secretKey)).body.data).toEqual([]);

  // 3. A new event to the disabled endpoint is parked by the stack's worker: nothing is sent.
  const sentBefore = rx.received.length;
  const pi2 = await paidIntent(url);
  const evt2 = await successEventOf(pi2);
  await eventually(async () => ((await endpointView(url))!.parked === 1 ? true : undefined), 20_000, 'a parked delivery');
  const parked = await deliveryOutcome(`${evt2}-0`);
  expect(parked).toEqual({ status: 'parked', attempts: 0 });
  expect(rx.received.length).toBe(sentBefore);
  // The event's retrieve says its delivery waits parked (no attempts is not "not yet tried").
  const parkedView = await api.get(`/v202607/events/${evt2}`, m.secretKey);
  expect(parkedView.body.deliveries).toEqual([{ url, attempts: [], parked: true }]);
  // Replay to a disabled endpoint is refused.
  const refused = await api.post('/v202607/events/replay', { url, since }, m.secretKey);
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe('webhook_endpoint_disabled');

  // 4. The merchant fixes it; an admin re-enables it and replays what it missed.
  status.code = 204;
  const noReason = await admin.post(`/admin/tenants/${m.tenant}/webhook-endpoints/${disabled!.id}/enable`, { operator: 'nadia' });
  expect(noReason.status).toBe(400);
  // Two enables at once, through the admin route and the operator action: the parked delivery is replayed once.
  const [byRoute, byAction] = await Promise.all([
    admin.post(`/admin/tenants/${m.tenant}/webhook-endpoints/${disabled!.id}/enable`, { operator: 'nadia', reason: 'merchant fixed it', replay_missed: true }),
    admin.post('/admin/operations/enable_webhook_endpoint', { target: disabled!.id, operator: 'omar', reason: 'merchant fixed it too' }),
  ]);
  // Each either enabled it (and replayed, the same delivery id whichever did) or found it enabled already.
  const answers = [
    { status: byRoute.status, answer: byRoute.body, code: byRoute.body.error?.code },
    { status: byAction.status, answer: byAction.body.result, code: byAction.body.error?.code },
  ];
  for (const a of answers) expect(a.status === 200 || (a.status === 409 && a.code === 'webhook_endpoint_not_disabled')).toBe(true);
  const enabledBy = answers.filter((a) => a.status === 200).map((a) => a.answer);
  expect(enabledBy.length).toBeGreaterThan(0);
  expect(enabledBy[0].endpoint).toMatchObject({ state: 'enabled', parked: 0, failing_since: null });
  expect([enabledBy[0].endpoint.enabled_by]).toEqual([expect.objectContaining({ operator: expect.stringMatching(/^(nadia|omar)$/) })]);
  const replayed = [...new Set(enabledBy.flatMap((a) => a.replayed as string[]))];
  expect(replayed).toEqual([expect.stringMatching(new RegExp(`^${evt2}-0-replay-`))]);
  // Both are in the audit trail, the admin route's as the operator action it is.
  const trail = await admin.get(`/admin/operations?target=${disabled!.id}`);
  expect(trail.body.data.map((a: { action: string; operator: string }) => [a.action, a.operator]).sort()).toEqual([
    ['enable_webhook_endpoint', 'nadia'],
    ['enable_webhook_endpoint', 'omar'],
  ]);
  // The one replay delivered; nothing else sent it.
  expect(await temporal.workflow.getHandle(replayed[0]!).result()).toEqual({ status: 'delivered', attempts: 1 });
  expect(rx.received.filter((r) => r.headers['webhook-id'] === evt2)).toHaveLength(1);
  expect((await api.get(`/v202607/events/${evt2}`, m.secretKey)).body.deliveries).toEqual([expect.objectContaining({ url, parked: false, attempts: [expect.objectContaining({ outcome: 'delivered' })] })]);
  const again = await admin.post(`/admin/tenants/${m.tenant}/webhook-endpoints/${disabled!.id}/enable`, { operator: 'nadia', reason: 'twice' });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('webhook_endpoint_not_disabled');

  // 5. Replay since T: both events again, each once however often the same request comes.
  const replay = await api.post('/v202607/events/replay', { url, since }, m.secretKey);
  expect(replay.status).toBe(202);
  expect(replay.body).toMatchObject({ url, already_started: 0, has_more: false, next_since: null });
  expect(replay.body.deliveries).toEqual([expect.stringMatching(new RegExp(`^${evt1}-0-replay-`)), expect.stringMatching(new RegExp(`^${evt2}-0-replay-`))]);
  const repeated = await api.post('/v202607/events/replay', { url, since }, m.secretKey);
  expect(repeated.body).toMatchObject({ deliveries: replay.body.deliveries, already_started: 2 });
  await eventually(async () => (rx.received.filter((r) => r.headers['webhook-id'] === evt1).length >= 6 ? true : undefined), 20_000, 'evt1 replayed');
  const results = await Promise.all(replay.body.deliveries.map((id: string) => temporal.workflow.getHandle(id).result()));
  expect(results).toEqual([{ status: 'delivered', attempts: 1 }, { status: 'delivered', attempts: 1 }]);
  // The stack's 4 failed attempts, the probe above, and this replay's one.
  expect(rx.received.filter((r) => r.headers['webhook-id'] === evt1)).toHaveLength(6);
  expect((await endpointView(url))!.last_success_at).not.toBeNull();

  // Bounds: too far back, and not an instant.
  expect((await api.post('/v202607/events/replay', { url, since: Math.floor(Date.now() / 1000) - 31 * 86400 }, m.secretKey)).status).toBe(400);
  expect((await api.post('/v202607/events/replay', { url, since: 'yesterday' }, m.secretKey)).status).toBe(400);
  // Milliseconds sent as seconds: the year 58879, which replayed nothing and answered 202.
  const millis = await api.post('/v202607/events/replay', { url, since: Date.now() }, m.secretKey);
  expect([millis.status, millis.body.error?.param]).toEqual([400, 'since']);
}, 120_000);

test('a park whose endpoint was enabled again after the send read it disabled is taken back; one a replay claimed stays', async () => {
  const url = 'https://reenabled.example/hook';
  const e = await webhookEndpointData(db).ensure(m.tenant, url);
  const park = (n: number) => activities.parkDelivery({ deliveryId: `evt_eu_reen${n}-0`, tenantId: m.tenant, eventId: `evt_eu_reen${n}`, endpointIndex: 0, url });
  // Disabled: parked, and listed for the re-enable's replay.
  await db.c.webhookEndpoints.updateOne({ _id: e._id }, { $set: { state: 'disabled' } });
  expect(await park(1)).toEqual({ resumed: false });
  expect((await webhookEndpointData(db).parked(e._id, 10)).map((p) => p._id)).toEqual(['evt_eu_reen1-0']);
  // Enabled again (its replay read the list before this park): taken back, the delivery goes on.
  await db.c.webhookEndpoints.updateOne({ _id: e._id }, { $set: { state: 'enabled' } });
  expect(await park(2)).toEqual({ resumed: true });
  expect((await webhookEndpointData(db).parked(e._id, 10)).map((p) => p._id)).toEqual(['evt_eu_reen1-0']);
  // A park a replay already claimed is the replay's: it stays parked (replayed), the delivery ends.
  await webhookEndpointData(db).markReplayed('evt_eu_reen1-0', 'evt_eu_reen1-0-replay-x');
  expect(await park(1)).toEqual({ resumed: false });
});

test('an endpoint is disabled only after failing all through the period, not after two failures days apart with nothing between', async () => {
  const DAY = 24 * 3600_000;
  const now = new Date();
  const endpoints = webhookEndpointData(db);
  const failedAt = async (url: string, hoursAgo: number) =>
    db.c.deliveryAttempts.insertOne({
      _id: `del_sparse_${url.length}_${Math.random().toString(36).slice(2)}:1`,
      tenant_id: m.tenant,
      event_id: 'evt_eu_sparse',
      delivery_id: 'del_sparse',
      endpoint_url: url,
      attempt: 1,
      attempted_at: new Date(now.getTime() - hoursAgo * 3600_000),
      status_code: 500,
      latency_ms: 3,
      error: null,
      outcome: 'failed',
    } as never);
  const enabledLongAgo = async (url: string) => expect(await endpoints.disableIfFailing(m.tenant, url, 3 * DAY, new Date(now.getTime() - 5 * DAY))).toBe(false);

  // A low-volume shop: one failure, four quiet days, one more failure.
  const sparse = 'https://sparse.example/hook';
  await enabledLongAgo(sparse);
  await failedAt(sparse, 96);
  await failedAt(sparse, 0);
  expect(await endpoints.disableIfFailing(m.tenant, sparse, 3 * DAY, now)).toBe(false);
  // A dead endpoint retried through the period (one event's schedule: a failure in each day of it).
  const dead = 'https://dead.example/hook';
  await enabledLongAgo(dead);
  for (const hoursAgo of [72, 51, 31, 17, 0]) await failedAt(dead, hoursAgo);
  expect(await endpoints.disableIfFailing(m.tenant, dead, 3 * DAY, now)).toBe(true);
});

test("attempts put off at the tenant's cap until their budget ran out do not count against the endpoint's health", async () => {
  const DAY = 24 * 3600_000;
  const endpoints = webhookEndpointData(db);
  /** A failure in each day of the period for `url`, each with `error` (never sent), and whether the last disabled it. */
  const failingThroughout = async (url: string, error: string) => {
    expect(await endpoints.disableIfFailing(m.tenant, url, 3 * DAY, new Date(Date.now() - 5 * DAY))).toBe(false);
    let disabled = false;
    for (const [n, hoursAgo] of [72, 51, 31, 17, 0].entries()) {
      const r = await activities.recordDeliveryAttempt({
        deliveryId: `evt_eu_busy${url.length}${n}${Date.now()}-0`,
        tenantId: m.tenant,
        eventId: `evt_eu_busy${n}`,
        url,
        attempt: 1,
        attemptedAt: new Date(Date.now() - hoursAgo * 3600_000).toISOString(),
        statusCode: null,
        latencyMs: 0,
        error,
        outcome: 'failed',
        final: null,
      });
      disabled = r.endpointDisabled;
    }
    return disabled;
  };
  // The tenant's other endpoints held its slots every time: nothing of it reached this one.
  const healthy = `https://healthy.example/hook-${Date.now()}`;
  expect(await failingThroughout(healthy, "tenant_busy: put off 240 times at the tenant's in-flight cap")).toBe(false);
  expect(await endpoints.health((await endpoints.byUrl(m.tenant, healthy))!)).toMatchObject({ failingSince: null });
  // Its own cap, every time: the endpoint's own slowness, which counts.
  const slow = `https://slow.example/hook-${Date.now()}`;
  expect(await failingThroughout(slow, "endpoint_busy: put off 240 times at the endpoint's in-flight cap")).toBe(true);
});

test('the in-flight cap holds in the database: a second attempt to a busy endpoint is put off, not sent', async () => {
  const status = { code: 200, delayMs: 1500 };
  const rx = await receiver(status);
  const url = rx.url('/slow');
  const send = (n: number) => activities.sendWebhook({ deliveryId: `evt_eu_cap${n}-0`, attempt: 1, eventId: `evt_eu_cap${n}`, tenantId: m.tenant, url, body: '{}' });
  const first = send(1);
  // Slot taken (the first attempt is on the wire): the second is put off without a request.
  await eventually(async () => ((await sendSlots(db).inFlight(endpointId(m.tenant, url))) === 1 ? true : undefined), 5000, 'slot taken');
  const second = await send(2);
  expect(second).toMatchObject({ busy: true, error: 'endpoint_busy' });
  expect((await first).outcome).toBe('delivered');
  expect(rx.received).toHaveLength(1);
  // Freed after the attempt: the next one goes.
  expect(await sendSlots(db).inFlight(endpointId(m.tenant, url))).toBe(0);
  expect((await send(3)).outcome).toBe('delivered');

  // A slot left by a worker killed mid-attempt frees itself at its expiry.
  const slots = sendSlots(db);
  const stale = await slots.acquire('whe_stale_test', 1, 1, new Date(Date.now() - 60_000));
  expect(stale).not.toBeNull();
  expect(await slots.acquire('whe_stale_test', 1, 60_000)).not.toBeNull();
});

test("one tenant's endpoints together hold at most its in-flight cap: many slow URLs of one merchant leave the other merchants' sends going", async () => {
  const capped = createWebhookActivities({
    mongo: db,
    logger: createLogger({ name: 'webhook-endpoints-test', level: 'warn' }),
    registry: new Registry(),
    webhooks: { allowPrivateHosts: true, timeoutMs: 5000, disableAfterMs: 1000, maxInFlightPerEndpoint: 10, maxInFlightPerTenant: 2 },
  });
  const other = await createMerchant();
  const slow = await receiver({ code: 200, delayMs: 1500 });
  const fast = await receiver({ code: 200 });
  // An order id in each URL: three endpoints of one merchant.
  const send = (tenantId: string, url: string, n: number) =>
    capped.sendWebhook({ deliveryId: `evt_eu_tcap${n}-0`, attempt: 1, eventId: `evt_eu_tcap${n}`, tenantId, url, body: '{}' });
  const first = send(m.tenant, slow.url('/hook?order=1'), 1);
  const second = send(m.tenant, slow.url('/hook?order=2'), 2);
  await eventually(async () => ((await sendSlots(db).inFlight(tenantSlotGroup(m.tenant))) === 2 ? true : undefined), 5000, 'two tenant slots taken');
  // A third URL of the same merchant is put off, though its own endpoint is idle; another merchant's send goes.
  expect(await send(m.tenant, fast.url('/hook?order=3'), 3)).toMatchObject({ busy: true, error: 'tenant_busy' });
  expect(await send(other.tenant, fast.url('/hook?order=4'), 4)).toMatchObject({ outcome: 'delivered' });
  expect((await first).outcome).toBe('delivered');
  expect((await second).outcome).toBe('delivered');
  expect(fast.received.map((r) => r.path)).toEqual(['/hook?order=4']);
  // Freed after the attempts, endpoint and tenant slots alike: the put-off one now goes.
  expect(await sendSlots(db).inFlight(tenantSlotGroup(m.tenant))).toBe(0);
  expect(await sendSlots(db).inFlight(endpointId(m.tenant, fast.url('/hook?order=3')))).toBe(0);
  expect(await send(m.tenant, fast.url('/hook?order=3'), 5)).toMatchObject({ outcome: 'delivered' });
});

test("an operator's redelivery of a closed delivery starts a new one carrying the stamp, once per action", async () => {
  const rx = await receiver({ code: 204 });
  const url = rx.url('/op');
  const pi = await paidIntent(url);
  const evt = await successEventOf(pi);
  await deliveryOutcome(`${evt}-0`);
  const deps = apiDeps(db, temporal, { NODE_ENV: 'test' });
  const req = { target: `${evt}-0`, operator: 'omar', reason: 'merchant lost it', actionId: `opa_eu_test${Date.now()}` };
  const out = await redeliverWebhook(deps, req);
  expect(out.tenantId).toBe(m.tenant);
  expect(out.result).toMatchObject({ outcome: 'redelivery_started', started: true, delivery: expect.stringMatching(new RegExp(`^${evt}-0-operator-`)), replaces: `${evt}-0` });
  expect(await temporal.workflow.getHandle(out.result.delivery as string).result()).toEqual({ status: 'delivered', attempts: 1 });
  expect(rx.received.filter((r) => r.headers['webhook-id'] === evt)).toHaveLength(2);
  const desc = await temporal.workflow.getHandle(out.result.delivery as string).describe();
  expect(JSON.stringify(await temporal.workflow.getHandle(out.result.delivery as string).query('__temporal_workflow_metadata'))).toContain('operator omar: redeliver (merchant lost it)');
  expect(desc.status.name).toBe('COMPLETED');
  // The same action again starts nothing more.
  expect((await redeliverWebhook(deps, req)).result).toMatchObject({ started: false, delivery: out.result.delivery });
  await expect(redeliverWebhook(deps, { ...req, target: 'evt_eu_nopenopenope-0', actionId: 'opa_eu_x' })).rejects.toMatchObject({ code: 'resource_missing' });
});

test('replay pages through events made at one instant by (since, starting_after) on FerretDB: each once, in id order', async () => {
  const url = `https://burst-${Date.now()}.example/hook`;
  const instant = new Date(Date.now() - 60_000);
  const ids = ['a', 'b', 'c', 'd', 'e'].map((x) => `evt_eu_burst${Date.now()}${x}`);
  await db.c.events.insertMany(
    ids.map((id) => ({ _id: id, tenant_id: m.tenant, type: 'payment.success', created_at: instant, data: {}, object_id: 'pi_eu_burst', body: '{}', format: 'envelope' as const, source: { kind: 'payment_intent' as const, id: 'pi_eu_burst' }, endpoints: [{ url, has_secret: false, index: 0 }] })),
  );
  const endpoints = webhookEndpointData(db);
  // Pages of 2, read and cut as the replay route does (one event more than the page, then replayPage).
  const seen: string[] = [];
  let since = instant;
  let after: string | undefined;
  for (let call = 0; call < 5; call++) {
    const page = replayPage(await endpoints.eventsSince(m.tenant, [url], since, 3, after), 2);
    seen.push(...page.events.map((e) => e._id));
    if (!page.hasMore) break;
    expect(page.nextSince).toEqual(instant);
    since = page.nextSince!;
    after = page.nextAfter!;
  }
  expect(seen).toEqual(ids);
});

test('redeliver_webhook refuses an id that never named a delivery (404, audited refused), and still attempts a real running one now', async () => {
  const status = { code: 500 };
  const rx = await receiver(status);
  const url = rx.url('/retrying');
  const pi = await paidIntent(url);
  const evt = await successEventOf(pi);
  // The real delivery `<evt>-0` is retrying (its first attempt failed).
  await eventually(async () => (rx.received.length >= 1 ? true : undefined), 10_000, 'first attempt');
  const redeliver = (target: string) => admin.post('/admin/operations/redeliver_webhook', { target, operator: 'omar', reason: 'merchant asked' });
  // An index written another way, an unknown suffix, a well-formed redelivery id that was never started: none is the delivery.
  for (const target of [`${evt}-00`, `${evt}-0000`, `${evt}-0-bogus-x`, `${evt}-0-redeliver-123`, `${evt}-0-operator-0123456789abcdef`, `${evt}-1`]) {
    const r = await redeliver(target);
    expect({ target, status: r.status, code: r.body.error?.code }).toEqual({ target, status: 404, code: 'resource_missing' });
    const audit = (await admin.get(`/admin/operations?target=${encodeURIComponent(target)}`)).body.data as Array<{ outcome: string; code: string }>;
    expect(audit[0]).toMatchObject({ outcome: 'refused', code: 'resource_missing' });
  }
  // Nothing was started for them: no operator redelivery of this event exists.
  expect((await temporal.workflow.count(`WorkflowId STARTS_WITH "${evt}-0-operator-"`)).count).toBe(0);
  // The real one, still retrying, has its wait cut short: attempted now.
  status.code = 204;
  const real = await redeliver(`${evt}-0`);
  expect(real.status).toBe(200);
  expect(real.body.result).toMatchObject({ outcome: 'attempted', attempt_outcome: 'delivered' });
  // A redelivery that did exist (the operator's own, ended) is one: sent again.
  const ended = await deliveryOutcome(`${evt}-0`);
  expect(ended).toMatchObject({ status: 'delivered' });
  const again = await redeliver(`${evt}-0`);
  expect(again.body.result).toMatchObject({ outcome: 'redelivery_started', started: true });
  await temporal.workflow.getHandle(again.body.result.delivery as string).result();
  const ofRedelivery = await redeliver(again.body.result.delivery as string);
  expect(ofRedelivery.body.result).toMatchObject({ outcome: 'redelivery_started', started: true, replaces: again.body.result.delivery });
});

test("a merchant's redelivery to a disabled endpoint is refused (409) and starts nothing, as replay's is; to an enabled one it goes", async () => {
  const rx = await receiver({ code: 204 });
  const [on, off] = [rx.url('/on'), rx.url('/off')];
  const r = await api.post(
    '/v202607/payment-intents',
    { amount: 1200, currency: 'EUR', webhooks: [{ url: on, events: ['payment.success'] }, { url: off, events: ['payment.success'] }] },
    m.secretKey,
  );
  expect((await pay(r.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  const evt = await successEventOf(r.body.payment_intent as string);
  await Promise.all([deliveryOutcome(`${evt}-0`), deliveryOutcome(`${evt}-1`)]);
  // Disabled as a failing period would (the record its first delivery made).
  await db.c.webhookEndpoints.updateOne({ _id: endpointId(m.tenant, off) }, { $set: { state: 'disabled', disabled_at: new Date() } });
  const sent = rx.received.length;
  for (const body of [{ url: off }, {}]) {
    const refused = await api.post(`/v202607/events/${evt}/redeliver`, body, m.secretKey);
    expect({ body, status: refused.status, code: refused.body.error?.code }).toEqual({ body, status: 409, code: 'webhook_endpoint_disabled' });
    expect(refused.body.error.message).toContain(off);
  }
  const ok = await api.post(`/v202607/events/${evt}/redeliver`, { url: on }, m.secretKey);
  expect(ok.status).toBe(202);
  expect(ok.body.deliveries).toEqual([expect.stringMatching(new RegExp(`^${evt}-0-redeliver-`))]);
  expect(await temporal.workflow.getHandle(ok.body.deliveries[0] as string).result()).toEqual({ status: 'delivered', attempts: 1 });
  expect(rx.received.slice(sent).map((x) => x.path)).toEqual(['/on']);
});

test('replay refuses a starting_after that is no event of the account (400 resource_missing) instead of replaying everything', async () => {
  const rx = await receiver({ code: 204 });
  const url = rx.url('/cursor');
  const since = new Date(Date.now() - 1000).toISOString();
  const evt = await successEventOf(await paidIntent(url));
  const other = await createMerchant();
  const foreign = await api.post('/v202607/payment-intents', { amount: 500, currency: 'EUR', webhooks: [{ url, events: ['payment.success'] }] }, other.secretKey);
  expect((await pay(foreign.body.payment_intent, other.publishableKey)).body.status).toBe('success');
  const foreignEvt = await eventually(async () =>
    ((await api.get('/v202607/events?type=payment.success', other.secretKey)).body.data as Array<{ id: string }>)[0]?.id,
  );
  for (const cursor of ['evt_eu_0000000000000000', foreignEvt]) {
    const r = await api.post('/v202607/events/replay', { url, since, starting_after: cursor }, m.secretKey);
    expect({ cursor, status: r.status, error: r.body.error }).toEqual({
      cursor,
      status: 400,
      error: expect.objectContaining({ code: 'resource_missing', param: 'starting_after', message: `No such event: '${cursor}'` }),
    });
  }
  // A real cursor (the answer's next_starting_after) is taken: the events at since after it.
  const r = await api.post('/v202607/events/replay', { url, since, starting_after: evt }, m.secretKey);
  expect(r.status).toBe(202);
});

test('one receiver written several ways is one endpoint: one record, its events stored, replayed, redelivered and refused by any spelling', async () => {
  const rx = await receiver({ code: 204 });
  const url = rx.url('/ok/norm');
  const spellings = [url.replace('http://', 'HTTP://'), url.replace('/ok/norm', '/ok/./norm'), `${url}#frag`];
  const since = new Date(Date.now() - 1000).toISOString();
  const pis = [];
  for (const spelling of spellings) pis.push(await paidIntent(spelling));
  const events = await Promise.all(pis.map(successEventOf));
  await eventually(async () => (events.every((e) => rx.received.some((r) => r.headers['webhook-id'] === e)) ? true : undefined), 20_000, 'all three delivered');

  // One endpoint, under the canonical URL's id (the one it always had), with every delivery in its health.
  const listed = ((await admin.get(`/admin/tenants/${m.tenant}/webhook-endpoints`)).body.data as Array<{ id: string; url: string }>).filter((e) => e.url.includes('/ok/'));
  expect(listed).toEqual([expect.objectContaining({ id: endpointId(m.tenant, url), url })]);
  expect(await db.c.deliveryAttempts.distinct('endpoint_url', { event_id: { $in: events } })).toEqual([url]);
  const shown = await api.get(`/v202607/events/${events[2]}`, m.secretKey);
  expect(shown.body.deliveries).toEqual([expect.objectContaining({ url })]);

  // Replay by yet another spelling finds all three; redeliver names the endpoint however it is written.
  const replay = await api.post('/v202607/events/replay', { url: url.replace('/ok/norm', '/ok/x/../norm'), since }, m.secretKey);
  expect(replay.status).toBe(202);
  expect(replay.body).toMatchObject({ url, already_started: 0 });
  expect(replay.body.deliveries).toHaveLength(3);
  const redelivered = await api.post(`/v202607/events/${events[0]}/redeliver`, { url: spellings[2] }, m.secretKey);
  expect(redelivered.status).toBe(202);
  // An event stored before URLs were canonical names the spelling it was given: found by that spelling too.
  await db.c.events.updateOne({ _id: events[0] }, { $set: { 'endpoints.0.url': spellings[0] } });
  const older = await api.post('/v202607/events/replay', { url: spellings[0], since, origin: new Date(Date.parse(since) - 1000).toISOString() }, m.secretKey);
  expect(older.body).toMatchObject({ url, already_started: 0 });
  expect(older.body.deliveries).toHaveLength(3);

  // Disabled, it is disabled under every spelling.
  await db.c.webhookEndpoints.updateOne({ _id: endpointId(m.tenant, url) }, { $set: { state: 'disabled' } });
  try {
    for (const spelling of spellings) {
      const refused = await api.post('/v202607/events/replay', { url: spelling, since }, m.secretKey);
      expect([refused.status, refused.body.error?.code]).toEqual([409, 'webhook_endpoint_disabled']);
    }
    expect((await api.post(`/v202607/events/${events[1]}/redeliver`, { url: spellings[0] }, m.secretKey)).status).toBe(409);
  } finally {
    await db.c.webhookEndpoints.updateOne({ _id: endpointId(m.tenant, url) }, { $set: { state: 'enabled' } });
  }
}, 60_000);

test("the operator action enables without replaying when told (replay_missed false, the CLI's --no-replay); a later enable replays what is parked, each in the audit trail", async () => {
  const rx = await receiver({ code: 204 });
  const url = rx.url('/enable-later');
  const evt = await successEventOf(await paidIntent(url));
  await eventually(async () => (rx.received.some((r) => r.headers['webhook-id'] === evt) ? true : undefined), 20_000, 'delivered');
  // Disabled with one delivery parked, as a disable leaves it.
  const id = endpointId(m.tenant, url);
  await db.c.webhookEndpoints.updateOne({ _id: id }, { $set: { state: 'disabled', disabled_at: new Date(), disable_count: 1 } });
  await webhookEndpointData(db).park({ _id: `${evt}-0`, tenant_id: m.tenant, endpoint_id: id, event_id: evt, endpoint_index: 0, url, parked_at: new Date() });

  const stack = getStack();
  const cli = await promisify(execFile)('npx', ['tsx', path.join(__dirname, '..', '..', 'scripts', 'ops.ts'), 'enable-endpoint', id, '--reason', 'fixed; replay after the merchant checks', '--no-replay'], {
    env: { ...process.env, OPS_API_URL: stack.apiUrl, ADMIN_API_TOKEN: stack.adminToken, OPS_OPERATOR: 'nadia' },
  });
  expect(JSON.parse(cli.stdout).result).toMatchObject({ endpoint: { state: 'enabled', parked: 1, enabled_by: { operator: 'nadia' } }, replayed: [] });
  expect(rx.received.filter((r) => r.headers['webhook-id'] === evt)).toHaveLength(1);

  // Enabled already: only what is still parked is replayed, and without replay there is nothing to do.
  const nothing = await admin.post('/admin/operations/enable_webhook_endpoint', { target: id, operator: 'omar', reason: 'nothing to replay', replay_missed: false });
  expect([nothing.status, nothing.body.error?.code]).toEqual([409, 'webhook_endpoint_not_disabled']);
  const later = await admin.post('/admin/operations/enable_webhook_endpoint', { target: id, operator: 'omar', reason: 'merchant checked: replay' });
  expect(later.status).toBe(200);
  // The endpoint keeps the enable that turned it on; this one is the audit row's, and each replayed delivery's stamp.
  expect(later.body.result).toMatchObject({ endpoint: { parked: 0, enabled_by: { operator: 'nadia' } }, replayed: [expect.stringMatching(new RegExp(`^${evt}-0-replay-`))] });
  await eventually(async () => (rx.received.filter((r) => r.headers['webhook-id'] === evt).length === 2 ? true : undefined), 20_000, 'replayed');
  const again = await admin.post('/admin/operations/enable_webhook_endpoint', { target: id, operator: 'omar', reason: 'once more' });
  expect([again.status, again.body.error?.code]).toEqual([409, 'webhook_endpoint_not_disabled']);
  const trail = (await admin.get(`/admin/operations?target=${id}`)).body.data as Array<{ operator: string; reason: string; outcome: string }>;
  expect(trail.map((a) => [a.operator, a.reason, a.outcome]).sort()).toEqual([
    ['nadia', 'fixed; replay after the merchant checks', 'done'],
    ['omar', 'merchant checked: replay', 'done'],
    ['omar', 'nothing to replay', 'refused'],
    ['omar', 'once more', 'refused'],
  ]);

  // An option of this action only: refused on another, before anything is audited.
  const misplaced = await admin.post('/admin/operations/redeliver_webhook', { target: `${evt}-0`, operator: 'omar', reason: 'x', replay_missed: false });
  expect([misplaced.status, misplaced.body.error?.param]).toEqual([400, 'replay_missed']);
}, 90_000);
