import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../../platform/logger';
import type { Mongo } from '../../platform/mongo';
import { isDuplicateKeyError } from '../../platform/mongo';
import { parseSecretRef, webhookSecretData } from '../../data/webhook-secrets';
import { signingSecretsAt, webhookSigningSecretData } from '../../data/webhook-signing-secrets';
import {
  honoursRetryAfter,
  outcomeOfStatus,
  parseRetryAfter,
  retryPlan,
  type AttemptOutcome,
} from '../../domain/webhook-schedule';
import { postWebhook, type PostResult } from './http-send';
import { signatureHeaders } from './signing';
import { checkWebhookUrl } from '../../platform/ssrf';
import { canonicalWebhookUrl, endpointId, sendSlots, webhookEndpointData } from '../../data/webhook-endpoints';
import { redactUrl } from '../../domain/operator-text';

// The activities of webhook delivery. The workflow owns the schedule; these make one attempt (no activity
// retries: a failed HTTP exchange is a result, not an exception) and record it.

export interface WebhookActivityConfig {
  allowPrivateHosts: boolean;
  /** Production: webhook targets must be https (checked again at every send). */
  httpsOnly?: boolean;
  timeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE: replaces the default waits (local testing). */
  retrySchedule?: number[];
  /** WEBHOOK_DISABLE_AFTER: an endpoint whose every attempt failed this long is disabled (default 3 days). */
  disableAfterMs?: number;
  /** WEBHOOK_ENDPOINT_MAX_IN_FLIGHT: attempts in flight to one endpoint over all workers; 0 is no limit (default 10). */
  maxInFlightPerEndpoint?: number;
  /** WEBHOOK_TENANT_MAX_IN_FLIGHT: attempts in flight to all of one tenant's endpoints over all workers; 0 is no limit (default 50). */
  maxInFlightPerTenant?: number;
}

export const DEFAULT_DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;
export const DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 10;
const DEFAULT_MAX_IN_FLIGHT_PER_TENANT = 50;

/** The slot group of a tenant's attempts (endpoint ids are `whe_...`, so the two never meet). */
export const tenantSlotGroup = (tenantId: string): string => `tenant:${tenantId}`;

export interface WebhookActivityDeps {
  mongo: Mongo;
  webhooks: WebhookActivityConfig;
  logger: Logger;
  registry: Registry;
}

/** What a delivery workflow fixes at its start (through a local activity, so it is in history). */
export interface DeliveryPlan {
  waitsMs: number[];
  windowMs: number;
  /** The bound of one HTTP exchange; the activity's own timeout is a little longer. */
  attemptTimeoutMs: number;
}

export interface SendWebhookInput {
  deliveryId: string;
  attempt: number;
  eventId: string;
  tenantId: string;
  url: string;
  secretRef?: string;
  body: string;
  /**
   * The bound of this HTTP exchange, as the delivery's plan fixed it (its activity's timeout is a little longer).
   * Absent from deliveries started before it was passed: the configured bound then.
   */
  timeoutMs?: number;
}

export interface SendWebhookResult {
  attemptedAt: string; // ISO
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  outcome: AttemptOutcome;
  /** No later attempt can do better (address refused, secret gone): the delivery fails now. */
  permanent: boolean;
  /** Retry-After of a 429/503, in ms from the end of the attempt. */
  retryAfterMs: number | null;
  /** Nothing was sent: the endpoint is disabled. The delivery is parked (kept for a replay), not failed. */
  parked?: boolean;
  /** Nothing was sent: the endpoint has its most attempts in flight. Try again shortly; it is not an attempt. */
  busy?: boolean;
}

export interface ParkDeliveryInput {
  /** False: park it even if the endpoint was enabled again meanwhile (the delivery cannot go on). */
  mayResume?: boolean;
  /** An attempt of it was recorded (it counts as pending in the metrics until it ends). Absent from older workflows. */
  attempted?: boolean;
  /**
   * Its last attempt, recorded as final (`failed`), is what disabled the endpoint: it ends `parked`, or `failed`
   * if the park is taken back. Either is counted here, once. Absent from older workflows.
   */
  lastAttemptFailed?: boolean;
  deliveryId: string;
  tenantId: string;
  eventId: string;
  endpointIndex: number;
  url: string;
}

