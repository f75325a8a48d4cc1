import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { titleTokens } from '../../domain/text-search';
import { newId } from '../../platform/ids';
import type { Mongo } from '../../platform/mongo';
import type { CatalogRecord, CategoryAttributeRecord, CategoryRecord, ProductRecord } from '../../platform/records';
import { catalogData, categoryData, productData } from '../../data/catalog';
import type { AppDeps } from '../deps';
import { adjustProductStock, setProductPrice, setProductStock } from '../commerce/stock';
import type { BrowseQuery } from './query';
import type { StockLevel } from '../../workflows/product-stock/messages';
import type { CatalogCreateBody, CategoryCreateBody, ProductCreateBody, ProductUpdateBody, ProductUpdatedView } from './schemas';
import { catalogView, categoryView, pagination, productView, type CategoryView } from './views';

// The catalog's commands (admin) and queries (browsing). Every read and write names the tenant; an id of
// another tenant is simply not found. Checks come before writes: a refused request writes nothing.

/** Deepest category tree: a category has at most this many ancestors. */
export const MAX_CATEGORY_DEPTH = 8;

interface Tenant {
  _id: string;
  region: string;
}

const unique = <T>(items: T[]) => [...new Set(items)];

export async function createCategory(mongo: Mongo, tenant: Tenant, body: CategoryCreateBody): Promise<CategoryView> {
  let ancestorIds: string[] = [];
  if (body.parentId) {
    const parent = await categoryData(mongo).find(tenant._id, body.parentId);
    if (!parent) throw invalidRequest('parameter_invalid', `No category '${body.parentId}' for this tenant`, 'parentId');
    ancestorIds = [...parent.ancestor_ids, parent._id];
    if (ancestorIds.length > MAX_CATEGORY_DEPTH)
      throw invalidRequest('parameter_invalid', `Categories nest at most ${MAX_CATEGORY_DEPTH} levels below a top-level one`, 'parentId');
  }
  const record: CategoryRecord = {
    _id: newId('cat', tenant.region),
    tenant_id: tenant._id,
    title: body.title,
    parent_id: body.parentId ?? null,
    ancestor_ids: ancestorIds,
    attributes: body.categoryAttributes.map((a) => ({
      id: newId('attr', tenant.region),
      title: a.title,
      values: a.values.map((v) => ({ id: newId('val', tenant.region), title: v.title })),
    })),
    created_at: new Date(),
  };
  await categoryData(mongo).insert(record);
  return categoryView(record);
}

/** The product's categories, then the attributes it may use: those of its categories and of every category above them. */
async function checkCategories(mongo: Mongo, tenantId: string, given: string[], attributes: Record<string, string[]>) {
  const categoryIds = unique(given);
  const categories = await categoryData(mongo).some(tenantId, categoryIds);
  const found = new Map(categories.map((c) => [c._id, c]));
  given.forEach((id, i) => {
    if (!found.has(id)) throw invalidRequest('parameter_invalid', `No category '${id}' for this tenant`, `categoryIds[${i}]`);
  });
  const above = unique(categories.flatMap((c) => c.ancestor_ids)).filter((id) => !found.has(id));
  const ancestors = above.length > 0 ? await categoryData(mongo).some(tenantId, above) : [];
  const usable = new Map<string, CategoryAttributeRecord>();
  for (const c of [...categories, ...ancestors]) for (const a of c.attributes) usable.set(a.id, a);
  const checked: Record<string, string[]> = {};
  for (const [attributeId, valueIds] of Object.entries(attributes)) {
    const attribute = usable.get(attributeId);
    if (!attribute)
      throw invalidRequest('parameter_invalid', `'${attributeId}' is not an attribute of the product's categories (or of a category above them)`, `attributes[${attributeId}]`);
    valueIds.forEach((v, i) => {
      if (!attribute.values.some((x) => x.id === v)) throw invalidRequest('parameter_invalid', `'${v}' is not a value of attribute '${attributeId}'`, `attributes[${attributeId}][${i}]`);
    });
    checked[attributeId] = unique(valueIds);
  }
  return { categoryIds, pathIds: unique([...categoryIds, ...above]), attributes: checked };
}

export async function createProduct(mongo: Mongo, tenant: Tenant, body: ProductCreateBody): Promise<string> {
  const { categoryIds, pathIds, attributes } = await checkCategories(mongo, tenant._id, body.categoryIds, body.attributes);
  const now = new Date();
  const title = { en: body.title.en, ar: body.title.ar };
  const record: ProductRecord = {
    _id: newId('prod', tenant.region),
    tenant_id: tenant._id,
    sku: body.sku,
    sku_scope: `${tenant._id}:${body.sku}`,
    title,
    title_tokens: titleTokens(title),
    price: body.price,
    currency: body.currency,
    // The first stock is written with the record; every later change goes through its owner (api/commerce/stock.ts).
    stock: body.stock,
    ratings_average: body.ratingsAverage,
    ratings_count: body.ratingsCount,
    popularity: body.popularity,
    category_ids: categoryIds,
    category_path_ids: pathIds,
    attributes,
    attribute_values: Object.entries(attributes).flatMap(([a, values]) => values.map((v) => `${a}:${v}`)),
    image_url: body.imageUrl ?? null,
    created_at: now,
    updated_at: now,
  };
  const r = await productData(mongo).insert(record);
  if (!r.inserted) throw new DomainError('conflict', 'sku_taken', `This tenant already has a product with sku '${body.sku}'`, 'sku');
  return record._id;
}

/**
 * PATCH: price and stock through the product's owner (its stock workflow, the record's one writer); the product
 * as it now is, with how its units stand with the owner (on hand, held, oversold).
 */
