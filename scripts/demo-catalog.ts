import { catalogCreateBody, categoryCreateBody, productCreateBody } from '../api/catalog/schemas';
import { createCatalog, createCategory, createProduct } from '../api/catalog/service';
import { catalogData, categoryData, productData } from '../data/catalog';
import { tenantData } from '../data/tenants';
import type { Mongo } from '../platform/mongo';
import type { CategoryRecord } from '../platform/records';

// `npm run dev`'s demo catalog: a small bilingual shop (two top-level categories, two subcategories, a
// colour, a size and a material, eight products, two catalogs) so every catalog endpoint answers something.
// Idempotent across restarts, and it heals a start that stopped half-way: each piece is found by its own
// key (a category by title key under its parent, a product by sku, a catalog by English title) and created
// only when missing, through the same service code as the admin API.

type Title = { key: string; en: string; ar: string };
interface DemoCategory {
  title: Title;
  attributes: Array<{ title: Title; values: Title[] }>;
  children?: DemoCategory[];
}

const t = (key: string, en: string, ar: string): Title => ({ key, en, ar });
const colour = { title: t('colour', 'Colour', 'اللون'), values: [t('colour.red', 'Red', 'أحمر'), t('colour.blue', 'Blue', 'أزرق'), t('colour.black', 'Black', 'أسود')] };
const size = { title: t('size', 'Size', 'المقاس'), values: [t('size.s', 'S', 'صغير'), t('size.m', 'M', 'وسط'), t('size.l', 'L', 'كبير')] };
const material = { title: t('material', 'Material', 'الخامة'), values: [t('material.ceramic', 'Ceramic', 'سيراميك'), t('material.glass', 'Glass', 'زجاج')] };

const TREE: DemoCategory[] = [
  {
    title: t('clothing', 'Clothing', 'الملابس'),
    attributes: [colour],
    children: [
      { title: t('clothing.tshirts', 'T-shirts', 'القمصان'), attributes: [size] },
      { title: t('clothing.shoes', 'Shoes', 'الأحذية'), attributes: [] },
    ],
  },
  { title: t('home', 'Home & Kitchen', 'المنزل والمطبخ'), attributes: [material] },
];

/** Products: sku, titles, price (EUR cents), stock, ratings, popularity, category key, attribute value keys. */
const PRODUCTS = [
  { sku: 'DEMO-TSHIRT-RED', en: 'Red Cotton T-shirt', ar: 'قميص قطني أحمر', price: 1999, stock: 25, rating: [4.6, 120], popularity: 90, category: 'clothing.tshirts', values: ['colour.red', 'size.m', 'size.l'] },
  { sku: 'DEMO-TSHIRT-BLUE', en: 'Blue Linen T-shirt', ar: 'قميص كتان أزرق', price: 2499, stock: 12, rating: [4.2, 45], popularity: 60, category: 'clothing.tshirts', values: ['colour.blue', 'size.s', 'size.m'] },
  { sku: 'DEMO-SHOES-BLACK', en: 'Black Running Shoes', ar: 'حذاء جري أسود', price: 7900, stock: 8, rating: [4.8, 310], popularity: 95, category: 'clothing.shoes', values: ['colour.black'] },
  { sku: 'DEMO-SHOES-RED', en: 'Red Sneakers', ar: 'حذاء رياضي أحمر', price: 5900, stock: 3, rating: [3.9, 27], popularity: 40, category: 'clothing.shoes', values: ['colour.red'] },
  { sku: 'DEMO-SCARF-BLACK', en: 'Black Wool Scarf', ar: 'وشاح صوف أسود', price: 2900, stock: 0, rating: [4.4, 18], popularity: 30, category: 'clothing', values: ['colour.black'] },
  { sku: 'DEMO-MUG', en: 'Ceramic Coffee Mug', ar: 'كوب قهوة سيراميك', price: 1200, stock: 40, rating: [4.5, 88], popularity: 70, category: 'home', values: ['material.ceramic'] },
  { sku: 'DEMO-BOTTLE', en: 'Glass Water Bottle', ar: 'زجاجة ماء زجاجية', price: 1500, stock: 30, rating: [4.1, 52], popularity: 55, category: 'home', values: ['material.glass'] },
  { sku: 'DEMO-TEAPOT', en: 'Glass Teapot', ar: 'إبريق شاي زجاجي', price: 3400, stock: 6, rating: [4.7, 64], popularity: 65, category: 'home', values: ['material.glass'] },
] as const;

