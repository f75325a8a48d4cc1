import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { DeliveryAttemptInput, DeliveryPlan, SendWebhookInput, SendWebhookResult } from '../../activities/webhooks';
import { DEFAULT_RETRY_WAITS_MS, DELIVERY_WINDOW_MS } from '../../domain/webhook-schedule';
import { SA } from '../../workflows/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput, type WebhookDeliveryResult } from '../../workflows/webhook-delivery/messages';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';

// The delivery workflow in virtual time. Activities are scripted here: this layer pins down the schedule
// (each attempt's time, to the second), when it stops, and what it records. The activities themselves are
// tested against real HTTP receivers in test/unit/webhooks.

const testEnv = useWorkflowTestEnv();

type Answer = Partial<SendWebhookResult> | (() => never);

const ok = (statusCode = 200): Answer => ({ outcome: 'delivered', statusCode, error: null });
const fail = (statusCode = 500, retryAfterMs: number | null = null): Answer => ({ outcome: 'failed', statusCode, error: `http_${statusCode}`, retryAfterMs });

interface Run {
  result: WebhookDeliveryResult;
  /** Start of each attempt, in whole seconds after the first one. */
  offsets: number[];
  sends: SendWebhookInput[];
  records: DeliveryAttemptInput[];
  status: unknown;
  details: string;
  history: Awaited<ReturnType<ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>['fetchHistory']>>;
}

let n = 0;

/** Runs one delivery whose nth attempt gets answers[n] (the last answer repeats). */
async function deliver(answers: Answer[], opts: { waitsMs?: number[]; attemptTimeoutMs?: number } = {}): Promise<Run> {
  const times: number[] = [];
  const sends: SendWebhookInput[] = [];
  const records: DeliveryAttemptInput[] = [];
  const activities = {
    async deliveryPlan(): Promise<DeliveryPlan> {
      return { waitsMs: opts.waitsMs ?? [...DEFAULT_RETRY_WAITS_MS], windowMs: DELIVERY_WINDOW_MS, attemptTimeoutMs: opts.attemptTimeoutMs ?? 10_000 };
    },
    async sendWebhook(i: SendWebhookInput): Promise<SendWebhookResult> {
      const now = await testEnv().currentTimeMs();
      times.push(now);
      sends.push(i);
      const a = answers[Math.min(sends.length - 1, answers.length - 1)]!;
      if (typeof a === 'function') a();
      return { attemptedAt: new Date(now).toISOString(), statusCode: null, latencyMs: 40, error: null, outcome: 'failed', permanent: false, retryAfterMs: null, ...a };
    },
    async recordDeliveryAttempt(r: DeliveryAttemptInput): Promise<void> {
      records.push(r);
    },
  };
  const taskQueue = `webhooks-${++n}`;
  const input: WebhookDeliveryInput = {
    eventId: `evt_eu_test${n}`,
    eventType: 'payment.success',
    tenantId: 'ten_eu_test',
    url: 'https://hooks.example.com/payorch',
    endpointIndex: 0,
    secretRef: 'whs_eu_test#0',
    source: { kind: 'payment_intent', id: 'pi_eu_test' },
    body: `{"id":"evt_eu_test${n}","type":"payment.success","created_at":"2026-01-01T00:00:00.000Z","data":{"amount":2500}}`,
    format: 'envelope',
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  return worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: `${input.eventId}-0`,
      taskQueue,
      args: [input],
      typedSearchAttributes: [
        { key: SA.TenantId, value: input.tenantId },
        { key: SA.DeliveryStatus, value: 'pending' },
      ],
    });
    const result = await handle.result();
    const status = (await handle.describe()).typedSearchAttributes.get(SA.DeliveryStatus);
    const meta = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    const offsets = times.map((t) => Math.round((t - times[0]!) / 1000));
    for (const s of sends) {
      // At-least-once: every attempt carries the same event id and the same bytes.
      expect(s).toMatchObject({ eventId: input.eventId, body: input.body, url: input.url, secretRef: input.secretRef, deliveryId: `${input.eventId}-0` });
    }
    return { result, offsets, sends, records, status, details: meta.currentDetails ?? '', history: await handle.fetchHistory() };
  });
}

const S = 1;
const M = 60;
const H = 3600;

