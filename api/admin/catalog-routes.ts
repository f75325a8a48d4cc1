import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { categorySchema, catalogCreateBody, categoryCreateBody, idResponse, productCreateBody, productUpdateBody, productUpdatedSchema } from '../catalog/schemas';
import { createCatalog, createCategory, createProduct, updateProduct } from '../catalog/service';
import { tenantOr404, tenantParam } from './tenant-param';

// Admin API of the catalog: categories (with their attributes and values), products, catalogs. The tenant
// is the path's; another tenant's category, product or catalog id is unknown here as everywhere.

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin: catalog'] };

export const catalogAdminRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/categories',
    summary: 'Create a category with its attributes and their values (ids of all three in the answer)',
    params: tenantParam,
    body: categoryCreateBody,
    responses: {
      201: { description: 'The category, with the ids of its attributes and values', schema: categorySchema },
      400: { description: "Invalid body, or parentId is not one of this tenant's categories" },
    },
    handler: async ({ params, body, deps }) => ({ status: 201, body: await createCategory(deps.mongo, await tenantOr404(deps, params.tenant), body) }),
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/products',
    summary: 'Create a product',
    params: tenantParam,
    body: productCreateBody,
    responses: {
      201: { description: 'Created', schema: idResponse },
      400: { description: 'Invalid body; a category, attribute or value that is not the tenant\'s (or not of the product\'s categories): param names it' },
      409: { description: 'The tenant has a product with this sku' },
    },
    handler: async ({ params, body, deps }) => ({ status: 201, body: { id: await createProduct(deps.mongo, await tenantOr404(deps, params.tenant), body) } }),
  }),
  route({
    ...common,
    method: 'patch',
    path: '/admin/tenants/:tenant/products/:id',
    summary: "Change a product's price or stock; visible at once to the catalog, carts and checkouts",
    params: z.object({ tenant: z.string(), id: z.string() }).strict(),
    body: productUpdateBody,
    responses: { 200: { description: 'The product as it now is, with its units on hand, held and oversold', schema: productUpdatedSchema }, 404: { description: 'No such product of this tenant' } },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      return { status: 200, body: await updateProduct(deps, t._id, params.id, body) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/catalogs',
    summary: 'Create a curated catalog of products',
    params: tenantParam,
    body: catalogCreateBody,
    responses: {
      201: { description: 'Created', schema: idResponse },
      400: { description: "Invalid body, or a product that is not the tenant's (param productIds[i])" },
    },
    handler: async ({ params, body, deps }) => ({ status: 201, body: { id: await createCatalog(deps.mongo, await tenantOr404(deps, params.tenant), body) } }),
  }),
];
