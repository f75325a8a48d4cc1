import { z } from 'zod';
import { customerBody, customerBodyV202608, customerObject, customerView, type CustomerInput } from './schemas';
import { customerView as viewOf, findCustomer, updateCustomer, upsertCustomer } from './service';
import { deleteCustomer } from './delete';
import { notFound } from '../../domain/errors';
import { listQuerySchema } from '../http/pagination';
import { customerData } from '../../data/customers';
import { route, type RouteDef } from '../http/route';

const tags = ['Customers'];
const params = z.object({ customer: z.string() }).strict();

/**
 * Create, list, retrieve and update in one version's shape: v202607's, and v202608's, which takes and answers
 * the customer's `address`. Delete is v202607's in every version.
 */
function customerRoutesOf(version: 'v202607' | 'v202608', input: z.ZodType<CustomerInput>, view: typeof customerView): RouteDef[] {
  const versions = [version] as const;
  return [
    route({
      method: 'post',
      path: '/customers',
      versions,
      auth: 'secret',
      summary: 'Create a customer, or update the one with this reference (partial)',
      replaysIdempotencyKeyHeader: true,
      tags,
      body: input,
      responses: {
        201: { description: 'Created', schema: view.extend({ resource_created: z.literal(true) }) },
        200: { description: 'Updated through its reference', schema: view.extend({ resource_created: z.literal(false) }) },
        400: { description: 'Invalid; `resource_missing` for an unknown `test_clock`; `parameter_invalid` for a `test_clock` other than the customer\'s (updated through its reference)' },
      },
      handler: async ({ body, auth, deps, version }) => {
        const { record, created } = await upsertCustomer(deps.mongo, auth.tenantId, auth.region, body);
        return { status: created ? 201 : 200, body: { ...viewOf(record, version.requested), resource_created: created } };
      },
    }),
    route({
      method: 'get',
      path: '/customers',
      versions,
      auth: 'secret',
      summary: 'List customers, newest first',
      tags,
      // An empty filter is refused, as Stripe does: read as absent, it answered every customer, and a lookup by an
      // empty reference took the first of them for the one it meant.
      query: listQuerySchema('cus', {
        reference: z.string().min(1, 'must not be empty: leave it out to list every customer').optional(),
        email: z.string().min(1, 'must not be empty: leave it out to list every customer').optional(),
      }),
      responses: { 200: { description: 'A page', schema: z.object({ data: z.array(view), has_more: z.boolean() }) } },
      handler: async ({ query, auth, deps, version }) => {
        const { reference, email, ...page } = query;
        const { data, has_more } = await customerData(deps.mongo).list(auth.tenantId, { reference, email }, page);
        return { status: 200, body: { data: data.map((c) => viewOf(c, version.requested)), has_more } };
      },
    }),
    route({
      method: 'get',
      path: '/customers/:customer',
      versions,
      auth: 'secret',
      summary: 'Retrieve a customer',
      tags,
      params,
      responses: { 200: { description: 'The customer', schema: view }, 404: { description: 'Unknown or deleted' } },
      handler: async ({ params: p, auth, deps, version }) => {
        const c = await findCustomer(deps.mongo, auth.tenantId, p.customer);
        if (!c) throw notFound('customer', p.customer, 'customer');
        return { status: 200, body: viewOf(c, version.requested) };
      },
    }),
    route({
      method: 'post',
      path: '/customers/:customer',
      versions,
      auth: 'secret',
      summary: 'Update a customer; omitted fields are untouched',
      tags,
      params,
      body: input,
      responses: {
        200: { description: 'The customer', schema: view },
        400: { description: 'Invalid; `reference_in_use`: another customer has that reference; `parameter_invalid`: a `test_clock` other than the customer\'s' },
        404: { description: 'Unknown or deleted' },
      },
      handler: async ({ params: p, body, auth, deps, version }) => ({
        status: 200,
        body: viewOf(await updateCustomer(deps.mongo, auth.tenantId, p.customer, body), version.requested),
      }),
    }),
  ];
}

export const customerRoutes: RouteDef[] = [
  ...customerRoutesOf('v202607', customerBody, customerView),
  ...customerRoutesOf('v202608', customerBodyV202608, customerObject),
  route({
    method: 'delete',
    path: '/customers/:customer',
    versions: ['v202607'],
    auth: 'secret',
    summary: 'Delete a customer: its saved cards are detached and its subscriptions canceled now; intents and refunds made before keep their reference',
    tags,
    params,
    responses: {
      200: { description: 'Deleted; a repeated delete answers the same (and finishes one that failed part-way)', schema: z.object({ customer: z.string(), deleted: z.literal(true) }) },
      404: { description: 'Unknown' },
    },
    handler: async ({ params: p, auth, deps }) => {
      await deleteCustomer(deps, auth, p.customer);
      return { status: 200, body: { customer: p.customer, deleted: true } };
    },
  }),
];
