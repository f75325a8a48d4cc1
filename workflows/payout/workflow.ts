import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { PayoutOutcome } from '../../gateways/types';
import { openPollDelayMs, unknownOutcomeDelayMs } from '../../domain/polling';
import { historyIsLong } from '../history';
import { cancelRetryDelayMs } from '../../domain/refund';
import { emitEvent } from '../emit-event';
import { serialWriter } from '../serial-writer';
import { SA } from '../search-attributes';
import {
  confirmPayoutUpdate,
  payoutInitiatedUpdate,
  payoutOutcomeSignal,
  payoutStateQuery,
  retryPayoutStepUpdate,
  type PayoutInput,
  type PayoutSnapshot,
} from './messages';
import type { OperatorUpdateInput } from '../../platform/ops-records';
import type { PayoutPatch } from '../../activities/payouts';
import { PayoutLifecycle, refusalOf } from './state';
import { assertStamped, noteOperatorAction } from '../operator-stamps';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });
// The transfer request: a technical failure is retried once at once (same idempotency key: the gateway
// applies it once); after that its outcome is unknown and the gateway is asked by key, never guessed.
const gatewaySubmitOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '500ms', maximumAttempts: 2 } } as const;
// Questions (status, find, cancel): a few quick tries; the workflow's own backoff decides when to ask again.
const gatewayCheckOptions = { startToCloseTimeout: '15s', retry: { initialInterval: '1s', maximumAttempts: 3 } } as const;

/** How long an operator's retry waits for the gateway's answer before answering with the state as it is. */
const OPERATOR_WAITS_MS = 20_000;

/** The longest `POST /payouts` waits for the gateway's answer to the transfer request before answering. */
const MAX_INITIATION_WAIT_MS = 30_000;

/** Runs with this patch keep a gateway's contrary word on a payout an operator confirmed (see take). */
const CONTRARY_AFTER_CONFIRMATION_PATCH = 'payout-contrary-after-confirmation';
/** Runs that keep an outright refusal landing after an operator's confirmation; older ones dropped it. */
const REFUSAL_AFTER_CONFIRMATION_PATCH = 'payout-refusal-after-confirmation';
/** Runs continued in flight that keep their carried polling count; older ones started it again. */
const CHECKS_CARRIED_PATCH = 'payout-checks-carried';

/**
 * One workflow per payout; its id is the payout uuid. The API has recorded it as `pending_created`. The
 * workflow asks the gateway for the transfer once per payout (by the payout uuid as idempotency key, so no
 * restart or retry can make a second transfer), then owns the payout's status: only the gateway's answer,
 * when asked, moves it (a callback is a hint that makes it ask at once; polling finds lost callbacks). When
 * the window closes first, it asks the gateway to cancel the transfer and says `canceled_timeout` only once
 * the gateway confirms that no money will move.
 */
