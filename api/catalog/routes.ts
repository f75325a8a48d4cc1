import { route, type RouteDef } from '../http/route';
import { browseQuerySchema } from './query';
import { catalogsProductsResponse, catalogsResponse, categoryResponse } from './schemas';
import { browseCategory, catalogsProducts, listCatalogs } from './service';

// Catalog browsing: the spec's unprefixed paths, with the tenant's secret key. Live reads: a price or stock
// change is in the next answer. Another tenant's catalogs, categories and products are never seen (a
// filter on their ids matches nothing; their categoryId is a 404).

const common = { versions: 'unversioned' as const, auth: 'secret' as const, tags: ['Catalog'] };
const productFilters = ['page', 'perPage', 'filter.ratingsCount', 'filter.ratingsAverage', 'filter.title', 'filter.price', 'isInStock', 'sortBy'] as const;

export const catalogRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'get',
    path: '/catalogs',
    summary:
      "The tenant's curated catalogs (all, oldest first), filtered by id (filter.catalogId) or tag (filter.tags); totalProducts counts their products in stock unless isInStock=false",
    query: browseQuerySchema(['filter.catalogId', 'filter.tags', 'isInStock']),
    responses: { 200: { description: 'The catalogs', schema: catalogsResponse } },
    handler: async ({ query, auth, deps }) => ({ status: 200, body: await listCatalogs(deps.mongo, auth.tenantId, query) }),
  }),
  route({
    ...common,
    method: 'get',
    path: '/catalogs-products',
    summary:
      'Catalogs with their products: one page of the distinct products of the catalogs matched (filter.catalogId, filter.tags), filtered, sorted, each catalog showing its own',
    query: browseQuerySchema(['filter.catalogId', 'filter.tags', ...productFilters]),
    responses: { 200: { description: 'The catalogs and a page of their products', schema: catalogsProductsResponse } },
    handler: async ({ query, auth, deps }) => ({ status: 200, body: await catalogsProducts(deps.mongo, auth.tenantId, query) }),
  }),
  route({
    ...common,
    method: 'get',
    path: '/category',
    summary:
      'A category (categoryId; else the top-level ones) with its children and attributes, and a page of the products under it. ' +
      'Filter by attribute values with filter.attr.<attributeId>=$in:[<valueId>,...] (any of the values; several attributes AND)',
    query: browseQuerySchema(['categoryId', 'filter.attr', ...productFilters]),
    responses: { 200: { description: 'The categories and a page of products', schema: categoryResponse } },
    handler: async ({ query, auth, deps }) => ({ status: 200, body: await browseCategory(deps.mongo, auth.tenantId, query) }),
  }),
];
