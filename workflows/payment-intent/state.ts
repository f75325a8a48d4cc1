import type { ChargedCard, ChargeOutcome } from '../../gateways/types';
import { MIT_FAILURES_NOT_THE_CARDS, notPendingMessage, type IntentStatus } from '../../domain/payment-intent';
import { formatMoney } from '../../domain/money';
import { openPollDelayMs, unknownOutcomeDelayMs } from '../../domain/polling';
import { olderIntentWebhookBody, olderProgress, stepOfPhase, type OlderProgress } from '../../domain/older-progress';
import { INTENT_PAYMENT_DETAILS_SINCE, intentPaymentDetails } from '../../domain/intent-payment-details';
import { admit, refundableLeft, release, restore, type RefundBalance, type RefundRejection } from '../../domain/refund-balance';
import type { RefundInput } from '../refund/messages';
import type { TransactionRecord } from '../../platform/records';
import type {
  AttemptInput,
  MitChargeInput,
  MitChargeResult,
  AttemptResult,
  CancellationReason,
  CarriedAttempt,
  CarriedState,
  IntentState,
  IntentView,
  PaymentIntentInput,
  RefundAdmissionInput,
} from './messages';

// The payment intent's state and its rules, as plain code: what an attempt, a gateway's word, a refund or a
// cancel does to it. No Temporal API and no I/O here, so it is tested directly; workflow.ts registers the
// handlers (handlers.ts) and runs the loop, and effects.ts performs the effects these decisions name.

/** After a deadline passes, how long an attempt we let go is watched for a late capture to give back. */
export const LATE_OUTCOME_GRACE_MS = 24 * 3600 * 1000;
/** How long a successful payment's workflow stays open to own its refundable balance. */
export const REFUND_WINDOW_MS = 180 * 24 * 3600 * 1000;
export const DEFAULT_MAX_ATTEMPTS = 20;
/** How long a declined merchant-initiated charge answers an identical call instead of a new charge. */
export const MIT_DECLINE_ANSWERED_MS = 60_000;
const NOT_THE_CARDS = new Set<string>(MIT_FAILURES_NOT_THE_CARDS);
/** How often, at most, a charge we no longer wait on is asked about within the grace period. */
export const LATE_CHARGE_POLL_MS = 10 * 60 * 1000;
/** A flood of forged callbacks stays bounded. */
const MAX_HINTS = 50;

export type Attempt = CarriedAttempt;

/** The gateway's answer about a charge: an outcome, or `not_found` (it has none). */
export type GatewayWord = ChargeOutcome | 'not_found';

/** What a gateway's word about an attempt means; the workflow performs it. */
export type Resolution =
  | { kind: 'succeed'; chargeId: string; card?: ChargedCard; networkTransactionId?: string }
  | { kind: 'fail'; failureCode: string }
  | { kind: 'open'; result: AttemptResult }
  /** A capture that matches no live attempt: refund it. */
  | { kind: 'void'; chargeId: string; networkTransactionId?: string }
  | { kind: 'nothing' };

export type Refusal = { type: string; message: string };

/** Why an admitRefund Update is refused before it is accepted: only a positive whole amount is considered. */
export function refundAmountRefusal(req: { amount: number }): Refusal | null {
  return !Number.isInteger(req.amount) || req.amount < 1 ? { type: 'invalid_amount', message: 'amount must be a positive integer' } : null;
}

/** Whether the gateway's answer contradicts what a callback claimed (the callback then changed nothing). */
export function claimContradicted(claimed: string | undefined, word: GatewayWord | null): boolean {
  return claimed !== undefined && claimed !== OPERATOR_RECHECK && word !== null && (word === 'not_found' || word.status !== claimed);
}

/** The hint an operator's re-check leaves: it claims nothing, it only makes the workflow ask now. */
export const OPERATOR_RECHECK = 'operator_recheck';

