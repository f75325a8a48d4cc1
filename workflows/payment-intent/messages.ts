import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { IntentStatus } from '../../domain/payment-intent';
import type { PaymentIntentView } from '../../domain/views';
import type { OlderIntentView } from '../../domain/older-views';
import type { ChargeOutcome } from '../../gateways/types';
import type { EndpointRef } from '../events';
import type { AgreementType, TransactionRecord } from '../../platform/records';
import type { OperatorUpdateInput } from '../../platform/ops-records';

// Messages of one workflow: its input, what it carries across continue-as-new, its Updates, Signals and
// Queries. The API and tests import this module; it pulls in no Node or I/O module.

export const PAYMENT_INTENT_WORKFLOW = 'paymentIntentWorkflow';

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
  /** The connectors are an orchestrator's: an attempt fails over to the next one when a connector is unavailable. */
  failover?: boolean;
  returnUrl: string | null;
  createdAt: string; // ISO
  expiresAt: string; // ISO
  /** Older runs carried where gateways post outcomes; the gateway activities build it now. */
  callbackUrl?: string;
  /** Where the hosted page lives (3DS challenges return there). */
  hostedPageUrl: string;
  webhookTaskQueue: string;
  /**
   * The version of its create (absent in runs started before it was carried): an event's `data` is the intent
   * as that version's retrieve answers it (v202608: with connector and setup_future_usage).
   */
  apiVersion?: string;
  /** v202608 `setup_future_usage`, which its retrieve and so its events show. */
  setupFutureUsage?: 'off_session';
  /** Attempts a customer may make before the intent refuses more (card-testing brake). Default 20. */
  maxAttempts?: number;
  /** Carried across continue-as-new (and into a run reopened for a refund after the workflow closed). */
  carried?: CarriedState;
  /** An intent of the older interface with webhook_urls, or under a checkout intent (api/older-payment-intents). */
  older?: OlderIntentInput;
  /**
   * What made this intent for itself. A workflow (a commerce checkout, a subscription) is told when the intent
   * succeeds or is canceled; a billing session (`cs_`, `bps_`: isBillingSessionOwner) has its side finished by
   * an activity when it succeeds.
   */
  owner?: string;
}

/** A checkout session's or billing-portal session's intent: its success is finished by completeSessionPayment. */
export const isBillingSessionOwner = (owner: string): boolean => /^(cs|bps)_/.test(owner);

/** What the older interface adds to an intent's run: its webhook body's fixed part, its endpoints, its checkout intent. */
export interface OlderIntentInput {
  /** The older view's fields fixed at create; the workflow sets status, progress and transaction_id. */
  view: OlderIntentView;
  transactionId: number;
  /** The merchant's `payload` as JSON text, returned in every older webhook. */
  payloadJson: string | null;
  /**
   * A v202606 intent's `metadata`, returned in every older webhook beside `payload` (the spec: "the metadata
   * given on the payment intent is returned on its webhooks"). Absent for the unprefixed create, which takes none.
   */
  metadata?: Record<string, string>;
  /** webhook_urls of the intent and of its checkout intent: each gets the older body, with Service-Webhook-Secret. */
  webhooks: EndpointRef[];
  /** The checkout intent's UUID: the intent succeeds only if it wins the checkout intent's one claim. */
  checkoutIntent: string | null;
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
  /** The task queue of its connector's gateway; absent: the workflow's own queue. */
  taskQueue?: string;
  /** A merchant-initiated charge of a saved card (POST /cards/mit). */
  mit?: MitAttempt;
}

/** What a merchant-initiated attempt charges: a saved card under an agreement, as its own transaction. */
export interface MitAttempt {
  transaction: string; // ti_...
  /** The saved card (`pm_...`): the gateway activity reads its token, which never enters the history. */
  paymentMethod: string;
  agreement: MitAgreement;
}

