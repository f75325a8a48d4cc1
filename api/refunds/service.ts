import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS, serviceRefundKey } from '../../domain/refund';
import type { PaymentIntentRecord, RefundRecord } from '../../platform/records';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { admitRefundUpdate, intentStateQuery, PAYMENT_INTENT_WORKFLOW, type RefundAdmission, type RefundAdmissionInput } from '../../workflows/payment-intent/messages';
import type { paymentIntentWorkflow } from '../../workflows/payment-intent/workflow';
import type { AppDeps, AuthContext } from '../deps';
import { getPaymentIntent, startOptions } from '../payment-intents/service';
import { discardWebhookSecrets, planWebhookEndpoints, storeWebhookSecrets, type PlannedWebhooks } from '../events/endpoints';
import { freshStart, QUERY_DEADLINE_MS, runUpdate, withDeadline } from '../http/workflow-calls';
import { reopenedState } from './reopen';
import { creditNoteData } from '../../data/credit-notes';
import type { RefundCreateBody } from './schemas';
import { refundData } from '../../data/refunds';
import { paymentIntentData } from '../../data/payment-intents';
import { connectorData } from '../../data/connectors';
import { gatewayTaskQueue } from '../../workflows/task-queues';
import type { RefundView } from '../../domain/views';

/** A stored refund in its one public shape (domain/views.ts). */
export function refundView(r: RefundRecord): RefundView {
  return {
    refund: r._id,
    payment_intent: r.payment_intent,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    created_at: r.created_at.toISOString(),
    gateway_transaction_id: r.gateway_transaction_id,
  };
}

/**
 * The interface a refund request came through: the request parameters its refusals name (the older one
 * names the payment by transaction_id), and whether its endpoints are the older interface's webhook_urls
 * (older body) rather than v202607 `webhooks`.
 */
export interface RefundInterface {
  intent: 'payment_intent' | 'transaction_id';
  idempotencyKey: 'idempotency_key' | 'checkout_intent_idempotency_key';
  older: boolean;
}
const V202607_REFUNDS: RefundInterface = { intent: 'payment_intent', idempotencyKey: 'idempotency_key', older: false };

function paramOfRejection(code: string, via: RefundInterface): string {
  if (code === 'REFUND_CCY_MISMATCH') return 'currency';
  if (code === 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT') return 'amount';
  if (code === 'idempotency_key_in_use') return via.idempotencyKey;
  return via.intent;
}

const notRefundable = (via: RefundInterface) => invalidRequest('REFUND_TX_MUST_BE_SUCCESSFUL', 'The payment intent has no successful payment', via.intent);

/** A refund request of either interface, as the payment intent's workflow is asked to admit it. */
export interface RefundAdmissionRequest {
  amount: number;
  currency: string;
  idempotencyKey: string | null;
  slaSeconds: number;
  /**
   * Checks the endpoints and names their secrets' record without writing (planWebhookEndpoints): called
   * only for a new refund, so a repeated idempotency key answers its refund whatever endpoints it carries.
   */
  webhooks: () => PlannedWebhooks;
}

export interface RefundAdmitted {
  created: boolean;
  record: RefundRecord;
  refundable_amount_left: number;
}

/** Whether `req` asks for the refund `r` is: of the same payment, amount and currency (its SLA and webhooks move no money). */
const asksForRefund = (r: RefundRecord, intent: PaymentIntentRecord, req: RefundAdmissionRequest) =>
  r.payment_intent === intent._id && r.amount === req.amount && r.currency === req.currency;

const refundKeyInUse = (via: RefundInterface) =>
  invalidRequest('idempotency_key_in_use', `This ${via.idempotencyKey} was used for another refund (of another payment, amount or currency): use a new key for a new refund`, via.idempotencyKey);

/**
 * Admits a refund of `intent`, for both interfaces (POST /v202607/refunds by `pi_` id, POST /refunds by
 * transaction_id). The payment intent's workflow owns the refundable balance: its Update handler checks and
 * reserves the amount before its first await, so concurrent refunds of either interface can never overdraw
 * it. MongoDB is not the guard here. When that workflow has closed (its refund window ended), it is started
 * again from the balance kept in MongoDB, in the same call (Update-with-Start). A known idempotency key
 * answers its refund (created false); one used for a refund of another intent, amount or currency is a 400,
 * also when the two requests race (the workflow answers the second with the first's refund).
 */
/** What is left to refund of a payment: as its intent's workflow counts it, else from its record (refunds settled). */
export async function refundableLeft(deps: AppDeps, intentId: string, record: () => Promise<PaymentIntentRecord | null>): Promise<number> {
  return withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => deps.temporal.workflow.getHandle(intentId).query(intentStateQuery))
    .then((s) => s.refundable_amount_left)
    .catch(async () => {
      const r = await record();
      return r ? (r.amount_paid ?? r.amount) - (r.amount_refunded ?? 0) : 0;
    });
}