export async function payoutWorkflow(input: PayoutInput): Promise<PayoutSnapshot> {
  const p = new PayoutLifecycle(input);
  let hinted = false;
  // The gateway's own task queue (its rate limit, workflows/task-queues.ts) when the API named one.
  const onGatewayQueue = input.gatewayTaskQueue ? { taskQueue: input.gatewayTaskQueue } : {};
  const gatewaySubmit = proxyActivities<Activities>({ ...gatewaySubmitOptions, ...onGatewayQueue });
  const gatewayCheck = proxyActivities<Activities>({ ...gatewayCheckOptions, ...onGatewayQueue });
  const ref = { tenantId: input.tenantId, connectorId: input.connectorId };

  setHandler(payoutOutcomeSignal, ({ outcome }) => {
    hinted = true;
    log.info('gateway callback received; confirming with the gateway', { payout: input.id, claimed: outcome.status });
  });
  setHandler(payoutStateQuery, () => p.snapshot());
  // Answers once the state it reports is in MongoDB too: a merchant who reads the payout after the 201
  // sees what the 201 said.
  let unwritten = 0;
  setHandler(payoutInitiatedUpdate, async ({ waitMs }) => {
    await condition(() => p.initiated && unwritten === 0, Math.max(0, Math.min(waitMs, MAX_INITIATION_WAIT_MS)));
    return p.snapshot();
  });
  const operatorNotes: string[] = [];
  const describe = () => setCurrentDetails([p.summary(), ...operatorNotes].join('\n\n'));
  describe();
  // Questions put to the gateway so far (find or cancel): an operator's retry answers after the next one.
  let asked = 0;
  const noteOperator = (what: string, req: OperatorUpdateInput) => {
    log.warn(`operator action: ${what}`, { payout: input.id, operator: req.operator, reason: req.reason, actionId: req.actionId });
    noteOperatorAction(operatorNotes, req.operator, what, req.reason);
    describe();
  };
  const validateStamp = (req: OperatorUpdateInput) => {
    assertStamped(req);
    if (p.final) throw ApplicationFailure.nonRetryable(`This payout is final (${p.subStatus})`, 'payout_final');
  };

  const writer = serialWriter<PayoutPatch>(p.version, store.savePayout);

  /** The payout's event as the state is now: built before any await, so a later change announces itself. */
  const announce = (body = p.webhookBody()) => {
    return emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type: `payout.${body.sub_status}`,
      objectId: input.id,
      source: { kind: 'payout', id: input.id },
      data: body,
      endpoints: input.webhooks,
      format: 'legacy',
      legacyBody: body,
    });
  };

  /** The status the merchant sees changed: search attribute, summary, record, webhooks. */
  const publish = async () => {
    upsertSearchAttributes([{ key: SA.PaymentStatus, value: p.subStatus }]);
    describe();
    // What this change announces is fixed now: an operator's confirmation landing during the write below
    // announces its own status, and this one is not announced as that one.
    const body = p.webhookBody();
    unwritten += 1;
    try {
      await writer.write(p.record());
    } finally {
      unwritten -= 1;
    }
    await announce(body);
  };
  const take = async (word: PayoutOutcome) => {
    // An operator confirmed it on evidence, and the gateway now says no money left (an ask or a cancel in
    // flight when the confirmation landed): the payout stays success (its webhook is out), but the contrary word
    // is kept on the record and logged for operators, where it used to be dropped without a trace.
    if (p.final && p.operatorConfirmation && p.contradicts(word) && patched(CONTRARY_AFTER_CONFIRMATION_PATCH)) {
      if (!p.noteContrary(word, Date.now())) return;
      log.error('the gateway contradicts an operator-confirmed payout; operator action needed', { payout: input.id, gateway: word.status, operator: p.operatorConfirmation.operator });
      describe();
      await writer.write(p.record());
      return;
    }
    if (p.apply(word, Date.now())) await publish();
  };

  setHandler(
    retryPayoutStepUpdate,
    async (req) => {
      noteOperator(`retry the ${p.phase} step`, req);
      const before = asked;
      hinted = true; // the loops ask (or cancel) now, as on a callback
      await condition(() => asked > before || p.final, OPERATOR_WAITS_MS);
      return p.snapshot();
    },
    { validator: validateStamp },
  );
  setHandler(
    confirmPayoutUpdate,
    async (req) => {
      noteOperator('mark confirmed on evidence', req);
      if (p.confirmByOperator({ operator: req.operator, reason: req.reason, evidence: req.evidence!, at: new Date().toISOString() }, Date.now())) await publish();
      hinted = true; // a loop waiting on the clock wakes and ends: the payout is final
      return p.snapshot();
    },
    {
      validator: (req) => {
        validateStamp(req);
        if (!req.evidence?.trim()) throw ApplicationFailure.nonRetryable('Marking a payout confirmed needs evidence', 'update_rejected');
      },
    },
  );

  /** The gateway's word on this transfer by our idempotency key; null when it did not answer. */
  const ask = async (): Promise<PayoutOutcome | 'not_found' | null> => {
    try {
      const found = await gatewayCheck.findPayout({ ...ref, idempotencyKey: input.id });
      return found.status === 'not_found' ? 'not_found' : found;
    } catch (err) {
      log.warn('the gateway did not answer about the payout; asking again later', { payout: input.id, error: String(err) });
      return null;
    }
  };

  const continueIfLong = async () => {
    if (!historyIsLong() || !allHandlersFinished()) return;
    await writer.flushed();
    await continueAsNew<typeof payoutWorkflow>({ ...input, carried: p.carry(writer.version()) });
  };
  const wasHinted = () => hinted;
  const phase = () => p.phase;
  const untilDeadline = () => p.deadline - Date.now();

  // The merchant hears of the payout as soon as it exists (the API wrote `pending_created`).
  if (!input.carried) {
    upsertSearchAttributes([{ key: SA.PaymentStatus, value: p.subStatus }]);
    await announce();
  }

  // 1. Ask for the transfer. A request without an answer (timeout, connection lost) may have reached the
  // gateway: ask it by key (at once, then 1 s doubling to a minute); when it has none, ask for the transfer
  // again under the same key, which the gateway applies at most once.
  let mustSubmit = true;
  // A run continued as new while in flight goes on with its carried count of questions: its polling backoff
  // does not start again at a minute (asked only for such a run).
  const continuedInFlight = input.carried !== undefined && phase() === 'waiting';
  while (phase() === 'initiating' && untilDeadline() > 0) {
    await continueIfLong();
    let word: PayoutOutcome | 'not_found' | null = null;
    if (mustSubmit) {
      try {
        word = await gatewaySubmit.initiatePayout({
          ...ref,
          idempotencyKey: input.id,
          reference: input.id,
          amount: input.amount,
          currency: input.currency,
          gatewayRecipientId: input.recipient.gatewayRecipientId,
          narration: input.narration,
        });
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = (err as { cause?: unknown }).cause;
        if (cause instanceof ApplicationFailure && cause.nonRetryable) {
          // The gateway refused the request itself (validation): no transfer exists under this key. Confirmed
          // by an operator meanwhile, the payout stays success and the refusal is kept as its late outcome.
          if (p.final && p.operatorConfirmation && patched(REFUSAL_AFTER_CONFIRMATION_PATCH)) await take(refusalOf(cause.message));
          else if (p.refusedAtInitiation(cause.message, Date.now())) await publish();
          break;
        }
        log.warn('the transfer request got no answer; asking the gateway by idempotency key', { payout: input.id, error: String(err) });
      }
      mustSubmit = false;
    } else {
      await condition(wasHinted, Math.max(0, Math.min(unknownOutcomeDelayMs(p.checks), untilDeadline())));
      hinted = false;
      p.checks += 1;
      word = await ask();
      asked += 1;
      if (word === 'not_found') mustSubmit = true;
    }
    if (word && word !== 'not_found') await take(word);
  }

  // 2. In flight: wait for a callback (a hint) or the polling clock, and ask the gateway.
  if (!(continuedInFlight && patched(CHECKS_CARRIED_PATCH))) p.checks = 0;
  while (phase() === 'waiting' && untilDeadline() > 0) {
    await continueIfLong();
    const woke = await condition(wasHinted, Math.max(0, Math.min(openPollDelayMs(p.checks, p.windowMs), untilDeadline())));
    if (!woke && untilDeadline() <= 0) break;
    hinted = false;
    p.checks += 1;
    const word = await ask();
    asked += 1;
    if (word && word !== 'not_found') await take(word);
  }

  // 3. The window closed first: ask the gateway not to make the transfer. Only its answer ends the payout.
  if (phase() === 'initiating' || phase() === 'waiting') {
    p.windowClosed();
    describe();
    log.warn('payout window closed before the transfer completed; canceling at the gateway', { payout: input.id });
  }
  while (phase() === 'canceling') {
    await continueIfLong();
    let word: PayoutOutcome | null = null;
    try {
      word = await gatewayCheck.cancelPayout({ ...ref, idempotencyKey: input.id });
    } catch (err) {
      log.warn('the gateway did not answer the cancel of a payout past its window', { payout: input.id, error: String(err) });
    }
    asked += 1;
    if (word && word.status === 'succeeded') log.warn('the gateway executed the payout at or after its window; it stands as success', { payout: input.id });
    if (word) await take(word);
    if (phase() !== 'canceling') break;
    hinted = false;
    await condition(wasHinted, cancelRetryDelayMs(p.checks++));
  }

  await condition(allHandlersFinished);
  await writer.flushed();
  describe();
  return p.snapshot();
}