export interface MitAgreement {
  /** Our id (`agr_...`), derived from the tenant, the card and the merchant's agreement_id. */
  id: string;
  /** The merchant's agreement_id. */
  agreementId: string;
  type: AgreementType;
  /** The network transaction id of the agreement's first charge; null for the first one. */
  networkTransactionId: string | null;
}

export interface CarriedState {
  status: IntentStatus;
  version: number;
  /** `taskQueue`: the paid connector's gateway queue (absent in runs from before gateway queues). */
  paid: { amount: number; currency: string; connector: string; chargeId: string; taskQueue?: string } | null;
  reserved: Record<string, number>;
  /** Refund idempotency keys and their refunds. Older runs carried a plain object; newer ones carry pairs. */
  refundKeys: Record<string, string> | [string, string][];
  refundStarted: string[];
  refundSettled: string[];
  /** Refunds canceled at their SLA that the gateway executed after all (taken back out of the balance). */
  lateRefunds?: string[];
  /** Charges no longer waited on whose late capture must still be refunded (older runs: no key). */
  /** `mit`: a merchant-initiated attempt's card and agreement (a late capture still gives the agreement its network id). */
  lateCharges?: { chargeId: string | null; connector: string; number: number; idempotencyKey?: string; taskQueue?: string; mit?: MitAttempt }[];
  /** While pending: the open attempt, the attempts made, the last failure and unanswered callback hints. */
  pending?: { attempt: CarriedAttempt | null; attemptsMade: number; lastFailureCode: string | null; hints: [string, string][] };
  /** Until when the attempts in lateCharges are watched. */
  lateWatchUntil?: string;
  /** When the workflow may close once nothing is open any more (refund window; shorter for a reopened run). */
  closeAt?: string;
  succeededAt: string | null;
  canceledAt: string | null;
  cancellationReason: CancellationReason | null;
  amountRefunded: number;
  /** The furthest step an attempt reached (domain/older-views.ts); older runs: unknown, 1. */
  stepReached?: number;
  /** The saved card the intent was paid with. */
  paymentMethod?: string | null;
  /** Its merchant-initiated charges, oldest first. */
  transactions?: TransactionRecord[];
}

/** Why an intent was canceled: by the merchant, by its deadline, or because its checkout intent was paid by another. */
export type CancellationReason = 'requested' | 'expired' | 'checkout_completed';

/** The intent as retrieve answers it (domain/views.ts). */
export type IntentView = PaymentIntentView;

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
  /**
   * The connectors the API resolved for this attempt (the intent's checkout as it stands when the customer
   * pays, api/payment-methods/resolve.ts), in the order they are tried, and whether the attempt fails over
   * along them. They stand in for the input's `connectors` and `failover`, which an unpinned intent's
   * checkout outgrows (a connector added or switched off since create). Absent from attempts an older API
   * sent, and so from the histories they made: the input's are used.
   */
  connectors?: string[];
  failover?: boolean;
  /**
   * The task queue of each connector's gateway (workflows/task-queues.ts), so each gateway's calls run under
   * its own rate limit. Absent from older API processes and their histories: the workflow's own queue.
   */
  gatewayQueues?: Record<string, string>;
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
  /** Older API processes sent it; the gateway activities build callback URLs now. */
  callbackBaseUrl?: string;
  /** A refund of the older interface (POST /refunds by transaction_id): what its workflow needs for it. */
  older?: OlderRefundInput;
  /**
   * A credit note (`cn_...`) of an invoice this intent paid, credited to the customer's balance instead of
   * refunded: its amount is taken from the same balance as refunds, at once and for good, and no refund
   * workflow starts. Its reservation is kept under the credit note's id.
   */
  creditNote?: string;
}

/** The older interface's part of a refund: its webhook_urls (older body, Service-Webhook-Secret). */
export interface OlderRefundInput {
  webhooks: EndpointRef[];
}