export class PaymentIntentState {
  status: IntentStatus;
  paid: CarriedState['paid'];
  balance: RefundBalance | null;
  /** Keys come from merchants: a Map, so `constructor` or `__proto__` is a key like any other. */
  readonly refundKeys: Map<string, string>;
  amountRefunded: number;
  succeededAt: string | null;
  canceledAt: string | null;
  cancellationReason: CarriedState['cancellationReason'];
  attempt: Attempt | null;
  attemptsMade: number;
  lastFailureCode: string | null;
  /** Attempts no longer waited on (abandoned, superseded, cut off, given up as never made), by key. */
  readonly lateAttempts: Map<string, Attempt>;
  /** Operator actions taken in this run, for the summary (the audit collection keeps them all). */
  readonly operatorNotes: string[] = [];
  /** Callback hints: charge ids and keys the gateway said something about, and what it claimed. */
  readonly hints: Map<string, string>;
  lateWatchUntil: number;
  readonly voided = new Set<string>();
  readonly startedRefunds: Set<string>;
  readonly settledRefunds: Set<string>;
  /** Refunds canceled at their SLA that the gateway executed after all (older refund runs only). */
  readonly lateRefunds: Set<string>;
  closeAt: number;
  /** The furthest step any attempt reached (the older interface's step_number of a canceled intent). */
  stepReached: number;
  /** The open attempt captured and its checkout intent's claim is being made: nothing else may move it. */
  claiming = false;
  /** The saved card the intent was paid with (saved by this payment, or charged off-session). */
  paymentMethod: string | null;
  /** Merchant-initiated charges (`ti_...`) in the order they were made. */
  readonly transactions: Map<string, TransactionRecord>;
  readonly expiresAt: number;
  readonly lifetimeMs: number;
  readonly maxAttempts: number;

  constructor(
    private readonly input: PaymentIntentInput,
    now: number,
  ) {
    const c: CarriedState = input.carried ?? {
      status: 'pending',
      version: 0,
      paid: null,
      reserved: {},
      refundKeys: [],
      refundStarted: [],
      refundSettled: [],
      succeededAt: null,
      canceledAt: null,
      cancellationReason: null,
      amountRefunded: 0,
    };
    this.status = c.status;
    this.paid = c.paid;
    this.balance = c.paid ? { paid: c.paid.amount, currency: c.paid.currency, reserved: c.reserved } : null;
    this.refundKeys = new Map(Array.isArray(c.refundKeys) ? c.refundKeys : Object.entries(c.refundKeys));
    this.amountRefunded = c.amountRefunded;
    this.succeededAt = c.succeededAt;
    this.canceledAt = c.canceledAt;
    this.cancellationReason = c.cancellationReason;
    this.attempt = c.pending?.attempt ?? null;
    this.attemptsMade = c.pending?.attemptsMade ?? 0;
    this.lastFailureCode = c.pending?.lastFailureCode ?? null;
    this.lateAttempts = new Map(
      (c.lateCharges ?? []).map((l) => {
        const key = l.idempotencyKey ?? `${input.id}:attempt:${l.number}`;
        return [
          key,
          {
            number: l.number,
            phase: 'awaiting_callback',
            connector: l.connector,
            chargeId: l.chargeId,
            idempotencyKey: key,
            saveMethod: false,
            checks: 0,
            ...(l.taskQueue ? { taskQueue: l.taskQueue } : {}),
            ...(l.mit ? { mit: l.mit } : {}),
          },
        ];
      }),
    );
    this.hints = new Map(c.pending?.hints ?? []);
    this.lateWatchUntil = c.lateWatchUntil ? new Date(c.lateWatchUntil).getTime() : now + LATE_OUTCOME_GRACE_MS;
    this.startedRefunds = new Set(c.refundStarted);
    this.settledRefunds = new Set(c.refundSettled);
    this.lateRefunds = new Set(c.lateRefunds ?? []);
    this.stepReached = c.stepReached ?? (c.status === 'success' ? 4 : 1);
    this.paymentMethod = c.paymentMethod ?? null;
    this.transactions = new Map((c.transactions ?? []).map((t) => [t.transaction, t]));
    this.closeAt = c.closeAt ? new Date(c.closeAt).getTime() : c.succeededAt ? new Date(c.succeededAt).getTime() + REFUND_WINDOW_MS : 0;
    this.expiresAt = new Date(input.expiresAt).getTime();
    this.lifetimeMs = this.expiresAt - new Date(input.createdAt).getTime();
    this.maxAttempts = input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  }

  // ---- views ------------------------------------------------------------------------------------------

  view(): IntentView {
    const i = this.input;
    return {
      payment_intent: i.id,
      status: this.status,
      amount: i.amount,
      currency: i.currency,
      url: i.hostedPageUrl,
      expires_at: i.expiresAt,
      ...(i.customer ? { customer: i.customer } : {}),
      created_at: i.createdAt,
    };
  }

