import type { PayoutOutcome } from '../../gateways/types';
import { formatMoney } from '../../domain/money';
import { baseStatusOf, isFinalPayoutStatus, type PayoutSubStatus } from '../../domain/payouts';
import type { PayoutPatch } from '../../activities/payouts';
import type { OperatorConfirmation, PayoutCarried, PayoutInput, PayoutSnapshot } from './messages';

// A payout's state and its rules, as plain code: what the gateway's word means for the transfer. No
// Temporal API and no I/O: the workflow (workflow.ts) performs the effects.

/** The body every `webhook_urls` entry receives on a status change (plus the `event_id` emitEvent adds). */
export interface PayoutWebhookBody extends Record<string, unknown> {
  webhook_type: 'payout';
  uuid: string;
  status: 'pending' | 'success' | 'canceled';
  sub_status: PayoutSubStatus;
  amount: number;
  currency: string;
  gateway: string;
  gateway_payout_id: string | null;
  gateway_recipient_id: string;
  recipient_uuid: string;
  failure_reason: string | null;
  narration: string | null;
  metadata: Record<string, string>;
  tenant_id: number;
  created_at: string;
  updated_at: string;
}

const reasonOf = (w: { failureCode: string; failureMessage: string }) => `${w.failureCode}: ${w.failureMessage}`;

/** The word of a gateway that refused the transfer request itself. */
export const refusalOf = (message: string): PayoutOutcome => ({ status: 'rejected', failureCode: 'gateway_refused', failureMessage: message });

export class PayoutLifecycle {
  subStatus: PayoutSubStatus;
  phase: PayoutCarried['phase'];
  initiated: boolean;
  gatewayPayoutId: string | null;
  failureReason: string | null;
  lateOutcome: PayoutCarried['lateOutcome'];
  /** Questions asked of the gateway in the current wait (drives the backoff). */
  checks: number;
  updatedAt: string;
  operatorConfirmation: OperatorConfirmation | null;
  /** When the window closes: created_at + the payout's timeout. */
  readonly deadline: number;
  readonly windowMs: number;
  private readonly startVersion: number;

  constructor(private readonly input: PayoutInput) {
    const c: PayoutCarried = input.carried ?? {
      subStatus: 'pending_created',
      version: 0, // version 0 is the API's insert
      initiated: false,
      phase: 'initiating',
      gatewayPayoutId: null,
      failureReason: null,
      lateOutcome: null,
      checks: 0,
      updatedAt: input.createdAt,
    };
    this.subStatus = c.subStatus;
    this.phase = c.phase;
    this.initiated = c.initiated;
    this.gatewayPayoutId = c.gatewayPayoutId;
    this.failureReason = c.failureReason;
    this.lateOutcome = c.lateOutcome;
    this.checks = c.checks;
    this.updatedAt = c.updatedAt;
    this.operatorConfirmation = c.operatorConfirmation ?? null;
    this.startVersion = c.version;
    this.windowMs = input.timeoutSeconds * 1000;
    this.deadline = new Date(input.createdAt).getTime() + this.windowMs;
  }

  get version(): number {
    return this.startVersion;
  }

  get final(): boolean {
    return isFinalPayoutStatus(this.subStatus);
  }

  /**
   * Applies the gateway's word; answers whether the status the merchant sees changed. Before the window
   * closes: completed is `success`, in flight `pending_promise`, rejected `canceled_rejected`, failed (or
   * canceled by the gateway on its own) `canceled_failure`. Answering our cancel after the window: canceled
   * is `canceled_timeout`; anything else is what the gateway did. A final status changes only when the
   * gateway says it executed the transfer after all: money left, so the payout says so (kept in
   * `late_outcome`), never a `canceled` payout whose money moved.
   */
  apply(word: PayoutOutcome, now: number): boolean {
    if ('payoutId' in word && word.payoutId) this.gatewayPayoutId = word.payoutId;
    // Any word about the transfer means the gateway has answered the request for it.
    this.initiated = true;
    const before = this.subStatus;
    if (this.final) {
      if (word.status === 'succeeded' && this.subStatus !== 'success') {
        this.lateOutcome = { status: 'succeeded', at: new Date(now).toISOString() };
        this.subStatus = 'success';
        this.failureReason = null;
      }
    } else {
      switch (word.status) {
        case 'succeeded':
          this.subStatus = 'success';
          // Executed at or after the window closed, when we asked for a cancel: kept for operators.
          if (this.phase === 'canceling') this.lateOutcome = { status: 'succeeded', at: new Date(now).toISOString() };
          break;
        case 'pending':
          if (this.phase !== 'canceling') this.subStatus = 'pending_promise';
          break;
        case 'rejected':
          this.subStatus = 'canceled_rejected';
          this.failureReason = reasonOf(word);
          break;
        case 'failed':
          this.subStatus = 'canceled_failure';
          this.failureReason = reasonOf(word);
          break;
        case 'canceled':
          if (this.phase === 'canceling') {
            this.subStatus = 'canceled_timeout';
            this.failureReason = `timeout: not completed within ${this.input.timeoutSeconds} seconds; canceled at the gateway`;
          } else {
            this.subStatus = 'canceled_failure';
            this.failureReason = 'gateway_canceled: the gateway canceled the transfer';
          }
          break;
      }
    }
    if (this.final) this.phase = 'done';
    else if (this.phase === 'initiating' && this.initiated) this.phase = 'waiting';
    const changed = before !== this.subStatus;
    if (changed) {
      this.updatedAt = new Date(now).toISOString();
      this.checks = 0;
    }
    return changed;
  }