test('a receiver that never answers 2xx gets the whole default schedule, to the second, then the delivery fails at 3 days', async () => {
  const run = await deliver([fail(500)]);
  expectOffsets(run.offsets, [
    0,
    5 * S,
    5 * M + 5 * S,
    35 * M + 5 * S,
    2 * H + 35 * M + 5 * S,
    7 * H + 35 * M + 5 * S,
    17 * H + 35 * M + 5 * S,
    31 * H + 35 * M + 5 * S,
    51 * H + 35 * M + 5 * S,
    72 * H,
  ]);
  expect(run.result).toEqual({ status: 'failed', attempts: 10 });
  expect(run.status).toBe('failed');
  expect(run.records.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(run.records.map((r) => r.final)).toEqual([null, null, null, null, null, null, null, null, null, 'failed']);
  expect(run.records[0]).toMatchObject({ statusCode: 500, error: 'http_500', outcome: 'failed', latencyMs: 40, url: 'https://hooks.example.com/payorch' });
  expect(run.details).toContain('failed: no retry left within the window after 10 attempts');
  expect(run.details).toContain('| 10 |');
});

test('put-offs before the first attempt do not shorten the window: the last attempt comes 3 days after the first one made', async () => {
  const busy: Answer = { busy: true, error: 'endpoint_busy', statusCode: null };
  const run = await deliver([busy, busy, busy, fail(500)]);
  // What the endpoint's health reads: each attempt's own instant (put-offs are none).
  const made = run.records.map((r) => Date.parse(r.attemptedAt));
  expectOffsets(
    made.map((t) => Math.round((t - made[0]!) / 1000)),
    [0, 5 * S, 5 * M + 5 * S, 35 * M + 5 * S, 2 * H + 35 * M + 5 * S, 7 * H + 35 * M + 5 * S, 17 * H + 35 * M + 5 * S, 31 * H + 35 * M + 5 * S, 51 * H + 35 * M + 5 * S, 72 * H],
  );
  // So one event failing every attempt has failed for the whole default disable period (3 days) by its last.
  expect(made.at(-1)! - made[0]!).toBeGreaterThanOrEqual(DELIVERY_WINDOW_MS);
  expect(run.result).toEqual({ status: 'failed', attempts: 10 });
  keepHistory('webhook-delivery-put-off-then-failed-window-from-first-attempt', run.history);
});

test('success on the fourth attempt ends the delivery as delivered', async () => {
  const run = await deliver([fail(502), fail(504), { outcome: 'failed', statusCode: null, error: 'timeout: no response within 10000 ms' }, ok(204)]);
  expectOffsets(run.offsets, [0, 5, 305, 2105]);
  expect(run.result).toEqual({ status: 'delivered', attempts: 4 });
  expect(run.status).toBe('delivered');
  expect(run.records.map((r) => [r.attempt, r.outcome, r.final])).toEqual([
    [1, 'failed', null],
    [2, 'failed', null],
    [3, 'failed', null],
    [4, 'delivered', 'delivered'],
  ]);
  expect(run.details).toContain('delivered on attempt 4 (204)');
  // The receiver's path may carry its secret: operators see scheme and host, as in the logs.
  expect(run.details).toContain('→ https://hooks.example.com/[redacted]');
  expect(run.details).not.toContain('/payorch');
  // Each attempt's record is a local activity: a marker in history (beside the plan's), never a scheduled activity.
  const events = run.history.events!;
  expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordDeliveryAttempt')).toHaveLength(0);
  expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(5);
  keepHistory('webhook-delivery-local-attempt-records-delivered-on-fourth', run.history);
});

test('an immediate 2xx is one attempt', async () => {
  const run = await deliver([ok()]);
  expect(run.result).toEqual({ status: 'delivered', attempts: 1 });
  expect(run.records).toHaveLength(1);
});

test("every attempt's exchange is bounded by the delivery's plan, the one its activity timeout was set from", async () => {
  const run = await deliver([fail(500), ok()], { attemptTimeoutMs: 7000 });
  expect(run.sends.map((x) => x.timeoutMs)).toEqual([7000, 7000]);
});

test("a delivery put off at its caps until its budget ran out: tenant_busy only when every put-off was at the tenant's cap", async () => {
  const tenantBusy: Answer = { busy: true, error: 'tenant_busy', statusCode: null };
  const endpointBusy: Answer = { busy: true, error: 'endpoint_busy', statusCode: null };
  const onlyTenant = await deliver([...Array(241).fill(tenantBusy), ok()]);
  expect(onlyTenant.records[0]).toMatchObject({ attempt: 1, outcome: 'failed', error: expect.stringMatching(/^tenant_busy: put off 240 times/) });
  // One put-off at the endpoint's own cap among them: running out is the endpoint's failure (its health counts it).
  const mixed = await deliver([endpointBusy, ...Array(240).fill(tenantBusy), ok()]);
  expect(mixed.records[0]).toMatchObject({ attempt: 1, outcome: 'failed', error: expect.stringMatching(/^endpoint_busy: put off 240 times/) });
}, 120_000);

test('410 Gone stops retrying that endpoint', async () => {
  const run = await deliver([fail(500), { outcome: 'gone', statusCode: 410, error: 'http_410' }, ok()]);
  expectOffsets(run.offsets, [0, 5]);
  expect(run.result).toEqual({ status: 'gone', attempts: 2 });
  expect(run.status).toBe('gone');
  expect(run.records.at(-1)).toMatchObject({ outcome: 'gone', final: 'gone' });
});

test('Retry-After on 429/503 is a floor on the wait, never a shortcut', async () => {
  const run = await deliver([fail(503, 10 * M * 1000), fail(429, 1000), ok()]);
  // 10 min asked instead of 5 s; then 1 s asked but the schedule's 5 min wins.
  expectOffsets(run.offsets, [0, 10 * M, 15 * M]);
  expect(run.result).toEqual({ status: 'delivered', attempts: 3 });
});

test('a Retry-After that reaches past the 3-day window ends the delivery', async () => {
  const run = await deliver([fail(503, 4 * 24 * H * 1000)]);
  expect(run.result).toEqual({ status: 'failed', attempts: 1 });
  expect(run.records).toEqual([expect.objectContaining({ final: 'failed' })]);
});

test('a permanent error (address refused) fails the delivery at once', async () => {
  const run = await deliver([{ outcome: 'failed', permanent: true, error: 'ssrf_refused: hooks.example.com resolves to 10.0.0.7, a private address' }]);
  expect(run.result).toEqual({ status: 'failed', attempts: 1 });
  expect(run.records[0]).toMatchObject({ error: expect.stringMatching(/^ssrf_refused/), final: 'failed' });
  expect(run.details).toContain('permanent error: ssrf_refused');
});

test('an attempt activity that fails outright is a failed attempt on the same schedule, not a Temporal retry', async () => {
  const run = await deliver([
    () => {
      throw ApplicationFailure.create({ message: 'connect ECONNREFUSED 10.0.3.7:27017', nonRetryable: false });
    },
    ok(),
  ]);
  expect(run.sends).toHaveLength(2);
  expectOffsets(run.offsets, [0, 5]);
  // The merchant reads the attempt's error: it names no internal address or message.
  expect(run.records[0]).toMatchObject({ outcome: 'failed', statusCode: null, error: 'attempt_failed: the attempt could not be made (internal error)' });
  expect(run.result).toEqual({ status: 'delivered', attempts: 2 });
});

test('WEBHOOK_RETRY_SCHEDULE replaces the waits', async () => {
  const run = await deliver([fail(500)], { waitsMs: [1000, 2000] });
  expectOffsets(run.offsets, [0, 1, 3]);
  expect(run.result).toEqual({ status: 'failed', attempts: 3 });
});

test('a finished delivery replays from its history without non-determinism (the schedule lives in history)', async () => {
  const run = await deliver([fail(503, 90_000), fail(500), ok()]);
  await expect(Worker.runReplayHistory({ workflowBundle: getWorkflowBundle() }, run.history, 'webhook-delivery-replay')).resolves.toBeUndefined();
});

test('an operator canceling a delivery between attempts leaves it marked failed, not pending', async () => {
  const taskQueue = `webhooks-${++n}`;
  let sends = 0;
  const activities = {
    deliveryPlan: async (): Promise<DeliveryPlan> => ({ waitsMs: [...DEFAULT_RETRY_WAITS_MS], windowMs: DELIVERY_WINDOW_MS, attemptTimeoutMs: 10_000 }),
    sendWebhook: async (): Promise<SendWebhookResult> => {
      sends += 1;
      return { attemptedAt: new Date().toISOString(), statusCode: 500, latencyMs: 1, error: 'http_500', outcome: 'failed', permanent: false, retryAfterMs: null };
    },
    recordDeliveryAttempt: async () => undefined,
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  await worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: `evt_eu_cancel${n}-0`,
      taskQueue,
      args: [
        {
          eventId: `evt_eu_cancel${n}`,
          eventType: 'refund.success',
          tenantId: 'ten_eu_test',
          url: 'https://hooks.example.com/x',
          endpointIndex: 0,
          source: { kind: 'refund', id: 're_eu_test' },
          body: '{}',
          format: 'envelope',
        } satisfies WebhookDeliveryInput,
      ],
      typedSearchAttributes: [{ key: SA.DeliveryStatus, value: 'pending' }],
    });
    // Cancel once the first attempt is behind us and the workflow waits on its 5 s timer. (Virtual time
    // does not skip while nobody awaits a result, so the timer cannot fire meanwhile.)
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    expect(sends).toBe(1);
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).typedSearchAttributes.get(SA.DeliveryStatus)).toBe('failed');
  });
});

/**
 * Attempt times in whole seconds from the first attempt. Each wait starts when the previous attempt ends, so
 * a loaded machine's attempt latency can carry a value across a second boundary: to the second, within one.
 */
function expectOffsets(actual: number[], expected: number[]) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => expect(Math.abs(a - expected[i]!)).toBeLessThanOrEqual(1));
}