  /** What the record in MongoDB holds (the writer adds the version). */
  record(now: string) {
    return {
      id: this.input.id,
      status: this.status,
      succeeded_at: this.succeededAt,
      canceled_at: this.canceledAt,
      cancellation_reason: this.cancellationReason,
      amount_paid: this.paid?.amount ?? 0,
      amount_refunded: this.amountRefunded,
      connector_used: this.paid?.connector ?? this.attempt?.connector ?? null,
      gateway_charge_id: this.paid?.chargeId ?? null,
      last_failure_code: this.lastFailureCode,
      ...this.olderProgress(),
      ...(this.paymentMethod ? { payment_method: this.paymentMethod } : {}),
      ...(this.transactions.size ? { transactions: [...this.transactions.values()] } : {}),
      updated_at: now,
    };
  }

  /** The older interface's sub_status, step_number and last_reason (domain/older-views.ts). */
  olderProgress(): OlderProgress {
    return olderProgress({
      status: this.status,
      attemptPhase: this.status === 'pending' ? (this.attempt?.phase ?? null) : null,
      lastFailureCode: this.lastFailureCode,
      stepReached: this.stepReached,
      cancellationReason: this.cancellationReason,
    });
  }

  /** The older webhook body of an event (null when the intent has no older part). */
  olderWebhookBody(event: string, now: string): Record<string, unknown> | null {
    const older = this.input.older;
    if (!older) return null;
    const payload = older.payloadJson === null ? null : (JSON.parse(older.payloadJson) as unknown);
    const view = { ...older.view, status: this.status, ...this.olderProgress(), transaction_id: this.status === 'success' ? older.transactionId : null };
    return { ...olderIntentWebhookBody(view, event, payload, older.metadata), updated_at: now };
  }

  /** An attempt moved on: remember the furthest step reached. */
  reached(a: Attempt): void {
    this.stepReached = Math.max(this.stepReached, stepOfPhase(a.phase));
  }

  snapshot(version: number): IntentState {
    return {
      ...this.view(),
      version,
      attempt: this.attempt ? { number: this.attempt.number, phase: this.attempt.phase, connector: this.attempt.connector } : null,
      attempts: this.attemptsMade,
      amount_paid: this.paid?.amount ?? 0,
      amount_refunded: this.amountRefunded,
      refundable_amount_left: this.balance ? refundableLeft(this.balance) : 0,
      refunds_pending: this.unsettledRefunds(),
    };
  }

  /** An attempt's answer to the customer, about this intent. */
  result(status: AttemptResult['status'], extra: Omit<AttemptResult, 'payment_intent' | 'status'> = {}): AttemptResult {
    return { payment_intent: this.input.id, status, ...extra };
  }

  /** The summary line operators read in the Temporal UI. */
  summary(): string {
    const i = this.input;
    const a = this.attempt;
    return (
      `**${formatMoney(i.amount, i.currency)}** · ${this.status}` +
      (a ? ` · attempt ${a.number} ${a.phase}` : '') +
      `\n\ntenant ${i.tenantId}${i.customer ? ` · customer ${i.customer}` : ''} · expires ${i.expiresAt}` +
      (this.paid ? `\n\nrefunded ${formatMoney(this.amountRefunded, i.currency)}, left ${formatMoney(refundableLeft(this.balance!), i.currency)}` : '') +
      (this.lateAttempts.size ? `\n\nwatching ${this.lateAttempts.size} abandoned charge(s) for a late capture` : '') +
      (this.voided.size ? `\n\nrefunded ${this.voided.size} capture(s) that matched no live attempt` : '') +
      (this.operatorNotes.length ? `\n\n${this.operatorNotes.join('\n\n')}` : '')
    );
  }

  /** What continue-as-new carries (and a reopened run starts from). */
  carry(version: number): CarriedState {
    return {
      status: this.status,
      version,
      paid: this.paid,
      reserved: this.balance?.reserved ?? {},
      refundKeys: [...this.refundKeys],
      refundStarted: [...this.startedRefunds],
      refundSettled: [...this.settledRefunds],
      lateRefunds: [...this.lateRefunds],
      lateCharges: [...this.lateAttempts.values()].map((a) => ({
        chargeId: a.chargeId,
        connector: a.connector,
        number: a.number,
        idempotencyKey: a.idempotencyKey,
        ...(a.taskQueue ? { taskQueue: a.taskQueue } : {}),
        ...(a.mit ? { mit: a.mit } : {}),
      })),
      ...(this.status === 'pending'
        ? { pending: { attempt: this.attempt, attemptsMade: this.attemptsMade, lastFailureCode: this.lastFailureCode, hints: [...this.hints] } }
        : {}),
      ...(this.lateAttempts.size ? { lateWatchUntil: new Date(this.lateWatchUntil).toISOString() } : {}),
      ...(this.closeAt ? { closeAt: new Date(this.closeAt).toISOString() } : {}),
      succeededAt: this.succeededAt,
      canceledAt: this.canceledAt,
      cancellationReason: this.cancellationReason,
      amountRefunded: this.amountRefunded,
      stepReached: this.stepReached,
      ...(this.paymentMethod ? { paymentMethod: this.paymentMethod } : {}),
      ...(this.transactions.size ? { transactions: [...this.transactions.values()] } : {}),
    };
  }

