import type { Filter, Sort } from 'mongodb';
import type { FilterClause, SortDirection } from '../domain/page-query';
import type { TitleSearch } from '../domain/text-search';
import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { CatalogRecord, CategoryRecord, ProductRecord } from '../platform/records';
import { escapeRegex, toMongoFilter } from './page-list';

// The catalog in MongoDB: categories, products and catalogs, every read and write scoped by tenant. Reads
// are live (no cache): a price or stock change is in the next answer. A product's `stock` is never written
// here: its owner (api/commerce/stock.ts, the product's stock workflow) writes it; create sets the first.
//
// FerretDB 1.24 runs each construct used below (test/integration/catalog.test.ts drives them): $in on _id,
// equality on an array element, $all of strings, an anchored $regex on an array field, $gt, and a sort on
// one field then _id with skip. It does NOT run `$all` of regular expressions (it matches nothing), which is
// why the prefix word is its own anchored `$regex` condition.

/** The stored field of each numeric product filter, by its public name. */
export const PRODUCT_FILTER_COLUMNS = { price: 'price', ratingsCount: 'ratings_count', ratingsAverage: 'ratings_average' } as const;
export type ProductFilterProperty = keyof typeof PRODUCT_FILTER_COLUMNS;

/** The stored field of each catalog filter, by its public name. */
export const CATALOG_FILTER_COLUMNS = { catalogId: '_id', tags: 'tags' } as const;
export type CatalogFilterProperty = keyof typeof CATALOG_FILTER_COLUMNS;

export const PRODUCT_SORT_COLUMNS = ['popularity', 'price', 'ratingsAverage'] as const;
export type ProductSortColumn = (typeof PRODUCT_SORT_COLUMNS)[number];

/**
 * Each sort column's stored field and the direction of its index (platform/mongo.ts: `{tenant_id, <field>,
 * _id: 1}`). Ties are broken by `_id` so that the sort is one total order the index can walk in either
 * direction: forwards when the request goes the index's way, backwards (`_id` descending) otherwise.
 */
const SORTS: Record<ProductSortColumn, { field: string; indexDirection: 1 | -1 }> = {
  popularity: { field: 'popularity', indexDirection: -1 },
  price: { field: 'price', indexDirection: 1 },
  ratingsAverage: { field: 'ratings_average', indexDirection: -1 },
};

/** What one product list asks for, parsed and typed (api/catalog/query.ts). */
export interface ProductSearch {
  /** Numeric conditions on PRODUCT_FILTER_COLUMNS fields, ANDed. */
  clauses: FilterClause[];
  /** Each: some value of the product's attribute is one of `valueIds`; several AND together. */
  attributes: Array<{ attributeId: string; valueIds: string[] }>;
  title: TitleSearch | null;
  /** Products with no stock are left out. */
  inStockOnly: boolean;
  /** Products of this category or of any category under it. */
  categoryId: string | null;
  /** Only these products (a catalog's); null: any product of the tenant. */
  productIds: string[] | null;
  sort: [ProductSortColumn, SortDirection];
  page: number;
  perPage: number;
}

/** The MongoDB filter of a search: ours alone, with the client's values only where a value goes. */
function productFilter(tenantId: string, s: ProductSearch): Filter<ProductRecord> {
  const and: Record<string, unknown>[] = [];
  if (s.productIds) and.push({ _id: { $in: s.productIds } });
  if (s.categoryId) and.push({ category_path_ids: s.categoryId });
  if (s.inStockOnly) and.push({ stock: { $gt: 0 } });
  for (const a of s.attributes) and.push({ attribute_values: { $in: a.valueIds.map((v) => `${a.attributeId}:${v}`) } });
  if (s.clauses.length > 0) and.push(toMongoFilter(s.clauses));
  if (s.title) {
    const field = `title_tokens.${s.title.language}`;
    if (s.title.whole.length > 0) and.push({ [field]: { $all: s.title.whole } });
    // Anchored and case-sensitive (tokens and query are both normalised): an index range on MongoDB.
    and.push({ [field]: { $regex: `^${escapeRegex(s.title.prefix)}` } });
  }
  return (and.length === 0 ? { tenant_id: tenantId } : { tenant_id: tenantId, $and: and }) as Filter<ProductRecord>;
}