/**
 * Gives a payment back for the service (a card check once done, a session's payment it could not use): in full
 * under `idempotencyKey`, or, when the merchant has refunded some of it already (the full amount is refused), what
 * is left under a key of its own (serviceRefundKey.restOf), since the first key's amount is the full one. The
 * refund's id, or null when nothing was left to give back.
 */
export async function giveBackPayment(deps: AppDeps, intent: PaymentIntentRecord, idempotencyKey: string): Promise<string | null> {
  const ask = async (amount: number, key: string) =>
    (
      await admitRefund(
        deps,
        intent,
        { amount, currency: intent.currency, idempotencyKey: key, slaSeconds: DEFAULT_REFUND_SLA_SECONDS, webhooks: () => ({ endpoints: [], secrets: null }) },
        V202607_REFUNDS,
      )
    ).record._id;
  try {
    return await ask(intent.amount, idempotencyKey);
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT') throw err;
  }
  const restKey = serviceRefundKey.restOf(idempotencyKey);
  const earlier = await refundData(deps.mongo).byIdempotencyKey(intent.tenant_id, restKey);
  if (earlier) return earlier._id;
  // The record as it is now, should the workflow not answer: the caller's copy predates the merchant's refunds.
  const left = await refundableLeft(deps, intent._id, () => paymentIntentData(deps.mongo).findByRef(intent.tenant_id, intent._id));
  return left > 0 ? ask(left, restKey) : null;
}

export async function admitRefund(deps: AppDeps, intent: PaymentIntentRecord, req: RefundAdmissionRequest, via: RefundInterface): Promise<RefundAdmitted> {
  if (req.idempotencyKey) {
    const existing = await refundData(deps.mongo).byIdempotencyKey(intent.tenant_id, req.idempotencyKey);
    if (existing) {
      if (!asksForRefund(existing, intent, req)) throw refundKeyInUse(via);
      const left = await refundableLeft(deps, intent._id, async () => intent);
      return { created: false, record: existing, refundable_amount_left: left };
    }
  }
  // Checked before anything is written.
  const webhooks = req.webhooks();
  const args: [RefundAdmissionInput] = [
    {
      amount: req.amount,
      currency: req.currency,
      idempotencyKey: req.idempotencyKey,
      webhooks: via.older ? [] : webhooks.endpoints,
      slaSeconds: req.slaSeconds,
      ...(via.older ? { older: { webhooks: webhooks.endpoints } } : {}),
    },
  ];
  // The secrets are written before the admission (the refund's first event may follow it at once) and
  // taken back when it is refused or is a duplicate.
  await storeWebhookSecrets(deps.mongo, webhooks);
  let admission: RefundAdmission;
  try {
    admission = await admitOnIntent(deps, intent, args, via);
  } catch (err) {
    // A refusal admitted nothing. No answer in time (503) may still be admitted when the worker comes back,
    // and that refund's events would name these secrets: they stay (unused, should it never be admitted).
    if (err instanceof DomainError && err.kind !== 'unavailable') await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
    throw err;
  }
  if (!admission.ok || !admission.created) await discardWebhookSecrets(deps.mongo, webhooks);
  if (!admission.ok) throw invalidRequest(admission.code, admission.message, paramOfRejection(admission.code, via));
  const record = await refundData(deps.mongo).find(intent.tenant_id, admission.refund);
  if (!record)
    throw new DomainError('unavailable', 'service_unavailable', `The refund was admitted but its record is not readable yet; retry with the same ${via.idempotencyKey}`);
  if (!admission.created && !asksForRefund(record, intent, req)) throw refundKeyInUse(via);
  return { created: admission.created, record, refundable_amount_left: admission.refundable_amount_left };
}

