import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PayoutSubStatus, RecipientType } from '../../domain/payouts';
import type { PayoutOutcome } from '../../gateways/types';
import type { EndpointRef } from '../events';
import type { OperatorUpdateInput } from '../../platform/ops-records';

// Messages of one workflow: its input, what it carries across continue-as-new, its Updates, Signals and
// Queries. The API and tests import this module; it pulls in no Node or I/O module.

export const PAYOUT_WORKFLOW = 'payoutWorkflow';

/** Where the money goes, as the gateway needs it: a registered recipient, with its details for operators. */
export interface PayoutDestination {
  uuid: string;
  gatewayRecipientId: string;
  recipientType: RecipientType;
  bankAccountNumber: string | null;
  mobileMoneyNumber: string | null;
  mobileMoneyProvider: string | null;
}

export interface PayoutInput {
  id: string; // the payout uuid
  number: number;
  tenantId: string;
  tenantNumber: number;
  region: string;
  connectorId: string;
  gateway: string;
  amount: number;
  currency: string;
  recipient: PayoutDestination;
  narration: string | null;
  metadata: Record<string, string>;
  /** The `webhook_urls`, all sharing the one `webhook_secret` (by reference). */
  webhooks: EndpointRef[];
  timeoutSeconds: number;
  createdAt: string;
  webhookTaskQueue: string;
  /** The queue of the payout gateway's calls (workflows/task-queues.ts); absent in runs started before it: the workflow's own queue. */
  gatewayTaskQueue?: string;
  carried?: PayoutCarried;
}

export interface PayoutCarried {
  subStatus: PayoutSubStatus;
  version: number;
  /** The gateway has answered the transfer request (or it was found by our idempotency key). */
  initiated: boolean;
  /** `initiating`/`waiting` before the window closes; `canceling` after it until the gateway says; `done`. */
  phase: 'initiating' | 'waiting' | 'canceling' | 'done';
  gatewayPayoutId: string | null;
  failureReason: string | null;
  lateOutcome: { status: string; at: string } | null;
  checks: number;
  updatedAt: string;
  /** An operator marked the transfer done on evidence the gateway did not give (absent in older runs). */
  operatorConfirmation?: OperatorConfirmation | null;
}

export interface OperatorConfirmation {
  operator: string;
  reason: string;
  evidence: string;
  at: string;
}

/** The payout as `GET /payouts/{uuid}` shows its state, and as its webhooks carry it. */
export interface PayoutSnapshot {
  payout_uuid: string;
  status: PayoutSubStatus;
  gateway_payout_id: string | null;
  failure_reason: string | null;
  /** The gateway has answered the transfer request. */
  initiated: boolean;
}

/**
 * Waits (at most `waitMs`) until the gateway has answered the transfer request, then answers the payout's
 * state: how `POST /payouts` reports the initiation's outcome in its response.
 */
export const payoutInitiatedUpdate = defineUpdate<PayoutSnapshot, [{ waitMs: number }]>('initiated');

/** A gateway callback about the transfer: a hint that makes the workflow ask the gateway, never a verdict. */
export const payoutOutcomeSignal = defineSignal<[{ outcome: PayoutOutcome }]>('payoutOutcome');

export const payoutStateQuery = defineQuery<PayoutSnapshot>('state');

/** Operator action: retry the payout's current step now (ask the gateway, or ask it again to cancel). */
export const retryPayoutStepUpdate = defineUpdate<PayoutSnapshot, [OperatorUpdateInput]>('operatorRetryStep');
/**
 * Operator action: mark the payout `success` on evidence (a bank statement line, the gateway's support
 * ticket) when the gateway cannot say so itself. The evidence is kept on the record and in the history.
 */
export const confirmPayoutUpdate = defineUpdate<PayoutSnapshot, [OperatorUpdateInput]>('operatorConfirm');
