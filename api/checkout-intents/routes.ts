import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { checkoutIntentCreateBody, checkoutIntentCreateResponse, checkoutIntentView, gatewayList as gatewayListSchema } from './schemas';
import { createCheckoutIntent, gatewayList, getCheckoutIntent } from './service';

// Checkout intents and the gateway list of the older interface (unprefixed, version-neutral).

const tags = ['Checkout intents (older interface)'];

export const checkoutIntentRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/checkout-intents',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Create a checkout intent: one purchase, paid through at most one of its payment intents',
    tags,
    body: checkoutIntentCreateBody,
    responses: {
      201: { description: 'Created, with the gateways the customer may choose', schema: checkoutIntentCreateResponse },
      200: { description: 'The checkout intent this checkout_intent_idempotency_key already made', schema: checkoutIntentCreateResponse },
      400: { description: 'Invalid body, or a gateway the tenant has no live connector for' },
    },
    handler: async ({ body, auth, deps }) => createCheckoutIntent(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/checkout-intents/:checkout_intent',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Retrieve a checkout intent',
    tags,
    params: z.object({ checkout_intent: z.uuid().toLowerCase() }).strict(),
    responses: { 200: { description: 'The checkout intent', schema: checkoutIntentView }, 404: { description: 'Unknown' } },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await getCheckoutIntent(deps, auth.tenantId, params.checkout_intent) }),
  }),
  route({
    method: 'get',
    path: '/gateways',
    versions: 'unversioned',
    auth: 'secret',
    summary: "The gateway list: the gateways of the tenant's live connectors that take payments (POST /payment-intents takes one as `gateway`)",
    tags,
    responses: { 200: { description: 'The gateways and their payment methods', schema: gatewayListSchema } },
    handler: async ({ auth, deps }) => ({ status: 200, body: { data: await gatewayList(deps, auth.tenantId) } }),
  }),
];
