import { WorkflowUpdateFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { DeliveryAttemptInput, DeliveryPlan, ParkDeliveryInput, SendWebhookInput, SendWebhookResult } from '../../activities/webhooks';
import { DELIVERY_WINDOW_MS } from '../../domain/webhook-schedule';
import { SA } from '../../workflows/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, redeliverNowUpdate, type WebhookDeliveryInput } from '../../workflows/webhook-delivery/messages';
import { gate, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';

// The delivery workflow's operations in virtual time: an operator's redeliverNow, attempts put off while the
// endpoint is at its in-flight cap (not attempts), and parking when the endpoint is disabled. Activities are
// scripted; the real ones are exercised against FerretDB and HTTP receivers in test/integration/webhook-endpoints.test.ts.

const testEnv = useWorkflowTestEnv();
let n = 0;

type Answer = Partial<SendWebhookResult>;

function harness(answers: Answer[], opts: { waitsMs?: number[]; disableAfterRecord?: number; enabledAgainAtPark?: boolean; parkHeld?: Promise<void> } = {}) {
  const sends: SendWebhookInput[] = [];
  const records: DeliveryAttemptInput[] = [];
  const parked: ParkDeliveryInput[] = [];
  const activities = {
    deliveryPlan: async (): Promise<DeliveryPlan> => ({ waitsMs: opts.waitsMs ?? [3_600_000, 3_600_000], windowMs: DELIVERY_WINDOW_MS, attemptTimeoutMs: 10_000 }),
    sendWebhook: async (i: SendWebhookInput): Promise<SendWebhookResult> => {
      sends.push(i);
      const a = answers[Math.min(sends.length - 1, answers.length - 1)]!;
      return { attemptedAt: new Date(await testEnv().currentTimeMs()).toISOString(), statusCode: 500, latencyMs: 3, error: 'http_500', outcome: 'failed', permanent: false, retryAfterMs: null, ...a };
    },
    recordDeliveryAttempt: async (r: DeliveryAttemptInput) => {
      records.push(r);
      return { endpointDisabled: opts.disableAfterRecord !== undefined && records.length >= opts.disableAfterRecord };
    },
    parkDelivery: async (p: ParkDeliveryInput) => {
      parked.push(p);
      await opts.parkHeld;
      // The endpoint enabled again between the send's read and this park: the first park is taken back.
      return { resumed: opts.enabledAgainAtPark === true && parked.length === 1 && p.mayResume !== false };
    },
  };
  const taskQueue = `webhook-ops-${++n}`;
  const input: WebhookDeliveryInput = {
    eventId: `evt_eu_ops${n}`,
    eventType: 'payment.success',
    tenantId: 'ten_eu_test',
    url: 'https://hooks.example.com/ops',
    endpointIndex: 0,
    source: { kind: 'payment_intent', id: 'pi_eu_test' },
    body: '{"id":"x"}',
    format: 'envelope',
  };
  /** Runs `fn` on a started delivery; with RECORD_HISTORIES=1 its history is kept as `webhook-delivery-<recordAs>`. */
  const run = async <T>(fn: (h: Awaited<ReturnType<typeof start>>) => Promise<T>, recordAs?: string): Promise<T> => {
    const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
    return worker.runUntil(async () => {
      const handle = await start();
      const out = await fn(handle);
      if (recordAs) {
        await handle.result().catch(() => undefined);
        keepHistory(`webhook-delivery-${recordAs}`, await handle.fetchHistory());
      }
      return out;
    });
  };
  const start = () =>
    testEnv().client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: `${input.eventId}-0`,
      taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: SA.DeliveryStatus, value: 'pending' }],
    });
  /** Starts the delivery and sends `update` before any worker runs, so both reach the run's first task. */
  const withFirstTask = async <T>(update: (h: Awaited<ReturnType<typeof start>>) => Promise<T>) => {
    const handle = await start();
    const answered = update(handle).then(
      (value) => ({ status: 'fulfilled' as const, value }),
      (reason: unknown) => ({ status: 'rejected' as const, reason }),
    );
    // Time for the server to hold the update before the first task is polled (the test checks it was in that task).
    await new Promise((r) => setTimeout(r, 1000));
    const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
    const settled = await worker.runUntil(answered);
    const events = (await handle.fetchHistory()).events!;
    const accepted = events.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    const firstSend = events.findIndex((e) => e.activityTaskScheduledEventAttributes);
    return { settled, inFirstTask: accepted >= 0 && (firstSend < 0 || accepted < firstSend) };
  };
  return { sends, records, parked, run, input, withFirstTask };
}

