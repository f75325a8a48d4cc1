import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import type { PaymentIntentRecord, RefundRecord } from '../../platform/records';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { admitRefundUpdate, intentStateQuery, PAYMENT_INTENT_WORKFLOW, type RefundAdmission, type RefundAdmissionInput } from '../../workflows/payment-intent/messages';
import type { paymentIntentWorkflow } from '../../workflows/payment-intent/workflow';
import type { AppDeps, AuthContext } from '../deps';
import { getPaymentIntent, startOptions } from '../payment-intents/service';
import { discardWebhookSecrets, planWebhookEndpoints, storeWebhookSecrets } from '../events/endpoints';
import { QUERY_DEADLINE_MS, runUpdate, withDeadline } from '../http/workflow-calls';
import { reopenedState } from './reopen';
import type { RefundCreateBody } from './schemas';
import { refundData } from '../../data/refunds';
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

const PARAM_OF_REJECTION: Record<string, string> = {
  REFUND_CCY_MISMATCH: 'currency',
  REFUND_RQST_AMT_GREATER_THAN_TX_AMT: 'amount',
  idempotency_key_in_use: 'idempotency_key',
};

const notRefundable = () => invalidRequest('REFUND_TX_MUST_BE_SUCCESSFUL', 'The payment intent has no successful payment', 'payment_intent');

/**
 * A refund is admitted by the payment intent's workflow, which owns the refundable balance: its Update
 * handler checks and reserves the amount before its first await, so concurrent refunds can never
 * overdraw it. MongoDB is not the guard here. When that workflow has closed (its refund window ended), it
 * is started again from the balance kept in MongoDB, in the same call (Update-with-Start).
 */
export async function createRefund(deps: AppDeps, auth: AuthContext, body: RefundCreateBody) {
  const intent = await getPaymentIntent(deps, auth.tenantId, body.payment_intent);
  const handle = deps.temporal.workflow.getHandle(intent._id);
  if (body.idempotency_key) {
    const existing = await refundData(deps.mongo).byIdempotencyKey(auth.tenantId, body.idempotency_key);
    if (existing) {
      if (existing.payment_intent !== intent._id)
        throw invalidRequest('idempotency_key_in_use', 'This idempotency_key was used for a refund of another payment intent', 'idempotency_key');
      const left = await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.query(intentStateQuery))
        .then((s) => s.refundable_amount_left)
        .catch(() => intent.amount - (intent.amount_refunded ?? 0));
      return { status: 200, body: { ...createView(existing), refundable_amount_left: left, resource_created: false } };
    }
  }
  // Checked before anything is written; the secrets are written before the admission (the refund's first
  // event may follow it at once) and taken back when it is refused or is a duplicate.
  const webhooks = planWebhookEndpoints(auth.tenantId, auth.region, body.webhooks, deps.config);
  const args: [RefundAdmissionInput] = [
    {
      amount: body.amount,
      currency: body.currency,
      idempotencyKey: body.idempotency_key ?? null,
      webhooks: webhooks.endpoints,
      slaSeconds: body.refund_sla_timeout ?? DEFAULT_REFUND_SLA_SECONDS,
    },
  ];
  await storeWebhookSecrets(deps.mongo, webhooks);
  let admission: RefundAdmission;
  try {
    admission = await runUpdate(
      deps,
      () => handle.executeUpdate(admitRefundUpdate, { args }),
      // The intent's workflow has ended: canceled (or never paid), nothing to refund; paid, its refund
      // window closed, so it is reopened from its stored balance.
      () => (intent.status === 'success' ? reopenAndAdmit(deps, intent, args) : notRefundable()),
    );
  } catch (err) {
    await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
    throw err;
  }
  if (!admission.ok || !admission.created) await discardWebhookSecrets(deps.mongo, webhooks);
  if (!admission.ok) throw invalidRequest(admission.code, admission.message, PARAM_OF_REJECTION[admission.code] ?? 'payment_intent');
  const record = await refundData(deps.mongo).find(auth.tenantId, admission.refund);
  if (!record) throw new DomainError('unavailable', 'service_unavailable', 'The refund was admitted but its record is not readable yet; retry with the same idempotency_key');
  return {
    status: admission.created ? 201 : 200,
    body: { ...createView(record), refundable_amount_left: admission.refundable_amount_left, resource_created: admission.created },
  };
}

/** Starts a closed payment's workflow again from MongoDB, and admits the refund in the same call. */
async function reopenAndAdmit(deps: AppDeps, intent: PaymentIntentRecord, args: [RefundAdmissionInput]): Promise<RefundAdmission> {
  const refunds = await refundData(deps.mongo).ofPaymentIntent(intent.tenant_id, intent._id);
  const options = startOptions(intent, deps);
  const start = new WithStartWorkflowOperation<typeof paymentIntentWorkflow>(PAYMENT_INTENT_WORKFLOW, {
    ...options,
    // The record says `success` (only a paid intent is reopened), so the start's search attributes do too.
    args: [{ ...options.args[0], carried: reopenedState(intent, refunds, new Date()) }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return runUpdate(deps, () => deps.temporal.workflow.executeUpdateWithStart(admitRefundUpdate, { args, startWorkflowOperation: start }), notRefundable);
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
