import { admin, api, call, createMerchant, getStack, type Merchant } from './harness';

// The catalog on the real stack: the admin API that fills it, and the three browsing lists with every
// filter, sort and page, the Arabic and English word search with its normalisation, live reads after a
// price or stock change, and tenancy (another tenant's ids are unknown everywhere).

const patch = (path: string, body: unknown) => call('PATCH', path, { body, key: getStack().adminToken });
const title = (key: string, en: string, ar: string) => ({ key, en, ar });

let A: Merchant;
let B: Merchant;

interface Category {
  id: string;
  title: { key: string; en: string; ar: string };
  children: Array<{ id: string; title: unknown }>;
  categoryAttributes: Array<{ id: string; title: { key: string }; values: Array<{ id: string; title: { key: string } }> }>;
}
const cat: Record<string, Category> = {};
/** Attribute and value ids by key: colour, colour.red, ... */
const attr: Record<string, string> = {};
const val: Record<string, string> = {};
/** Product ids by short name, and names by id (assertions compare names). */
const prod: Record<string, string> = {};
const nameOf = new Map<string, string>();
const ctl: Record<string, string> = {};
let bCategory = '';
let bProduct = '';
let bCatalog = '';

async function category(tenant: string, body: unknown): Promise<Category> {
  const r = await admin.post(`/admin/tenants/${tenant}/categories`, body);
  expect(r.status).toBe(201);
  for (const a of r.body.categoryAttributes) {
    attr[a.title.key] = a.id;
    for (const v of a.values) val[v.title.key] = v.id;
  }
  return r.body;
}

const PRODUCTS = [
  // name, en, ar, price, stock, ratingsAverage, ratingsCount, popularity, category, attribute values
  ['redTee', 'Red Cotton T-shirt', 'قميص قطني أحمر', 2000, 10, 4.5, 100, 90, 'tshirts', ['colour.red', 'size.m']],
  ['blueTee', 'Blue T-shirt', 'قميص أزرق', 2500, 5, 4.0, 40, 60, 'tshirts', ['colour.blue', 'size.s', 'size.m']],
  ['blackShoes', 'Black Running Shoes', 'حذاءٌ أسودُ للجري', 8000, 0, 4.9, 300, 95, 'shoes', ['colour.black']],
  ['sneakers', 'Reddish Sneakers', 'حـذاء رياضي أحمر', 6000, 3, 3.5, 20, 40, 'shoes', ['colour.red']],
  ['kidsTee', 'Kids Tee', 'قميص أطفال', 1000, 7, 4.2, 10, 20, 'kids', ['colour.blue']],
  ['mug', 'Ceramic Mug', 'كوب سيراميك', 1200, 40, 4.5, 88, 70, 'home', ['material.ceramic']],
  ['teapot', 'Glass Teapot', 'إبريق شاي زجاجي', 3400, 6, 4.7, 64, 65, 'home', ['material.glass']],
  ['kit', 'First-aid Kit', 'حقيبة مستشفى', 500, 2, 2.0, 5, 10, 'home', []],
] as const;

