import { z } from 'zod';
import { pageEnvelopeSchema, pageQuerySchema } from '../../domain/page-query';
import { olderIntentRow, olderIntentView as olderIntentViewSchema } from '../../domain/older-views';
import { OLDER_INTENT_LIST, paymentIntentData } from '../../data/payment-intents';
import { route, type RouteDef } from '../http/route';
import { createBodyV202606, createResponseV202606, olderCreateBody, olderCreateResponse, olderIntentParams } from './schemas';
import { cancelOlderIntent, createIntentV202606, createOlderIntent, frontEndSafeIntent } from './service';
import { olderIntentRow as rowOf, olderIntentView, publishableView } from './views';

// The older interface's payment intents: unprefixed and version-neutral, page-numbered, named by UUID (or the
// `pi_` id, or the integer payment_intent_secret). The v202606 create is the one prefixed route here; its
// intents are listed, retrieved and canceled by these unprefixed routes.

const tags = ['Payment intents (older interface)'];

const MAPPING =
  'Status mapping from the workflow: pending_created (no attempt yet, step 1), pending_processing (a charge on the wire or its lost answer being checked, step 2), ' +
  'pending_requires_action (3DS, step 3), pending_promise (the gateway took the charge and will answer, step 3), pending_failed_attempt (the last attempt failed; the customer may retry, step 1), ' +
  'success (step 4), canceled_requested, canceled_timeout (payment_intent_timeout_seconds ran out), canceled_checkout_completed (another intent of its checkout intent paid). ' +
  'On a canceled intent step_number is the furthest step its attempts reached. last_reason is the failure code of the last failed attempt, else empty.';

export const olderPaymentIntentRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/payment-intents',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Create a payment intent bound to a gateway (older interface)',
    tags,
    body: olderCreateBody,
    responses: {
      201: { description: 'Created', schema: olderCreateResponse },
      200: { description: 'The intent this checkout_intent_idempotency_key already made (resource_created false)', schema: olderCreateResponse },
      400: { description: 'Invalid body, a gateway the tenant has no live connector for (gateway_invalid), tenant not the key\'s, an unknown checkout_intent' },
      409: { description: 'The checkout intent has already been paid (checkout_intent_completed)' },
    },
    handler: async ({ body, auth, deps }) => createOlderIntent(deps, auth, body),
  }),
  route({
    method: 'post',
    path: '/payment-intents',
    versions: ['v202606'],
    auth: 'secret',
    summary: 'Create a payment intent without choosing a gateway (v202606); list, retrieve and cancel it with the unprefixed routes',
    tags,
    body: createBodyV202606,
    responses: {
      201: { description: 'Created', schema: createResponseV202606 },
      200: { description: 'The intent this idempotency_key already made (payment_intent_created false)', schema: createResponseV202606 },
      400: { description: 'Invalid body, or an unknown customer id' },
    },
    handler: async ({ body, auth, deps }) => createIntentV202606(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/payment-intents',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'List payment intents, page-numbered (one record: filter.payment_intent_secret=$eq:<n>)',
    tags,
    query: pageQuerySchema(OLDER_INTENT_LIST),
    responses: { 200: { description: `A page of intents; status in its base form. ${MAPPING}`, schema: pageEnvelopeSchema(olderIntentRow) } },
    handler: async ({ query, auth, deps }) => {
      const page = await paymentIntentData(deps.mongo).listOlder(auth.tenantId, query, '/payment-intents');
      return { status: 200, body: { ...page, data: page.data.map((r) => rowOf(r, deps)) } };
    },
  }),
  route({
    method: 'get',
    path: '/payment-intents/:payment_intent',
    versions: 'unversioned',
    // Safe for front-end code: authenticated in the handler by a secret key, a publishable key of the
    // intent's tenant, or the intent's client secret.
    auth: 'none',
    summary: 'Retrieve a payment intent: public fields only, safe from front-end code (secret key, publishable key or client secret)',
    tags,
    params: olderIntentParams,
    responses: {
      200: {
        description: `The intent (no secrets, webhooks or payload; with a publishable key, no customer contact details and no \`redirect_to\`). ${MAPPING}`,
        schema: olderIntentViewSchema,
      },
      401: { description: 'No or invalid credential' },
      404: { description: 'No such intent for this credential (with a publishable key or client secret: named by UUID or pi_ id only)' },
    },
    handler: async ({ params, deps, ctx }) => {
      const { intent, by } = await frontEndSafeIntent(ctx, deps, params.payment_intent);
      const view = olderIntentView(intent, deps);
      return { status: 200, body: by === 'publishable' ? publishableView(view) : view };
    },
  }),
  route({
    method: 'put',
    path: '/payment-intents/:payment_intent/cancel',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Cancel a pending payment intent (by UUID or pi_ id)',
    tags,
    params: olderIntentParams,
    responses: {
      200: { description: 'Canceled: the intent, status canceled (last_reason null unless an attempt failed)', schema: olderIntentViewSchema.extend({ last_reason: z.string().nullable() }) },
      400: { description: '`payment_intent_invoice_owned`: the intent pays a subscription\'s invoice; void the invoice instead' },
      404: { description: 'Unknown' },
      409: { description: 'Not mutable (already paid or canceled)' },
    },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await cancelOlderIntent(deps, auth.tenantId, params.payment_intent) }),
  }),
];
