import { customerData } from '../../data/customers';
import { z } from 'zod';
import { DomainError, forbidden, invalidRequest, notFound, unauthenticated } from '../../domain/errors';
import { bearerToken, verifyApiKey } from '../http/auth';
import { currencySchema, typedId } from '../http/common-schemas';
import type { AppDeps } from '../deps';
import { isClientSecretFor } from '../hosted/client-secret';
import { savesCardForItsSession } from '../hosted/billing-paths';
import { listQuerySchema } from '../http/pagination';
import { paymentIntentData } from '../../data/payment-intents';
import {
  attemptBody,
  attemptResponse,
  createBodyV202607,
  createBodyV202608,
  createResponse,
  intentParams,
  intentView as intentViewSchema,
  intentViewV202608,
  listRow,
} from './schemas';
import { cancelPaymentIntent, createPaymentIntent, getPaymentIntent, intentView, submitAttempt } from './service';
import { route, type RouteDef } from '../http/route';
import type { Context } from 'koa';
import { checkoutStillOpen } from '../older-payment-intents/service';
import { checkSessionCanComplete } from '../checkout-sessions/service';
import { INTENT_CONNECTORS_DOC } from '../payment-methods/docs';
import { intentPaymentDetails } from '../../domain/intent-payment-details';

const tags = ['Payment intents'];
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'Missing or invalid key' } };

const listQuery = listQuerySchema('pi', {
  status: z.enum(['pending', 'success', 'canceled']).optional(),
  customer: typedId('cus').optional(),
  currency: currencySchema.optional(),
});

