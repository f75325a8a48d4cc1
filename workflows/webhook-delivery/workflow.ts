import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  TimeoutFailure,
  workflowInfo,
  workflowRandom,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { SendWebhookInput, SendWebhookResult } from '../../activities/webhooks';
import { redactUrl } from '../../domain/operator-text';
import { busyRetryDelay, formatDuration, MAX_BUSY_WAITS, nextRetryDelay, type RetryPlan } from '../../domain/webhook-schedule';
import { SA } from '../search-attributes';
import { redeliverNowUpdate, type RedeliverNowAnswer, type RedeliverNowInput, type WebhookDeliveryInput, type WebhookDeliveryResult } from './messages';
import { assertStamped, noteOperatorAction } from '../operator-stamps';

// One delivery of one event to one endpoint. Each attempt is an activity (its status code and timing are in
// history), the waits between attempts are durable timers, and the schedule is fixed at the start through
// a local activity, so replays and worker restarts keep it to the second. The body is carried as given:
// whatever its format (envelope or legacy), it is sent byte for byte on every attempt.
// An endpoint at its in-flight cap puts an attempt off (short waits, not attempts); a disabled endpoint parks
// the delivery (kept for the replay of a re-enable). An operator's `redeliverNow` cuts a wait short.

const plan = proxyLocalActivities<Activities>({ startToCloseTimeout: '5s' });
const storeRetry = { initialInterval: '1s', maximumInterval: '1m' } as const;
const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: storeRetry });
const localStore = proxyLocalActivities<Activities>({ startToCloseTimeout: '10s', retry: storeRetry });

/**
 * Runs with this patch write each attempt's record as a local activity, inside the task that got the
 * attempt's answer: one workflow task and one activity round trip fewer per attempt (bench/RESULTS.md, run 9).
 * The write is an insert keyed by delivery and attempt, so one run again after a crash changes nothing. Runs
 * recorded before the patch replay with the activity they scheduled.
 */
const LOCAL_ATTEMPT_RECORDS_PATCH = 'local-delivery-attempt-records';
/** Runs that spend an operator's wake on the attempt it led to; older ones kept it for the next wait. */
const WAKE_SPENT_PATCH = 'delivery-wake-spent';
/**
 * Runs that count the 3-day window from their first attempt made, as the endpoint's health counts its failing
 * time; older ones counted it from the run's start, so put-offs and the start's own latency cut the schedule
 * short of the disable period and a dead endpoint's one schedule did not disable it.
 */
const WINDOW_FROM_FIRST_ATTEMPT_PATCH = 'delivery-window-from-first-attempt';

/** Runs that answer an operator's failed attempt once it is known whether it parked the delivery; older ones answered `pending` at once. */
const ANSWER_SETTLED_PATCH = 'redeliver-now-answers-settled';

/** How long an operator's redeliverNow waits for the attempt before answering `pending` (the attempt still comes). */
const REDELIVER_NOW_WAITS_MS = 30_000;

/** The attempt activity's own bound: the HTTP exchange's, plus room to look up the secret. */
const ACTIVITY_MARGIN_MS = 5000;

type Status = WebhookDeliveryResult['status'];

/** `ms` kept within [from, to]; `from` when it is no instant. */
const between = (ms: number, from: number, to: number): number => (Number.isNaN(ms) ? from : Math.min(Math.max(ms, from), to));

