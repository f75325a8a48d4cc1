import { allHandlersFinished, condition, continueAsNew, log, patched, setHandler } from '@temporalio/workflow';
import { historyIsLong } from '../history';
import {
  admitRefundUpdate,
  attemptUpdate,
  cancelUpdate,
  chargeOutcomeSignal,
  checkoutCompletedUpdate,
  forceCancelUpdate,
  intentStateQuery,
  recheckAttemptUpdate,
  mitChargeUpdate,
  refundSettledSignal,
  type IntentView,
  type PaymentIntentInput,
} from './messages';
import type { Attempt } from './state';
import { cancelIntent, check, describe, persist, settled, startRun, type IntentRun } from './effects';
import { onForceCancel, onRecheck, validateForceCancel, validateRecheck } from './operator-actions';
import {
  onAdmitRefund,
  onAttempt,
  onCancel,
  onChargeOutcome,
  onCheckoutCompleted,
  onMitCharge,
  onRefundSettled,
  validateAdmitRefund,
  validateAttempt,
  validateCancel,
  validateCheckoutCompleted,
  validateMitCharge,
} from './handlers';

// Determinism: handlers and effects keep the await points they always had, and the main loop stays inline,
// because one await more or less on a path can reorder the commands of a workflow task; the histories in
// test/workflows/histories must keep replaying.

/** Runs that let a late capture's check (and its refund) finish before continuing as new; older runs did not wait. */
const CONTINUE_AFTER_CHECKS_PATCH = 'continue-after-late-checks';
/** Runs that look again after settling, before continuing as new, for an attempt accepted meanwhile. */
const RECHECK_AFTER_SETTLE_PATCH = 'continue-recheck-after-settle';
/** Marks runs that ask the gateway about an open attempt once at the deadline; older runs expired without asking. */
const ASK_AT_DEADLINE_PATCH = 'ask-open-attempt-at-deadline';
/** Runs that continue as new when a refund was admitted while they were closing; older runs ended under it. */
const ADMITTED_WHILE_CLOSING_PATCH = 'continue-when-admitted-while-closing';
/**
 * Runs that ask about attempts let go while the intent is still pending (on a callback at once, else on their
 * backoff), so a superseded charge captured meanwhile is refunded then; older runs found it only after the end.
 */
const LATE_WHILE_PENDING_PATCH = 'watch-late-while-pending';

/**
 * One workflow per payment intent; its id is the `pi_` id. It owns the intent's state machine (state.ts),
 * its deadline, its attempts (and their reconciliation with the gateway) and, once paid, its refundable
 * balance. This file registers the handlers (handlers.ts) and runs the main loop; effects.ts performs.
 */