function productSort([column, dir]: [ProductSortColumn, SortDirection]): Sort {
  const { field, indexDirection } = SORTS[column];
  const d = dir === 'ASC' ? 1 : -1;
  return new Map<string, 1 | -1>([
    [field, d],
    ['_id', d === indexDirection ? 1 : -1],
  ]);
}

export type ProductInsert = { inserted: true } | { inserted: false; reason: 'sku_taken' };

/** Products of a tenant. */
export function productData(mongo: Mongo) {
  const c = mongo.c.products;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    some: (tenantId: string, ids: string[]) => c.find({ _id: { $in: ids }, tenant_id: tenantId }).toArray(),
    bySku: (tenantId: string, sku: string) => c.findOne({ sku_scope: `${tenantId}:${sku}`, tenant_id: tenantId }),
    /** The sku is unique per tenant (`sku_scope`'s unique index): a taken one is refused, nothing written. */
    insert: async (record: ProductRecord): Promise<ProductInsert> => {
      try {
        await c.insertOne(record);
        return { inserted: true };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        return { inserted: false, reason: 'sku_taken' };
      }
    },
    /** Which of these products have stock (units for sale) now. */
    inStock: async (tenantId: string, ids: string[]): Promise<Set<string>> =>
      ids.length === 0 ? new Set() : new Set((await c.find({ _id: { $in: ids }, tenant_id: tenantId, stock: { $gt: 0 } }, { projection: { _id: 1 } }).toArray()).map((p) => p._id)),
    /** One page of a search, and how many products match it in all. */
    search: async (tenantId: string, s: ProductSearch): Promise<{ items: ProductRecord[]; totalItems: number }> => {
      if (s.productIds && s.productIds.length === 0) return { items: [], totalItems: 0 };
      const filter = productFilter(tenantId, s);
      const skip = (s.page - 1) * s.perPage;
      const totalItems = await c.countDocuments(filter);
      const items = skip >= totalItems ? [] : await c.find(filter).sort(productSort(s.sort)).skip(skip).limit(s.perPage).toArray();
      return { items, totalItems };
    },
  };
}

const CREATION_ORDER = new Map<string, 1 | -1>([
  ['created_at', 1],
  ['_id', 1],
]);

/** Categories of a tenant (a tree by `parent_id`; `ancestor_ids` root first). */
export function categoryData(mongo: Mongo) {
  const c = mongo.c.categories;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    some: (tenantId: string, ids: string[]) => c.find({ _id: { $in: ids }, tenant_id: tenantId }).toArray(),
    /** The tenant's top-level categories, oldest first. */
    roots: (tenantId: string) => c.find({ tenant_id: tenantId, parent_id: null }).sort(CREATION_ORDER).toArray(),
    /** The direct children of these categories, oldest first. */
    childrenOf: (tenantId: string, parentIds: string[]) =>
      parentIds.length === 0 ? Promise.resolve([]) : c.find({ tenant_id: tenantId, parent_id: { $in: parentIds } }).sort(CREATION_ORDER).toArray(),
    /** A category by its title key under a parent (null: top level): how the demo seeding finds its own. */
    byKey: (tenantId: string, key: string, parentId: string | null) => c.findOne({ tenant_id: tenantId, parent_id: parentId, 'title.key': key }),
    insert: async (record: CategoryRecord) => void (await c.insertOne(record)),
  };
}

/** Curated catalogs of a tenant. */
export function catalogData(mongo: Mongo) {
  const c = mongo.c.catalogs;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** The tenant's catalogs matching every clause (on CATALOG_FILTER_COLUMNS fields), oldest first. */
    list: (tenantId: string, clauses: FilterClause[]) =>
      c
        .find((clauses.length === 0 ? { tenant_id: tenantId } : { tenant_id: tenantId, $and: [toMongoFilter(clauses)] }) as Filter<CatalogRecord>)
        .sort(CREATION_ORDER)
        .toArray(),
    /** A catalog by its English title: how the demo seeding finds its own. */
    byTitle: (tenantId: string, en: string) => c.findOne({ tenant_id: tenantId, 'title.en': en }),
    insert: async (record: CatalogRecord) => void (await c.insertOne(record)),
  };
}
