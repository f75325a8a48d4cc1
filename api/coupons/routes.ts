import { z } from 'zod';
import { couponData } from '../../data/coupons';
import { listQuerySchema } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { couponCreateBody, couponDeletedSchema, couponViewSchema } from './schemas';
import { couponView, createCoupon, deleteCoupon, getCoupon } from './service';

const tags = ['Billing: coupons'];
const versions = ['v202607'] as const;
const params = z.object({ coupon: z.string() }).strict();

export const couponRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/coupons',
    versions,
    auth: 'secret',
    summary: 'Create a coupon: a percentage or an amount off',
    tags,
    body: couponCreateBody,
    responses: {
      201: { description: 'Created', schema: couponViewSchema.extend({ resource_created: z.literal(true) }) },
      200: { description: 'The coupon this idempotency_key made, asked for with the same parameters', schema: couponViewSchema.extend({ resource_created: z.literal(false) }) },
      400: { description: 'Invalid (`param` names the field), or `idempotency_key_in_use` (the key made a coupon with other parameters)' },
    },
    handler: async ({ body, auth, deps }) => {
      const { record, created } = await createCoupon(deps.mongo, auth.tenantId, auth.region, body);
      return { status: created ? 201 : 200, body: { ...couponView(record), resource_created: created } };
    },
  }),
  route({
    method: 'get',
    path: '/coupons',
    versions,
    auth: 'secret',
    summary: 'List coupons, newest first (deleted ones are not listed)',
    tags,
    query: listQuerySchema('coupon', {}),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(couponViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { data, has_more } = await couponData(deps.mongo).list(auth.tenantId, query);
      const now = Date.now();
      return { status: 200, body: { data: data.map((c) => couponView(c, now)), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/coupons/:coupon',
    versions,
    auth: 'secret',
    summary: 'Retrieve a coupon',
    tags,
    params,
    responses: { 200: { description: 'The coupon', schema: couponViewSchema }, 404: { description: 'Unknown or deleted' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: couponView(await getCoupon(deps.mongo, auth.tenantId, p.coupon)) }),
  }),
  route({
    method: 'delete',
    path: '/coupons/:coupon',
    versions,
    auth: 'secret',
    summary: 'Delete a coupon: no new redemptions; subscriptions that have it keep their discount',
    tags,
    params,
    responses: { 200: { description: 'Deleted', schema: couponDeletedSchema }, 404: { description: 'Unknown, or deleted already' } },
    handler: async ({ params: p, auth, deps }) => {
      await deleteCoupon(deps, auth.tenantId, p.coupon);
      return { status: 200, body: { coupon: p.coupon, object: 'coupon', deleted: true } };
    },
  }),
];
