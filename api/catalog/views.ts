import type { z } from 'zod';
import type { CatalogRecord, CategoryRecord, LocalizedTitle, ProductRecord } from '../../platform/records';
import type { catalogSchema, categorySchema, paginationSchema, productSchema } from './schemas';

// Records as the API answers them (the spec's camelCase objects).

export type ProductView = z.infer<typeof productSchema>;
export type CategoryView = z.infer<typeof categorySchema>;
export type CatalogView = z.infer<typeof catalogSchema>;
export type Pagination = z.infer<typeof paginationSchema>;

const keyed = (t: LocalizedTitle) => ({ key: t.key ?? '', en: t.en, ar: t.ar });

export function productView(p: ProductRecord): ProductView {
  return {
    id: p._id,
    sku: p.sku,
    title: { en: p.title.en, ar: p.title.ar },
    price: p.price,
    currency: p.currency,
    stock: p.stock,
    isInStock: p.stock > 0,
    ratingsAverage: p.ratings_average,
    ratingsCount: p.ratings_count,
    popularity: p.popularity,
    categoryIds: p.category_ids,
    attributes: Object.fromEntries(Object.entries(p.attributes)),
    imageUrl: p.image_url,
  };
}

/** A category with its direct children (`children`: any records whose parent it is; others are ignored). */
export function categoryView(c: CategoryRecord, children: CategoryRecord[] = []): CategoryView {
  return {
    id: c._id,
    title: keyed(c.title),
    children: children.filter((k) => k.parent_id === c._id).map((k) => ({ id: k._id, title: keyed(k.title) })),
    categoryAttributes: c.attributes.map((a) => ({
      id: a.id,
      title: keyed(a.title),
      values: a.values.map((v) => ({ id: v.id, title: keyed(v.title) })),
    })),
  };
}

/** `totalProducts`: as counted by the caller (its products in stock), else all of them. */
export function catalogView(c: CatalogRecord, totalProducts = c.product_ids.length): CatalogView {
  return { id: c._id, title: { en: c.title.en, ar: c.title.ar }, tags: c.tags, totalProducts };
}

export function pagination(totalItems: number, page: number, perPage: number): Pagination {
  return { totalItems, currentPage: page, pageSize: perPage, totalPages: Math.ceil(totalItems / perPage) };
}
