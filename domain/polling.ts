// How often workflows ask a gateway about something it has not finished, and how long a run's history may
// grow. Pure: workflows and their tests share these numbers.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Doubling backoff from `firstMs`, capped at `capMs`. */
export function backoffMs(checks: number, firstMs: number, capMs: number): number {
  return Math.min(capMs, firstMs * 2 ** Math.min(Math.max(0, checks), 40));
}

/**
 * The cap of the polling backoff for something that may stay open for `lifetimeMs` (a 3DS charge for a
 * 90-day intent, a refund with a 365-day SLA): an hour, or a hundredth of the lifetime when that is longer,
 * at most a day. Callbacks are the fast path; polling only finds the ones that were lost, so a long life
 * is checked about a hundred times, and its history stays small.
 */
export function pollCapMs(lifetimeMs: number): number {
  return Math.min(DAY, Math.max(HOUR, Math.floor(lifetimeMs / 100)));
}

/** An open charge or refund: first asked after a minute, then doubling to the cap. */
export function openPollDelayMs(checks: number, lifetimeMs: number): number {
  return backoffMs(checks, MINUTE, pollCapMs(lifetimeMs));
}

/** A charge whose answer was lost: a customer is waiting, so ask at once, then 1 s doubling to a minute. */
export function unknownOutcomeDelayMs(checks: number): number {
  return checks === 0 ? 0 : backoffMs(checks - 1, 1000, MINUTE);
}

/**
 * A run continues as new past this many history events (or when Temporal suggests it earlier), carrying its
 * state; with the slowest poll loop adding about a dozen events per step, no run passes ~2,100 events,
 * far below Temporal's 10,240-event warning and 51,200-event limit.
 */
export const HISTORY_EVENT_BOUND = 2000;
