import {
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { SendWebhookInput, SendWebhookResult } from '../../activities/webhooks';
import { formatDuration, nextRetryDelay, type RetryPlan } from '../../domain/webhook-schedule';
import { SA } from '../search-attributes';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from './messages';

// One delivery of one event to one endpoint. Each attempt is an activity (its status code and timing are in
// history), the waits between attempts are durable timers, and the schedule is fixed at the start through
// a local activity, so replays and worker restarts keep it to the second. The body is carried as given:
// whatever its format (envelope or legacy), it is sent byte for byte on every attempt.

const plan = proxyLocalActivities<Activities>({ startToCloseTimeout: '5s' });
const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '1s', maximumInterval: '1m' } });

/** The attempt activity's own bound: the HTTP exchange's, plus room to look up the secret. */
const ACTIVITY_MARGIN_MS = 5000;

type Status = WebhookDeliveryResult['status'];

interface AttemptLine {
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const deliveryId = workflowInfo().workflowId;
  const p = await plan.deliveryPlan();
  const schedule: RetryPlan = { waitsMs: p.waitsMs, windowMs: p.windowMs };
  // HTTP outcomes are results, never retried by Temporal: the schedule below is the only retry policy.
  const http = proxyActivities<Activities>({ startToCloseTimeout: p.attemptTimeoutMs + ACTIVITY_MARGIN_MS, retry: { maximumAttempts: 1 } });

  const lines: AttemptLine[] = [];
  const describe = (headline: string) => {
    const rows = lines.map(
      (l) => `| ${l.attempt} | ${l.at} | ${l.statusCode ?? '-'} | ${l.latencyMs} ms | ${(l.error ?? '').replace(/\|/g, '/').slice(0, 120)} |`,
    );
    setCurrentDetails(
      `**${headline}**\n\n${input.eventType} \`${input.eventId}\` → ${input.url}${input.redelivery ? ' (redelivery)' : ''}\n\n` +
        (rows.length ? `| # | at | status | latency | error |\n|---|---|---|---|---|\n${rows.join('\n')}` : ''),
    );
  };
  const end = (status: Status, headline: string): WebhookDeliveryResult => {
    upsertSearchAttributes([{ key: SA.DeliveryStatus, value: status }]);
    describe(headline);
    return { status, attempts: lines.length };
  };

  const send = async (attempt: number): Promise<SendWebhookResult> => {
    const req: SendWebhookInput = {
      deliveryId,
      attempt,
      eventId: input.eventId,
      tenantId: input.tenantId,
      url: input.url,
      ...(input.secretRef ? { secretRef: input.secretRef } : {}),
      body: input.body,
    };
    const startedAt = Date.now();
    try {
      return await http.sendWebhook(req);
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The attempt activity itself failed (worker lost, timed out, secret store down): a failed attempt
      // like a refused connection, retried on the same schedule.
      const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error) : (err as Error);
      return {
        attemptedAt: new Date(startedAt).toISOString(),
        statusCode: null,
        latencyMs: Date.now() - startedAt,
        error: `attempt_failed: ${cause.message}`,
        outcome: 'failed',
        permanent: false,
        retryAfterMs: null,
      };
    }
  };

  const run = async (): Promise<WebhookDeliveryResult> => {
    const firstAttemptAt = Date.now();
    for (let attempt = 1; ; attempt++) {
      describe(`attempt ${attempt} in progress`);
      const r = await send(attempt);
      lines.push({ attempt, at: r.attemptedAt, statusCode: r.statusCode, latencyMs: r.latencyMs, error: r.error });

      const wait =
        r.outcome === 'failed' && !r.permanent
          ? nextRetryDelay(schedule, { attempt, elapsedMs: Date.now() - firstAttemptAt, retryAfterMs: r.retryAfterMs })
          : null;
      const final: Status | null = r.outcome !== 'failed' ? r.outcome : wait === null ? 'failed' : null;
      await store.recordDeliveryAttempt({
        deliveryId,
        tenantId: input.tenantId,
        eventId: input.eventId,
        url: input.url,
        attempt,
        attemptedAt: r.attemptedAt,
        statusCode: r.statusCode,
        latencyMs: r.latencyMs,
        error: r.error,
        outcome: r.outcome,
        final,
      });

      if (final === 'delivered') return end('delivered', `delivered on attempt ${attempt} (${r.statusCode})`);
      if (final === 'gone') return end('gone', `gone: the endpoint answered 410 on attempt ${attempt}; not retried`);
      if (final === 'failed') {
        log.warn('webhook delivery failed', { deliveryId, eventId: input.eventId, attempts: attempt, error: r.error });
        return end('failed', r.permanent ? `failed: permanent error: ${r.error}` : `failed: no retry left within the window after ${attempt} attempts`);
      }
      describe(`attempt ${attempt} failed; attempt ${attempt + 1} in ${formatDuration(wait!)} (at ${new Date(Date.now() + wait!).toISOString()})`);
      await sleep(wait!);
    }
  };

  try {
    return await run();
  } catch (err) {
    // Canceled from the UI or CLI: the delivery is over and must not read as pending forever.
    if (isCancellation(err)) end('failed', `canceled by an operator after ${lines.length} attempts`);
    throw err;
  }
}