const details = async (h: { query: (q: string) => Promise<unknown> }) => ((await h.query('__temporal_workflow_metadata')) as { currentDetails?: string }).currentDetails ?? '';

test("an operator's redeliverNow cuts the hour's wait short, attempts now and answers with that attempt", async () => {
  const h = harness([{}, { outcome: 'delivered', statusCode: 204, error: null }]);
  await h.run(async (handle) => {
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    const before = await testEnv().currentTimeMs();
    const answer = await handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: 'merchant fixed TLS', actionId: 'opa_eu_1' }], updateId: 'opa_eu_1' });
    expect(answer).toEqual({ outcome: 'attempted', delivery: `${h.input.eventId}-0`, attempt: 2, status_code: 204, attempt_outcome: 'delivered', status: 'delivered' });
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 2 });
    // The second attempt came at once, not an hour later.
    expect(new Date(h.records[1]!.attemptedAt).getTime() - before).toBeLessThan(60_000);
    expect(await details(handle)).toContain('operator nadia: redeliver now (merchant fixed TLS)');
    // An ended delivery refuses a new action.
    await expect(handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: 'again', actionId: 'opa_eu_2' }], updateId: 'opa_eu_2' })).rejects.toThrow();
    expect(h.sends).toHaveLength(2);
  }, 'operator-redeliver-now-delivered');
});

test("an operator's redeliverNow that arrives with the delivery's first task is taken (it was refused for want of a handler) and answered with attempt 1", async () => {
  const h = harness([{ outcome: 'delivered', statusCode: 204, error: null }]);
  const answer = await h.withFirstTask((handle) =>
    handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: 'merchant asked', actionId: 'opa_eu_first' }], updateId: 'opa_eu_first' }),
  );
  expect(answer.settled).toEqual({ status: 'fulfilled', value: expect.objectContaining({ outcome: 'attempted', attempt: 1, attempt_outcome: 'delivered' }) });
  expect(answer.inFirstTask).toBe(true);
  // One attempt: the operator's "now" was that first attempt, not a second one.
  expect(h.sends).toHaveLength(1);
});

test('the same operator action sent twice (same update id) attempts once and answers the first answer again', async () => {
  const h = harness([{}, {}, { outcome: 'delivered', statusCode: 200, error: null }]);
  await h.run(async (handle) => {
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    const action = { operator: 'nadia', reason: 'merchant redeployed', actionId: 'opa_eu_dup' };
    const first = await handle.executeUpdate(redeliverNowUpdate, { args: [action], updateId: action.actionId });
    expect(first).toMatchObject({ outcome: 'attempted', attempt: 2, attempt_outcome: 'failed', status: 'pending' });
    // The admin API retried after a timeout: same update id, so Temporal answers the recorded result.
    const again = await handle.executeUpdate(redeliverNowUpdate, { args: [action], updateId: action.actionId });
    expect(again).toEqual(first);
    expect(h.sends).toHaveLength(2);
    // A new action (another id) is a new attempt.
    const next = await handle.executeUpdate(redeliverNowUpdate, { args: [{ ...action, actionId: 'opa_eu_dup2' }], updateId: 'opa_eu_dup2' });
    expect(next).toMatchObject({ outcome: 'attempted', attempt: 3, attempt_outcome: 'delivered' });
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 3 });
    expect(h.sends).toHaveLength(3);
  });
});

test('redeliverNow without a reason is refused by the validator and changes nothing', async () => {
  const h = harness([{}, { outcome: 'delivered', statusCode: 200, error: null }]);
  await h.run(async (handle) => {
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    const err = await handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: ' ', actionId: 'opa_eu_3' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'update_rejected' });
    expect(h.sends).toHaveLength(1);
    await handle.terminate().catch(() => undefined);
  });
});

test('attempts put off at the in-flight cap are not attempts: attempt 1 is sent once the endpoint has room', async () => {
  const busy: Answer = { busy: true, error: 'endpoint_busy', statusCode: null };
  const h = harness([busy, busy, busy, { outcome: 'delivered', statusCode: 200, error: null }]);
  const result = await h.run((handle) => handle.result(), 'put-off-three-times-delivered');
  expect(result).toEqual({ status: 'delivered', attempts: 1 });
  expect(h.sends.map((s) => s.attempt)).toEqual([1, 1, 1, 1]);
  expect(h.records.map((r) => [r.attempt, r.outcome, r.final])).toEqual([[1, 'delivered', 'delivered']]);
});

