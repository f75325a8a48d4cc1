import { z } from 'zod';
import { REJECTION_REASON } from '../../domain/returns';
import { typedId } from '../http/common-schemas';
import { addressView } from '../carts/schemas';
import { RETURN_REASONS, shippingAddressInput } from '../checkouts/schemas';

export const returnCreateBody = z
  .object({
    orderId: typedId('ord'),
    idempotencyKey: z.string().min(1).max(255).meta({ description: 'The same key answers the same return' }),
    productId: typedId('prod'),
    quantity: z.number().int().min(1).meta({ description: "1 to the product's returnableQuantity on the order (open returns count)" }),
    reasonCode: z.enum(RETURN_REASONS),
    address: shippingAddressInput.meta({ description: "Where the goods are collected: `{id}` of one of the user's saved addresses, or a full Address (with its `id`, it names that saved address and must carry its fields)" }),
  })
  .strict();
export type ReturnCreateBody = z.infer<typeof returnCreateBody>;

export const returnStatusSchema = z.string().meta({
  description:
    '`requested` -> `approved` -> `received` -> `refunded` (or `refund_failed` when its refund is canceled); `requested` or `approved` -> `rejected.<reason>`. The merchant moves it with PUT /returns/{id}; `refunded` and `refund_failed` follow the refund made when it is received.',
});

export const returnMoveBody = z
  .object({
    status: z.enum(['approved', 'received', 'rejected']),
    reason: z
      .string()
      .regex(REJECTION_REASON, 'lower-case letters, digits and underscores')
      .optional()
      .meta({ description: 'With `rejected`: the suffix of `rejected.<reason>`' }),
  })
  .strict();
export type ReturnMoveBody = z.infer<typeof returnMoveBody>;

export const returnView = z.object({
  id: z.string(),
  orderId: z.string(),
  idempotencyKey: z.string(),
  userId: z.string(),
  productId: z.string(),
  product: z.object({ id: z.string(), title: z.object({ en: z.string(), ar: z.string() }) }).nullable(),
  status: returnStatusSchema,
  reasonCode: z.string(),
  quantity: z.number().int(),
  address: addressView,
  amount: z.number().int().meta({ description: 'What its refund gives back: the units at the price paid and their share of tax (not shipping)' }),
  currency: z.string(),
  refund: z.string().nullable().meta({ description: 'The refund (`re_...`) made when it was received; none for a return of amount 0 (a free product), which is `refunded` at once' }),
  refundFailure: z
    .object({
      code: z.string().meta({ description: '`refund_canceled` (its refund was canceled at its deadline), or the refusal of its refund when it was received, e.g. `REFUND_RQST_AMT_GREATER_THAN_TX_AMT` (the payment was refunded outside returns)' }),
      message: z.string(),
    })
    .nullable()
    .meta({ description: 'Why a `refund_failed` return gave no money back; null in every other status' }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