export type DeliveryStatus = 'delivered' | 'failed' | 'gone';

export interface DeliveryAttemptInput {
  deliveryId: string;
  tenantId: string;
  eventId: string;
  url: string;
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  outcome: AttemptOutcome;
  /** Set on the delivery's last attempt: how the delivery ended. */
  final: DeliveryStatus | null;
}

export const WEBHOOK_USER_AGENT = 'payorch-webhooks/1';

/** An endpoint as log lines name it: its URL cut to scheme, host and port (the rest may be a secret), and its id. */
const loggedEndpoint = (tenantId: string, url: string) => ({ url: redactUrl(url), endpoint: endpointId(tenantId, url) });
export const SECRET_HEADER = 'Service-Webhook-Secret';

function metric<T>(registry: Registry, name: string, make: () => T): T {
  // A registry outlives one factory call in tests and in a worker that rebuilds activities.
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function createWebhookMetrics(registry: Registry) {
  return {
    deliveries: metric(
      registry,
      'webhook_deliveries_total',
      () => new Counter({ name: 'webhook_deliveries_total', help: 'Webhook deliveries that ended, by outcome (delivered, failed, gone, parked)', labelNames: ['outcome'] as const, registers: [registry] }),
    ),
    failedAttempts: metric(
      registry,
      'webhook_failed_attempts_total',
      () =>
        new Counter({
          name: 'webhook_failed_attempts_total',
          help: 'Webhook attempts that did not deliver, by reason (http_status, redirect, timeout, connection, ssrf_refused, secret_unavailable)',
          labelNames: ['reason'] as const,
          registers: [registry],
        }),
    ),
    attemptDuration: metric(
      registry,
      'webhook_attempt_duration_seconds',
      () =>
        new Histogram({
          name: 'webhook_attempt_duration_seconds',
          help: 'Duration of one webhook HTTP attempt, by outcome',
          labelNames: ['outcome'] as const,
          buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers: [registry],
        }),
    ),
    busy: metric(
      registry,
      'webhook_endpoint_busy_total',
      () => new Counter({ name: 'webhook_endpoint_busy_total', help: 'Attempts put off because their endpoint (WEBHOOK_ENDPOINT_MAX_IN_FLIGHT) or tenant (WEBHOOK_TENANT_MAX_IN_FLIGHT) had as many attempts in flight as it may', registers: [registry] }),
    ),
    // Up/down as this worker records first and last attempts: sum over workers is the number in flight,
    // until a worker restarts. The exact count is Temporal's: DeliveryStatus="pending" in visibility.
    pending: metric(
      registry,
      'webhook_deliveries_pending',
      () => new Gauge({ name: 'webhook_deliveries_pending', help: 'Webhook deliveries started and not yet ended, as recorded by this worker', registers: [registry] }),
    ),
  };
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { mongo, webhooks: config, logger } = deps;
  const metrics = createWebhookMetrics(deps.registry);
  const ssrf = { allowPrivateHosts: config.allowPrivateHosts, httpsOnly: config.httpsOnly ?? false };

  const endpoints = webhookEndpointData(mongo);
  const slots = sendSlots(mongo);
  const disableAfterMs = config.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
  const maxInFlight = config.maxInFlightPerEndpoint ?? DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT;
  const maxPerTenant = config.maxInFlightPerTenant ?? DEFAULT_MAX_IN_FLIGHT_PER_TENANT;
  // A slot outlives its attempt only when the worker died mid-way: then it frees itself after the longest attempt.
  /** A slot outlives the exchange it is held for: a worker that dies holding one frees it after this. */
  const slotTtlFor = (input: SendWebhookInput) => (input.timeoutMs ?? config.timeoutMs) + 15_000;
  const endpointSecrets = webhookSecretData(mongo);
  const signingSecrets = webhookSigningSecretData(mongo);

  const resolveSecret = async (tenantId: string, ref: string): Promise<string | null> => {
    const parsed = parseSecretRef(ref);
    return parsed ? endpointSecrets.secretOf(tenantId, parsed.id, parsed.index) : null;
  };

  /** A delivery ended (as this worker records it): out of pending, counted by outcome. */
  const ended = (outcome: DeliveryStatus | 'parked') => {
    metrics.pending.dec();
    metrics.deliveries.inc({ outcome });
  };

  const activities = {
    /** Local activity: the schedule and timeout from configuration, recorded once in the delivery's history. */
    async deliveryPlan(): Promise<DeliveryPlan> {
      const plan = retryPlan(config.retrySchedule);
      return { waitsMs: [...plan.waitsMs], windowMs: plan.windowMs, attemptTimeoutMs: config.timeoutMs };
    },

    /** One attempt. Never throws for what the receiver or the network did: that is the returned outcome. */
    async sendWebhook(input: SendWebhookInput): Promise<SendWebhookResult> {
      const attemptedAt = new Date();
      const fail = (reason: string, error: string, permanent: boolean, latencyMs = 0, statusCode: number | null = null): SendWebhookResult => {
        metrics.failedAttempts.inc({ reason });
        return { attemptedAt: attemptedAt.toISOString(), statusCode, latencyMs, error, outcome: 'failed', permanent, retryAfterMs: null };
      };

      const urlCheck = checkWebhookUrl(input.url, ssrf);
      if (!urlCheck.ok) return fail('ssrf_refused', `ssrf_refused: ${urlCheck.reason}`, true);

      // A disabled endpoint is sent nothing: the delivery is parked until an admin re-enables it. One this attempt
      // makes is enabled from the attempt's own instant: made a millisecond later, its health would leave the
      // attempt out and a dead endpoint's one retry schedule would fall short of the disable period.
      const endpoint = await endpoints.ensure(input.tenantId, input.url, attemptedAt);
      if (endpoint.state === 'disabled') {
        return { attemptedAt: attemptedAt.toISOString(), statusCode: null, latencyMs: 0, error: 'endpoint_disabled', outcome: 'failed', permanent: true, retryAfterMs: null, parked: true };
      }
      const putOff = (error: 'endpoint_busy' | 'tenant_busy'): SendWebhookResult => {
        metrics.busy.inc();
        return { attemptedAt: attemptedAt.toISOString(), statusCode: null, latencyMs: 0, error, outcome: 'failed', permanent: false, retryAfterMs: null, busy: true };
      };
      const release = async (lease: string | null) => {
        if (lease) await slots.release(lease).catch((err: unknown) => logger.warn({ err, endpoint: endpoint._id }, 'send slot not released; it frees itself at its expiry'));
      };
      // One slow endpoint holds at most maxInFlight activity slots, and one tenant's endpoints together at most
      // maxPerTenant (a merchant with many slow URLs, an order id in each, is one merchant): the rest of the
      // worker serves others.
      const ttl = slotTtlFor(input);
      const lease = maxInFlight > 0 ? await slots.acquire(endpoint._id, maxInFlight, ttl) : null;
      if (maxInFlight > 0 && lease === null) return putOff('endpoint_busy');
      let tenantLease: string | null = null;
      try {
        tenantLease = maxPerTenant > 0 ? await slots.acquire(tenantSlotGroup(input.tenantId), maxPerTenant, ttl) : null;
        if (maxPerTenant > 0 && tenantLease === null) return putOff('tenant_busy');
        return await attemptSend(input, attemptedAt, fail);
      } finally {
        // Whatever was taken goes back, a failed read of the tenant's slots included.
        await release(lease);
        await release(tenantLease);
      }
    },

    /**
     * A delivery whose endpoint is disabled, kept for the replay of a re-enable. Idempotent (`_id` is the delivery).
     * `resumed`: the endpoint is enabled again (since the send read it disabled) and the park was taken back
     * before a re-enable's replay claimed it, so the delivery goes on. A replay claiming it at the same instant may
     * send the event too: at least once, never lost.
     */
    async parkDelivery(p: ParkDeliveryInput): Promise<{ resumed: boolean }> {
      await endpoints.park({
        _id: p.deliveryId,
        tenant_id: p.tenantId,
        endpoint_id: endpointId(p.tenantId, p.url),
        event_id: p.eventId,
        endpoint_index: p.endpointIndex,
        url: canonicalWebhookUrl(p.url),
        parked_at: new Date(),
      });
      if (p.mayResume !== false && (await endpoints.byUrl(p.tenantId, p.url))?.state !== 'disabled' && (await endpoints.unpark(p.deliveryId))) {
        logger.info({ delivery_id: p.deliveryId, event_id: p.eventId, ...loggedEndpoint(p.tenantId, p.url) }, 'webhook delivery not parked: its endpoint was enabled again');
        // Its final attempt was left uncounted for this park: taken back, the delivery ends failed.
        if (p.lastAttemptFailed) ended('failed');
        return { resumed: true };
      }
      if (p.attempted) metrics.pending.dec();
      metrics.deliveries.inc({ outcome: 'parked' });
      logger.warn({ delivery_id: p.deliveryId, event_id: p.eventId, ...loggedEndpoint(p.tenantId, p.url) }, 'webhook delivery parked: endpoint disabled');
      return { resumed: false };
    },
  };

  async function attemptSend(
    input: SendWebhookInput,
    attemptedAt: Date,
    fail: (reason: string, error: string, permanent: boolean) => SendWebhookResult,
  ): Promise<SendWebhookResult> {
    {
      let secret: string | null = null;
      if (input.secretRef) {
        secret = await resolveSecret(input.tenantId, input.secretRef);
        // Sending unauthenticated to an endpoint that expects a secret would only be refused (or worse, trusted).
        if (secret === null) return fail('secret_unavailable', 'secret_unavailable: the endpoint secret is no longer stored', true);
      }

      // Every delivery is signed with the tenant's signing secrets as they are at this attempt (created on
      // first use; a rotated-out one still signs for 24 h). Reading them failing throws: a failed attempt,
      // retried on the schedule like a refused connection.
      const signing = signingSecretsAt(await signingSecrets.ensure(input.tenantId, attemptedAt), attemptedAt);
      const timestamp = Math.floor(attemptedAt.getTime() / 1000);
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        ...signatureHeaders(signing, input.eventId, timestamp, input.body),
      };
      // The endpoint's own secret, as given, when it has one (the spec's header; it is not a signing key).
      if (secret !== null) headers[SECRET_HEADER] = secret;

      const r: PostResult = await postWebhook({ url: input.url, body: input.body, headers, timeoutMs: input.timeoutMs ?? config.timeoutMs, ...ssrf });
      const result = toAttemptResult(r, attemptedAt);
      metrics.attemptDuration.observe({ outcome: result.outcome }, r.latencyMs / 1000);
      if (result.outcome !== 'delivered') metrics.failedAttempts.inc({ reason: failureReason(r) });
      const log = { delivery_id: input.deliveryId, event_id: input.eventId, attempt: input.attempt, ...loggedEndpoint(input.tenantId, input.url), status_code: r.statusCode, latency_ms: r.latencyMs };
      if (result.outcome === 'delivered') logger.info(log, 'webhook delivered');
      // Only the error's kind (`http_404`, `redirect_not_followed`): its detail can name the secret-bearing path, in a
      // Location (relative ones too) or a receiver's echo (`Cannot POST /hooks/<token>`). The attempt record keeps it.
      else logger.warn({ ...log, error: result.error === null ? null : result.error.split(':', 1)[0] }, 'webhook attempt failed');
      return result;
    }
  }

  return {
    ...activities,
    /**
     * Idempotent: `_id` is `<delivery>:<attempt>`, so a retried write neither duplicates nor double-counts.
     * After a failed attempt, disables the endpoint if every attempt to it failed for WEBHOOK_DISABLE_AFTER.
     */
    async recordDeliveryAttempt(a: DeliveryAttemptInput): Promise<{ endpointDisabled: boolean }> {
      // Put off at its tenant's cap until the delivery's budget ran out: nothing reached this endpoint.
      const notTheEndpoints = a.error?.startsWith('tenant_busy') === true;
      let fresh = false;
      try {
        await mongo.c.deliveryAttempts.insertOne({
          _id: `${a.deliveryId}:${a.attempt}`,
          tenant_id: a.tenantId,
          event_id: a.eventId,
          delivery_id: a.deliveryId,
          // Canonical, as the endpoint's health reads it: a delivery started before URLs were made canonical counts too.
          endpoint_url: canonicalWebhookUrl(a.url),
          attempt: a.attempt,
          attempted_at: new Date(a.attemptedAt),
          status_code: a.statusCode,
          latency_ms: a.latencyMs,
          error: a.error,
          outcome: a.outcome,
          ...(notTheEndpoints ? { not_the_endpoints: true as const } : {}),
        });
        if (a.attempt === 1) metrics.pending.inc();
        fresh = true;
      } catch (err) {
        // A retried write: recorded (and counted) already, but the disable check below may not have run.
        if (!isDuplicateKeyError(err)) throw err;
      }
      const disabled =
        a.outcome !== 'delivered' && !notTheEndpoints && disableAfterMs > 0 && (await endpoints.disableIfFailing(a.tenantId, a.url, disableAfterMs, new Date(), new Date(a.attemptedAt)));
      if (disabled) logger.warn({ tenant_id: a.tenantId, ...loggedEndpoint(a.tenantId, a.url), delivery_id: a.deliveryId }, 'webhook endpoint disabled: every attempt failed for WEBHOOK_DISABLE_AFTER');
      // A final failure that disabled the endpoint is parked next: the park counts it (parked, or failed if taken back).
      if (fresh && a.final && !(disabled && a.final === 'failed')) ended(a.final);
      return { endpointDisabled: disabled };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

function failureReason(r: PostResult): string {
  if (r.failure) return r.failure;
  if (r.statusCode !== null && r.statusCode >= 300 && r.statusCode < 400) return 'redirect';
  return 'http_status';
}

/** The receiver's answer (or its absence) as an attempt outcome. Pure apart from reading the clock for Retry-After dates. */
export function toAttemptResult(r: PostResult, attemptedAt: Date, nowMs = Date.now()): SendWebhookResult {
  const base = { attemptedAt: attemptedAt.toISOString(), statusCode: r.statusCode, latencyMs: r.latencyMs, retryAfterMs: null };
  if (r.failure === 'ssrf_refused') return { ...base, outcome: 'failed', permanent: true, error: `ssrf_refused: ${r.detail}` };
  if (r.failure === 'timeout') return { ...base, outcome: 'failed', permanent: false, error: `timeout: ${r.detail}` };
  if (r.failure === 'connection' || r.statusCode === null) return { ...base, outcome: 'failed', permanent: false, error: `connection_error: ${r.detail}` };
  const code = r.statusCode;
  const outcome = outcomeOfStatus(code);
  if (outcome === 'delivered') return { ...base, outcome, permanent: false, error: null };
  const retryAfter = honoursRetryAfter(code) ? parseRetryAfter(headerValue(r.headers['retry-after']), nowMs) : null;
  let error: string;
  if (code >= 300 && code < 400) {
    const location = headerValue(r.headers.location);
    error = `redirect_not_followed: ${code}${location ? ` to ${location.slice(0, 200)}` : ''}`;
  } else {
    const excerpt = r.excerpt.replace(/\s+/g, ' ').trim();
    error = `http_${code}${excerpt ? `: ${excerpt}` : ''}`;
  }
  return { ...base, outcome, permanent: false, error, retryAfterMs: retryAfter };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
