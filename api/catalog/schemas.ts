import { z } from 'zod';
import { amountSchema, currencySchema, typedId } from '../http/common-schemas';

// Request and response shapes of the catalog: the admin API that fills it and the three browsing lists.
// Field names are the spec's (camelCase); money is an integer in minor units with an ISO 4217 currency.

const text = (max: number) => z.string().trim().min(1).max(max);

export const MAX_ATTRIBUTES = 20;
export const MAX_ATTRIBUTE_VALUES = 100;
export const MAX_PRODUCT_CATEGORIES = 20;
export const MAX_CATALOG_PRODUCTS = 1000;
export const MAX_STOCK = 1_000_000_000;

// ---- titles

/** A category's, attribute's or value's title: a stable `key` (for the merchant's own translations) and both languages. */
export const keyedTitleInput = z
  .object({
    key: text(100).meta({ description: "A stable key of the merchant's choosing (e.g. `colour.red`)" }),
    en: text(200),
    ar: text(200),
  })
  .strict();
/** A product's or catalog's title, in English and Arabic. */
export const titleInput = z.object({ en: text(200), ar: text(200) }).strict();

const keyedTitle = z.object({ key: z.string(), en: z.string(), ar: z.string() });
const title = z.object({ en: z.string(), ar: z.string() }).meta({ description: 'Keyed by language' });

// ---- admin bodies

export const categoryCreateBody = z
  .object({
    title: keyedTitleInput,
    parentId: typedId('cat').nullable().optional().meta({ description: "The parent category (one of this tenant's); omitted or null: a top-level category" }),
    categoryAttributes: z
      .array(
        z
          .object({
            title: keyedTitleInput,
            values: z.array(z.object({ title: keyedTitleInput }).strict()).min(1).max(MAX_ATTRIBUTE_VALUES),
          })
          .strict(),
      )
      .max(MAX_ATTRIBUTES)
      .default([])
      .meta({ description: 'Attributes of the products of this category (colour, size), each with its values; ids are given in the answer' }),
  })
  .strict();
export type CategoryCreateBody = z.infer<typeof categoryCreateBody>;

export const stockSchema = z.number().int('an integer').min(0).max(MAX_STOCK);

export const productCreateBody = z
  .object({
    sku: z
      .string()
      .trim()
      .min(1)
      .max(100)
      // The control characters (Unicode's Cc) spelled out: a `\p{...}` class needs the `u` flag, which the OpenAPI
      // pattern cannot carry (it was published as '...$/u', a pattern nothing matches).
      // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
      .regex(/^[^\u0000-\u001F\u007F-\u009F]+$/, 'no control characters')
      .meta({ description: 'Unique per tenant: a second product with the same sku is a 409' }),
    title: titleInput,
    price: amountSchema.meta({ description: 'Integer in minor units of currency (1999 = 19.99 EUR)' }),
    currency: currencySchema,
    stock: stockSchema.meta({ description: 'Units for sale; later changes go through PATCH .../products/{id}' }),
    ratingsAverage: z.number().min(0).max(5).default(0).meta({ description: 'Average rating, 0 to 5' }),
    ratingsCount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    popularity: z.number().min(0).max(Number.MAX_SAFE_INTEGER).default(0).meta({ description: 'Any non-negative score; the default sort is by it, highest first' }),
    categoryIds: z.array(typedId('cat')).max(MAX_PRODUCT_CATEGORIES).default([]).meta({ description: "The tenant's categories the product is in (a product is also found under their parents)" }),
    attributes: z
      .record(typedId('attr'), z.array(typedId('val')).min(1).max(MAX_ATTRIBUTE_VALUES))
      .default({})
      .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, `at most ${MAX_ATTRIBUTES} attributes`)
      .meta({
        description:
          '<attributeId>: [<valueId>, ...]. Each attribute is one of the product\'s categories (or of a category above them), each value one of that attribute\'s.',
      }),
    imageUrl: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  })
  .strict();
export type ProductCreateBody = z.infer<typeof productCreateBody>;

export const productUpdateBody = z
  .object({
    price: amountSchema.optional().meta({ description: 'New price in minor units: visible at once (carts and checkouts read it live)' }),
    stock: stockSchema
      .optional()
      .meta({
        description:
          "Units on hand, as counted on the shelf: units held by open checkouts count against it, so the answer's `stock` (units for sale) is this less what they hold (`held`). A count below what is held is taken (the shelf is the truth); units held past it are sold all the same if their checkouts are paid, and are then counted `oversold` (onHand below 0). Set by the product's stock owner, visible at once",
      }),
    stockChange: z
      .number()
      .int('an integer')
      .min(-MAX_STOCK)
      .max(MAX_STOCK)
      .refine((n) => n !== 0, 'not 0')
      .optional()
      .meta({
        description:
          'Units added to those on hand (a delivery: 5) or taken from them (damage: -2), whatever they are when it lands: no read first. A delivery first makes up for units `oversold` (onHand -1 and 5 delivered: 4 on hand). 400 `stock_change_too_large` if a loss would leave fewer than 0',
      }),
    stockChangeKey: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .meta({
        description:
          "Makes `stockChange` safe to send again (after a 503 or a lost answer): the same change with a key the product's owner has applied answers as it did then, without applying it again; another change with it is a 400 `idempotency_key_in_use`. The owner remembers its last 1,000 keys",
      }),
  })
  .strict()
  .refine((b) => b.price !== undefined || b.stock !== undefined || b.stockChange !== undefined, 'give price, stock or stockChange')
  .refine((b) => b.stock === undefined || b.stockChange === undefined, { message: 'give stock (a count) or stockChange (a delivery or a loss), not both', path: ['stockChange'] })
  .refine((b) => b.stockChangeKey === undefined || b.stockChange !== undefined, { message: 'stockChangeKey goes with a stockChange', path: ['stockChangeKey'] });