  // ---- attempts ---------------------------------------------------------------------------------------

  /** Only a pending intent takes attempts and cancels. */
  mutableRefusal(): Refusal | null {
    return this.status !== 'pending' ? { type: 'not_mutable', message: notPendingMessage(this.status) } : null;
  }

  /** Why a new attempt is refused now, if it is (the Update's validator). */
  attemptRefusal(req: AttemptInput, now: number, merchantInitiated = false): Refusal | null {
    const notMutable = this.mutableRefusal();
    if (notMutable) return notMutable;
    if (now >= this.expiresAt) return { type: 'not_mutable', message: 'This payment intent has expired' };
    // A 3DS challenge the customer walked away from must not lock the intent: a new attempt replaces it.
    // A charge on the wire, one whose outcome is being reconciled, or an async one decides first.
    const a = this.attempt;
    if (this.claiming || (a && a.phase !== 'awaiting_action'))
      return {
        type: 'attempt_in_progress',
        message: a?.phase === 'unknown' ? 'The previous payment attempt is being checked with the gateway; retry shortly' : 'Another payment attempt is in progress',
      };
    if (this.attemptsMade >= this.maxAttempts)
      return { type: 'attempt_limit_reached', message: `This payment intent has reached its limit of ${this.maxAttempts} payment attempts` };
    // A saved card is charged where its token lives, whichever connectors the intent's checkout offers.
    if (merchantInitiated) return null;
    const { connectors } = this.routing(req);
    if (req.connector && !connectors.includes(req.connector))
      return { type: 'connector_not_allowed', message: 'This connector cannot be used for this payment intent' };
    if (connectors.length === 0) return { type: 'no_connector', message: 'The merchant has no live connector' };
    return null;
  }

  /** The connectors an attempt may use, in order, and whether it fails over: the API's (AttemptInput), else the input's. */
  routing(req: AttemptInput): { connectors: string[]; failover: boolean } {
    if (req.connectors) return { connectors: req.connectors, failover: req.failover === true };
    return { connectors: this.input.connectors, failover: this.input.failover === true };
  }

  /**
   * The connectors a customer's attempt tries, in turn: with failover (an orchestrator's connectors), from
   * the one asked for (or the first) to the last; without, just that one.
   */
  failoverOrder(req: AttemptInput): string[] {
    const { connectors, failover } = this.routing(req);
    const first = req.connector ?? connectors[0]!;
    if (!failover) return [first];
    return connectors.slice(Math.max(0, connectors.indexOf(first)));
  }

  /** After a try found its connector unavailable: whether the next connector may be tried now. */
  mayFailOver(): boolean {
    return this.status === 'pending' && this.attempt === null && !this.claiming && this.attemptsMade < this.maxAttempts;
  }

  /**
   * An event's `data`: the intent as the retrieve of its create's version answers it now (v202608: with the card
   * and connector that paid it and setup_future_usage), and its metadata. Before v202608 (and in runs that do not
   * know their version) the saved card once it is paid with one, as it always was.
   */
  eventData(): Record<string, unknown> {
    const i = this.input;
    const details =
      i.apiVersion !== undefined && i.apiVersion >= INTENT_PAYMENT_DETAILS_SINCE
        ? intentPaymentDetails({ status: this.status, paymentMethod: this.paymentMethod, connector: this.paid?.connector, setupFutureUsage: i.setupFutureUsage })
        : this.status === 'success' && this.paymentMethod
          ? { payment_method: this.paymentMethod }
          : {};
    return { ...this.view(), metadata: i.metadata, ...details };
  }

  /** A new attempt replaces any open one (which is let go: a late capture of it is refunded). */
  startAttempt(req: AttemptInput, now: number): Attempt {
    this.attemptsMade += 1;
    if (this.attempt) this.letGo(this.attempt, now);
    const connector = req.connector ?? this.routing(req).connectors[0]!;
    const taskQueue = req.gatewayQueues && Object.hasOwn(req.gatewayQueues, connector) ? req.gatewayQueues[connector] : undefined;
    const a: Attempt = {
      number: this.attemptsMade,
      phase: 'charging',
      connector,
      chargeId: null,
      idempotencyKey: `${this.input.id}:attempt:${this.attemptsMade}`,
      saveMethod: req.save_payment_method === true,
      checks: 0,
      ...(taskQueue ? { taskQueue } : {}),
    };
    this.attempt = a;
    this.reached(a);
    return a;
  }

