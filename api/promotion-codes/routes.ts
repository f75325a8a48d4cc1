import { z } from 'zod';
import { typedId } from '../http/common-schemas';
import { listQuerySchema } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { booleanQuery } from '../plans/schemas';
import { promotionCodeCreateBody, promotionCodeUpdateBody, promotionCodeViewSchema } from './schemas';
import { createPromotionCode, listPromotionCodes, promotionCodeOf, updatePromotionCode } from './service';

const tags = ['Billing: promotion codes'];
const versions = ['v202607'] as const;
const params = z.object({ promotion_code: z.string() }).strict();

export const promotionCodeRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/promotion-codes',
    versions,
    auth: 'secret',
    summary: 'Create a promotion code for a coupon',
    replaysIdempotencyKeyHeader: true,
    tags,
    body: promotionCodeCreateBody,
    responses: {
      201: { description: 'Created', schema: promotionCodeViewSchema },
      400: { description: 'Invalid, or `resource_missing`: no such (live) coupon' },
      409: { description: '`promotion_code_exists`: the code exists already, in any case' },
    },
    handler: async ({ body, auth, deps }) => ({ status: 201, body: await createPromotionCode(deps, auth.tenantId, auth.region, body) }),
  }),
  route({
    method: 'get',
    path: '/promotion-codes',
    versions,
    auth: 'secret',
    summary: 'List promotion codes, newest first',
    tags,
    query: listQuerySchema('promo', {
      coupon: typedId('coupon').optional(),
      active: booleanQuery.optional(),
      code: z.string().min(1).max(50).optional().describe('Matched whatever its case'),
    }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(promotionCodeViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { coupon, active, code, ...page } = query;
      return { status: 200, body: await listPromotionCodes(deps, auth.tenantId, { coupon, active, code }, page) };
    },
  }),
  route({
    method: 'get',
    path: '/promotion-codes/:promotion_code',
    versions,
    auth: 'secret',
    summary: 'Retrieve a promotion code',
    tags,
    params,
    responses: { 200: { description: 'The promotion code, with its coupon', schema: promotionCodeViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: await promotionCodeOf(deps, auth.tenantId, p.promotion_code) }),
  }),
  route({
    method: 'post',
    path: '/promotion-codes/:promotion_code',
    versions,
    auth: 'secret',
    summary: 'Activate or deactivate a promotion code, or change its metadata',
    tags,
    params,
    body: promotionCodeUpdateBody,
    responses: { 200: { description: 'The promotion code', schema: promotionCodeViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, body, auth, deps }) => ({ status: 200, body: await updatePromotionCode(deps, auth.tenantId, p.promotion_code, body) }),
  }),
];