beforeAll(async () => {
  [A, B] = await Promise.all([createMerchant('Catalog shop A'), createMerchant('Catalog shop B')]);
  cat.clothing = await category(A.tenant, {
    title: title('clothing', 'Clothing', 'الملابس'),
    categoryAttributes: [
      { title: title('colour', 'Colour', 'اللون'), values: [{ title: title('colour.red', 'Red', 'أحمر') }, { title: title('colour.blue', 'Blue', 'أزرق') }, { title: title('colour.black', 'Black', 'أسود') }] },
    ],
  });
  cat.tshirts = await category(A.tenant, {
    title: title('tshirts', 'T-shirts', 'القمصان'),
    parentId: cat.clothing.id,
    categoryAttributes: [{ title: title('size', 'Size', 'المقاس'), values: [{ title: title('size.s', 'S', 'صغير') }, { title: title('size.m', 'M', 'وسط') }] }],
  });
  cat.shoes = await category(A.tenant, { title: title('shoes', 'Shoes', 'الأحذية'), parentId: cat.clothing.id, categoryAttributes: [] });
  cat.kids = await category(A.tenant, { title: title('kids', 'Kids T-shirts', 'قمصان الأطفال'), parentId: cat.tshirts.id });
  cat.home = await category(A.tenant, {
    title: title('home', 'Home', 'المنزل'),
    categoryAttributes: [{ title: title('material', 'Material', 'الخامة'), values: [{ title: title('material.ceramic', 'Ceramic', 'سيراميك') }, { title: title('material.glass', 'Glass', 'زجاج') }] }],
  });
  for (const [name, en, ar, price, stock, ratingsAverage, ratingsCount, popularity, c, values] of PRODUCTS) {
    const attributes: Record<string, string[]> = {};
    for (const key of values) (attributes[attr[key.split('.')[0]!]!] ??= []).push(val[key]!);
    const r = await admin.post(`/admin/tenants/${A.tenant}/products`, {
      sku: `SKU-${name}`,
      title: { en, ar },
      price,
      currency: 'eur',
      stock,
      ratingsAverage,
      ratingsCount,
      popularity,
      categoryIds: [cat[c]!.id],
      attributes,
      ...(name === 'mug' ? { imageUrl: 'https://img.example/mug.png' } : {}),
    });
    expect(r.status).toBe(201);
    prod[name] = r.body.id;
    nameOf.set(r.body.id, name);
  }
  const catalog = async (key: string, body: unknown) => {
    const r = await admin.post(`/admin/tenants/${A.tenant}/catalogs`, body);
    expect(r.status).toBe(201);
    ctl[key] = r.body.id;
  };
  await catalog('summer', { title: { en: 'Summer Sale', ar: 'تخفيضات الصيف' }, tags: ['sale', 'summer'], productIds: [prod.redTee, prod.blueTee, prod.sneakers, prod.mug] });
  await catalog('new', { title: { en: 'New Arrivals', ar: 'وصل حديثاً' }, tags: ['new'], productIds: [prod.blackShoes, prod.kidsTee, prod.teapot, prod.redTee] });
  await catalog('empty', { title: { en: 'Coming soon', ar: 'قريباً' }, tags: [], productIds: [] });

  // Tenant B: the same sku, a category, a product and a catalog of its own.
  bCategory = (await category(B.tenant, { title: title('clothing', 'Clothing', 'الملابس') })).id;
  const bp = await admin.post(`/admin/tenants/${B.tenant}/products`, {
    sku: 'SKU-redTee',
    title: { en: 'Red Cotton T-shirt', ar: 'قميص قطني أحمر' },
    price: 2000,
    currency: 'EUR',
    stock: 10,
    ratingsAverage: 4,
    ratingsCount: 1,
    popularity: 1,
    categoryIds: [bCategory],
    attributes: {},
  });
  expect(bp.status).toBe(201);
  bProduct = bp.body.id;
  const bc = await admin.post(`/admin/tenants/${B.tenant}/catalogs`, { title: { en: 'B sale', ar: 'تخفيضات' }, tags: ['sale'], productIds: [bProduct] });
  expect(bc.status).toBe(201);
  bCatalog = bc.body.id;
});

const get = (path: string, key = A.secretKey) => api.get(path, key);
/** The product names of a list answer, in order. */
const names = (products: Array<{ id: string }>) => products.map((p) => nameOf.get(p.id) ?? p.id);
const categoryNames = async (query: string) => {
  const r = await get(`/category?${query}`);
  expect(r.status).toBe(200);
  return names(r.body.products);
};
const enc = encodeURIComponent;

describe('admin: categories', () => {
  test('create answers the Category object with ids for it, its attributes and values', () => {
    expect(cat.clothing).toEqual({
      id: expect.stringMatching(/^cat_eu_/),
      title: { key: 'clothing', en: 'Clothing', ar: 'الملابس' },
      children: [],
      categoryAttributes: [
        {
          id: expect.stringMatching(/^attr_eu_/),
          title: { key: 'colour', en: 'Colour', ar: 'اللون' },
          values: [
            { id: expect.stringMatching(/^val_eu_/), title: { key: 'colour.red', en: 'Red', ar: 'أحمر' } },
            { id: expect.stringMatching(/^val_eu_/), title: { key: 'colour.blue', en: 'Blue', ar: 'أزرق' } },
            { id: expect.stringMatching(/^val_eu_/), title: { key: 'colour.black', en: 'Black', ar: 'أسود' } },
          ],
        },
      ],
    });
  });

  test("a parentId that is not the tenant's category is a 400 naming it", async () => {
    for (const parentId of [bCategory, 'cat_eu_00000000000000000000']) {
      const r = await admin.post(`/admin/tenants/${A.tenant}/categories`, { title: title('x', 'X', 'س'), parentId });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('parentId');
    }
    const r = await admin.post(`/admin/tenants/${A.tenant}/categories`, { title: title('x', 'X', 'س'), parentId: 'nope' });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('parentId');
  });

  test('a title needs key, en and ar; unknown fields are refused', async () => {
    const r = await admin.post(`/admin/tenants/${A.tenant}/categories`, { title: { en: 'X', ar: 'س' } });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('title[key]');
    const u = await admin.post(`/admin/tenants/${A.tenant}/categories`, { title: title('x', 'X', 'س'), colour: 'red' });
    expect(u.status).toBe(400);
    expect(u.body.error.code).toBe('parameter_unknown');
  });

  test('an unknown tenant is a 404; no admin token is a 401', async () => {
    expect((await admin.post('/admin/tenants/ten_eu_00000000000000000000/categories', { title: title('x', 'X', 'س') })).status).toBe(404);
    expect((await call('POST', `/admin/tenants/${A.tenant}/categories`, { body: { title: title('x', 'X', 'س') }, key: A.secretKey })).status).toBe(401);
  });
});

