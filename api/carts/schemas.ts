import { z } from 'zod';
import { currencySchema, idempotencyKeySchema, typedId } from '../http/common-schemas';

// Carts and addresses of the commerce interface: camelCase fields as the spec names them, money in integer
// minor units of the cart's currency.

/** The merchant's own id of its customer: carts and saved addresses belong to it. */
export const userIdSchema = z.string().min(1).max(255).meta({ description: "The merchant's unique id of its customer" });

/** The fields of an Address as a request gives them (POST /commerce/addresses; a checkout's full shippingAddress). */
export const addressFields = {
  phone: z.string().trim().min(1).max(40),
  additionalPhone: z.string().trim().min(1).max(40).nullable().optional(),
  address: z.string().trim().min(1).max(500).meta({ description: 'Street, building, floor: the delivery line' }),
  additionalInfo: z.string().trim().min(1).max(500).nullable().optional().meta({ description: 'Directions for the courier' }),
  region: z.string().trim().min(1).max(100),
  city: z.string().trim().min(1).max(100),
};

export const addressInputSchema = z.object(addressFields).strict();

export const addressCreateBody = z.object({ userId: userIdSchema, ...addressFields }).strict();
export type AddressCreateBody = z.infer<typeof addressCreateBody>;

/** An Address object of the spec. */
export const addressView = z.object({
  id: z.string().meta({ description: 'addr_...: give it as `shippingAddress: {id}` at checkout' }),
  phone: z.string(),
  additionalPhone: z.string().nullable(),
  address: z.string(),
  additionalInfo: z.string().nullable(),
  region: z.string(),
  city: z.string(),
});
export type AddressView = z.infer<typeof addressView>;

export const cartCreateBody = z
  .object({
    userId: userIdSchema,
    idempotencyKey: idempotencyKeySchema.optional().meta({ description: 'A repeated create with this key answers the cart it made (200) when `userId` and `currency` are the same; else 400 `idempotency_key_in_use`' }),
    currency: currencySchema.meta({ description: 'Every product of the cart must be priced in it' }),
  })
  .strict();
export type CartCreateBody = z.infer<typeof cartCreateBody>;

export const cartCreateResponse = z.object({
  cartId: z.string().meta({ description: 'cart_...: keep it; the cart is deleted 6 months after creation unless a checkout converted it' }),
  customerAddresses: z.array(addressView).meta({ description: "The user's saved addresses, newest first (at most 50)" }),
});

export const MAX_CART_LINES = 100;

export const cartLineInput = z
  .object({
    id: z.string().min(1).max(100).meta({ description: 'prod_... of this tenant' }),
    quantity: z.number().int().meta({ description: "At least 1 and at most the product's current stock", minimum: 1 }),
  })
  .strict();

export const cartSetBody = z
  .object({
    cartId: typedId('cart'),
    products: z
      .array(cartLineInput)
      .max(MAX_CART_LINES)
      .meta({ description: 'The whole new contents: every product wanted, each once with its quantity; an empty list empties the cart' }),
  })
  .strict();
export type CartSetBody = z.infer<typeof cartSetBody>;

export const cartParams = z.object({ cartId: typedId('cart') }).strict();

export const totalsSchema = z.object({
  subtotal: z.number().int().meta({ description: 'Sum of the lines (unitPrice × quantity)' }),
  tax: z.number().int().meta({ description: "The tenant's tax rate on the subtotal (never on shipping), rounded half up once per cart" }),
  shipping: z.number().int().nullable().meta({ description: 'null on a cart: shipping is known at checkout, once there is an address' }),
  total: z.number().int().meta({ description: 'subtotal + tax (+ shipping)' }),
});

/** A line of a cart: the product as the shop shows it, and the price the line was set at. */
export const cartProductView = z.object({
  id: z.string().meta({ description: 'prod_...' }),
  sku: z.string().nullable(),
  title: z
    .object({ en: z.string(), ar: z.string() })
    .nullable()
    .meta({ description: 'The live title; null if the product is no longer in the catalog' }),
  imageUrl: z.string().nullable(),
  quantity: z.number().int(),
  unitPrice: z.number().int().meta({ description: 'The live price when the contents were last set (POST /cart); a checkout compares it with the price then' }),
  lineTotal: z.number().int().meta({ description: 'unitPrice × quantity, before tax' }),
});

export const cartView = z.object({
  cartId: z.string(),
  userId: z.string(),
  status: z.enum(['open', 'checkout_in_progress', 'converted']).meta({
    description:
      '`checkout_in_progress` while a checkout of it is open (reserving or awaiting payment, `checkoutId`): its contents cannot change (POST /cart is a 409 `checkout_in_progress`) until that checkout ends unpaid (then `open`) or is paid; `converted` once a checkout of it was paid: it no longer changes (409) and is kept',
  }),
  checkoutId: z.string().nullable().meta({ description: 'The checkout that holds it (`checkout_in_progress`) or converted it; null when `open`' }),
  currency: z.string(),
  idempotencyKey: z.string().nullable(),
  totals: totalsSchema,
  products: z.array(cartProductView),
});
export type CartView = z.infer<typeof cartView>;