/**
 * Asks the intent's workflow to admit `args` (a refund, or a credit note's amount). When that workflow has
 * ended: canceled (or never paid), nothing to refund; paid, its refund window closed, so it is reopened from
 * its stored balance.
 */
export function admitOnIntent(deps: AppDeps, intent: PaymentIntentRecord, args: [RefundAdmissionInput], via: RefundInterface = V202607_REFUNDS): Promise<RefundAdmission> {
  return runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(intent._id).executeUpdate(admitRefundUpdate, { args }),
    () => (intent.status === 'success' ? reopenAndAdmit(deps, intent, args, via) : notRefundable(via)),
  );
}

/** POST /v202607/refunds: a refund of a `pi_` intent. */
export async function createRefund(deps: AppDeps, auth: AuthContext, body: RefundCreateBody) {
  const intent = await getPaymentIntent(deps, auth.tenantId, body.payment_intent);
  return createAnswer(
    await admitRefund(
      deps,
      intent,
      {
        amount: body.amount,
        currency: body.currency,
        idempotencyKey: body.idempotency_key ?? null,
        slaSeconds: body.refund_sla_timeout ?? DEFAULT_REFUND_SLA_SECONDS,
        webhooks: () => planWebhookEndpoints(auth.tenantId, auth.region, body.webhooks, deps.config),
      },
      V202607_REFUNDS,
    ),
  );
}

function createAnswer(a: RefundAdmitted) {
  return {
    status: a.created ? 201 : 200,
    body: { ...createView(a.record), refundable_amount_left: a.refundable_amount_left, resource_created: a.created },
  };
}

/** Starts a closed payment's workflow again from MongoDB, and admits the refund in the same call. */
async function reopenAndAdmit(deps: AppDeps, intent: PaymentIntentRecord, args: [RefundAdmissionInput], via: RefundInterface): Promise<RefundAdmission> {
  const start = await reopenOperation(deps, intent);
  return runUpdate(deps, () => deps.temporal.workflow.executeUpdateWithStart(admitRefundUpdate, { args, startWorkflowOperation: freshStart(start) }), () => notRefundable(via));
}

/**
 * The start of a paid intent's workflow again, from its balance in MongoDB (its refunds and the credit notes
 * credited to the customer's balance), for an Update-with-Start: a refund, or an operator's force-cancel.
 */
export async function reopenOperation(deps: AppDeps, intent: PaymentIntentRecord) {
  const refunds = await refundData(deps.mongo).ofPaymentIntent(intent.tenant_id, intent._id);
  const credits = await creditNoteData(deps.mongo).creditedToBalanceOf(intent.tenant_id, intent._id);
  // The record keeps the connector, not its queue: a connector deleted since leaves the refunds on the workflow's queue.
  const connector = intent.connector_used ? await connectorData(deps.mongo).find(intent.tenant_id, intent.connector_used) : null;
  const taskQueue = connector ? gatewayTaskQueue(deps.config.TEMPORAL_TASK_QUEUE, connector.gateway) : undefined;
  const options = startOptions(intent, deps);
  return new WithStartWorkflowOperation<typeof paymentIntentWorkflow>(PAYMENT_INTENT_WORKFLOW, {
    ...options,
    // The record says `success` (only a paid intent is reopened), so the start's search attributes do too.
    args: [{ ...options.args[0], carried: reopenedState(intent, refunds, new Date(), credits, taskQueue) }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

function createView(r: RefundRecord) {
  const { created_at: _c, gateway_transaction_id: _g, ...rest } = refundView(r);
  return rest;
}

export async function getRefund(deps: AppDeps, tenantId: string, id: string): Promise<RefundRecord> {
  const r = await refundData(deps.mongo).find(tenantId, id);
  if (!r) throw notFound('refund', id, 'refund');
  return r;
}