export type ProductUpdateBody = z.infer<typeof productUpdateBody>;

const tag = text(50).refine((t) => !t.includes(','), 'a tag has no comma (filter.tags=$in:[a,b] separates tags by commas)');

export const catalogCreateBody = z
  .object({
    title: titleInput,
    tags: z.array(tag).max(20).default([]).meta({ description: 'Tags to find the catalog by (filter.tags); case-sensitive' }),
    productIds: z.array(typedId('prod')).max(MAX_CATALOG_PRODUCTS).default([]).meta({ description: "The tenant's products in the catalog" }),
  })
  .strict();
export type CatalogCreateBody = z.infer<typeof catalogCreateBody>;

export const idResponse = z.object({ id: z.string() });

// ---- objects

export const productSchema = z
  .object({
    id: z.string().meta({ description: 'prod_...' }),
    sku: z.string(),
    title,
    price: z.number().int().meta({ description: 'Live price, integer in minor units' }),
    currency: z.string().meta({ description: 'ISO 4217, upper case' }),
    stock: z.number().int().meta({ description: 'Units for sale now' }),
    isInStock: z.boolean().meta({ description: 'stock > 0' }),
    ratingsAverage: z.number(),
    ratingsCount: z.number().int(),
    popularity: z.number(),
    categoryIds: z.array(z.string()),
    attributes: z.record(z.string(), z.array(z.string())).meta({ description: '<attributeId>: [<valueId>, ...]' }),
    imageUrl: z.string().nullable(),
  })
  .meta({ description: 'A product, as every catalog list answers it' });

/** PATCH's answer: the product, and how its units stand with the owner of its stock. */
export const productUpdatedSchema = productSchema
  .extend({
    onHand: z.number().int().meta({
      description:
        'Units on hand as the owner of its stock counts them: the last count (`stock`) with deliveries and losses (`stockChange`) since, less units sold. Below 0 when units were sold that were not on hand (see `oversold`)',
    }),
    held: z.number().int().meta({ description: 'Units open checkouts hold: sold if they are paid, for sale again if not. `stock` (for sale) is onHand less held, never below 0' }),
    oversold: z.number().int().meta({
      description:
        'Units sold that were not on hand (held by a checkout before a lower count, then paid): -onHand when onHand is below 0, else 0. A delivery (`stockChange`) makes up for them first; a new count (`stock`) replaces them',
    }),
    heldPastOnHand: z.number().int().meta({ description: 'Units held beyond those on hand: if their checkouts are paid, they are oversold' }),
  })
  .meta({ description: 'The product as it now is, with its units on hand, held and oversold' });
export type ProductUpdatedView = z.infer<typeof productUpdatedSchema>;

const categoryAttributeSchema = z.object({
  id: z.string().meta({ description: 'attr_...: the key of filter.attr.<attributeId>' }),
  title: keyedTitle,
  values: z.array(z.object({ id: z.string().meta({ description: 'val_...' }), title: keyedTitle })),
});

export const categorySchema = z.object({
  id: z.string().meta({ description: 'cat_...' }),
  title: keyedTitle,
  children: z.array(z.object({ id: z.string(), title: keyedTitle })).meta({ description: 'The categories directly under it' }),
  categoryAttributes: z.array(categoryAttributeSchema),
});

export const catalogSchema = z.object({
  id: z.string().meta({ description: 'ctl_...' }),
  title,
  tags: z.array(z.string()),
  totalProducts: z.number().int().meta({
    description: 'Products of the catalog that GET /catalogs-products lists by default: those in stock (isInStock=true, the default); with isInStock=false, all of them',
  }),
});

export const paginationSchema = z.object({
  totalItems: z.number().int().meta({ description: 'Products matching the query, over all pages' }),
  currentPage: z.number().int(),
  pageSize: z.number().int().meta({ description: 'perPage' }),
  totalPages: z.number().int().meta({ description: 'ceil(totalItems / pageSize); 0 when nothing matches' }),
});

export const catalogsResponse = z.object({ catalogs: z.array(catalogSchema) });

export const catalogsProductsResponse = z.object({
  catalogs: z.array(
    z.object({
      title,
      id: z.string(),
      children: z.array(z.object({ id: z.string(), title: keyedTitle })).meta({ description: 'Always empty: a catalog is curated, not a tree' }),
      categoryAttributes: z.array(categoryAttributeSchema).meta({ description: 'Always empty: catalogs have no category-specific attributes' }),
      products: z.array(productSchema).meta({ description: "The products of this page that are in this catalog, in the list's order" }),
    }),
  ),
  pagination: paginationSchema.meta({
    description: 'One list over the distinct products of the catalogs matched (a product in two of them counts once): each catalog shows its share of the page',
  }),
});

export const categoryResponse = z.object({
  categories: z.array(categorySchema).meta({ description: 'The category asked for (categoryId), or the top-level categories' }),
  products: z.array(productSchema),
  pagination: paginationSchema,
});
