// The webhook retry schedule as pure arithmetic. The delivery workflow runs it between durable timers, so it
// must be deterministic: no clock, no I/O; the caller passes elapsed time and the receiver's Retry-After.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits between attempts: the first attempt is immediate, then one more attempt after each of these.
 * They add up to 75h35m05s, past the 3-day window, so the last wait is cut short by the window:
 * the tenth and last attempt happens exactly 3 days after the first.
 */
export const DEFAULT_RETRY_WAITS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** No attempt starts later than this after the first one (the spec's "retried for up to 3 days"). */
export const DELIVERY_WINDOW_MS = 3 * 24 * HOUR;

export interface RetryPlan {
  /** Wait before attempt n+1 after attempt n failed; its length + 1 is the most attempts made. */
  waitsMs: readonly number[];
  windowMs: number;
}

export const DEFAULT_RETRY_PLAN: RetryPlan = { waitsMs: DEFAULT_RETRY_WAITS_MS, windowMs: DELIVERY_WINDOW_MS };

export function retryPlan(waitsMs?: readonly number[]): RetryPlan {
  return { waitsMs: waitsMs && waitsMs.length > 0 ? [...waitsMs] : DEFAULT_RETRY_WAITS_MS, windowMs: DELIVERY_WINDOW_MS };
}

export interface FailedAttempt {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  /** Time from the start of the first attempt to now (the end of the failed one). */
  elapsedMs: number;
  /** The receiver's Retry-After on a 429 or 503, in ms from now; null when absent. */
  retryAfterMs?: number | null;
}

/**
 * How long to wait before the next attempt, or null to stop (the delivery has failed).
 * - The schedule gives the wait; when it is exhausted, stop.
 * - Retry-After is a floor: we never come back sooner than the receiver asked. If that would land past the
 *   window, stop rather than retry early into another 429/503.
 * - Nothing is scheduled past the window: a wait that would cross it is shortened to end on it.
 */
export function nextRetryDelay(plan: RetryPlan, failed: FailedAttempt): number | null {
  const scheduled = plan.waitsMs[failed.attempt - 1];
  if (scheduled === undefined) return null;
  const remaining = plan.windowMs - failed.elapsedMs;
  if (remaining <= 0) return null;
  const floor = failed.retryAfterMs ?? 0;
  if (floor > remaining) return null;
  return Math.min(Math.max(scheduled, floor), remaining);
}

/**
 * Start offsets of every attempt when each fails instantly without Retry-After: what the schedule
 * promises. Used by the docs and tests: [0, 5s, 5m05s, 35m05s, ...].
 */
export function attemptOffsetsMs(plan: RetryPlan): number[] {
  const offsets = [0];
  for (let attempt = 1; ; attempt++) {
    const elapsed = offsets[offsets.length - 1]!;
    const wait = nextRetryDelay(plan, { attempt, elapsedMs: elapsed });
    if (wait === null) return offsets;
    offsets.push(elapsed + wait);
  }
}

export type AttemptOutcome = 'delivered' | 'failed' | 'gone';

/** 2xx delivers; 410 Gone means the receiver retired the endpoint; anything else (3xx included) failed. */
export function outcomeOfStatus(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode <= 299) return 'delivered';
  if (statusCode === 410) return 'gone';
  return 'failed';
}

/** Only these answers mean "come back later, at this time"; elsewhere Retry-After is ignored. */
export function honoursRetryAfter(statusCode: number): boolean {
  return statusCode === 429 || statusCode === 503;
}

const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as ms from `nowMs`. A date in the past
 * means "now" (0). Anything else is ignored (null), so a malformed header cannot stall a delivery.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * SECOND;
  if (IMF_FIXDATE.test(v) || RFC850_DATE.test(v) || ASCTIME_DATE.test(v)) {
    // asctime carries no zone; HTTP says it is GMT.
    const at = Date.parse(ASCTIME_DATE.test(v) ? `${v} GMT` : v);
    if (Number.isNaN(at)) return null;
    return Math.max(0, at - nowMs);
  }
  return null;
}

/** `5m05s`, `2h35m05s`, `3d`: for the readable summary operators see in the Temporal UI. */
export function formatDuration(ms: number): string {
  if (ms < SECOND) return `${ms}ms`;
  let s = Math.round(ms / SECOND);
  const parts: string[] = [];
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d) parts.push(`${d}d`);
  if (h) parts.push(`${h}h`);
  if (m) parts.push(parts.length ? `${String(m).padStart(2, '0')}m` : `${m}m`);
  if (s) parts.push(parts.length ? `${String(s).padStart(2, '0')}s` : `${s}s`);
  return parts.join('');
}

/** Most put-offs of one delivery while its endpoint is at its in-flight cap; past them each busy attempt counts as failed. */
export const MAX_BUSY_WAITS = 240;

/**
 * Wait before trying again an attempt put off because its endpoint was at its in-flight cap (not an attempt:
 * nothing was sent): 1 s doubling to 15 s, times `jitter` in [0.5, 1] so put-off deliveries spread out.
 */
export function busyRetryDelay(putOffs: number, jitter = 1): number {
  const base = Math.min(1000 * 2 ** Math.max(0, putOffs - 1), 15 * SECOND);
  return Math.round(base * Math.min(1, Math.max(0.5, jitter)));
}