export async function paymentIntentWorkflow(input: PaymentIntentInput): Promise<IntentView> {
  const run = startRun(input);
  const { s, writer } = run;
  setHandler(chargeOutcomeSignal, (hint) => onChargeOutcome(run, hint));
  setHandler(attemptUpdate, (req) => onAttempt(run, req), { validator: (req) => validateAttempt(run, req) });
  setHandler(mitChargeUpdate, (req) => onMitCharge(run, req), { validator: (req) => validateMitCharge(run, req) });
  setHandler(cancelUpdate, () => onCancel(run), { validator: () => validateCancel(run) });
  setHandler(checkoutCompletedUpdate, () => onCheckoutCompleted(run), { validator: () => validateCheckoutCompleted(run) });
  setHandler(admitRefundUpdate, (req) => onAdmitRefund(run, req), { validator: validateAdmitRefund });
  setHandler(refundSettledSignal, (settled) => onRefundSettled(run, settled));
  setHandler(intentStateQuery, () => s.snapshot(writer.version()));
  setHandler(forceCancelUpdate, (req) => onForceCancel(run, req), { validator: (req) => validateForceCancel(run, req) });
  setHandler(recheckAttemptUpdate, (req) => onRecheck(run, req), { validator: (req) => validateRecheck(run, req) });
  describe(run);

  // Handlers change the open attempt between awaits; read it through functions so the compiler does not narrow.
  const current = (): Attempt | null => s.attempt;
  const charging = (a: Attempt) => a.phase === 'charging';
  const pending = () => s.status === 'pending';
  if (pending()) {
    if (writer.version() === 0) await persist(run); // the workflow has taken the record over from the API's create
    const late = lateWatchWhilePending(run);
    // With attempts let go watched (patched runs), the open attempt's next poll is an instant, not a delay started
    // afresh at each wake: the watch's rounds wake the loop on their own backoff and would put it off for good.
    let openPoll: { a: Attempt | null; at: number } = { a: null, at: 0 };
    while (pending()) {
      if (!late.inFlightRound()) await continueIfLong(run);
      const open = current();
      if (open && charging(open)) {
        // A charge is on the wire: its outcome wins over the clock (late success is kept).
        await condition(() => current() !== open || !charging(open) || !pending());
        continue;
      }
      // The deadline is a durable timer: exact, and it survives restarts of every process.
      const remaining = s.expiresAt - Date.now();
      if (remaining <= 0) {
        await cancelIntent(run, 'expired');
        break;
      }
      late.startIfDue();
      const wake = Math.min(remaining, late.nextLook() - Date.now());
      const round = late.rounds();
      const lateMoved = () => late.due() || late.rounds() !== round;
      if (!open) {
        await condition(() => !pending() || current() !== null || lateMoved(), wake);
        continue;
      }
      // An open attempt (3DS, async, or a lost answer): ask the gateway on a callback hint, else on a
      // backoff clock, in case the callback is lost. Only the gateway's answer moves money.
      const watching = run.lateWhilePending.on;
      if (watching && openPoll.a !== open) openPoll = { a: open, at: Date.now() + s.pollDelay(open) };
      const pollIn = watching ? Math.max(0, openPoll.at - Date.now()) : s.pollDelay(open);
      await condition(() => !pending() || current() !== open || charging(open) || s.isHinted(open) || lateMoved(), Math.min(wake, pollIn));
      if (!pending() || current() !== open || charging(open)) continue;
      if (lateMoved() && !s.isHinted(open) && !(watching && Date.now() >= openPoll.at)) continue;
      // At the deadline, an attempt at the gateway is asked once more before the intent expires: a 3DS the
      // customer completed in time, whose callback was lost, pays it rather than being refunded as late.
      if (Date.now() >= s.expiresAt && !s.isHinted(open) && !patched(ASK_AT_DEADLINE_PATCH)) continue;
      await check(run, open);
      openPoll = { a: null, at: 0 }; // the next poll counts from this answer, on the attempt's grown backoff
    }
    const round = late.inFlightRound();
    if (round) await round;
  }

  if (s.status === 'canceled') await watchLateAttempts(run, true);
  else {
    // Success: a superseded challenge may still be completed; watch it beside the refund window.
    const watching = watchLateAttempts(run, false);
    // The workflow owns the refundable balance for the refund window, and past it for as long as a refund
    // it started is unsettled. It continues as new when its history grows.
    const done = () => s.mayClose(Date.now());
    while (!done()) {
      const left = s.closeAt - Date.now();
      if (left > 0) await condition(() => historyIsLong() || done(), left);
      else await condition(() => historyIsLong() || done());
      if (historyIsLong()) {
        // A late capture being asked about or given back (the watcher's check, through its refund) finishes
        // first: the next run carries neither the attempt nor the refund in flight.
        const afterChecks = run.checking.count > 0 && patched(CONTINUE_AFTER_CHECKS_PATCH);
        await condition(() => allHandlersFinished() && (!afterChecks || run.checking.count === 0));
        await settled(run);
        if (afterChecks && run.checking.count > 0) continue;
        await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: s.carry(writer.version()) });
      }
    }
    await watching;
  }
  await condition(allHandlersFinished);
  await settled(run);
  // A refund admitted while this run was closing (after its loop found nothing left to wait for, while it settled)
  // keeps the balance open: the next run owns it and hears the refund settle, where this one would end under it.
  if (s.status === 'success' && !s.mayClose(Date.now()) && patched(ADMITTED_WHILE_CLOSING_PATCH))
    await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: s.carry(writer.version()) });
  return s.view();
}

