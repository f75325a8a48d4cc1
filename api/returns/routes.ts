import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { typedId } from '../http/common-schemas';
import { returnCreateBody, returnMoveBody, returnView } from './schemas';
import { createReturn, listReturns, moveReturn } from './service';

// Returns: asked for against an order (POST), moved by the merchant (PUT), listed with the commerce
// interface's page-numbered filters (GET). Status changes also go to the tenant's commerce webhook_urls.

const tags = ['Commerce: returns'];
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'Missing or invalid key' } };

// A filter given twice ANDs (`filter.amount=$gte:1000&filter.amount=$lte:5000`), as in every page-numbered list.
const filter = () => z.union([z.string(), z.array(z.string())]).optional();
const listQuery = z
  .looseObject({
    page: z.string().optional().meta({ description: 'Page number, from 1' }),
    perPage: z.string().optional().meta({ description: 'Returns per page: 1 to 100, default 20' }),
    'filter.userId': filter().meta({ description: "`$eq:<userId>` (or just the value): the merchant's user" }),
    'filter.idempotencyKey': filter().meta({ description: '`$eq:<key>` or `$in:[k1,k2]`' }),
    'filter.status': filter().meta({ description: '`$eq:<status>` or `$in:[requested,approved]`' }),
    'filter.id': filter().meta({ description: '`$eq:<ret_...>` or `$in:[...]`' }),
    'filter.amount': filter().meta({ description: 'Operators of the list language on the amount: `$gte:1000`, `$btw:1000,5000`; given twice, both hold' }),
    sortBy: z.string().optional().meta({ description: '`createdAt` or `amount`, `:ASC` or `:DESC`; default createdAt:DESC' }),
  })
  .meta({ description: 'Filters combine (AND).' });

export const returnRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/returns',
    versions: 'unversioned',
    auth: 'secret',
    summary: "Ask to return some of an order's product; its workflow follows it to a refund",
    tags,
    body: returnCreateBody,
    responses: {
      200: { description: 'The return (the same one for a known idempotencyKey; the key with another order, product, quantity or reason is a 400 `idempotency_key_in_use`)', schema: z.object({ id: z.string() }) },
      404: { description: 'Unknown order' },
      ...errors,
    },
    handler: async ({ body, auth, deps }) => createReturn(deps, auth, body),
  }),
  route({
    method: 'put',
    path: '/returns/:id',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Move a return on: approved, received (which refunds it) or rejected with a reason',
    tags,
    params: z.object({ id: typedId('ret') }).strict(),
    body: returnMoveBody,
    responses: {
      200: { description: 'The return after the move (the same move repeated changes nothing)', schema: returnView },
      404: { description: 'Unknown' },
      409: { description: 'Not a move from its current status' },
      ...errors,
    },
    handler: async ({ params, body, auth, deps }) => moveReturn(deps, auth, params.id, body),
  }),
  route({
    method: 'get',
    path: '/returns',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'List returns, newest first',
    tags,
    query: listQuery,
    responses: {
      200: {
        description: 'A page',
        schema: z.object({
          returns: z.array(returnView),
          pagination: z.object({ totalItems: z.number().int(), currentPage: z.number().int(), pageSize: z.number().int(), totalPages: z.number().int() }),
        }),
      },
      ...errors,
    },
    handler: async ({ query, auth, deps }) => ({ status: 200, body: await listReturns(deps, auth.tenantId, query as Record<string, unknown>) }),
  }),
];