const CATALOGS = [
  { en: 'Summer Sale', ar: 'تخفيضات الصيف', tags: ['sale', 'summer'], skus: ['DEMO-TSHIRT-RED', 'DEMO-TSHIRT-BLUE', 'DEMO-SHOES-RED', 'DEMO-BOTTLE'] },
  { en: 'New Arrivals', ar: 'وصل حديثاً', tags: ['new'], skus: ['DEMO-SHOES-BLACK', 'DEMO-SCARF-BLACK', 'DEMO-MUG', 'DEMO-TEAPOT'] },
];

/** Seeds the demo tenant's catalog where it is missing; what exists is left as it is (prices, stock included). */
export async function seedDemoCatalog(mongo: Mongo, tenantId: string): Promise<{ categories: number; products: number; catalogs: number }> {
  const tenant = await tenantData(mongo).find(tenantId);
  if (!tenant) throw new Error(`demo catalog: no tenant ${tenantId}`);
  const created = { categories: 0, products: 0, catalogs: 0 };

  // Categories by key, and every attribute value by key (for the products' attributes).
  const categoryIds = new Map<string, string>();
  const valueIds = new Map<string, { attributeId: string; valueId: string }>();
  const ensure = async (c: DemoCategory, parentId: string | null) => {
    let record: CategoryRecord | null = await categoryData(mongo).byKey(tenant._id, c.title.key, parentId);
    if (!record) {
      const body = categoryCreateBody.parse({
        title: c.title,
        ...(parentId ? { parentId } : {}),
        categoryAttributes: c.attributes.map((a) => ({ title: a.title, values: a.values.map((v) => ({ title: v })) })),
      });
      const view = await createCategory(mongo, tenant, body);
      record = await categoryData(mongo).find(tenant._id, view.id);
      if (!record) throw new Error(`demo catalog: category ${view.id} vanished`);
      created.categories++;
    }
    categoryIds.set(c.title.key, record._id);
    for (const a of record.attributes) for (const v of a.values) if (v.title.key) valueIds.set(v.title.key, { attributeId: a.id, valueId: v.id });
    for (const child of c.children ?? []) await ensure(child, record._id);
  };
  for (const root of TREE) await ensure(root, null);

  const productIds = new Map<string, string>();
  for (const p of PRODUCTS) {
    const existing = await productData(mongo).bySku(tenant._id, p.sku);
    if (existing) {
      productIds.set(p.sku, existing._id);
      continue;
    }
    const attributes: Record<string, string[]> = {};
    for (const key of p.values) {
      const v = valueIds.get(key);
      if (!v) throw new Error(`demo catalog: no attribute value ${key}`);
      (attributes[v.attributeId] ??= []).push(v.valueId);
    }
    const body = productCreateBody.parse({
      sku: p.sku,
      title: { en: p.en, ar: p.ar },
      price: p.price,
      currency: 'EUR',
      stock: p.stock,
      ratingsAverage: p.rating[0],
      ratingsCount: p.rating[1],
      popularity: p.popularity,
      categoryIds: [categoryIds.get(p.category)],
      attributes,
    });
    productIds.set(p.sku, await createProduct(mongo, tenant, body));
    created.products++;
  }

  for (const c of CATALOGS) {
    if (await catalogData(mongo).byTitle(tenant._id, c.en)) continue;
    const body = catalogCreateBody.parse({ title: { en: c.en, ar: c.ar }, tags: c.tags, productIds: c.skus.map((sku) => productIds.get(sku)) });
    await createCatalog(mongo, tenant, body);
    created.catalogs++;
  }
  return created;
}
