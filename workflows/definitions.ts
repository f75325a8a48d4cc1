// Messages, search attributes and inputs shared by the workflows and the code that talks to them
// (API, callback ingress, tests). Importing this file pulls in no Node or I/O module.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { IntentStatus } from '../domain/payment-intent';
import type { ChargeOutcome, RefundOutcome } from '../activities/gateway/types';

export const SA = {
  TenantId: defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD),
  PaymentStatus: defineSearchAttributeKey('PaymentStatus', SearchAttributeType.KEYWORD),
  AmountMinor: defineSearchAttributeKey('AmountMinor', SearchAttributeType.INT),
  Currency: defineSearchAttributeKey('Currency', SearchAttributeType.KEYWORD),
  ExpiresAt: defineSearchAttributeKey('ExpiresAt', SearchAttributeType.DATETIME),
  CustomerId: defineSearchAttributeKey('CustomerId', SearchAttributeType.KEYWORD),
  Connector: defineSearchAttributeKey('Connector', SearchAttributeType.KEYWORD),
  PaymentIntentId: defineSearchAttributeKey('PaymentIntentId', SearchAttributeType.KEYWORD),
  RefundStatus: defineSearchAttributeKey('RefundStatus', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  DeliveryStatus: defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD),
  WebhookUrl: defineSearchAttributeKey('WebhookUrl', SearchAttributeType.KEYWORD),
};

/**
 * A webhook endpoint as workflows see it. Its secret stays in MongoDB (collection `webhook_secrets`),
 * out of workflow history: `secretRef` is `<webhook_secrets _id>#<index>`, resolved at send time.
 */
export interface EndpointRef {
  url: string;
  events: string[];
  secretRef?: string;
}

export interface PaymentIntentInput {
  id: string;
  tenantId: string;
  region: string;
  amount: number;
  currency: string;
  customer: string | null;
  metadata: Record<string, string>;
  webhooks: EndpointRef[];
  connectors: string[];
  returnUrl: string | null;
  createdAt: string; // ISO
  expiresAt: string; // ISO
  /** Where gateways post async outcomes for this intent, and where the hosted page lives. */
  callbackUrl: string;
  hostedPageUrl: string;
  webhookTaskQueue: string;
  /** Attempts a customer may make before the intent refuses more (card-testing brake). Default 20. */
  maxAttempts?: number;
  /** Carried across continue-as-new (and into a run reopened for a refund after the workflow closed). */
  carried?: CarriedState;
}

/** An attempt as it crosses continue-as-new. */
export interface CarriedAttempt {
  number: number;
  phase: AttemptPhase;
  connector: string;
  chargeId: string | null;
  idempotencyKey: string;
  saveMethod: boolean;
  checks: number;
}

export interface CarriedState {
  status: IntentStatus;
  version: number;
  paid: { amount: number; currency: string; connector: string; chargeId: string } | null;
  reserved: Record<string, number>;
  /** Refund idempotency keys and their refunds. Older runs carried a plain object; newer ones carry pairs. */
  refundKeys: Record<string, string> | [string, string][];
  refundStarted: string[];
  refundSettled: string[];
  /** Refunds canceled at their SLA that the gateway executed after all (taken back out of the balance). */
  lateRefunds?: string[];
  /** Charges no longer waited on whose late capture must still be refunded (older runs: no key). */
  lateCharges?: { chargeId: string | null; connector: string; number: number; idempotencyKey?: string }[];
  /** While pending: the open attempt, the attempts made, the last failure and unanswered callback hints. */
  pending?: { attempt: CarriedAttempt | null; attemptsMade: number; lastFailureCode: string | null; hints: [string, string][] };
  /** Until when the attempts in lateCharges are watched. */
  lateWatchUntil?: string;
  /** When the workflow may close once nothing is open any more (refund window; shorter for a reopened run). */
  closeAt?: string;
  succeededAt: string | null;
  canceledAt: string | null;
  cancellationReason: 'requested' | 'expired' | null;
  amountRefunded: number;
}

export interface IntentView {
  payment_intent: string;
  status: IntentStatus;
  amount: number;
  currency: string;
  url: string;
  expires_at: string;
  customer?: string;
  created_at: string;
}

export interface IntentState extends IntentView {
  version: number;
  attempt: { number: number; phase: AttemptPhase; connector: string } | null;
  attempts: number;
  amount_paid: number;
  amount_refunded: number;
  refundable_amount_left: number;
  refunds_pending: string[];
}

/**
 * `charging`: the charge call is on the wire. `unknown`: it ended without an answer; the gateway is asked by
 * the attempt's idempotency key until it says. `awaiting_action` (3DS) and `awaiting_callback` (async): the
 * gateway has the charge and will finish it.
 */
export type AttemptPhase = 'charging' | 'unknown' | 'awaiting_action' | 'awaiting_callback';

export interface AttemptInput {
  token: string;
  connector?: string;
  save_payment_method?: boolean;
}

export interface AttemptResult {
  payment_intent: string;
  status: 'success' | 'pending' | 'requires_action' | 'failed';
  next_action?: { type: 'redirect_to_url'; url: string };
  failure_code?: string;
  payment_method_uuid?: string;
}

export interface RefundAdmissionInput {
  amount: number;
  currency: string;
  idempotencyKey: string | null;
  webhooks: EndpointRef[];
  slaSeconds: number;
  callbackBaseUrl: string;
}

export type RefundAdmission =
  | { ok: true; refund: string; created: boolean; refundable_amount_left: number }
  | { ok: false; code: string; message: string };

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
  callbackUrl: string;
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

export type EventSource = { kind: 'payment_intent' | 'refund' | 'payout'; id: string };

export interface WebhookDeliveryInput {
  eventId: string;
  eventType: string;
  tenantId: string;
  url: string;
  endpointIndex: number;
  secretRef?: string;
  source: EventSource;
  /** The exact body, built from the state committed when the event happened. */
  body: string;
  /** `envelope` (v202607 events) or `legacy` (webhook_urls + webhook_secret of the older interfaces). */
  format: 'envelope' | 'legacy';
  /** Set on an on-demand redelivery. */
  redelivery?: boolean;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'failed' | 'gone';
  attempts: number;
}

export const cancelUpdate = defineUpdate<IntentView, []>('cancel');
export const attemptUpdate = defineUpdate<AttemptResult, [AttemptInput]>('attempt');
export const admitRefundUpdate = defineUpdate<RefundAdmission, [RefundAdmissionInput]>('admitRefund');
/** A gateway callback about a charge: a hint that makes the workflow ask the gateway, never a verdict. */
export const chargeOutcomeSignal = defineSignal<[{ chargeId: string; idempotencyKey?: string; outcome: ChargeOutcome }]>('chargeOutcome');
export const refundSettledSignal = defineSignal<[{ refundId: string; status: 'success' | 'canceled' | 'late_success'; amount?: number }]>('refundSettled');
export const intentStateQuery = defineQuery<IntentState>('state');

/** A gateway callback about a refund: a hint that makes the refund workflow ask the gateway. */
export const refundOutcomeSignal = defineSignal<[{ outcome: RefundOutcome }]>('refundOutcome');
export const refundStateQuery = defineQuery<RefundState>('state');

export const PAYMENT_INTENT_WORKFLOW = 'paymentIntentWorkflow';
export const REFUND_WORKFLOW = 'refundWorkflow';
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
