import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import { OLDER_REFUND_SUB_STATUSES, olderRefundRowOf, subStatusOfRecord, type OlderRefundRow, type OlderRefundSubStatus } from '../../domain/older-refund-views';
import type { RefundRecord } from '../../platform/records';
import { paymentIntentData } from '../../data/payment-intents';
import { refundData } from '../../data/refunds';
import type { PageQuery } from '../../domain/page-query';
import type { AppDeps, AuthContext } from '../deps';
import { planWebhookEndpoints, type PlannedWebhooks } from '../events/endpoints';
import { admitRefund, type RefundParams } from '../refunds/service';
import type { OlderRefundCreateBody } from './schemas';

const OLDER_PARAMS: RefundParams = { intent: 'transaction_id', idempotencyKey: 'checkout_intent_idempotency_key' };

const isSubStatus = (s: string | undefined): s is OlderRefundSubStatus => (OLDER_REFUND_SUB_STATUSES as readonly string[]).includes(s ?? '');

/** A stored refund (of either interface) as GET /refunds lists it and its webhooks carry it. */
export function olderRefundRowOfRecord(r: RefundRecord): OlderRefundRow {
  return olderRefundRowOf(
    { id: r.id!, uuid: r.uuid!, gateway: r.gateway ?? null, transaction_id: r.transaction_id ?? null, payment_intent: r.payment_intent_uuid ?? null },
    {
      amount: r.amount,
      currency: r.currency,
      status: r.status,
      sub_status: isSubStatus(r.sub_status) ? r.sub_status : subStatusOfRecord(r),
      idempotency_key: r.idempotency_key,
      gateway_transaction_id: r.gateway_transaction_id,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      succeeded_at: r.status === 'success' ? (r.succeeded_at ?? r.updated_at).toISOString() : null,
    },
  );
}

/**
 * The webhook_urls, all sharing the one webhook_secret (like payouts'): checked against the webhook target
 * policy, a refusal naming the URL by its place in webhook_urls.
 */
function planOlderWebhooks(deps: AppDeps, auth: AuthContext, body: OlderRefundCreateBody): PlannedWebhooks {
  try {
    return planWebhookEndpoints(
      auth.tenantId,
      auth.region,
      body.webhook_urls?.map((url) => ({ url, events: [], ...(body.webhook_secret ? { secret: body.webhook_secret } : {}) })),
      deps.config,
    );
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'webhook_url_invalid') throw err;
    const rename = (s: string) => s.replace(/webhooks\[(\d+)\]\[url\]/g, 'webhook_urls[$1]');
    throw invalidRequest(err.code, rename(err.message), err.param ? rename(err.param) : 'webhook_urls');
  }
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
      webhooks: () => planOlderWebhooks(deps, auth, body),
      older: true,
    },
    OLDER_PARAMS,
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