  // ---- merchant-initiated charges (POST /cards/mit) ---------------------------------------------------

  /** Whether an open attempt is this same merchant-initiated charge (same card, same agreement). */
  isSameMit(a: Attempt | null, req: MitChargeInput): a is Attempt & { mit: NonNullable<Attempt['mit']> } {
    return a?.mit !== undefined && a.mit.paymentMethod === req.paymentMethod && a.mit.agreement.id === req.agreement.id;
  }

  /**
   * The same charge declined moments ago (within MIT_DECLINE_ANSWERED_MS): a burst of identical calls that
   * arrives after the decline is answered with it instead of charging the card again and again. A charge the
   * caller names (`chargeKey`, an invoice's attempt) is a burst only of itself (byChargeKey), so it is never one
   * here (`namedIsOwn`; runs before it answered it too).
   */
  recentMitDecline(req: MitChargeInput, now: number, cardsOnly: () => boolean, namedIsOwn: () => boolean): TransactionRecord | undefined {
    // A named charge made already is answered with itself (onMitCharge's byChargeKey), never with a later decline.
    const named = req.chargeKey ? this.byChargeKey(req) : undefined;
    if (named) return named.status === 'failed' ? named : undefined;
    const last = [...this.transactions.values()].reverse().find((t) => t.payment_method === req.paymentMethod && t.agreement === req.agreement.id);
    if (last?.status !== 'failed' || now - Date.parse(last.updated_at) >= MIT_DECLINE_ANSWERED_MS) return undefined;
    // A failure that was not the card's (its connector down, replaced by another attempt, the intent canceled
    // under it) is not answered again: a call after Retry-After tries again.
    if (NOT_THE_CARDS.has(last.failure_code ?? '') && cardsOnly()) return undefined;
    if (req.chargeKey && this.byChargeKey(req) === undefined && namedIsOwn()) return undefined;
    return last;
  }

  /** The transaction that paid this intent when it was this same charge: it is answered again. */
  paidByMit(req: MitChargeInput): TransactionRecord | undefined {
    if (this.status !== 'success') return undefined;
    return [...this.transactions.values()].find((t) => t.status === 'succeeded' && t.payment_method === req.paymentMethod && t.agreement === req.agreement.id);
  }

  /**
   * Why a merchant-initiated charge is refused now (the Update's validator): the rules of an attempt, except
   * that the same charge already made (paid, or still deciding) is answered instead of refused.
   */
  mitRefusal(req: MitChargeInput, now: number): Refusal | null {
    if (this.paidByMit(req) || this.byChargeKey(req)) return null;
    if (this.status === 'pending' && this.recentMitDecline(req, now, () => true, () => true)) return null;
    const notMutable = this.mutableRefusal();
    if (notMutable) return notMutable;
    if (now >= this.expiresAt) return { type: 'not_mutable', message: 'This payment intent has expired' };
    // The same call while its charge is deciding, or its capture claims the checkout intent: joined, and answered once decided.
    if (this.isSameMit(this.attempt, req)) return null;
    return this.attemptRefusal({ token: '', connector: req.connector }, now, true);
  }

  /** A merchant-initiated charge starts as a new attempt on the card's connector, with its transaction. */
  startMitAttempt(req: MitChargeInput, transaction: string, now: number): Attempt {
    const a = this.startAttempt({ token: '', connector: req.connector, ...(req.gatewayQueue ? { gatewayQueues: { [req.connector]: req.gatewayQueue } } : {}) }, now);
    a.mit = { transaction, paymentMethod: req.paymentMethod, agreement: req.agreement };
    const at = new Date(now).toISOString();
    this.transactions.set(transaction, {
      transaction,
      kind: 'merchant_initiated',
      status: 'processing',
      payment_method: req.paymentMethod,
      agreement: req.agreement.id,
      agreement_id: req.agreement.agreementId,
      agreement_type: req.agreement.type,
      connector: req.connector,
      failure_code: null,
      next_action: null,
      created_at: at,
      updated_at: at,
      ...(req.chargeKey ? { charge_key: req.chargeKey } : {}),
    });
    return a;
  }