interface AttemptLine {
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  outcome: 'delivered' | 'failed' | 'gone';
}

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const deliveryId = workflowInfo().workflowId;

  const lines: AttemptLine[] = [];
  const notes: string[] = [];
  if (input.operator) noteOperatorAction(notes, input.operator.operator, 'redeliver', input.operator.reason);
  let attempting = false;
  /** Attempts whose consequence is known: recorded, and the endpoint found still enabled (or the delivery ended). */
  let settled = 0;
  let wake = false;
  let ended: Status | null = null;
  /** A durable wait that an operator's redeliverNow ends early. */
  const pause = async (ms: number) => {
    await condition(() => wake, ms);
    wake = false;
  };

  // Declared before the handler: an Update that arrives with the first task runs at setHandler.
  const describe = (headline: string) => {
    const rows = lines.map(
      (l) => `| ${l.attempt} | ${l.at} | ${l.statusCode ?? '-'} | ${l.latencyMs} ms | ${(l.error ?? '').replace(/\|/g, '/').slice(0, 120)} |`,
    );
    setCurrentDetails(
      `**${headline}**\n\n${input.eventType} \`${input.eventId}\` → ${redactUrl(input.url)}${input.redelivery ? ' (redelivery)' : ''}\n\n` +
        (notes.length ? `${notes.map((n) => `- ${n}`).join('\n')}\n\n` : '') +
        (rows.length ? `| # | at | status | latency | error |\n|---|---|---|---|---|\n${rows.join('\n')}` : ''),
    );
  };
  const end = (status: Status, headline: string): WebhookDeliveryResult => {
    ended = status;
    upsertSearchAttributes([{ key: SA.DeliveryStatus, value: status }]);
    describe(headline);
    return { status, attempts: lines.length };
  };

  setHandler(
    redeliverNowUpdate,
    async (req: RedeliverNowInput): Promise<RedeliverNowAnswer> => {
      noteOperatorAction(notes, req.operator, 'redeliver now', req.reason);
      log.warn('operator action', { action: 'redeliver_webhook', operator: req.operator, reason: req.reason, actionId: req.actionId, deliveryId });
      // An attempt on the wire is the attempt asked for; otherwise the wait before the next one ends now.
      const before = lines.length;
      if (!attempting) wake = true;
      describe(attempting ? `attempt ${lines.length + 1} in progress` : 'attempting now (operator)');
      // Bounded: an endpoint at its in-flight limit puts the attempt off; the operator is told it is pending.
      await condition(() => lines.length > before || ended !== null, REDELIVER_NOW_WAITS_MS);
      // A failed attempt is answered once its record said whether it disabled the endpoint (the delivery then ends
      // parked): answered at its line, it read `pending` for a delivery parked a moment later. The answer moves
      // after the record's marker in history, hence the patch; no timer, the record and the park come anyway.
      if (lines[before]?.outcome === 'failed' && patched(ANSWER_SETTLED_PATCH)) await condition(() => ended !== null || settled > before);
      const l = lines[before];
      return {
        outcome: l ? 'attempted' : ended !== null ? 'ended' : 'pending',
        delivery: deliveryId,
        attempt: l?.attempt ?? null,
        status_code: l?.statusCode ?? null,
        attempt_outcome: l?.outcome ?? null,
        // An attempt delivered (or answered 410) ends the delivery with that status, a step after its line is kept.
        status: ended ?? (l && l.outcome !== 'failed' ? l.outcome : 'pending'),
      };
    },
    {
      validator: (req: RedeliverNowInput) => {
        assertStamped(req);
        if (ended !== null) throw ApplicationFailure.nonRetryable(`This delivery has ended (${ended})`, 'delivery_ended');
      },
    },
  );

  // After the handler: an operator's redeliverNow that arrives with the first task is taken, not refused for want
  // of a handler (this wait ends the task). The handler needs none of the plan. No command moves: no patch.
  const p = await plan.deliveryPlan();
  const schedule: RetryPlan = { waitsMs: p.waitsMs, windowMs: p.windowMs };
  // HTTP outcomes are results, never retried by Temporal: the schedule below is the only retry policy.
  const http = proxyActivities<Activities>({ startToCloseTimeout: p.attemptTimeoutMs + ACTIVITY_MARGIN_MS, retry: { maximumAttempts: 1 } });

  /**
   * Parks the delivery for a re-enable's replay. False when the endpoint was enabled again meanwhile: the park is
   * taken back (a re-enable that read the parked list before it would never replay it) and the delivery goes on.
   * An activity on older code answers nothing: parked, as before.
   */
  const parked = async (counts: { attempted: boolean; lastAttemptFailed?: boolean }, mayResume = true): Promise<boolean> =>
    !(
      await store.parkDelivery({
        deliveryId,
        tenantId: input.tenantId,
        eventId: input.eventId,
        endpointIndex: input.endpointIndex,
        url: input.url,
        ...(mayResume ? {} : { mayResume }),
        ...counts,
      })
    )?.resumed;

  const send = async (attempt: number): Promise<SendWebhookResult> => {
    const req: SendWebhookInput = {
      deliveryId,
      attempt,
      eventId: input.eventId,
      tenantId: input.tenantId,
      url: input.url,
      ...(input.secretRef ? { secretRef: input.secretRef } : {}),
      body: input.body,
      // The exchange's bound is the one this delivery's activity timeout was set from, not the live setting.
      timeoutMs: p.attemptTimeoutMs,
    };
    const startedAt = Date.now();
    try {
      return await http.sendWebhook(req);
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The attempt activity itself failed (worker lost, timed out, secret store down): a failed attempt
      // like a refused connection, retried on the same schedule.
      const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error) : (err as Error);
      // The merchant reads this error (GET /events/{id}): it says what happened, never an internal address or
      // message; the worker's log keeps the cause.
      log.warn('a webhook attempt could not be made', { deliveryId, eventId: input.eventId, cause: cause.message });
      return {
        attemptedAt: new Date(startedAt).toISOString(),
        statusCode: null,
        latencyMs: Date.now() - startedAt,
        error: cause instanceof TimeoutFailure ? 'attempt_failed: the attempt timed out' : 'attempt_failed: the attempt could not be made (internal error)',
        outcome: 'failed',
        permanent: false,
        retryAfterMs: null,
      };
    }
  };

  const run = async (): Promise<WebhookDeliveryResult> => {
    const startedAt = Date.now();
    /** Where the retry window starts (ms): set at the first attempt made. */
    let windowFrom: number | null = null;
    /** When the attempt on the wire (or just back) was asked for, by the workflow's clock. */
    let sentAt = startedAt;
    // Put-offs are budgeted per delivery, not per attempt: each costs about 11 history events, so the budget
    // bounds the history (240 put-offs: about 2,700 events) however many attempts follow.
    let putOffsLeft = MAX_BUSY_WAITS;
    /** Whether any put-off was at the endpoint's own cap: then its running out is the endpoint's failure too. */
    let endpointWasBusy = false;
    for (let attempt = 1; ; attempt++) {
      let r: SendWebhookResult;
      for (let putOffs = 0; ; ) {
        describe(`attempt ${attempt} in progress`);
        attempting = true;
        // An operator's "now" that came while no wait was running (a park being taken back) is this attempt:
        // left set, it would cut the next retry's wait short too.
        if (wake && patched(WAKE_SPENT_PATCH)) wake = false;
        sentAt = Date.now();
        r = await send(attempt);
        attempting = false;
        // Enabled again between the send's read and the park: nothing was sent, so the attempt goes now (a
        // put-off without a wait, so an endpoint flipping on and off cannot hold the delivery here for good;
        // with none left, the park stands and a re-enable replays it).
        if (r.parked && !(await parked({ attempted: attempt > 1 }, putOffsLeft > 0)) && --putOffsLeft >= 0) continue;
        if (!r.busy) break;
        // The endpoint (or its tenant) has its most attempts in flight: nothing was sent, so this is not an attempt.
        ++putOffs;
        if (r.error !== 'tenant_busy') endpointWasBusy = true;
        if (--putOffsLeft < 0) {
          // Only the tenant's cap, every time: nothing of it was this endpoint's doing (its health leaves it out).
          r = endpointWasBusy
            ? { ...r, busy: false, error: `endpoint_busy: put off ${MAX_BUSY_WAITS} times at the endpoint's in-flight cap` }
            : { ...r, busy: false, error: `tenant_busy: put off ${MAX_BUSY_WAITS} times at the tenant's in-flight cap` };
          break;
        }
        const wait = busyRetryDelay(putOffs, 0.5 + workflowRandom.random() / 2);
        describe(`attempt ${attempt} put off: the ${r.error === 'tenant_busy' ? 'tenant' : 'endpoint'} has its most attempts in flight; again in ${formatDuration(wait)}`);
        await pause(wait);
      }
      if (r.parked) return end('parked', 'parked: the endpoint is disabled; nothing sent (replayed when an admin re-enables it with replay_missed)');
      lines.push({ attempt, at: r.attemptedAt, statusCode: r.statusCode, latencyMs: r.latencyMs, error: r.error, outcome: r.outcome });
      const retrying = r.outcome === 'failed' && !r.permanent;
      // The window starts at the instant the first attempt recorded (the one its endpoint's health reads), not at
      // the run's start: a put-off is no attempt, and the last attempt then comes a whole window after the first
      // failed one. That instant is the worker's clock: kept between the attempt's asking and its answer by ours,
      // so a worker whose clock is off moves the window by no more than the attempt lasted. Asked only when a
      // retry may follow: at attempt 1 then, whose any other outcome ends the delivery.
      if (retrying) windowFrom ??= patched(WINDOW_FROM_FIRST_ATTEMPT_PATCH) ? between(Date.parse(r.attemptedAt), sentAt, Date.now()) : startedAt;

      const wait = retrying ? nextRetryDelay(schedule, { attempt, elapsedMs: Date.now() - windowFrom!, retryAfterMs: r.retryAfterMs }) : null;
      const final: Status | null = r.outcome !== 'failed' ? r.outcome : wait === null ? 'failed' : null;
      const recorded = await (patched(LOCAL_ATTEMPT_RECORDS_PATCH) ? localStore : store).recordDeliveryAttempt({
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

      // Every attempt to this endpoint failed for WEBHOOK_DISABLE_AFTER: it is disabled, this delivery stops.
      // (Histories from before the disable answer nothing here.)
      // Enabled again as soon as it was disabled, the delivery goes on with its schedule.
      if (r.outcome === 'failed' && recorded?.endpointDisabled && (await parked({ attempted: true, ...(final === 'failed' ? { lastAttemptFailed: true } : {}) }))) {
        return end('parked', `parked: the endpoint was disabled after attempt ${attempt} (every attempt failed for the disable period)`);
      }
      settled = lines.length;
      if (final === 'delivered') return end('delivered', `delivered on attempt ${attempt} (${r.statusCode})`);
      if (final === 'gone') return end('gone', `gone: the endpoint answered 410 on attempt ${attempt}; not retried`);
      if (final === 'failed') {
        // Its kind only (`http_500`, `redirect_not_followed`): the detail may name a URL whose path is a secret (a
        // redirect's Location). The attempt's record keeps it whole.
        log.warn('webhook delivery failed', { deliveryId, eventId: input.eventId, attempts: attempt, error: r.error?.split(':', 1)[0] ?? null });
        return end('failed', r.permanent ? `failed: permanent error: ${r.error}` : `failed: no retry left within the window after ${attempt} attempts`);
      }
      describe(`attempt ${attempt} failed; attempt ${attempt + 1} in ${formatDuration(wait!)} (at ${new Date(Date.now() + wait!).toISOString()})`);
      await pause(wait!);
    }
  };

  try {
    const result = await run();
    // An operator's Update waiting on this delivery gets its answer before the workflow closes.
    await condition(allHandlersFinished);
    return result;
  } catch (err) {
    // Canceled from the UI or CLI: the delivery is over and must not read as pending forever.
    if (isCancellation(err)) end('failed', `canceled by an operator after ${lines.length} attempts`);
    throw err;
  }
}