describe('admin: products', () => {
  const base = () => ({ sku: `SKU-new-${Math.random()}`, title: { en: 'Thing', ar: 'شيء' }, price: 100, currency: 'EUR', stock: 1, ratingsAverage: 0, ratingsCount: 0, popularity: 0 });

  test('the sku is unique per tenant: 409 in the same tenant, fine in another (B has SKU-redTee too)', async () => {
    const r = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), sku: 'SKU-redTee' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'sku_taken', param: 'sku' });
    expect(bProduct).toMatch(/^prod_eu_/);
  });

  test("categories must be the tenant's: 400 naming categoryIds[i]", async () => {
    for (const id of [bCategory, 'cat_eu_00000000000000000000']) {
      const r = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), categoryIds: [cat.home.id, id] });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('categoryIds[1]');
    }
  });

  test("attributes must be of the product's categories (or above them), values of the attribute", async () => {
    // material is Home's, not T-shirts'
    const wrongAttr = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), categoryIds: [cat.tshirts.id], attributes: { [attr.material!]: [val['material.glass']!] } });
    expect(wrongAttr.status).toBe(400);
    expect(wrongAttr.body.error.param).toBe(`attributes[${attr.material}]`);
    const wrongValue = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), categoryIds: [cat.tshirts.id], attributes: { [attr.size!]: [val['size.s']!, val['colour.red']!] } });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.error.param).toBe(`attributes[${attr.size}][1]`);
    // colour is Clothing's: a T-shirt (two levels under it for Kids) may use it
    const inherited = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), stock: 0, categoryIds: [cat.kids.id], attributes: { [attr.colour!]: [val['colour.black']!] } });
    expect(inherited.status).toBe(201);
  });

  test('money is an integer in minor units and an ISO currency (answered upper case)', async () => {
    const frac = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), price: 19.99 });
    expect(frac.status).toBe(400);
    expect(frac.body.error.param).toBe('price');
    const ccy = await admin.post(`/admin/tenants/${A.tenant}/products`, { ...base(), currency: 'XYZ' });
    expect(ccy.status).toBe(400);
    expect(ccy.body.error.param).toBe('currency');
    const r = await get(`/category?filter.title=${enc('mug')}`);
    expect(r.body.products).toEqual([
      {
        id: prod.mug,
        sku: 'SKU-mug',
        title: { en: 'Ceramic Mug', ar: 'كوب سيراميك' },
        price: 1200,
        currency: 'EUR',
        stock: 40,
        isInStock: true,
        ratingsAverage: 4.5,
        ratingsCount: 88,
        popularity: 70,
        categoryIds: [cat.home.id],
        attributes: { [attr.material!]: [val['material.ceramic']] },
        imageUrl: 'https://img.example/mug.png',
      },
    ]);
  });

  test("PATCH of another tenant's or an unknown product is a 404; an empty PATCH is a 400", async () => {
    expect((await patch(`/admin/tenants/${A.tenant}/products/${bProduct}`, { price: 1 })).status).toBe(404);
    expect((await patch(`/admin/tenants/${B.tenant}/products/${prod.mug}`, { stock: 1 })).status).toBe(404);
    expect((await patch(`/admin/tenants/${A.tenant}/products/prod_eu_00000000000000000000`, { price: 1 })).status).toBe(404);
    expect((await patch(`/admin/tenants/${A.tenant}/products/${prod.mug}`, {})).status).toBe(400);
    expect((await patch(`/admin/tenants/${A.tenant}/products/${prod.mug}`, { stock: -1 })).status).toBe(400);
  });
});