  /** The transaction a charge with this key made, if one did. */
  byChargeKey(req: MitChargeInput): TransactionRecord | undefined {
    if (!req.chargeKey) return undefined;
    return [...this.transactions.values()].find((t) => t.charge_key === req.chargeKey);
  }

  /** A merchant-initiated attempt's transaction follows the attempt. */
  private updateTransaction(a: Attempt, patch: Partial<TransactionRecord>, now: number): void {
    const t = a.mit ? this.transactions.get(a.mit.transaction) : undefined;
    if (!t || t.status === 'succeeded' || t.status === 'failed') return;
    this.transactions.set(t.transaction, { ...t, ...patch, updated_at: new Date(now).toISOString() });
  }

  /** How a transaction answers its charge call (and any repeat of it). */
  mitResult(transaction: string): MitChargeResult {
    const t = this.transactions.get(transaction)!;
    switch (t.status) {
      case 'succeeded':
        return { code: 'ok', transaction_uuid: t.transaction };
      case 'requires_action':
        return { code: 'REQUIRES_ACTION', transaction_uuid: t.transaction, next_action: t.next_action! };
      case 'failed':
        return { code: 'declined', transaction_uuid: t.transaction, failure_code: t.failure_code ?? 'processing_error' };
      case 'processing':
        return { code: 'PROCESSING', transaction_uuid: t.transaction };
    }
  }

  /** Where a 3DS challenge of this attempt sends the customer back to: the hosted page. */
  returnUrl(a: Attempt): string {
    const page = this.input.hostedPageUrl;
    return `${page}${page.includes('?') ? '&' : '?'}attempt=${a.number}`;
  }

  /** A charge on the wire, or one whose lost answer is being reconciled: it decides before a cancel does. */
  chargeDeciding(): boolean {
    return this.claiming || this.attempt?.phase === 'charging' || this.attempt?.phase === 'unknown';
  }

  /** Why a cancel is refused once the charge it waited for has decided (or the wait ran out). */
  cancelRefusal(): Refusal | null {
    const notMutable = this.mutableRefusal();
    if (notMutable) return notMutable;
    if (this.claiming || this.attempt?.phase === 'charging') return { type: 'attempt_in_progress', message: 'A payment attempt is still being processed; retry shortly' };
    return null;
  }

  /** How long to wait before asking the gateway about an open attempt again (a hint asks at once). */
  pollDelay(a: Attempt): number {
    return a.phase === 'unknown' ? unknownOutcomeDelayMs(a.checks) : openPollDelayMs(a.checks, this.lifetimeMs);
  }

  /** The attempt stops being waited on; it is watched for a late capture until the grace period ends. */
  letGo(a: Attempt, now: number, why = 'superseded'): void {
    if (this.attempt === a) this.attempt = null;
    this.updateTransaction(a, { status: 'failed', failure_code: why, next_action: null }, now);
    a.checks = 0;
    this.lateWatchUntil = this.lateAttempts.size === 0 ? now + LATE_OUTCOME_GRACE_MS : Math.max(this.lateWatchUntil, now + LATE_OUTCOME_GRACE_MS);
    this.lateAttempts.set(a.idempotencyKey, a);
  }

  /**
   * What a gateway's word about an attempt means. Only the open attempt of a pending intent can pay it; a
   * capture of anything else (a superseded challenge, an attempt given up on, a second capture) is refunded.
   * A word about an attempt already settled changes nothing. Bookkeeping is done here; effects are not.
   */
  resolve(a: Attempt, word: GatewayWord, now: number): Resolution {
    if (this.attempt === a && this.status === 'pending') {
      if (word === 'not_found') {
        // The gateway never took this charge. Its key is watched: a request held up in the network may
        // still arrive, and its capture would then be refunded.
        this.letGo(a, now, 'processing_error');
        return { kind: 'fail', failureCode: 'processing_error' };
      }
      switch (word.status) {
        case 'succeeded':
          return {
            kind: 'succeed',
            chargeId: word.chargeId,
            ...(word.card ? { card: word.card } : {}),
            ...(word.networkTransactionId ? { networkTransactionId: word.networkTransactionId } : {}),
          };
        case 'declined':
          return { kind: 'fail', failureCode: word.failureCode };
        case 'requires_action':
          a.phase = 'awaiting_action';
          a.chargeId = word.chargeId;
          this.reached(a);
          this.updateTransaction(a, { status: 'requires_action', next_action: { type: 'redirect_to_url', url: word.challengeUrl } }, now);
          return { kind: 'open', result: { payment_intent: this.input.id, status: 'requires_action', next_action: { type: 'redirect_to_url', url: word.challengeUrl } } };
        case 'pending':
          a.phase = 'awaiting_callback';
          a.chargeId = word.chargeId;
          this.reached(a);
          return { kind: 'open', result: { payment_intent: this.input.id, status: 'pending' } };
      }
    }
    if (word === 'not_found') return { kind: 'nothing' };
    if (this.attempt === a) this.attempt = null; // a final intent has no open attempt
    if (word.status === 'succeeded') {
      this.lateAttempts.delete(a.idempotencyKey);
      if (this.paid?.chargeId === word.chargeId || this.voided.has(word.chargeId)) return { kind: 'nothing' };
      this.voided.add(word.chargeId);
      return { kind: 'void', chargeId: word.chargeId, ...(word.networkTransactionId ? { networkTransactionId: word.networkTransactionId } : {}) };
    }
    if (word.status === 'declined') this.lateAttempts.delete(a.idempotencyKey);
    else if (word.chargeId) a.chargeId = word.chargeId;
    return { kind: 'nothing' };
  }

