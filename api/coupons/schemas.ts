import { z } from 'zod';
import { amountSchema, currencySchema, idempotencyKeySchema, MAX_UNIX_SECONDS, metadataSchema } from '../http/common-schemas';
import { missing } from '../plans/schemas';
import { hasAtMostDecimals } from '../tax-rates/schemas';

// Coupons, as Stripe's: a percentage or an amount off, once, for some months, or forever; redeemable until
// `redeem_by` and at most `max_redemptions` times (counted by the coupon's redemption workflow).

export const COUPON_DURATIONS = ['once', 'repeating', 'forever'] as const;
export const MAX_DURATION_IN_MONTHS = 120;

/** A time to come, in Unix seconds (checked against the clock when the request is read). */
export const futureUnixSeconds = z
  .number()
  .int('an integer: Unix seconds')
  .min(1)
  .max(MAX_UNIX_SECONDS)
  .refine((s) => s * 1000 > Date.now(), 'must be in the future');

export const couponCreateBody = z
  .object({
    percent_off: z
      .number()
      .gt(0)
      .max(100)
      .refine((p) => hasAtMostDecimals(p, 2), 'at most 2 decimals')
      .optional()
      .describe('Above 0 and at most 100, with at most 2 decimals. Give this, or amount_off and currency'),
    amount_off: amountSchema.min(1).optional().describe('In minor units of `currency`. Give this and currency, or percent_off'),
    currency: currencySchema.optional().describe('The currency of amount_off; such a coupon applies only to subscriptions in it'),
    duration: z.enum(COUPON_DURATIONS).describe('`once`: the first invoice; `repeating`: `duration_in_months`; `forever`'),
    duration_in_months: z.number().int('an integer').min(1).max(MAX_DURATION_IN_MONTHS).optional().describe('Required with `repeating`, and only with it'),
    max_redemptions: z.number().int('an integer').min(1).max(1_000_000_000).optional().describe('How many subscriptions may redeem it in all'),
    redeem_by: futureUnixSeconds.optional().describe('Last moment it can be redeemed, in Unix seconds (must be in the future)'),
    name: z.string().max(40).optional().describe('Shown on invoices'),
    metadata: metadataSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional().describe('A create repeated with the same key and the same parameters (every one, metadata too) answers the coupon it made (200, `resource_created` false); the key with other parameters is a 400 `idempotency_key_in_use`'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.percent_off !== undefined) {
      if (v.amount_off !== undefined) ctx.addIssue({ code: 'custom', path: ['amount_off'], message: 'give percent_off or amount_off, not both' });
      else if (v.currency !== undefined) ctx.addIssue({ code: 'custom', path: ['currency'], message: 'currency goes with amount_off only' });
    } else if (v.amount_off !== undefined) {
      if (v.currency === undefined) missing(ctx, ['currency'], 'string', 'required with amount_off');
    } else {
      missing(ctx, ['percent_off'], 'number', 'give percent_off, or amount_off and currency');
    }
    if (v.duration === 'repeating' && v.duration_in_months === undefined) missing(ctx, ['duration_in_months'], 'number', 'required with duration repeating');
    if (v.duration !== 'repeating' && v.duration_in_months !== undefined)
      ctx.addIssue({ code: 'custom', path: ['duration_in_months'], message: 'only with duration repeating' });
  });
export type CouponCreateBody = z.infer<typeof couponCreateBody>;

export const couponViewSchema = z.object({
  coupon: z.string().describe('`coupon_...`'),
  object: z.literal('coupon'),
  name: z.string().nullable(),
  percent_off: z.number().nullable(),
  amount_off: z.number().int().nullable(),
  currency: z.string().nullable().describe('With amount_off: 3-letter ISO 4217 code, upper case'),
  duration: z.enum(COUPON_DURATIONS),
  duration_in_months: z.number().int().nullable(),
  max_redemptions: z.number().int().nullable(),
  redeem_by: z.number().int().nullable().describe('Unix seconds'),
  times_redeemed: z.number().int().describe('Subscriptions that redeemed it'),
  valid: z.boolean().describe('Whether it can still be redeemed: false once redeem_by has passed or max_redemptions is reached'),
  metadata: z.record(z.string(), z.string()),
  created: z.number().int().describe('Unix seconds'),
});
export type CouponView = z.infer<typeof couponViewSchema>;

export const couponDeletedSchema = z.object({ coupon: z.string(), object: z.literal('coupon'), deleted: z.literal(true) });
