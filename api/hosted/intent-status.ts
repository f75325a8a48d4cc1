import type { Client } from '@temporalio/client';
import type { PaymentIntentRecord } from '../../platform/records';
import { intentStateQuery, type IntentState } from '../../workflows/payment-intent/messages';

// What the hosted page needs to know while it waits: has the customer's attempt ended, and how? The
// record in MongoDB is the read model; the workflow's live state says whether an attempt is still open
// and whether the record has caught up with it. A failed attempt leaves the intent `pending`, so "the
// attempt failed" can only be told from "the attempt is still running" with the live state.

/**
 * - `open`: pending, nothing running; the customer may pay.
 * - `processing`: an attempt is running (charging, 3DS, waiting for the gateway) or its result is not
 *   in the record yet; ask again shortly.
 * - `failed`: the attempt the page asked about ended without payment; the customer may try again.
 * - `succeeded`, `canceled`, `expired`: final.
 */
export type CheckoutOutcome = 'open' | 'processing' | 'failed' | 'succeeded' | 'canceled' | 'expired';

/** The endings of an intent: once in one, the page shows it and no one can pay. */
export type FinalOutcome = Extract<CheckoutOutcome, 'succeeded' | 'canceled' | 'expired'>;

export type RecordView = Pick<PaymentIntentRecord, 'status' | 'version' | 'expires_at' | 'cancellation_reason' | 'last_failure_code'>;
export type LiveView = Pick<IntentState, 'status' | 'version' | 'attempt' | 'attempts'>;

export interface OutcomeAnswer {
  outcome: CheckoutOutcome;
  failure_code?: string;
}

/** The ending an intent's record is in, or null while it is pending. */
export function finalOutcome(record: Pick<PaymentIntentRecord, 'status' | 'cancellation_reason'>): FinalOutcome | null {
  if (record.status === 'success') return 'succeeded';
  if (record.status === 'canceled') return record.cancellation_reason === 'expired' ? 'expired' : 'canceled';
  return null;
}

/**
 * @param attemptNumber the attempt the page is waiting for (from `attempt=<n>` after a 3DS redirect), or
 *   null when it waits for whichever attempt is open.
 * @param live the workflow's state, or null when it could not be asked (then the record alone decides,
 *   and a failure code already in it is taken as this attempt's).
 */
export function checkoutOutcome(record: RecordView, live: LiveView | null, attemptNumber: number | null, now: Date): OutcomeAnswer {
  const final = finalOutcome(record);
  if (final) return { outcome: final };
  const failed = (): OutcomeAnswer =>
    record.last_failure_code ? { outcome: 'failed', failure_code: record.last_failure_code } : { outcome: 'failed' };

  if (live) {
    // The workflow has moved on and the record has not been written yet.
    if (live.version > record.version || live.status !== 'pending') return { outcome: 'processing' };
    if (live.attempt && (attemptNumber === null || live.attempt.number >= attemptNumber)) return { outcome: 'processing' };
    if (now.getTime() >= record.expires_at.getTime()) return { outcome: 'processing' }; // the expiry timer is about to fire
    if (attemptNumber !== null && live.attempts >= attemptNumber) return failed();
    if (attemptNumber === null && record.last_failure_code) return failed();
    return { outcome: 'open' };
  }
  if (now.getTime() >= record.expires_at.getTime()) return { outcome: 'processing' };
  if (record.last_failure_code) return failed();
  // Without the workflow we cannot tell a running attempt from a fresh intent: after an attempt, wait.
  return { outcome: attemptNumber !== null ? 'processing' : 'open' };
}

/**
 * What a pending intent's page offers when it is drawn:
 * - `payable`: the card form.
 * - `checking`: an attempt is being charged or its answer checked with the gateway (or the record has not caught up
 *   with the workflow): "Checking your payment…", no form, and the page asks again until it knows. A 3-D Secure
 *   challenge left open is not one: a new attempt replaces it.
 * - `attempt_limit`: no attempt left (a new one would be refused), so no form.
 * - `unknown`: the workflow did not answer; the page cannot tell a charge in flight from none.
 */
export type PendingPageState = 'payable' | 'checking' | 'attempt_limit' | 'unknown';

/** @param maxAttempts the service's attempt cap (the intent's workflow got it at create; its state does not say). */
export function pendingPageState(record: Pick<RecordView, 'status' | 'version'>, live: LiveView | null, maxAttempts: number): PendingPageState {
  if (record.status !== 'pending') return 'payable';
  if (!live) return 'unknown';
  if (live.version > record.version || live.status !== 'pending') return 'checking';
  if (live.attempt && live.attempt.phase !== 'awaiting_action') return 'checking';
  if (live.attempts >= maxAttempts) return 'attempt_limit';
  return 'payable';
}

const LIVE_STATE_TIMEOUT_MS = 1500;

/** The workflow's state, or null if it does not answer quickly (the page asks again in a moment). */
export async function liveIntentState(temporal: Pick<Client, 'workflow'> | undefined, paymentIntentId: string): Promise<LiveView | null> {
  if (!temporal) return null;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), LIVE_STATE_TIMEOUT_MS);
    });
    return await Promise.race([temporal.workflow.getHandle(paymentIntentId).query(intentStateQuery), timeout]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The card a paid intent saved, for the page's "Card saved": its answer to the attempt says so, but a
 * 3-D Secure challenge brings the customer back to a page that only polls. Told from the record alone (the
 * card's own document may still be on its way when the record says paid): a card charged by POST /cards/mit,
 * saved by an earlier payment, comes with the intent's merchant-initiated transactions.
 */
export function cardSavedBy(intent: Pick<PaymentIntentRecord, 'payment_method' | 'transactions'>): string | null {
  return intent.payment_method && !intent.transactions?.length ? intent.payment_method : null;
}
