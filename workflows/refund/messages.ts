import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OperatorUpdateInput } from '../../platform/ops-records';
import type { RefundOutcome } from '../../gateways/types';
import type { EndpointRef } from '../events';
import type { OlderRefundInput } from '../payment-intent/messages';
import type { OlderRefundFacts, OlderRefundSubStatus } from '../../domain/older-refund-progress';

// Messages of one workflow: its input, what it carries across continue-as-new, its Updates, Signals and
// Queries. The API and tests import this module; it pulls in no Node or I/O module.

export const REFUND_WORKFLOW = 'refundWorkflow';

export interface RefundInput {
  id: string;
  tenantId: string;
  region: string;
  paymentIntent: string;
  connector: string;
  chargeId: string;
  amount: number;
  currency: string;
  idempotencyKey: string | null;
  webhooks: EndpointRef[];
  slaSeconds: number;
  createdAt: string;
  /** Older runs carried it; the gateway activities build it now. */
  callbackUrl?: string;
  webhookTaskQueue: string;
  /** The task queue of the connector's gateway (workflows/task-queues.ts); absent in older runs: the workflow's own. */
  gatewayTaskQueue?: string;
  /** Carried across continue-as-new. */
  carried?: RefundCarried;
  /** A refund of the older interface (POST /refunds): its webhook_urls get the older body. */
  older?: OlderRefundInput;
}

export interface RefundCarried {
  status: 'pending' | 'success' | 'canceled';
  /** `submitting`/`waiting` before the SLA; `canceling` after it until the gateway says; `done`. */
  phase: 'waiting' | 'canceling' | 'done';
  version: number;
  submitted: boolean;
  gatewayRefundId: string | null;
  gatewayTransactionId: string | null;
  failureCode: string | null;
  lateOutcome: { status: string; at: string; gateway_transaction_id?: string } | null;
  polls: number;
  canceledAnnounced: boolean;
  // Carried by runs of this code on (older runs: derived, see RefundLifecycle).
  /** The gateway acknowledged the refund before its SLA (domain/older-refund-views.ts). */
  acknowledged?: boolean;
  /** The sub-status last written to the record, and the last one announced to older webhook_urls. */
  recordedSubStatus?: OlderRefundSubStatus | null;
  olderAnnounced?: OlderRefundSubStatus | null;
  /** An older refund's fixed row fields, read once (activity olderRefundFacts). */
  olderFacts?: OlderRefundFacts | null;
}

export interface RefundState {
  refund: string;
  status: 'pending' | 'success' | 'canceled';
  amount: number;
  currency: string;
  gateway_transaction_id: string | null;
  sla_expires_at: string;
  late_outcome: string | null;
}

/** A gateway callback about a refund: a hint that makes the refund workflow ask the gateway. */
export const refundOutcomeSignal = defineSignal<[{ outcome: RefundOutcome }]>('refundOutcome');

export const refundStateQuery = defineQuery<RefundState>('state');

/**
 * Operator action: retry the refund's current step now (ask the gateway about it, or, past the SLA, ask it
 * again to cancel) instead of at the next backoff. Answers the refund's state once the gateway was asked.
 */
export const retryRefundStepUpdate = defineUpdate<RefundState, [OperatorUpdateInput]>('operatorRetryStep');