export async function updateProduct(deps: AppDeps, tenantId: string, productId: string, body: ProductUpdateBody): Promise<ProductUpdatedView> {
  const products = productData(deps.mongo);
  if (!(await products.find(tenantId, productId))) throw notFound('product', productId, 'id');
  let level: StockLevel | undefined;
  // The stock first: its owner is the one that may refuse, and then nothing is written.
  if (body.stock !== undefined) level = await setProductStock(deps, tenantId, productId, body.stock);
  if (body.stockChange !== undefined) {
    const adjusted = await adjustProductStock(deps, tenantId, productId, body.stockChange, body.stockChangeKey);
    if (!adjusted.ok && 'keyUsedFor' in adjusted)
      throw invalidRequest('idempotency_key_in_use', `This stockChangeKey was used for a change of ${adjusted.keyUsedFor}: use a new key for a new change`, 'stockChangeKey');
    if (!adjusted.ok) throw invalidRequest('stock_change_too_large', stockChangeTooLarge(adjusted.onHand, body.stockChange), 'stockChange');
    level = adjusted.level;
  }
  if (body.price !== undefined) level = await setProductPrice(deps, tenantId, productId, body.price);
  const now = await products.find(tenantId, productId);
  if (!now) throw notFound('product', productId, 'id');
  // Every PATCH asks the owner at least once (the schema wants price, stock or stockChange).
  return { ...productView(now), ...unitsView(level!) };
}

const stockChangeTooLarge = (onHand: number, change: number) =>
  onHand < 0
    ? `${-onHand} units were sold that were not on hand (none is): a loss of ${-change} cannot be taken; a delivery makes up for them first`
    : `Only ${onHand} units are on hand: a change of ${change} would leave fewer than 0`;

/** How a product's units stand with its owner, as PATCH answers them. */
export function unitsView(level: StockLevel) {
  return {
    onHand: level.onHand,
    held: level.held,
    oversold: Math.max(0, -level.onHand),
    heldPastOnHand: Math.max(0, level.held - Math.max(0, level.onHand)),
  };
}

export async function createCatalog(mongo: Mongo, tenant: Tenant, body: CatalogCreateBody): Promise<string> {
  const productIds = unique(body.productIds);
  const found = new Set((await productData(mongo).some(tenant._id, productIds)).map((p) => p._id));
  body.productIds.forEach((id, i) => {
    if (!found.has(id)) throw invalidRequest('parameter_invalid', `No product '${id}' for this tenant`, `productIds[${i}]`);
  });
  const record: CatalogRecord = {
    _id: newId('ctl', tenant.region),
    tenant_id: tenant._id,
    title: { en: body.title.en, ar: body.title.ar },
    tags: unique(body.tags),
    product_ids: productIds,
    created_at: new Date(),
  };
  await catalogData(mongo).insert(record);
  return record._id;
}

// ---- browsing

/**
 * GET /catalogs. `totalProducts` counts what GET /catalogs-products lists for the catalog by default: its
 * products in stock (`isInStock`, default true, as on the product lists); with isInStock=false, all of them.
 */
export async function listCatalogs(mongo: Mongo, tenantId: string, q: BrowseQuery) {
  const catalogs = await catalogData(mongo).list(tenantId, q.catalogClauses);
  if (!q.inStockOnly) return { catalogs: catalogs.map((c) => catalogView(c)) };
  const inStock = await productData(mongo).inStock(tenantId, unique(catalogs.flatMap((c) => c.product_ids)));
  return { catalogs: catalogs.map((c) => catalogView(c, c.product_ids.filter((id) => inStock.has(id)).length)) };
}

const productSearch = (q: BrowseQuery) => ({
  clauses: q.productClauses,
  attributes: q.attributes,
  title: q.title,
  inStockOnly: q.inStockOnly,
  sort: q.sort,
  page: q.page,
  perPage: q.perPage,
});

/**
 * The products of the matched catalogs as one list (each product once, however many of those catalogs hold
 * it), filtered, sorted and paginated; each catalog answers the products of this page that it holds.
 */
export async function catalogsProducts(mongo: Mongo, tenantId: string, q: BrowseQuery) {
  const catalogs = await catalogData(mongo).list(tenantId, q.catalogClauses);
  const productIds = unique(catalogs.flatMap((c) => c.product_ids));
  const { items, totalItems } = await productData(mongo).search(tenantId, { ...productSearch(q), categoryId: null, productIds });
  const views = items.map((p) => ({ id: p._id, view: productView(p) }));
  return {
    catalogs: catalogs.map((c) => {
      const held = new Set(c.product_ids);
      return {
        title: { en: c.title.en, ar: c.title.ar },
        id: c._id,
        children: [],
        categoryAttributes: [],
        products: views.filter((v) => held.has(v.id)).map((v) => v.view),
      };
    }),
    pagination: pagination(totalItems, q.page, q.perPage),
  };
}

/** A category (or the top-level ones) with its children and attributes, and the products under it. */
export async function browseCategory(mongo: Mongo, tenantId: string, q: BrowseQuery) {
  const categories = categoryData(mongo);
  let shown: CategoryRecord[];
  if (q.categoryId) {
    const c = await categories.find(tenantId, q.categoryId);
    if (!c) throw notFound('category', q.categoryId, 'categoryId');
    shown = [c];
  } else shown = await categories.roots(tenantId);
  const [children, { items, totalItems }] = await Promise.all([
    categories.childrenOf(
      tenantId,
      shown.map((c) => c._id),
    ),
    productData(mongo).search(tenantId, { ...productSearch(q), categoryId: q.categoryId, productIds: null }),
  ]);
  return {
    categories: shown.map((c) => categoryView(c, children)),
    products: items.map(productView),
    pagination: pagination(totalItems, q.page, q.perPage),
  };
}
