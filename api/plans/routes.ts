import { z } from 'zod';
import { planData } from '../../data/plans';
import { currencySchema } from '../http/common-schemas';
import { listQuerySchema } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { booleanQuery, planCreateBody, planUpdateBody, planViewSchema } from './schemas';
import { archivePlan, createPlan, getPlan, planView, updatePlan } from './service';

const tags = ['Billing: plans'];
const versions = ['v202607'] as const;
const params = z.object({ plan: z.string() }).strict();

export const planRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/plans',
    versions,
    auth: 'secret',
    summary: 'Create a plan: a price charged every interval',
    tags,
    body: planCreateBody,
    responses: {
      201: { description: 'Created', schema: planViewSchema.extend({ resource_created: z.literal(true) }) },
      200: { description: 'The plan this idempotency_key made, asked for with the same parameters', schema: planViewSchema.extend({ resource_created: z.literal(false) }) },
      400: { description: 'Invalid (`param` names the field), or `idempotency_key_in_use` (the key made a plan with other parameters)' },
    },
    handler: async ({ body, auth, deps }) => {
      const { record, created } = await createPlan(deps.mongo, auth.tenantId, auth.region, body);
      return { status: created ? 201 : 200, body: { ...planView(record), resource_created: created } };
    },
  }),
  route({
    method: 'get',
    path: '/plans',
    versions,
    auth: 'secret',
    summary: 'List plans, newest first',
    tags,
    query: listQuerySchema('plan', { active: booleanQuery.optional(), currency: currencySchema.optional() }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(planViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { active, currency, ...page } = query;
      const { data, has_more } = await planData(deps.mongo).list(auth.tenantId, { active, currency }, page);
      return { status: 200, body: { data: data.map(planView), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/plans/:plan',
    versions,
    auth: 'secret',
    summary: 'Retrieve a plan',
    tags,
    params,
    responses: { 200: { description: 'The plan', schema: planViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: planView(await getPlan(deps.mongo, auth.tenantId, p.plan)) }),
  }),
  route({
    method: 'post',
    path: '/plans/:plan',
    versions,
    auth: 'secret',
    summary: 'Update a plan\'s nickname or metadata (its price never changes)',
    tags,
    params,
    body: planUpdateBody,
    responses: { 200: { description: 'The plan', schema: planViewSchema }, 400: { description: 'Invalid, or a price field (make a new plan)' }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, body, auth, deps }) => ({ status: 200, body: planView(await updatePlan(deps.mongo, auth.tenantId, p.plan, body)) }),
  }),
  route({
    method: 'post',
    path: '/plans/:plan/archive',
    versions,
    auth: 'secret',
    summary: 'Archive a plan: no new subscriptions (idempotent)',
    description: 'Subscriptions that have the plan keep it; a new subscription, or a change to it, is refused.',
    tags,
    params,
    responses: { 200: { description: 'The plan, `active` false', schema: planViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: planView(await archivePlan(deps.mongo, auth.tenantId, p.plan)) }),
  }),
];
