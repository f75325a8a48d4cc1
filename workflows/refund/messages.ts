import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RefundOutcome } from '../../gateways/types';
import type { EndpointRef } from '../events';

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
  /** Carried across continue-as-new. */
  carried?: RefundCarried;
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
