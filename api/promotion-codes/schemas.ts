import { z } from 'zod';
import { metadataSchema, typedId } from '../http/common-schemas';
import { couponViewSchema, futureUnixSeconds } from '../coupons/schemas';

// Promotion codes, as Stripe's: a code customers type that stands for a coupon, with limits of its own. A
// code is matched whatever its case and names one promotion code per account.

export const promotionCodeCreateBody = z
  .object({
    coupon: typedId('coupon').describe('The coupon the code stands for'),
    code: z
      .string()
      .min(3)
      .max(50)
      .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only')
      .describe('What customers type: 3 to 50 letters, digits, `-` and `_`. Matched whatever its case; unique in your account'),
    max_redemptions: z.number().int('an integer').min(1).max(1_000_000_000).optional().describe('How many subscriptions may redeem this code'),
    expires_at: futureUnixSeconds.optional().describe('When the code stops working, in Unix seconds (must be in the future)'),
    active: z.boolean().default(true),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type PromotionCodeCreateBody = z.infer<typeof promotionCodeCreateBody>;

export const promotionCodeUpdateBody = z
  .object({
    active: z.boolean().optional().describe('false: the code can no longer be redeemed (subscriptions that used it keep their discount)'),
    metadata: metadataSchema.optional().describe('Merged into the code\'s metadata: a key with an empty value is removed'),
  })
  .strict();
export type PromotionCodeUpdateBody = z.infer<typeof promotionCodeUpdateBody>;

export const promotionCodeViewSchema = z.object({
  promotion_code: z.string().describe('`promo_...`'),
  object: z.literal('promotion_code'),
  code: z.string().describe('As it was created (matched whatever the case)'),
  coupon: couponViewSchema,
  active: z.boolean(),
  max_redemptions: z.number().int().nullable(),
  times_redeemed: z.number().int(),
  expires_at: z.number().int().nullable().describe('Unix seconds'),
  metadata: z.record(z.string(), z.string()),
  created: z.number().int().describe('Unix seconds'),
});
export type PromotionCodeView = z.infer<typeof promotionCodeViewSchema>;
