import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import type { RefundRecord } from '../../platform/records';
import { admitRefundUpdate, intentStateQuery } from '../../workflows/definitions';
import type { AppDeps, AuthContext } from '../deps';
import { callbackBaseUrl, getPaymentIntent } from '../payment-intents/service';
import { storeWebhookEndpoints } from '../webhook-endpoints';
import { runUpdate } from '../workflow-calls';
import type { RefundCreateBody } from './schemas';

export function refundView(r: RefundRecord) {
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
 * overdraw it. MongoDB is not the guard here.
 */
export async function createRefund(deps: AppDeps, auth: AuthContext, body: RefundCreateBody) {
  const intent = await getPaymentIntent(deps, auth.tenantId, body.payment_intent);
  const handle = deps.temporal.workflow.getHandle(intent._id);
  if (body.idempotency_key) {
    const existing = await deps.mongo.c.refunds.findOne({ idempotency_scope: `${auth.tenantId}:${body.idempotency_key}` });
    if (existing) {
      if (existing.payment_intent !== intent._id)
        throw invalidRequest('idempotency_key_in_use', 'This idempotency_key was used for a refund of another payment intent', 'idempotency_key');
      const left = await handle.query(intentStateQuery).then((s) => s.refundable_amount_left).catch(() => intent.amount - (intent.amount_refunded ?? 0));
      return { status: 200, body: { ...createView(existing), refundable_amount_left: left, resource_created: false } };
    }
  }
  const webhooks = await storeWebhookEndpoints(deps.mongo, auth.tenantId, auth.region, body.webhooks, {
    allowPrivateHosts: deps.config.WEBHOOK_ALLOW_PRIVATE_HOSTS,
  });
  const admission = await runUpdate(
    () =>
      handle.executeUpdate(admitRefundUpdate, {
        args: [
          {
            amount: body.amount,
            currency: body.currency,
            idempotencyKey: body.idempotency_key ?? null,
            webhooks,
            slaSeconds: body.refund_sla_timeout ?? DEFAULT_REFUND_SLA_SECONDS,
            callbackBaseUrl: `${callbackBaseUrl(deps)}/callbacks/sandbox`,
          },
        ],
      }),
    // The intent's workflow has ended: it was canceled (or never paid), so there is nothing to refund.
    notRefundable,
  );
  if (!admission.ok) throw invalidRequest(admission.code, admission.message, PARAM_OF_REJECTION[admission.code] ?? 'payment_intent');
  const record = await deps.mongo.c.refunds.findOne({ _id: admission.refund, tenant_id: auth.tenantId });
  if (!record) throw new DomainError('unavailable', 'service_unavailable', 'The refund was admitted but its record is not readable yet; retry with the same idempotency_key');
  return {
    status: admission.created ? 201 : 200,
    body: { ...createView(record), refundable_amount_left: admission.refundable_amount_left, resource_created: admission.created },
  };
}

function createView(r: RefundRecord) {
  const { created_at: _c, gateway_transaction_id: _g, ...rest } = refundView(r);
  return rest;
}

export async function getRefund(deps: AppDeps, tenantId: string, id: string): Promise<RefundRecord> {
  const r = await deps.mongo.c.refunds.findOne({ _id: id, tenant_id: tenantId });
  if (!r) throw notFound('refund', id, 'refund');
  return r;
}