export type RefundAdmission =
  | { ok: true; refund: string; created: boolean; refundable_amount_left: number }
  | { ok: false; code: string; message: string };

/** POST /cards/mit: charge a saved card with the customer absent (the API resolved the card and agreement). */
export interface MitChargeInput {
  /** The saved card; its reusable token is read by the charge activity, so it stays out of the history. */
  paymentMethod: string;
  /** The connector that issued the token: only it can charge the card. */
  connector: string;
  agreement: MitAgreement;
  /** The task queue of the connector's gateway (workflows/task-queues.ts); absent from older API processes. */
  gatewayQueue?: string;
  /**
   * Names this charge for a caller that may send it again long after (an invoice's attempt, `billing:<in>:<n>`):
   * the same key is answered with its transaction, however late, and never charges the card again.
   */
  chargeKey?: string;
}

/** The charge's answer: the transaction (`ti_...`) and how it stands. */
export type MitChargeResult =
  | { code: 'ok'; transaction_uuid: string }
  | { code: 'REQUIRES_ACTION'; transaction_uuid: string; next_action: { type: 'redirect_to_url'; url: string } }
  /** The gateway has not decided yet (an asynchronous charge, or a lost answer being reconciled). */
  | { code: 'PROCESSING'; transaction_uuid: string }
  | { code: 'declined'; transaction_uuid: string; failure_code: string };

export const cancelUpdate = defineUpdate<IntentView, []>('cancel');
/** Cancel a pending intent because another intent of its checkout intent was paid (sent by the winner's claim). */
export const checkoutCompletedUpdate = defineUpdate<IntentView, []>('cancelCheckoutCompleted');

export const mitChargeUpdate = defineUpdate<MitChargeResult, [MitChargeInput]>('chargeSavedCard');

export const attemptUpdate = defineUpdate<AttemptResult, [AttemptInput]>('attempt');

export const admitRefundUpdate = defineUpdate<RefundAdmission, [RefundAdmissionInput]>('admitRefund');

export interface ChargeOutcomeHint {
  chargeId: string;
  idempotencyKey?: string;
  outcome: ChargeOutcome;
}

export interface RefundSettled {
  refundId: string;
  status: 'success' | 'canceled' | 'late_success';
  amount?: number;
}

/** A gateway callback about a charge: a hint that makes the workflow ask the gateway, never a verdict. */
export const chargeOutcomeSignal = defineSignal<[ChargeOutcomeHint]>('chargeOutcome');

/** A refund the payment started has settled: `success` spends its reservation, `canceled` releases it. */
export const refundSettledSignal = defineSignal<[RefundSettled]>('refundSettled');

export const intentStateQuery = defineQuery<IntentState>('state');

// ---- operator actions (docs/runbook.md): Updates carrying who acted and why; the Update's input is kept in
// the workflow's history, and the API writes the audit row (data/operator-actions.ts) around the call.

export interface OperatorActionInput extends OperatorUpdateInput {
  /** A force-cancel of a paid intent refunds what is left with this SLA. */
  refundSlaSeconds?: number;
}

export interface OperatorActionAnswer {
  /** What was done: `canceled`, `refunded`, `rechecked`. */
  outcome: string;
  status: IntentStatus;
  /** The refund a force-cancel of a paid intent started (or found, when retried). */
  refund?: string;
  /** The attempt a re-check asked the gateway about, as it stands after the answer. */
  attempt?: { number: number; phase: string } | null;
}

/** Force-cancel: a pending intent is canceled (an unknown attempt let go, refunded if captured later); a paid one is refunded in full. */
export const forceCancelUpdate = defineUpdate<OperatorActionAnswer, [OperatorActionInput]>('operatorForceCancel');
/** Re-check: ask the gateway now about the open attempt (and abandoned ones), instead of at the next poll. */
export const recheckAttemptUpdate = defineUpdate<OperatorActionAnswer, [OperatorActionInput]>('operatorRecheckAttempt');