export const paymentIntentRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/payment-intents',
    versions: ['v202607'],
    auth: 'secret',
    summary: 'Create a payment intent',
    description: INTENT_CONNECTORS_DOC,
    tags,
    body: createBodyV202607,
    responses: {
      201: { description: 'Created', schema: createResponse },
      200: { description: 'Existing intent returned for this idempotency_key', schema: createResponse },
      ...errors,
    },
    handler: async ({ body, auth, deps, version }) => createPaymentIntent(deps, auth, body, version.served ?? 'v202607'),
  }),
  route({
    method: 'post',
    path: '/payment-intents',
    versions: ['v202608'],
    auth: 'secret',
    summary: 'Create a payment intent, optionally pinned to a payment form, orchestrator or connector',
    description: INTENT_CONNECTORS_DOC,
    tags,
    body: createBodyV202608,
    responses: {
      201: { description: 'Created', schema: createResponse },
      200: { description: 'Existing intent returned for this idempotency_key', schema: createResponse },
      ...errors,
    },
    handler: async ({ body, auth, deps, version }) => createPaymentIntent(deps, auth, body, version.served ?? 'v202608'),
  }),
  route({
    method: 'get',
    path: '/payment-intents',
    versions: ['v202607'],
    auth: 'secret',
    summary: 'List payment intents, newest first',
    tags,
    query: listQuery,
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(listRow), has_more: z.boolean() }) }, ...errors },
    handler: async ({ query, auth, deps }) => {
      const { status, customer, currency, ...page } = query;
      const { data, has_more } = await paymentIntentData(deps.mongo).list(auth.tenantId, { status, customer, currency }, page);
      return {
        status: 200,
        body: {
          data: data.map((r) => {
            const v = intentView(r, deps);
            return { payment_intent: v.payment_intent, status: v.status, amount: v.amount, currency: v.currency, ...(v.customer ? { customer: v.customer } : {}), created_at: v.created_at };
          }),
          has_more,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/payment-intents/:payment_intent',
    versions: ['v202607'],
    auth: 'secret',
    summary: 'Retrieve a payment intent',
    description: INTENT_CONNECTORS_DOC,
    tags,
    params: intentParams,
    responses: { 200: { description: 'The intent', schema: intentViewSchema }, 404: { description: 'Unknown' }, ...errors },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: intentView(await getPaymentIntent(deps, auth.tenantId, params.payment_intent), deps) }),
  }),
  route({
    method: 'get',
    path: '/payment-intents/:payment_intent',
    versions: ['v202608'],
    auth: 'secret',
    summary: 'Retrieve a payment intent, with the saved card and the connector that took its payment',
    description: INTENT_CONNECTORS_DOC,
    tags,
    params: intentParams,
    responses: { 200: { description: 'The intent', schema: intentViewV202608 }, 404: { description: 'Unknown' }, ...errors },
    handler: async ({ params, auth, deps }) => {
      const r = await getPaymentIntent(deps, auth.tenantId, params.payment_intent);
      return {
        status: 200,
        body: {
          ...intentView(r, deps),
          ...intentPaymentDetails({ status: r.status, paymentMethod: r.payment_method, connector: r.connector_used, setupFutureUsage: r.setup_future_usage }),
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/payment-intents/:payment_intent/cancel',
    versions: ['v202607'],
    auth: 'secret',
    summary: 'Cancel a pending payment intent',
    tags,
    params: intentParams,
    responses: {
      200: { description: 'Canceled', schema: intentViewSchema },
      404: { description: 'Unknown' },
      409: { description: 'Not pending' },
      ...errors,
    },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await cancelPaymentIntent(deps, auth.tenantId, params.payment_intent) }),
  }),
  route({
    method: 'post',
    path: '/payment-intents/:payment_intent/attempts',
    versions: ['v202607'],
    // Authenticated in the handler: a publishable key of the intent's tenant, or the intent's client secret.
    auth: 'none',
    cardEntry: true,
    summary: 'Submit a payment attempt (hosted page and embedded form; publishable key or client secret)',
    tags,
    params: intentParams,
    body: attemptBody,
    responses: {
      200: { description: 'The attempt outcome', schema: attemptResponse },
      404: { description: 'Unknown' },
      409: { description: 'Not pending, or another attempt is in progress' },
      ...errors,
    },
    handler: async ({ params, body, deps, ctx }) => {
      const tenantId = await authenticateAttempt(ctx, deps, params.payment_intent);
      // By `pi_...` or UUID only: these credentials live in web pages, and the older integer can be guessed.
      const record = await paymentIntentData(deps.mongo).findByUnguessableRef(params.payment_intent);
      if (!record || record.tenant_id !== tenantId) throw notFound('payment_intent', params.payment_intent, 'payment_intent');
      if (savesCardForItsSession(record)) {
        // Charged without saving, the session could not start its subscription and would give the money back.
        if (body.save_payment_method === false)
          throw invalidRequest('parameter_invalid', "This payment saves the card: its billing session's subscription charges it later", 'save_payment_method');
        body.save_payment_method = true;
      }
      if (body.save_payment_method && !record.customer)
        throw invalidRequest('customer_required', 'A card is saved to a customer: this payment intent has none', 'save_payment_method');
      await checkoutStillOpen(deps, record);
      // A checkout session's intent: refused before any charge when the session could no longer complete.
      await checkSessionCanComplete(deps, record);
      // Deleting a customer detaches its cards for good: a card saved to it afterwards could never be charged.
      if (body.save_payment_method && (await customerData(deps.mongo).isDeleted(record.tenant_id, record.customer!)))
        throw invalidRequest('customer_required', "A card is saved to a customer: this payment intent's customer was deleted", 'save_payment_method');
      return { status: 200, body: await submitAttempt(deps, record, body) };
    },
  }),
];

/** The tenant whose intent this caller may pay: by publishable key, or by that intent's client secret. */
async function authenticateAttempt(ctx: Context, deps: AppDeps, intentId: string): Promise<string> {
  const token = bearerToken(ctx);
  if (!token) throw unauthenticated('Send Authorization: Bearer <publishable key or client secret>');
  if (token.startsWith('pics_')) {
    if (!isClientSecretFor(intentId, token, deps.config.KEY_HASH_SECRET)) throw unauthenticated('Invalid client secret for this payment intent');
    const tenantId = await paymentIntentData(deps.mongo).tenantOf(intentId);
    if (!tenantId) throw new DomainError('not_found', 'resource_missing', `No such payment_intent: '${intentId}'`, 'payment_intent');
    return tenantId;
  }
  const key = await verifyApiKey(token, ctx.state.region as string, deps);
  if (key.kind !== 'publishable') throw forbidden('publishable_key_required', 'Payment attempts are submitted with a publishable key or the client secret');
  return key.tenant_id;
}
