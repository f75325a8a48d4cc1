import type { RefundOutcome } from '../../gateways/types';
import { formatMoney } from '../../domain/money';
import type { RefundStatus } from '../../domain/refund';
import type { RefundView } from '../../domain/views';
import { olderRefundRowOf, olderRefundSubStatus, SLA_TIMEOUT, type OlderRefundFacts, type OlderRefundSubStatus } from '../../domain/older-refund-progress';
import type { OlderRefundRow } from '../../domain/older-refund-views';
import type { RefundCarried, RefundInput, RefundState } from './messages';

// A refund's state and its rules, as plain code: what the gateway's word means for the money reserved on
// the payment's balance. No Temporal API and no I/O: the workflow (workflow.ts) performs the effects.

/** What a gateway's word means for the reservation: spent, released, or still open. */
export type Meaning = { kind: 'spent'; refundId: string } | { kind: 'released'; failureCode: string } | { kind: 'open' };

export class RefundLifecycle {
  status: RefundStatus;
  /** `waiting` before the SLA; `canceling` after it until the gateway answers; `done`. */
  phase: RefundCarried['phase'];
  submitted: boolean;
  gatewayRefundId: string | null;
  gatewayTransactionId: string | null;
  failureCode: string | null;
  lateOutcome: RefundCarried['lateOutcome'];
  polls: number;
  canceledAnnounced: boolean;
  /** The gateway acknowledged the refund before its SLA (see heard()). */
  acknowledged: boolean;
  /**
   * When this run saw it executed, for the older webhook's row (not carried: a run that succeeds ends; the
   * record's updated_at is this time, as its success was its last write).
   */
  succeededAt: string | null = null;
  /** The sub-status the record holds (null: unknown, a run of older code wrote it last). */
  recordedSubStatus: OlderRefundSubStatus | null;
  /** The sub-status last announced to an older refund's webhook_urls (null: none yet). */
  olderAnnounced: OlderRefundSubStatus | null;
  olderFacts: OlderRefundFacts | null;
  readonly deadline: number;
  readonly slaMs: number;
  private readonly startVersion: number;

  constructor(private readonly input: RefundInput) {
    const c: RefundCarried = input.carried ?? {
      status: 'pending',
      phase: 'waiting',
      version: 1, // version 1 was written by the payment intent's workflow when it admitted the refund
      submitted: false,
      gatewayRefundId: null,
      gatewayTransactionId: null,
      failureCode: null,
      lateOutcome: null,
      polls: 0,
      canceledAnnounced: false,
    };
    this.status = c.status;
    this.phase = c.phase;
    this.submitted = c.submitted;
    this.gatewayRefundId = c.gatewayRefundId;
    this.gatewayTransactionId = c.gatewayTransactionId;
    this.failureCode = c.failureCode;
    this.lateOutcome = c.lateOutcome;
    this.polls = c.polls;
    this.canceledAnnounced = c.canceledAnnounced;
    // Runs of older code carried none of these: what their state says comes closest.
    this.acknowledged = c.acknowledged ?? (c.submitted || c.gatewayRefundId !== null);
    // A new refund's record was inserted as pending_created (activities/store.ts createRefundRecord).
    this.recordedSubStatus = input.carried ? (c.recordedSubStatus ?? null) : 'pending_created';
    this.olderAnnounced = c.olderAnnounced ?? null;
    this.olderFacts = c.olderFacts ?? null;
    this.startVersion = c.version;
    this.deadline = new Date(input.createdAt).getTime() + input.slaSeconds * 1000;
    this.slaMs = input.slaSeconds * 1000;
  }

  get version(): number {
    return this.startVersion;
  }

  /**
   * What the gateway's word means. Before the SLA: executed spends the reservation, rejected (or canceled by
   * someone) releases it, pending keeps it open. Answering our cancel at the SLA: the same, except that a
   * refund the gateway could not cancel yet stays open (and reserved) until it says more.
   */
  meaning(word: RefundOutcome, afterSla: boolean): Meaning {
    if ('refundId' in word && word.refundId) this.gatewayRefundId = word.refundId;
    switch (word.status) {
      case 'succeeded':
        return { kind: 'spent', refundId: word.refundId };
      case 'rejected':
        return { kind: 'released', failureCode: afterSla ? SLA_TIMEOUT : word.failureCode };
      case 'canceled':
        return { kind: 'released', failureCode: afterSla ? SLA_TIMEOUT : 'gateway_canceled' };
      case 'pending':
        return { kind: 'open' };
    }
  }

  /** The gateway answered the refund request (a refusal outright is its answer too): see heard(). */
  answered(word: RefundOutcome): void {
    this.submitted = true;
    this.heard(word);
  }