  /** The gateway refused the request itself (a non-retryable answer): the transfer was never made. */
  refusedAtInitiation(message: string, now: number): boolean {
    return this.apply(refusalOf(message), now);
  }

  /**
   * An operator marks the transfer done on evidence: the payout is `success` as if the gateway had said so
   * (answers whether the status changed; a final payout is refused before this by the workflow).
   */
  confirmByOperator(c: OperatorConfirmation, now: number): boolean {
    this.operatorConfirmation = c;
    // Not a late outcome from the gateway (apply would say so past the window): the operator's word, kept apart.
    const late = this.lateOutcome;
    const changed = this.apply({ status: 'succeeded', payoutId: '' }, now);
    this.lateOutcome = late;
    return changed;
  }

  /** Whether the gateway's word says no money left (rejected, failed, canceled). */
  contradicts(word: PayoutOutcome): boolean {
    return word.status === 'rejected' || word.status === 'failed' || word.status === 'canceled';
  }

  /** Keeps a contrary word on a final payout as its late outcome; answers whether it is new (once per status). */
  noteContrary(word: PayoutOutcome, now: number): boolean {
    if (this.lateOutcome?.status === word.status) return false;
    this.lateOutcome = { status: word.status, at: new Date(now).toISOString() };
    return true;
  }

  /** The window has closed with the transfer not complete: from now on, ask the gateway to cancel it. */
  windowClosed(): void {
    if (!this.final) {
      this.phase = 'canceling';
      this.checks = 0;
    }
  }

  snapshot(): PayoutSnapshot {
    return {
      payout_uuid: this.input.id,
      status: this.subStatus,
      gateway_payout_id: this.gatewayPayoutId,
      failure_reason: this.failureReason,
      initiated: this.initiated,
    };
  }

  /** The record fields of the state now; the serial writer adds the version. */
  record(): Omit<PayoutPatch, 'version'> {
    return {
      id: this.input.id,
      sub_status: this.subStatus,
      gateway_payout_id: this.gatewayPayoutId,
      failure_reason: this.failureReason,
      late_outcome: this.lateOutcome,
      updated_at: this.updatedAt,
      ...(this.operatorConfirmation ? { operator_confirmation: this.operatorConfirmation } : {}),
    };
  }

  webhookBody(): PayoutWebhookBody {
    const i = this.input;
    return {
      webhook_type: 'payout',
      uuid: i.id,
      status: baseStatusOf(this.subStatus),
      sub_status: this.subStatus,
      amount: i.amount,
      currency: i.currency,
      gateway: i.gateway,
      gateway_payout_id: this.gatewayPayoutId,
      gateway_recipient_id: i.recipient.gatewayRecipientId,
      recipient_uuid: i.recipient.uuid,
      failure_reason: this.failureReason,
      narration: i.narration,
      metadata: i.metadata,
      tenant_id: i.tenantNumber,
      created_at: i.createdAt,
      updated_at: this.updatedAt,
    };
  }

  /** The Temporal UI's details line for operators. */
  summary(): string {
    const i = this.input;
    const dest = i.recipient.recipientType === 'bank_account' ? `bank account ${mask(i.recipient.bankAccountNumber)}` : `wallet ${mask(i.recipient.mobileMoneyNumber)}${i.recipient.mobileMoneyProvider ? ` (${i.recipient.mobileMoneyProvider})` : ''}`;
    const lines = [
      `**${this.subStatus}**: payout of ${formatMoney(i.amount, i.currency)} to ${dest} via ${i.gateway}`,
      `window closes ${new Date(this.deadline).toISOString()}${this.phase === 'canceling' ? ' (passed: canceling at the gateway)' : ''}`,
    ];
    if (this.gatewayPayoutId) lines.push(`gateway payout ${this.gatewayPayoutId}`);
    if (this.failureReason) lines.push(`reason: ${this.failureReason}`);
    if (this.lateOutcome) lines.push(`late outcome: ${this.lateOutcome.status} at ${this.lateOutcome.at}`);
    const c = this.operatorConfirmation;
    if (c) lines.push(`confirmed by operator ${c.operator} at ${c.at}: ${c.reason} (evidence: ${c.evidence})`);
    return lines.join('\n\n');
  }

  carry(version: number): PayoutCarried {
    return {
      subStatus: this.subStatus,
      version,
      initiated: this.initiated,
      phase: this.phase,
      gatewayPayoutId: this.gatewayPayoutId,
      failureReason: this.failureReason,
      lateOutcome: this.lateOutcome,
      checks: this.checks,
      updatedAt: this.updatedAt,
      ...(this.operatorConfirmation ? { operatorConfirmation: this.operatorConfirmation } : {}),
    };
  }
}

/** Operators see the last four digits of an account, never all of it. */
function mask(n: string | null): string {
  return n ? `••${n.slice(-4)}` : '(unknown)';
}
