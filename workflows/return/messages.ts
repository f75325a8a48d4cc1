import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { ReturnMove, ReturnStatus } from '../../domain/returns';
import type { AddressSnapshot } from '../../platform/records';
import type { EndpointRef } from '../events';

// Messages of a return's workflow: the merchant's moves (PUT /returns/{id}) and the refund that ends it.

export const RETURN_WORKFLOW = 'returnWorkflow';

export interface ReturnInput {
  id: string; // ret_...
  tenantId: string;
  region: string;
  orderId: string;
  checkoutId: string;
  userId: string;
  paymentIntent: string;
  productId: string;
  quantity: number;
  amount: number;
  currency: string;
  reasonCode: string;
  address: AddressSnapshot;
  idempotencyKey: string;
  /** The tenant's commerce webhook_urls: every status change is sent to each. */
  webhooks: EndpointRef[];
  webhookTaskQueue: string;
  createdAt: string; // ISO
  /** Carried across continue-as-new (a refund polled for long). */
  carried?: { status: ReturnStatus; refund: string | null; version: number };
}

export interface ReturnProgress {
  status: ReturnStatus;
  refund: string | null;
}

/** The merchant moves the return on (`approved`, `received`, `rejected` with a reason). */
export const moveReturnUpdate = defineUpdate<ReturnProgress, [{ move: ReturnMove; reason?: string }]>('moveReturn');
/**
 * The refund of a received return was admitted (by the API, against the order's payment intent), or refused
 * (`refusal`: the payment's refundable balance no longer covers it): the return is then `refund_failed`.
 * `refund: null`: the return's amount is 0 (a free product), so there is nothing to refund: it is `refunded`.
 */
/** A received return's refund as handed over: made (its id, or null for none), or refused (its code and message). */
export type RefundHandOver = { refund: string | null } | { refusal: string; refusalMessage?: string };

export const returnRefundStartedUpdate = defineUpdate<ReturnProgress, [RefundHandOver]>('returnRefundStarted');
export const returnProgressQuery = defineQuery<ReturnProgress>('returnProgress');
