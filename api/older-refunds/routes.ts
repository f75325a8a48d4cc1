import { pageEnvelopeSchema, pageQuerySchema } from '../../domain/page-query';
import { OLDER_REFUND_LIST } from '../../data/refunds';
import { route, type RouteDef } from '../http/route';
import { olderRefundCreateBody, olderRefundCreateResponse, olderRefundRow } from './schemas';
import { createOlderRefund, listOlderRefunds } from './service';

// The older interface's refunds: unprefixed and version-neutral, the same secret keys and tenants, the same
// refund workflow and payment balance as POST /v202607/refunds (which this does not change).

const tags = ['Refunds (older interface)'];

export const olderRefundRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/refunds',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Refund a successful payment by its transaction_id, fully or partly',
    tags,
    body: olderRefundCreateBody,
    responses: {
      201: { description: 'New refund (sub-status pending_created; its webhook_urls hear of each change)', schema: olderRefundCreateResponse },
      200: { description: 'Existing refund for this checkout_intent_idempotency_key (resource_created false)', schema: olderRefundCreateResponse },
      400: {
        description:
          'Invalid body; REFUND_TX_MUST_BE_SUCCESSFUL (the payment is not successful), REFUND_CCY_MISMATCH (currency differs from the payment\'s), REFUND_RQST_AMT_GREATER_THAN_TX_AMT (amount above what is left to refund), idempotency_key_in_use (the key names a refund of another payment, amount or currency)',
      },
      404: { description: 'No payment of this tenant has this transaction_id' },
      503: { description: 'The payment service did not answer in time; retry with the same checkout_intent_idempotency_key' },
    },
    handler: async ({ body, auth, deps }) => createOlderRefund(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/refunds',
    versions: 'unversioned',
    auth: 'secret',
    summary: "List the tenant's refunds (of both interfaces), page-numbered; one refund with filter.id=$eq:<id>",
    tags,
    query: pageQuerySchema(OLDER_REFUND_LIST),
    responses: { 200: { description: 'A page of refunds, default order id:DESC', schema: pageEnvelopeSchema(olderRefundRow) } },
    handler: async ({ query, auth, deps }) => ({ status: 200, body: await listOlderRefunds(deps, auth.tenantId, query) }),
  }),
];
