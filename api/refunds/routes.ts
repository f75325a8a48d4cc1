import { z } from 'zod';
import { currencySchema, typedId } from '../http/common-schemas';
import { listQuerySchema } from '../http/pagination';
import { paymentIntentData } from '../../data/payment-intents';
import { refundData } from '../../data/refunds';
import { refundCreateBody, refundCreateResponse, refundView as refundViewSchema } from './schemas';
import { createRefund, getRefund, refundView } from './service';
import { route, type RouteDef } from '../http/route';

const tags = ['Refunds'];
const versions = ['v202607'] as const;

export const refundRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/refunds',
    versions,
    auth: 'secret',
    summary: 'Refund a successful payment intent, fully or partly',
    tags,
    body: refundCreateBody,
    responses: {
      201: { description: 'New refund', schema: refundCreateResponse },
      200: { description: 'Existing refund for this idempotency_key', schema: refundCreateResponse },
      400: {
        description:
          'REFUND_TX_MUST_BE_SUCCESSFUL, REFUND_CCY_MISMATCH or REFUND_RQST_AMT_GREATER_THAN_TX_AMT; `idempotency_key_in_use` when the key made a refund of another payment intent, amount or currency',
      },
      404: { description: 'No such payment intent' },
    },
    handler: async ({ body, auth, deps }) => createRefund(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/refunds',
    versions,
    auth: 'secret',
    summary: 'List refunds, newest first',
    tags,
    query: listQuerySchema('re', {
      // The intent as every refund create names it: `pi_...`, its UUID, or its older integer id.
      payment_intent: z
        .union([typedId('pi'), z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'a pi_... id, a UUID or an integer id'), z.string().regex(/^[1-9]\d{0,14}$/, 'a pi_... id, a UUID or an integer id')])
        .optional()
        .describe('Only the refunds of this payment intent: its `pi_...` id, its UUID or its older integer id'),
      status: z.enum(['pending', 'success', 'canceled']).optional(),
      currency: currencySchema.optional(),
    }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(refundViewSchema.omit({ gateway_transaction_id: true })), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { payment_intent: named, status, currency, ...page } = query;
      // A UUID or integer id is read as the intent it names; one that names none has no refunds.
      const intent = named === undefined || named.startsWith('pi_') ? named : (await paymentIntentData(deps.mongo).findByRef(auth.tenantId, named))?._id;
      if (named !== undefined && intent === undefined) return { status: 200, body: { data: [], has_more: false } };
      const { data, has_more } = await refundData(deps.mongo).list(auth.tenantId, { payment_intent: intent, status, currency }, page);
      return {
        status: 200,
        body: { data: data.map((r) => { const { gateway_transaction_id: _g, ...row } = refundView(r); return row; }), has_more },
      };
    },
  }),
  route({
    method: 'get',
    path: '/refunds/:refund',
    versions,
    auth: 'secret',
    summary: 'Retrieve a refund',
    tags,
    params: z.object({ refund: z.string() }).strict(),
    responses: { 200: { description: 'The refund', schema: refundViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: refundView(await getRefund(deps, auth.tenantId, params.refund)) }),
  }),
];
