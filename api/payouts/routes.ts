import { z } from 'zod';
import { pageEnvelopeSchema, pageQuerySchema } from '../../domain/page-query';
import { payoutData, PAYOUT_LIST } from '../../data/payouts';
import { route, type RouteDef } from '../http/route';
import { payoutCreateBody, payoutCreateResponse, payoutStatusResponse, payoutView } from './schemas';
import { createPayout, getPayout, payoutGatewayStatus, withRecipients } from './service';

// Payouts are unprefixed and version-neutral (the older interface), with the same secret keys and tenants.

const tags = ['Payouts'];
const uuidParams = z.object({ uuid: z.uuid().toLowerCase() }).strict();

export const payoutRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/payouts',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Create a payout and start the transfer',
    tags,
    body: payoutCreateBody,
    responses: {
      201: {
        description:
          'The payout: new (resource_created true) or the one this idempotency_key made (false). `status` is its sub-status once the gateway answered the transfer request (waited for up to 15 s): a transfer the gateway rejects is a `canceled_rejected` payout, a technical failure `canceled_failure`',
        schema: payoutCreateResponse,
      },
      400: {
        description:
          "Invalid body, gateway not registered for payouts (`gateway_invalid`, also with recipient_uuid), recipient/gateway mismatch, a recipient_type that is not recipient_uuid's, tenant not the key's, the gateway refused an inline recipient, or `idempotency_key_in_use` (the key made a payout of another amount, currency, gateway or recipient)",
      },
      503: { description: 'The gateway or the workflow service did not answer in time; retry with the same idempotency_key' },
    },
    handler: async ({ body, auth, deps }) => createPayout(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/payouts',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'List payouts, page-numbered',
    tags,
    query: pageQuerySchema(PAYOUT_LIST),
    responses: { 200: { description: 'A page of payouts with their recipients', schema: pageEnvelopeSchema(payoutView) } },
    handler: async ({ query, auth, deps }) => {
      const page = await payoutData(deps.mongo).list(auth.tenantId, query, '/payouts');
      return { status: 200, body: { ...page, data: await withRecipients(deps, auth.tenantId, page.data) } };
    },
  }),
  route({
    method: 'get',
    path: '/payouts/:uuid',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Retrieve a payout with its recipient',
    tags,
    params: uuidParams,
    responses: {
      200: { description: 'The payout, or a null body when no payout of this tenant has this uuid', schema: payoutView.nullable() },
      400: { description: 'uuid is not a UUID' },
    },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await getPayout(deps, auth.tenantId, params.uuid) }),
  }),
  route({
    method: 'get',
    path: '/payouts/:uuid/status',
    versions: 'unversioned',
    auth: 'secret',
    summary: "Ask the gateway for its current view of the transfer (nothing stored changes)",
    tags,
    params: uuidParams,
    responses: {
      200: { description: 'The gateway answered: `code` (type, success, numeric code), `response` (the gateway\'s own object), `error_message` when failed, canceled or pending', schema: payoutStatusResponse },
      400: { description: "uuid is not a UUID, the payout's tenant row is gone, or its gateway is not registered for payouts" },
      404: { description: 'No payout of this tenant has this uuid, or its recipient is gone' },
      503: { description: 'The gateway did not answer' },
    },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await payoutGatewayStatus(deps, auth, params.uuid) }),
  }),
];
