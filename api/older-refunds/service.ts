import { notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import { olderRefundRowOf, subStatusOfRecord } from '../../domain/older-refund-progress';
import type { OlderRefundRow } from '../../domain/older-refund-views';
import type { RefundRecord } from '../../platform/records';
import { paymentIntentData } from '../../data/payment-intents';
import { olderRefundFactsOf, refundData } from '../../data/refunds';
import type { PageQuery } from '../../domain/page-query';
import type { AppDeps, AuthContext } from '../deps';
import { planSharedSecretWebhooks } from '../events/endpoints';
import { admitRefund, type RefundInterface } from '../refunds/service';
import type { OlderRefundCreateBody } from './schemas';

const OLDER_REFUNDS: RefundInterface = { intent: 'transaction_id', idempotencyKey: 'checkout_intent_idempotency_key', older: true };

/** A stored refund (of either interface, with its older ids) as GET /refunds lists it. */
function olderRefundRowOfRecord(r: RefundRecord): OlderRefundRow {
  return olderRefundRowOf(olderRefundFactsOf(r), {
    amount: r.amount,
    currency: r.currency,
    sub_status: subStatusOfRecord(r),
    idempotency_key: r.idempotency_key,
    gateway_transaction_id: r.gateway_transaction_id,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  });
}

/**
 * POST /refunds: a refund of the payment whose transaction_id is given, admitted exactly like a v202607
 * refund (api/refunds/service.ts admitRefund: the payment intent's workflow checks and reserves the amount
 * on its one balance, reopening a closed one), so refunds of both interfaces draw on the same balance.
 */
export async function createOlderRefund(deps: AppDeps, auth: AuthContext, body: OlderRefundCreateBody) {
  const intent = await paymentIntentData(deps.mongo).byTransactionId(auth.tenantId, body.transaction_id);
  if (!intent) throw notFound('transaction', String(body.transaction_id), 'transaction_id');
  const admitted = await admitRefund(
    deps,
    intent,
    {
      amount: body.amount,
      currency: body.currency,
      idempotencyKey: body.checkout_intent_idempotency_key ?? null,
      slaSeconds: body.refund_sla_timeout ?? DEFAULT_REFUND_SLA_SECONDS,
      // The webhook_urls, all sharing the one webhook_secret (like payouts').
      webhooks: () => planSharedSecretWebhooks(auth.tenantId, auth.region, body.webhook_urls, body.webhook_secret, deps.config),
    },
    OLDER_REFUNDS,
  );
  // A refund inserted by a worker of older code (or from before the API's start) gets its integer id now.
  const record = await refundData(deps.mongo).withOlderIds(admitted.record);
  return {
    status: admitted.created ? 201 : 200,
    body: { refund_id: record.id!, refundable_amount_left: admitted.refundable_amount_left, resource_created: admitted.created },
  };
}

/** GET /refunds: the tenant's refunds (both interfaces), page-numbered. */
export async function listOlderRefunds(deps: AppDeps, tenantId: string, query: PageQuery) {
  const refunds = refundData(deps.mongo);
  const page = await refunds.listOlder(tenantId, query, '/refunds');
  const rows = await Promise.all(page.data.map(async (r) => olderRefundRowOfRecord(await refunds.withOlderIds(r))));
  return { ...page, data: rows };
}