/**
 * The watch of attempts let go while the intent is still pending (patch LATE_WHILE_PENDING_PATCH): a charge let
 * go (a superseded 3DS finished in another tab, a failover's first request arriving late) may be captured while
 * the customer is still paying. Asked about on a callback at once, else on its backoff, it is refunded then, not
 * days later when the intent ends. The asking runs beside the main loop, so a gateway slow to take the refund
 * never holds the deadline or the open attempt's checks; the loop waits for it before it continues as new or ends.
 */
function lateWatchWhilePending(run: IntentRun) {
  const { s } = run;
  let look: number | null = null; // when the attempts let go are next asked about
  let checks: Promise<void> | null = null; // a round of asking, in flight
  let rounds = 0;
  const due = () => checks === null && look !== null && s.lateAttempts.size > 0 && (s.anyLateHinted() || Date.now() >= look);
  return {
    due,
    rounds: () => rounds,
    nextLook: () => (checks === null && look !== null ? look : Infinity),
    /** Called by the main loop only: asks patched() (never from a condition), schedules and starts a round. */
    startIfDue(): void {
      if (s.lateAttempts.size > 0 && !run.lateWhilePending.on) run.lateWhilePending.on = patched(LATE_WHILE_PENDING_PATCH);
      if (!run.lateWhilePending.on || checks !== null) return;
      if (s.lateAttempts.size === 0) look = null;
      else look ??= Date.now() + s.latePollDelayWhilePending();
      if (!due()) return;
      checks = (async () => {
        try {
          await checkLateAttempts(run);
        } finally {
          checks = null;
          rounds += 1;
          look = s.lateAttempts.size > 0 ? Date.now() + s.latePollDelayWhilePending() : null;
        }
      })();
    },
    /** The round in flight, if any (no await at all otherwise: older histories keep their command order). */
    inFlightRound: () => checks,
  };
}

/** Continues as new when the history is long and nothing is mid-flight (no Update, no charge on the wire). */
async function continueIfLong(run: IntentRun): Promise<void> {
  const { input, s, writer } = run;
  // A function, read afresh after each await (the compiler would narrow a plain expression).
  const midFlight = (): boolean => !allHandlersFinished() || s.attempt?.phase === 'charging';
  if (!historyIsLong() || midFlight()) return;
  await settled(run);
  // An attempt accepted while the writes settled (a slow write, the task heartbeating) goes first: carried as
  // `charging`, it would hold the next run for good.
  if (midFlight() && patched(RECHECK_AFTER_SETTLE_PATCH)) return;
  await continueAsNew<typeof paymentIntentWorkflow>({ ...input, carried: s.carry(writer.version()) });
}

/**
 * Attempts we no longer wait on may still be captured at the gateway: ask about them on hints and now and
 * then until the grace period ends; a capture is refunded. `mayContinue`: only the workflow's main path
 * may continue as new (a floating promise must not).
 */
async function watchLateAttempts(run: IntentRun, mayContinue: boolean): Promise<void> {
  const { s } = run;
  const late = s.lateAttempts;
  while (s.watchingLate(Date.now())) {
    if (mayContinue) await continueIfLong(run);
    await condition(() => late.size === 0 || s.anyLateHinted(), s.lateWatchDelay(Date.now()));
    await checkLateAttempts(run);
  }
  if (late.size > 0) log.warn('stopped watching abandoned charges after the grace period', { keys: s.stopWatchingLate() });
}

/** Asks the gateway about each attempt let go that is still watched; a capture is refunded (effects.ts). */
async function checkLateAttempts(run: IntentRun): Promise<void> {
  const late = run.s.lateAttempts;
  for (const a of [...late.values()]) {
    if (late.get(a.idempotencyKey) === a) await check(run, a);
  }
}
