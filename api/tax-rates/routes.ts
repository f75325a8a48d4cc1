import { z } from 'zod';
import { taxRateData } from '../../data/tax-rates';
import { listQuerySchema } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { booleanQuery } from '../plans/schemas';
import { taxRateCreateBody, taxRateUpdateBody, taxRateViewSchema } from './schemas';
import { createTaxRate, getTaxRate, taxRateView, updateTaxRate } from './service';

const tags = ['Billing: tax rates'];
const versions = ['v202607'] as const;
const params = z.object({ tax_rate: z.string() }).strict();

export const taxRateRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/tax-rates',
    versions,
    auth: 'secret',
    summary: 'Create a tax rate',
    tags,
    body: taxRateCreateBody,
    responses: {
      201: { description: 'Created', schema: taxRateViewSchema.extend({ resource_created: z.literal(true) }) },
      200: { description: 'The tax rate this idempotency_key made, asked for with the same parameters', schema: taxRateViewSchema.extend({ resource_created: z.literal(false) }) },
      400: { description: 'Invalid (`param` names the field), or `idempotency_key_in_use` (the key made a tax rate with other parameters)' },
    },
    handler: async ({ body, auth, deps }) => {
      const { record, created } = await createTaxRate(deps.mongo, auth.tenantId, auth.region, body);
      return { status: created ? 201 : 200, body: { ...taxRateView(record), resource_created: created } };
    },
  }),
  route({
    method: 'get',
    path: '/tax-rates',
    versions,
    auth: 'secret',
    summary: 'List tax rates, newest first',
    tags,
    query: listQuerySchema('txr', { active: booleanQuery.optional(), inclusive: booleanQuery.optional() }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(taxRateViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { active, inclusive, ...page } = query;
      const { data, has_more } = await taxRateData(deps.mongo).list(auth.tenantId, { active, inclusive }, page);
      return { status: 200, body: { data: data.map(taxRateView), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/tax-rates/:tax_rate',
    versions,
    auth: 'secret',
    summary: 'Retrieve a tax rate',
    tags,
    params,
    responses: { 200: { description: 'The tax rate', schema: taxRateViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: taxRateView(await getTaxRate(deps.mongo, auth.tenantId, p.tax_rate)) }),
  }),
  route({
    method: 'post',
    path: '/tax-rates/:tax_rate',
    versions,
    auth: 'secret',
    summary: 'Update a tax rate\'s display name, jurisdiction or `active` (its percentage never changes)',
    tags,
    params,
    body: taxRateUpdateBody,
    responses: { 200: { description: 'The tax rate', schema: taxRateViewSchema }, 400: { description: 'Invalid, or a field that cannot change' }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, body, auth, deps }) => ({ status: 200, body: taxRateView(await updateTaxRate(deps.mongo, auth.tenantId, p.tax_rate, body)) }),
  }),
];