test('a disabled endpoint parks the delivery: nothing recorded as an attempt, status parked', async () => {
  const h = harness([{ parked: true, permanent: true, error: 'endpoint_disabled', statusCode: null }]);
  await h.run(async (handle) => {
    expect(await handle.result()).toEqual({ status: 'parked', attempts: 0 });
    expect((await handle.describe()).typedSearchAttributes.get(SA.DeliveryStatus)).toBe('parked');
  });
  expect(h.records).toEqual([]);
  // Parked before any attempt was recorded: the metrics had not counted it as pending.
  expect(h.parked).toEqual([{ deliveryId: `${h.input.eventId}-0`, tenantId: 'ten_eu_test', eventId: h.input.eventId, endpointIndex: 0, url: h.input.url, attempted: false }]);
});

test('an endpoint enabled again between the send and the park: the park is taken back and the event is sent at once', async () => {
  const h = harness([{ parked: true, permanent: true, error: 'endpoint_disabled', statusCode: null }, { outcome: 'delivered', statusCode: 200, error: null }], { enabledAgainAtPark: true });
  await h.run(async (handle) => {
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 1 });
  });
  expect(h.sends.map((x) => x.attempt)).toEqual([1, 1]);
  expect(h.records.map((r) => [r.attempt, r.outcome])).toEqual([[1, 'delivered']]);
});

test("an operator's redeliverNow that lands while a park is being taken back is spent on that attempt: the next retry still waits its hour", async () => {
  const parkHeld = gate();
  const h = harness([{ parked: true, permanent: true, error: 'endpoint_disabled', statusCode: null }, {}, { outcome: 'delivered', statusCode: 200, error: null }], {
    enabledAgainAtPark: true,
    parkHeld: parkHeld.p,
    waitsMs: [3_600_000, 3_600_000],
  });
  await h.run(async (handle) => {
    await waitFor(async () => h.parked.length === 1);
    const answer = handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: 'endpoint fixed', actionId: 'opa_eu_wake' }], updateId: 'opa_eu_wake' });
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes));
    parkHeld.open();
    expect(await answer).toMatchObject({ outcome: 'attempted', attempt: 1 });
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 2 });
  });
  const [first, second] = h.records.map((r) => new Date(r.attemptedAt).getTime());
  expect(second! - first!).toBeGreaterThanOrEqual(3_600_000);
});

test('an endpoint enabled again as soon as a failed attempt disabled it: the delivery goes on with its retries', async () => {
  const h = harness([{}, { outcome: 'delivered', statusCode: 200, error: null }], { disableAfterRecord: 1, enabledAgainAtPark: true, waitsMs: [1000] });
  await h.run(async (handle) => {
    expect(await handle.result()).toEqual({ status: 'delivered', attempts: 2 });
  });
  expect(h.parked).toHaveLength(1);
});

test('the failed attempt that disables the endpoint stops the retries and parks the delivery', async () => {
  const h = harness([{}], { disableAfterRecord: 2 });
  await h.run(async (handle) => {
    expect(await handle.result()).toEqual({ status: 'parked', attempts: 2 });
    expect(await details(handle)).toContain('parked: the endpoint was disabled after attempt 2');
  }, 'endpoint-disabled-parked');
  expect(h.sends).toHaveLength(2);
  expect(h.parked).toHaveLength(1);
});

test("an operator's redeliverNow whose attempt disables the endpoint answers the delivery parked, as it ends", async () => {
  const h = harness([{}], { disableAfterRecord: 2 });
  await h.run(async (handle) => {
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    const answer = await handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: 'merchant says it is back', actionId: 'opa_eu_park' }], updateId: 'opa_eu_park' });
    expect(answer).toEqual({ outcome: 'attempted', delivery: `${h.input.eventId}-0`, attempt: 2, status_code: 500, attempt_outcome: 'failed', status: 'parked' });
    expect(await handle.result()).toEqual({ status: 'parked', attempts: 2 });
  }, 'operator-redeliver-now-parked');
  expect(h.parked).toHaveLength(1);
});

test("an operator's redeliverNow whose attempt fails without disabling answers the delivery pending, its retries going on", async () => {
  const h = harness([{}]);
  await h.run(async (handle) => {
    await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    const answer = await handle.executeUpdate(redeliverNowUpdate, { args: [{ operator: 'nadia', reason: 'try again', actionId: 'opa_eu_fail' }], updateId: 'opa_eu_fail' });
    expect(answer).toMatchObject({ outcome: 'attempted', attempt: 2, attempt_outcome: 'failed', status: 'pending' });
    await handle.terminate('test over');
  });
});