  /** The open attempt captured: the intent is paid and its balance opens. */
  succeed(a: Attempt, chargeId: string, now: number, savedAs: string | null = null): void {
    this.attempt = null;
    this.updateTransaction(a, { status: 'succeeded', next_action: null }, now);
    this.paymentMethod = a.mit?.paymentMethod ?? savedAs;
    this.paid = { amount: this.input.amount, currency: this.input.currency, connector: a.connector, chargeId, ...(a.taskQueue ? { taskQueue: a.taskQueue } : {}) };
    this.balance = { paid: this.input.amount, currency: this.input.currency, reserved: {} };
    this.succeededAt = new Date(now).toISOString();
    this.closeAt = now + REFUND_WINDOW_MS;
    this.stepReached = 4;
  }

  failAttempt(a: Attempt, failureCode: string, now: number): void {
    if (this.attempt === a) this.attempt = null;
    this.updateTransaction(a, { status: 'failed', failure_code: failureCode, next_action: null }, now);
    this.lastFailureCode = failureCode;
  }

  cancel(reason: CancellationReason, now: number): void {
    if (this.attempt) this.letGo(this.attempt, now, 'payment_intent_canceled');
    this.canceledAt = new Date(now).toISOString();
    this.cancellationReason = reason;
  }

  /**
   * Whether an answer can change anything: `not_found` about an attempt we let go cannot (its request may
   * still arrive at the gateway, so it stays watched).
   */
  worthResolving(a: Attempt, word: GatewayWord): boolean {
    return word !== 'not_found' || this.attempt === a;
  }

  // ---- late attempts ----------------------------------------------------------------------------------

  /**
   * The intent has ended: attempts let go while it was pending are watched for a grace period from now.
   * Counted from their letting go, the watch of an intent pending more than a day was over by then (and runs
   * before `watch-late-while-pending` asked only about the open attempt while pending).
   */
  watchLateFromEnd(now: number): void {
    if (this.lateAttempts.size > 0) this.lateWatchUntil = Math.max(this.lateWatchUntil, now + LATE_OUTCOME_GRACE_MS);
  }

  /** Attempts let go are watched while any is left and the grace period lasts. */
  watchingLate(now: number): boolean {
    return this.lateAttempts.size > 0 && now < this.lateWatchUntil;
  }

  /** The next look at the attempts let go once the intent has ended: their backoff, at least every LATE_CHARGE_POLL_MS, never past the grace period. */
  lateWatchDelay(now: number): number {
    return Math.min(LATE_CHARGE_POLL_MS, this.latePollDelayWhilePending(), this.lateWatchUntil - now);
  }

  /**
   * While the intent is pending, attempts let go are asked about as an open attempt is: from a minute, doubling to
   * the cap its lifetime gives (an hour, or a hundredth of it), counted from the least asked of them. Callbacks are
   * the fast path; every 10 minutes for a 90-day intent would be some 13,000 questions for one abandoned challenge.
   */
  latePollDelayWhilePending(): number {
    const checks = Math.min(...[...this.lateAttempts.values()].map((a) => a.checks));
    return openPollDelayMs(checks, this.lifetimeMs);
  }

  anyLateHinted(): boolean {
    return [...this.lateAttempts.values()].some((a) => this.isHinted(a));
  }

  /** The grace period ended: stop watching; returns the keys given up on (for the operators' log). */
  stopWatchingLate(): string[] {
    const keys = [...this.lateAttempts.keys()];
    this.lateAttempts.clear();
    return keys;
  }

  // ---- callback hints ---------------------------------------------------------------------------------