  /**
   * A word of the gateway on the refund before its SLA: its answer to the request, or what it says of the
   * refund when asked (by its id, or by our key). Any word about the refund means the gateway has it: it
   * acknowledged it (pending_promise; canceled_timeout_e2e_manual should the SLA pass). Not found, or no
   * answer, acknowledges nothing; nor does a word after the SLA (the cancel's answer).
   */
  heard(word: RefundOutcome | 'not_found' | null): void {
    if (this.phase === 'waiting' && word !== null && word !== 'not_found') this.acknowledged = true;
  }

  succeed(refundId: string, afterSla: boolean, now: number): void {
    this.gatewayTransactionId = refundId;
    this.succeededAt = new Date(now).toISOString();
    if (afterSla) this.lateOutcome = { status: 'succeeded', at: new Date(now).toISOString(), gateway_transaction_id: refundId };
    this.phase = 'done';
    this.status = 'success';
  }

  release(failureCode: string): void {
    this.phase = 'done';
    if (this.status !== 'canceled' || this.failureCode === null) this.failureCode = failureCode;
    this.status = 'canceled';
  }

  /** The SLA passed with the refund still pending: ask the gateway to cancel it. */
  slaPassed(): void {
    this.phase = 'canceling';
    this.failureCode = SLA_TIMEOUT;
  }

  /** The older interface's sub-status of this state (domain/older-refund-views.ts has the table). */
  subStatus(): OlderRefundSubStatus {
    return olderRefundSubStatus({ status: this.status, acknowledged: this.acknowledged, failureCode: this.failureCode });
  }

  /** The refund as GET /refunds lists it (null until its fixed fields are known). */
  olderRow(now: string): OlderRefundRow | null {
    if (!this.olderFacts) return null;
    const i = this.input;
    return olderRefundRowOf(this.olderFacts, {
      amount: i.amount,
      currency: i.currency,
      sub_status: this.subStatus(),
      idempotency_key: i.idempotencyKey,
      gateway_transaction_id: this.gatewayTransactionId,
      created_at: i.createdAt,
      updated_at: now,
      succeeded_at: this.succeededAt,
    });
  }

  view(): RefundView {
    const i = this.input;
    return {
      refund: i.id,
      payment_intent: i.paymentIntent,
      status: this.status,
      amount: i.amount,
      currency: i.currency,
      created_at: i.createdAt,
      gateway_transaction_id: this.gatewayTransactionId,
    };
  }

  snapshot(): RefundState {
    return {
      refund: this.input.id,
      status: this.status,
      amount: this.input.amount,
      currency: this.input.currency,
      gateway_transaction_id: this.gatewayTransactionId,
      sla_expires_at: new Date(this.deadline).toISOString(),
      late_outcome: this.lateOutcome?.status ?? null,
    };
  }

  record(now: string) {
    return {
      id: this.input.id,
      status: this.status,
      gateway_transaction_id: this.gatewayTransactionId,
      failure_code: this.failureCode,
      late_outcome: this.lateOutcome,
      // Canceled at its SLA, the gateway not yet confirming the cancel: its amount stays reserved and it may
      // still turn success, so whoever waits on its record (a return) must not take `canceled` as its end.
      cancel_unconfirmed: this.phase === 'canceling',
      updated_at: now,
    };
  }

  /** The older interface's field of the record, written with record(); what it writes is then the recorded sub-status. */
  olderRecord(): { sub_status: OlderRefundSubStatus } {
    const sub_status = this.subStatus();
    this.recordedSubStatus = sub_status;
    return { sub_status };
  }

  summary(): string {
    const i = this.input;
    return (
      `**${formatMoney(i.amount, i.currency)}** refund of ${i.paymentIntent} · ${this.status}` +
      (this.phase === 'canceling' ? ' · asking the gateway to cancel; amount still reserved' : '') +
      `\n\nSLA ends ${new Date(this.deadline).toISOString()}${this.gatewayTransactionId ? ` · gateway ${this.gatewayTransactionId}` : ''}` +
      (this.lateOutcome ? `\n\ngateway outcome after the SLA: ${this.lateOutcome.status} at ${this.lateOutcome.at}` : '')
    );
  }

  carry(version: number): RefundCarried {
    return {
      status: this.status,
      phase: this.phase,
      version,
      submitted: this.submitted,
      gatewayRefundId: this.gatewayRefundId,
      gatewayTransactionId: this.gatewayTransactionId,
      failureCode: this.failureCode,
      lateOutcome: this.lateOutcome,
      polls: this.polls,
      canceledAnnounced: this.canceledAnnounced,
      acknowledged: this.acknowledged,
      recordedSubStatus: this.recordedSubStatus,
      olderAnnounced: this.olderAnnounced,
      olderFacts: this.olderFacts,
    };
  }
}
