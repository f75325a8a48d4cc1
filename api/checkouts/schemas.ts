import { z } from 'zod';
import { typedId } from '../http/common-schemas';
import { MISSING } from '../http/validate';
import { addressFields, addressInputSchema, addressView, cartProductView, totalsSchema } from '../carts/schemas';

const ADDRESS_SHAPE = '{id} of a saved address (addr_...) or an Address object (phone, address, region, city; additionalPhone and additionalInfo optional)';

/** The first problem of the branch a wrong address came closest to: `{id}` alone, or an Address (with or without its id). */
function addressProblem(input: unknown, branches: readonly (readonly z.core.$ZodIssue[])[]): string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return `expected ${ADDRESS_SHAPE}`;
  const keys = Object.keys(input);
  const branch = keys.length === 0 ? undefined : keys.every((k) => k === 'id') ? branches[0] : keys.includes('id') ? branches[2] : branches[1];
  const issue = branch?.[0];
  if (!issue) return `expected ${ADDRESS_SHAPE}`;
  const at = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.map(String).join('.');
  const what = issue.code === 'unrecognized_keys' ? 'not a field of an Address' : issue.message;
  return `expected ${ADDRESS_SHAPE}; ${at ? `${at}: ` : ''}${what}`;
}

/**
 * `{id}` of one of the user's saved addresses, or a full Address (saved for the user). A full Address object
 * with its `id` (as `customerAddresses` lists it) names that saved address, whose fields it must carry. Absent,
 * it is `parameter_missing` (MISSING); of a wrong shape, the message says what is expected and what is wrong.
 */
export const shippingAddressInput = z.preprocess(
  (value, ctx) => {
    if (value === undefined) ctx.issues.push({ code: 'custom', message: 'Required', input: value, params: MISSING });
    return value;
  },
  z.union([z.object({ id: typedId('addr') }).strict(), addressInputSchema, z.object({ id: typedId('addr'), ...addressFields }).strict()], {
    error: (issue) => (issue.code === 'invalid_union' ? addressProblem(issue.input, issue.errors) : undefined),
  }),
);

export const checkoutCreateBody = z
  .object({
    cartId: typedId('cart').meta({ description: 'The cart to check out; after `cartChanges`, the `newCart.cartId` to continue with it' }),
    shippingAddress: shippingAddressInput,
  })
  .strict();
export type CheckoutCreateBody = z.infer<typeof checkoutCreateBody>;

export const checkoutLineView = z.object({
  id: z.string().meta({ description: 'prod_...' }),
  title: z.object({ en: z.string(), ar: z.string() }),
  quantity: z.number().int(),
  unitPrice: z.number().int(),
  lineTotal: z.number().int(),
});

export const cartChangesView = z
  .object({
    type: z.enum(['prices', 'quantity', 'price_and_quantity']),
    newCart: z.object({ cartId: z.string(), products: z.array(cartProductView), currency: z.string(), totals: totalsSchema }),
    differences: z.array(
      z.object({
        productId: z.string(),
        quantityChange: z.number().int().meta({ description: 'newQuantity minus the quantity asked for (negative: fewer in stock)' }),
        newQuantity: z.number().int().meta({ description: '0: out of stock; ask the customer whether to continue without it' }),
        priceChange: z.number().int().meta({ description: 'newPrice minus the price the line was set at' }),
        newPrice: z.number().int(),
      }),
    ),
  })
  .meta({
    description:
      'The cart changed since it was set (stock or prices): nothing was held and no payment intent made. Ask the customer, then send `newCart.cartId` as `cartId` to continue.',
  });

export const checkoutStatus = z
  .enum(['reserving', 'awaiting_payment', 'completed', 'canceled', 'changed', 'abandoned'])
  .meta({
    description:
      '`awaiting_payment`: its stock is held until its payment intent succeeds (then `completed`, with `orderId`) or is canceled or expires (`canceled`, stock released). `changed`: answered with cartChanges. `abandoned`: no payment intent was made in time.',
  });

export const checkoutView = z.object({
  checkoutId: z.string(),
  status: checkoutStatus,
  cartId: z.string(),
  userId: z.string(),
  currency: z.string(),
  products: z.array(checkoutLineView),
  totals: totalsSchema,
  shippingAddress: addressView,
  payment_intent: z.string().nullable().meta({ description: 'The v202607 payment intent paying it: its hosted page (`url`) and the attempts endpoint pay it' }),
  url: z.string().nullable().meta({ description: "The payment intent's hosted payment page" }),
  orderId: z.string().nullable(),
  createdAt: z.string(),
});

export const checkoutCreated = checkoutView.pick({ checkoutId: true, status: true, totals: true, payment_intent: true, url: true });
export const checkoutChanged = z.object({ checkoutId: z.string(), status: z.literal('changed'), totals: totalsSchema, cartChanges: cartChangesView });

export const RETURN_REASONS = ['damaged', 'defective', 'wrong_item', 'not_as_described', 'no_longer_needed', 'other'] as const;

export const orderView = z.object({
  orderId: z.string(),
  checkoutId: z.string(),
  userId: z.string(),
  status: z.literal('paid'),
  payment_intent: z.string(),
  currency: z.string(),
  products: z.array(checkoutLineView),
  totals: totalsSchema,
  shippingAddress: addressView,
  returnableProducts: z.array(
    z.object({
      productId: z.string(),
      returnableQuantity: z.number().int().meta({ description: 'Ordered, minus returns that are not rejected (open ones count)' }),
      returnableReasons: z.array(z.enum(RETURN_REASONS)),
    }),
  ),
  createdAt: z.string(),
});