  hint(chargeId: string, idempotencyKey: string | undefined, claimed: string): void {
    if (this.hints.size >= MAX_HINTS) this.hints.delete(this.hints.keys().next().value!);
    this.hints.set(chargeId, claimed);
    if (idempotencyKey) this.hints.set(idempotencyKey, claimed);
  }

  isHinted(a: Attempt): boolean {
    return this.hints.has(a.idempotencyKey) || (a.chargeId !== null && this.hints.has(a.chargeId));
  }

  /** Clears an attempt's hints and says what they claimed (to compare with the gateway's own word). */
  takeClaim(a: Attempt): string | undefined {
    const claimed = this.hints.get(a.idempotencyKey) ?? (a.chargeId !== null ? this.hints.get(a.chargeId) : undefined);
    this.hints.delete(a.idempotencyKey);
    if (a.chargeId) this.hints.delete(a.chargeId);
    return claimed;
  }

  // ---- refunds ----------------------------------------------------------------------------------------

  knownRefund(idempotencyKey: string | null): string | undefined {
    return idempotencyKey !== null ? this.refundKeys.get(idempotencyKey) : undefined;
  }

  /** Checks and reserves, or says why not. Called before the Update handler's first await. */
  admitRefund(refundId: string, req: { amount: number; currency: string; idempotencyKey: string | null }): { ok: true; left: number } | { ok: false; code: RefundRejection; message: string } {
    const decision = admit(this.status === 'success' ? this.balance : null, { refundId, amount: req.amount, currency: req.currency });
    if (!decision.ok) return decision;
    this.balance = decision.balance;
    if (req.idempotencyKey !== null) this.refundKeys.set(req.idempotencyKey, refundId);
    return { ok: true, left: decision.left };
  }

  /** What the refund's own workflow starts from: the admitted request against this intent's charge. */
  refundInput(refundId: string, req: RefundAdmissionInput, createdAt: string): RefundInput {
    const i = this.input;
    return {
      id: refundId,
      tenantId: i.tenantId,
      region: i.region,
      paymentIntent: i.id,
      connector: this.paid!.connector,
      chargeId: this.paid!.chargeId,
      ...(this.paid!.taskQueue ? { gatewayTaskQueue: this.paid!.taskQueue } : {}),
      amount: req.amount,
      currency: req.currency,
      idempotencyKey: req.idempotencyKey,
      webhooks: req.webhooks,
      slaSeconds: req.slaSeconds,
      createdAt,
      webhookTaskQueue: i.webhookTaskQueue,
      ...(req.older ? { older: req.older } : {}),
    };
  }

  /** A refund that could not be started gives its reservation and key back. */
  undoAdmission(refundId: string, idempotencyKey: string | null): void {
    this.balance = release(this.balance!, refundId);
    if (idempotencyKey !== null) this.refundKeys.delete(idempotencyKey);
  }

  /** A refund's end, told by its workflow. Returns whether anything changed (and an overdraft to alert). */
  settleRefund(refundId: string, word: 'success' | 'canceled' | 'late_success', amount: number | undefined): { changed: boolean; overdrawnBy?: number } {
    if (!this.balance) return { changed: false };
    if (word === 'late_success') {
      // A refund canceled at its SLA that the gateway executed after all: the money left, so the balance
      // takes it back out, once.
      if (this.lateRefunds.has(refundId) || refundId in this.balance.reserved || amount === undefined) return { changed: false };
      this.lateRefunds.add(refundId);
      this.balance = restore(this.balance, refundId, amount);
      this.amountRefunded += amount;
      const left = refundableLeft(this.balance);
      return left < 0 ? { changed: true, overdrawnBy: -left } : { changed: true };
    }
    if (!(refundId in this.balance.reserved) || this.settledRefunds.has(refundId)) return { changed: false }; // a repeated or late word
    this.settledRefunds.add(refundId);
    if (word === 'canceled') this.balance = release(this.balance, refundId);
    else this.amountRefunded += this.balance.reserved[refundId]!;
    return { changed: true };
  }

  unsettledRefunds(): string[] {
    return this.balance ? Object.keys(this.balance.reserved).filter((id) => !this.settledRefunds.has(id)) : [];
  }

  refundableLeft(): number {
    return this.balance ? refundableLeft(this.balance) : 0;
  }

  /** A paid intent's workflow may close: its window is over and nothing it started is open. */
  mayClose(now: number): boolean {
    return now >= this.closeAt && this.unsettledRefunds().length === 0 && this.lateAttempts.size === 0;
  }
}