describe('admin: catalogs', () => {
  test("products must be the tenant's: 400 naming productIds[i]", async () => {
    const r = await admin.post(`/admin/tenants/${A.tenant}/catalogs`, { title: { en: 'X', ar: 'س' }, tags: [], productIds: [prod.mug, bProduct] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('productIds[1]');
  });

  test('a tag has no comma', async () => {
    const r = await admin.post(`/admin/tenants/${A.tenant}/catalogs`, { title: { en: 'X', ar: 'س' }, tags: ['a,b'], productIds: [] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('tags[0]');
  });
});

describe('GET /catalogs', () => {
  test('every catalog of the tenant, oldest first, with title, tags and totalProducts', async () => {
    const r = await get('/catalogs');
    expect(r.status).toBe(200);
    // New Arrivals holds the black shoes, out of stock: its product list leaves them out by default, and so does
    // its count (it said 4 while the list showed 3).
    expect(r.body).toEqual({
      catalogs: [
        { id: ctl.summer, title: { en: 'Summer Sale', ar: 'تخفيضات الصيف' }, tags: ['sale', 'summer'], totalProducts: 4 },
        { id: ctl.new, title: { en: 'New Arrivals', ar: 'وصل حديثاً' }, tags: ['new'], totalProducts: 3 },
        { id: ctl.empty, title: { en: 'Coming soon', ar: 'قريباً' }, tags: [], totalProducts: 0 },
      ],
    });
    const listed = await get(`/catalogs-products?filter.catalogId=$eq:${ctl.new}`);
    expect(listed.body.pagination.totalItems).toBe(3);
    // isInStock=false counts every product, as the lists then show every product.
    const all = await get('/catalogs?isInStock=false');
    expect(all.body.catalogs.map((c: { totalProducts: number }) => c.totalProducts)).toEqual([4, 4, 0]);
    expect((await get(`/catalogs-products?filter.catalogId=$eq:${ctl.new}&isInStock=false`)).body.pagination.totalItems).toBe(4);
  });

  test('filter.catalogId: $eq, a bare id, $in with brackets or without', async () => {
    const ids = async (q: string) => ((await get(`/catalogs?${q}`)).body.catalogs as Array<{ id: string }>).map((c) => c.id);
    expect(await ids(`filter.catalogId=$eq:${ctl.new}`)).toEqual([ctl.new]);
    expect(await ids(`filter.catalogId=${ctl.new}`)).toEqual([ctl.new]);
    expect(await ids(`filter.catalogId=${enc(`$in:[${ctl.summer},${ctl.empty}]`)}`)).toEqual([ctl.summer, ctl.empty]);
    expect(await ids(`filter.catalogId=$in:${ctl.summer},${ctl.new}`)).toEqual([ctl.summer, ctl.new]);
  });

  test('filter.tags: $eq, or $in for catalogs with any of the tags', async () => {
    const ids = async (q: string) => ((await get(`/catalogs?${q}`)).body.catalogs as Array<{ id: string }>).map((c) => c.id);
    expect(await ids('filter.tags=$eq:summer')).toEqual([ctl.summer]);
    expect(await ids('filter.tags=sale')).toEqual([ctl.summer]);
    expect(await ids(`filter.tags=${enc('$in:[sale,new]')}`)).toEqual([ctl.summer, ctl.new]);
    expect(await ids('filter.tags=$eq:nothing')).toEqual([]);
  });

  test('unknown parameters, operators and malformed ids are 400s naming them', async () => {
    const cases: Array<[string, string, string]> = [
      ['page=1', 'page', 'parameter_unknown'],
      ['filter.name=x', 'filter.name', 'parameter_unknown'],
      ['filter.catalogId=$gt:ctl_eu_00000000', 'filter.catalogId', 'parameter_invalid'],
      ['filter.catalogId=42', 'filter.catalogId', 'parameter_invalid'],
      ['filter.tags=$in:[a,,b]', 'filter.tags', 'parameter_invalid'],
    ];
    for (const [q, param, code] of cases) {
      const r = await get(`/catalogs?${q}`);
      expect([q, r.status, r.body.error.param, r.body.error.code]).toEqual([q, 400, param, code]);
    }
  });

  test('a secret key is needed', async () => {
    expect((await api.get('/catalogs')).status).toBe(401);
    expect((await api.get('/catalogs', A.publishableKey)).status).toBe(403);
  });
});

describe('GET /catalogs-products', () => {
  test('one page of the distinct products of the catalogs, in stock, by popularity; each catalog its share', async () => {
    const r = await get('/catalogs-products');
    expect(r.status).toBe(200);
    // blackShoes (New Arrivals) has no stock; redTee is in both catalogs and counts once.
    expect(r.body.pagination).toEqual({ totalItems: 6, currentPage: 1, pageSize: 20, totalPages: 1 });
    expect(r.body.catalogs.map((c: { id: string; products: Array<{ id: string }> }) => [c.id, names(c.products)])).toEqual([
      [ctl.summer, ['redTee', 'mug', 'blueTee', 'sneakers']],
      [ctl.new, ['redTee', 'teapot', 'kidsTee']],
      [ctl.empty, []],
    ]);
    expect(r.body.catalogs[0]).toMatchObject({ title: { en: 'Summer Sale', ar: 'تخفيضات الصيف' }, id: ctl.summer, children: [], categoryAttributes: [] });
    expect(Object.keys(r.body.catalogs[0]).sort()).toEqual(['categoryAttributes', 'children', 'id', 'products', 'title']);
  });

  test('pagination: page and perPage', async () => {
    const r = await get('/catalogs-products?perPage=2&page=2');
    expect(r.body.pagination).toEqual({ totalItems: 6, currentPage: 2, pageSize: 2, totalPages: 3 });
    expect(r.body.catalogs.map((c: { products: Array<{ id: string }> }) => names(c.products))).toEqual([['blueTee'], ['teapot'], []]);
    const past = await get('/catalogs-products?perPage=2&page=9');
    expect(past.body.pagination).toEqual({ totalItems: 6, currentPage: 9, pageSize: 2, totalPages: 3 });
    expect(past.body.catalogs.every((c: { products: unknown[] }) => c.products.length === 0)).toBe(true);
  });

  test('perPage above 100 (or below 1) and page below 1 are 400s', async () => {
    for (const [q, param] of [['perPage=101', 'perPage'], ['perPage=0', 'perPage'], ['page=0', 'page'], ['perPage=ten', 'perPage']]) {
      const r = await get(`/catalogs-products?${q}`);
      expect([q, r.status, r.body.error.param]).toEqual([q, 400, param]);
    }
    expect((await get('/catalogs-products?perPage=100')).status).toBe(200);
  });

  test('filter.catalogId and filter.tags choose the catalogs', async () => {
    const one = await get(`/catalogs-products?filter.catalogId=${ctl.new}`);
    expect(one.body.catalogs.map((c: { id: string }) => c.id)).toEqual([ctl.new]);
    expect(names(one.body.catalogs[0].products)).toEqual(['redTee', 'teapot', 'kidsTee']);
    expect(one.body.pagination.totalItems).toBe(3);
    const tagged = await get('/catalogs-products?filter.tags=summer');
    expect(tagged.body.catalogs.map((c: { id: string }) => c.id)).toEqual([ctl.summer]);
    const none = await get('/catalogs-products?filter.tags=nothing');
    expect(none.body).toEqual({ catalogs: [], pagination: { totalItems: 0, currentPage: 1, pageSize: 20, totalPages: 0 } });
  });

  test('isInStock=false shows products with no stock too', async () => {
    const r = await get(`/catalogs-products?isInStock=false&filter.catalogId=${ctl.new}`);
    expect(names(r.body.catalogs[0].products)).toEqual(['blackShoes', 'redTee', 'teapot', 'kidsTee']);
    expect(r.body.catalogs[0].products[0]).toMatchObject({ stock: 0, isInStock: false });
    expect((await get('/catalogs-products?isInStock=maybe')).status).toBe(400);
  });

  test('product filters, sort and title search apply to the catalog products', async () => {
    const r = await get(`/catalogs-products?filter.price=$lte:2500&sortBy=price:ASC&filter.catalogId=${ctl.summer}`);
    expect(names(r.body.catalogs[0].products)).toEqual(['mug', 'redTee', 'blueTee']);
    const s = await get(`/catalogs-products?filter.title=${enc('قميص')}`);
    expect(s.body.catalogs.map((c: { products: Array<{ id: string }> }) => names(c.products))).toEqual([['redTee', 'blueTee'], ['redTee', 'kidsTee'], []]);
    expect(s.body.pagination.totalItems).toBe(3);
  });

  test('filter.attr and categoryId are not parameters of this list', async () => {
    expect((await get(`/catalogs-products?categoryId=${cat.home.id}`)).body.error.code).toBe('parameter_unknown');
    expect((await get(`/catalogs-products?filter.attr.${attr.colour}=${val['colour.red']}`)).body.error.code).toBe('parameter_unknown');
  });
});

describe('GET /category', () => {
  test('without categoryId: the top-level categories with children and attributes, and every product', async () => {
    const r = await get('/category');
    expect(r.status).toBe(200);
    expect(r.body.categories).toEqual([
      { ...cat.clothing, children: [{ id: cat.tshirts.id, title: cat.tshirts.title }, { id: cat.shoes.id, title: cat.shoes.title }] },
      { ...cat.home, children: [] },
    ]);
    expect(names(r.body.products)).toEqual(['redTee', 'mug', 'teapot', 'blueTee', 'sneakers', 'kidsTee', 'kit']);
    expect(r.body.pagination).toEqual({ totalItems: 7, currentPage: 1, pageSize: 20, totalPages: 1 });
  });

  test("categoryId of a parent finds its products and all its descendants'", async () => {
    const r = await get(`/category?categoryId=${cat.clothing.id}`);
    expect(r.body.categories).toEqual([{ ...cat.clothing, children: [{ id: cat.tshirts.id, title: cat.tshirts.title }, { id: cat.shoes.id, title: cat.shoes.title }] }]);
    expect(names(r.body.products)).toEqual(['redTee', 'blueTee', 'sneakers', 'kidsTee']);
    expect(await categoryNames(`categoryId=${cat.tshirts.id}`)).toEqual(['redTee', 'blueTee', 'kidsTee']);
    expect(await categoryNames(`categoryId=${cat.kids.id}`)).toEqual(['kidsTee']);
    expect(await categoryNames(`categoryId=${cat.clothing.id}&isInStock=false`)).toEqual(['blackShoes', 'redTee', 'blueTee', 'sneakers', 'kidsTee', expect.stringMatching(/^prod_/)]);
    const t = await get(`/category?categoryId=${cat.tshirts.id}`);
    expect(t.body.categories[0].children).toEqual([{ id: cat.kids.id, title: cat.kids.title }]);
    expect(t.body.categories[0].categoryAttributes.map((a: { id: string }) => a.id)).toEqual([attr.size]);
  });

  test('categoryId of another tenant or unknown is a 404; malformed is a 400', async () => {
    for (const id of [bCategory, 'cat_eu_00000000000000000000']) {
      const r = await get(`/category?categoryId=${id}`);
      expect(r.status).toBe(404);
      expect(r.body.error.param).toBe('categoryId');
    }
    expect((await get('/category?categoryId=shoes')).status).toBe(400);
  });

  test('filter.attr: any of the values within one attribute; several attributes AND', async () => {
    const colour = attr.colour!;
    expect(await categoryNames(`filter.attr.${colour}=${enc(`$in:[${val['colour.red']},${val['colour.blue']}]`)}`)).toEqual(['redTee', 'blueTee', 'sneakers', 'kidsTee']);
    expect(await categoryNames(`filter.attr.${colour}=$eq:${val['colour.red']}`)).toEqual(['redTee', 'sneakers']);
    expect(await categoryNames(`filter.attr.${colour}=${val['colour.blue']}`)).toEqual(['blueTee', 'kidsTee']);
    expect(
      await categoryNames(`filter.attr.${colour}=${enc(`$in:[${val['colour.red']},${val['colour.blue']}]`)}&filter.attr.${attr.size}=${enc(`$in:[${val['size.s']}]`)}`),
    ).toEqual(['blueTee']);
    expect(await categoryNames(`filter.attr.${attr.size}=$in:[${val['size.m']}]&categoryId=${cat.tshirts.id}`)).toEqual(['redTee', 'blueTee']);
    // an attribute or value nobody has (another tenant's, say) matches nothing
    expect(await categoryNames(`filter.attr.attr_eu_00000000000000000000=val_eu_00000000000000000000`)).toEqual([]);
    for (const q of [`filter.attr.colour=${val['colour.red']}`, `filter.attr.${colour}=red`, `filter.attr.${colour}=$gt:${val['colour.red']}`]) {
      const r = await get(`/category?${q}`);
      expect([q, r.status, r.body.error.param]).toEqual([q, 400, q.split('=')[0]]);
    }
  });

  test('filter.price: $eq $in $gt $gte $lt $lte $btw, repeated to AND', async () => {
    expect(await categoryNames('filter.price=2000')).toEqual(['redTee']);
    expect(await categoryNames('filter.price=$eq:2000')).toEqual(['redTee']);
    expect(await categoryNames(`filter.price=${enc('$in:[2000,2500]')}`)).toEqual(['redTee', 'blueTee']);
    expect(await categoryNames('filter.price=$gt:3400&sortBy=price:ASC')).toEqual(['sneakers']);
    expect(await categoryNames('filter.price=$gte:3400&sortBy=price:ASC')).toEqual(['teapot', 'sneakers']);
    expect(await categoryNames('filter.price=$lt:1200&sortBy=price:ASC')).toEqual(['kit', 'kidsTee']);
    expect(await categoryNames('filter.price=$lte:1200&sortBy=price:ASC')).toEqual(['kit', 'kidsTee', 'mug']);
    expect(await categoryNames('filter.price=$btw:1000,2000&sortBy=price:ASC')).toEqual(['kidsTee', 'mug', 'redTee']);
    expect(await categoryNames('filter.price=$gte:1000&filter.price=$lte:2000&sortBy=price:ASC')).toEqual(['kidsTee', 'mug', 'redTee']);
    for (const q of ['filter.price=$btw:1000', 'filter.price=$foo:1', 'filter.price=12.5', 'filter.price=$not:$eq:1', 'filter.price[gte]=1']) {
      const r = await get(`/category?${q}`);
      expect([q, r.status]).toEqual([q, 400]);
      expect(r.body.error.param).toMatch(/^filter\.price/);
    }
  });

  test('filter.ratingsCount (integers) and filter.ratingsAverage (decimals)', async () => {
    expect(await categoryNames('filter.ratingsCount=$gte:64')).toEqual(['redTee', 'mug', 'teapot']);
    expect(await categoryNames('filter.ratingsCount=$gte:64&isInStock=false')).toEqual(['blackShoes', 'redTee', 'mug', 'teapot']);
    expect(await categoryNames('filter.ratingsCount=$lt:20')).toEqual(['kidsTee', 'kit']);
    expect(await categoryNames('filter.ratingsAverage=$gt:4.4&sortBy=ratingsAverage:DESC')).toEqual(['teapot', ...[prod.redTee, prod.mug].sort().map((id) => nameOf.get(id))]);
    expect(await categoryNames('filter.ratingsAverage=$btw:4.0,4.2&sortBy=ratingsAverage:ASC')).toEqual(['blueTee', 'kidsTee']);
    expect(await categoryNames('filter.ratingsAverage=4.5&sortBy=ratingsAverage:DESC')).toEqual([prod.redTee, prod.mug].sort().map((id) => nameOf.get(id)));
    expect((await get('/category?filter.ratingsCount=4.5')).status).toBe(400);
    expect((await get('/category?filter.ratingsAverage=high')).status).toBe(400);
  });

  test('sortBy popularity, price and ratingsAverage, ASC and DESC; ties in one stable order', async () => {
    expect(await categoryNames('sortBy=popularity:DESC')).toEqual(['redTee', 'mug', 'teapot', 'blueTee', 'sneakers', 'kidsTee', 'kit']);
    expect(await categoryNames('sortBy=popularity:ASC')).toEqual(['kit', 'kidsTee', 'sneakers', 'blueTee', 'teapot', 'mug', 'redTee']);
    expect(await categoryNames('sortBy=price:ASC')).toEqual(['kit', 'kidsTee', 'mug', 'redTee', 'blueTee', 'teapot', 'sneakers']);
    expect(await categoryNames('sortBy=price:DESC')).toEqual(['sneakers', 'teapot', 'blueTee', 'redTee', 'mug', 'kidsTee', 'kit']);
    const tie = [prod.redTee, prod.mug].sort().map((id) => nameOf.get(id));
    expect(await categoryNames('sortBy=ratingsAverage:DESC')).toEqual(['teapot', ...tie, 'kidsTee', 'blueTee', 'sneakers', 'kit']);
    expect(await categoryNames('sortBy=ratingsAverage:ASC')).toEqual(['kit', 'sneakers', 'blueTee', 'kidsTee', ...[...tie].reverse(), 'teapot']);
    for (const q of ['sortBy=name:ASC', 'sortBy=price', 'sortBy=price:asc', 'sortBy=price:ASC&sortBy=popularity:DESC']) {
      const r = await get(`/category?${q}`);
      expect([q, r.status, r.body.error.param]).toEqual([q, 400, 'sortBy']);
    }
  });

  test('pages walk the whole list without overlap or gap', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await get(`/category?perPage=2&page=${page}&sortBy=ratingsAverage:DESC`);
      expect(r.body.pagination).toEqual({ totalItems: 7, currentPage: page, pageSize: 2, totalPages: 4 });
      seen.push(...names(r.body.products));
    }
    expect(seen).toEqual(await categoryNames('sortBy=ratingsAverage:DESC'));
    expect((await get('/category?perPage=101')).body.error.param).toBe('perPage');
  });

  test('parameters of the other lists are unknown here', async () => {
    const r = await get(`/category?filter.catalogId=${ctl.summer}`);
    expect([r.status, r.body.error.code, r.body.error.param]).toEqual([400, 'parameter_unknown', 'filter.catalogId']);
  });
});

describe('filter.title: word search', () => {
  const search = (q: string, extra = '') => categoryNames(`filter.title=${enc(q)}&isInStock=false&sortBy=price:ASC${extra}`);

  test('English: every word, any order, case-insensitive; the last word may be the beginning of one', async () => {
    expect(await search('red')).toEqual(['redTee', 'sneakers']); // "Red", and "Reddish" by prefix
    expect(await search('RED COTTON')).toEqual(['redTee']);
    expect(await search('cotton red')).toEqual(['redTee']);
    expect(await search('red sn')).toEqual([]); // "red" before another word is a whole word: not "Reddish"
    expect(await search('reddish sn')).toEqual(['sneakers']);
    expect(await search('t-shirt')).toEqual(['redTee', 'blueTee']);
    expect(await search('glass tea')).toEqual(['teapot']);
    expect(await search('shirt blue red')).toEqual([]);
  });

  test('English words are not searched in the Arabic title, nor Arabic in the English', async () => {
    expect(await search('Shoes')).toEqual(['blackShoes']);
    expect(await search('زجاجي')).toEqual(['teapot']);
    expect(await search('Glass')).toEqual(['teapot']);
  });

  test('Arabic: أحمر and احمر find each other', async () => {
    expect(await search('احمر')).toEqual(['redTee', 'sneakers']);
    expect(await search('أحمر')).toEqual(['redTee', 'sneakers']);
    expect(await search('إبريق')).toEqual(['teapot']);
    expect(await search('ابريق شاي')).toEqual(['teapot']);
    expect(await search('آبريق')).toEqual(['teapot']);
  });

  test('Arabic: diacritics and tatweel are ignored, in the title and in the query', async () => {
    expect(await search('حذاء اسود')).toEqual(['blackShoes']); // title "حذاءٌ أسودُ للجري"
    expect(await search('حذاء')).toEqual(['sneakers', 'blackShoes']); // and "حـذاء رياضي أحمر"
    expect(await search('حـــذاء رياضي')).toEqual(['sneakers']);
    expect(await search('قَمِيصٌ')).toEqual(['kidsTee', 'redTee', 'blueTee']);
  });

  test('Arabic: ة as ه and ى as ي', async () => {
    expect(await search('حقيبه')).toEqual(['kit']);
    expect(await search('حقيبة')).toEqual(['kit']);
    expect(await search('مستشفي')).toEqual(['kit']);
    expect(await search('مستشفى')).toEqual(['kit']);
  });

  test('with the other filters, and on another tenant nothing of this one', async () => {
    expect(await search('قميص', `&categoryId=${cat.tshirts.id}&filter.price=$gte:2000`)).toEqual(['redTee', 'blueTee']);
    const b = await get(`/category?filter.title=${enc('قميص')}`, B.secretKey);
    expect(b.body.products.map((p: { id: string }) => p.id)).toEqual([bProduct]);
  });

  test('a value with no word, too many words or too long is a 400', async () => {
    for (const q of ['!!', ' ', 'a b c d e f g h i j k', 'x'.repeat(201)]) {
      const r = await get(`/category?filter.title=${enc(q)}`);
      expect([q.slice(0, 12), r.status, r.body.error.param]).toEqual([q.slice(0, 12), 400, 'filter.title']);
    }
  });
});

describe('tenancy', () => {
  test("another tenant's catalogs, categories and products are never seen", async () => {
    const catalogs = await get('/catalogs', B.secretKey);
    expect(catalogs.body.catalogs.map((c: { id: string }) => c.id)).toEqual([bCatalog]);
    expect((await get(`/catalogs?filter.catalogId=${ctl.summer}`, B.secretKey)).body.catalogs).toEqual([]);
    expect((await get(`/catalogs?filter.catalogId=${bCatalog}`)).body.catalogs).toEqual([]);
    const cp = await get(`/catalogs-products?filter.catalogId=${ctl.summer}`, B.secretKey);
    expect(cp.body).toEqual({ catalogs: [], pagination: { totalItems: 0, currentPage: 1, pageSize: 20, totalPages: 0 } });
    const bAll = await get('/category', B.secretKey);
    expect(bAll.body.categories.map((c: { id: string }) => c.id)).toEqual([bCategory]);
    expect(bAll.body.products.map((p: { id: string }) => p.id)).toEqual([bProduct]);
    expect((await get(`/category?categoryId=${cat.clothing.id}`, B.secretKey)).status).toBe(404);
  });
});

describe('live reads', () => {
  test('a stock change through PATCH is visible at once: out of stock hides, back in stock shows', async () => {
    const gone = await patch(`/admin/tenants/${A.tenant}/products/${prod.kidsTee}`, { stock: 0 });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ id: prod.kidsTee, stock: 0, isInStock: false, price: 1000 });
    expect(await categoryNames(`categoryId=${cat.tshirts.id}`)).toEqual(['redTee', 'blueTee']);
    const back = await patch(`/admin/tenants/${A.tenant}/products/${prod.blackShoes}`, { stock: 4 });
    expect(back.body).toMatchObject({ stock: 4, isInStock: true });
    const r = await get(`/catalogs-products?filter.catalogId=${ctl.new}`);
    expect(names(r.body.catalogs[0].products)).toEqual(['blackShoes', 'redTee', 'teapot']);
  });

  test('a price change is visible at once, to filters and sorts too', async () => {
    const r = await patch(`/admin/tenants/${A.tenant}/products/${prod.kit}`, { price: 9000, stock: 3 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: prod.kit, price: 9000, stock: 3, isInStock: true, currency: 'EUR' });
    expect((await categoryNames('sortBy=price:DESC'))[0]).toBe('kit');
    expect(await categoryNames('filter.price=$gte:8500')).toEqual(['kit']);
  });
});

describe('the OpenAPI document', () => {
  test('documents the three lists, their parameters and the Product object', async () => {
    const doc = (await api.get('/openapi.json')).body;
    for (const path of ['/catalogs', '/catalogs-products', '/category']) expect(doc.paths[path].get.security).toEqual([{ secretKey: [] }]);
    const params = doc.paths['/category'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(['page', 'perPage', 'categoryId', 'filter.price', 'filter.title', 'isInStock', 'sortBy']));
    const product = doc.paths['/category'].get.responses['200'].content['application/json'].schema.properties.products.items;
    expect(Object.keys(product.properties)).toEqual(
      expect.arrayContaining(['id', 'sku', 'title', 'price', 'currency', 'stock', 'isInStock', 'ratingsAverage', 'ratingsCount', 'popularity', 'categoryIds', 'attributes', 'imageUrl']),
    );
    expect(doc.paths['/admin/tenants/{tenant}/products/{id}'].patch).toBeDefined();
  });
});
