import { z } from 'zod';
import { idempotencyKeySchema } from '../http/common-schemas';

// Tax rates, as Stripe's: a percentage, inclusive (already in the price) or exclusive (added on top), applied
// to invoices of the subscriptions that name it. Its percentage never changes: make a new rate.

/** Whether `x` has at most `digits` decimals (as written: 8.875 has 3). */
export function hasAtMostDecimals(x: number, digits: number): boolean {
  const scaled = x * 10 ** digits;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

const displayName = z.string().trim().min(1).max(50).describe('Shown on invoices, e.g. `VAT` or `Sales tax`');
const jurisdiction = z.string().max(50).describe('Where it applies, e.g. `DE` or `NY`');

export const taxRateCreateBody = z
  .object({
    percentage: z
      .number()
      .gt(0)
      .max(100)
      .refine((p) => hasAtMostDecimals(p, 4), 'at most 4 decimals')
      .describe('Above 0 and at most 100, with at most 4 decimals (8.875)'),
    inclusive: z.boolean().describe('true: the tax is part of the price; false: it is added on top'),
    display_name: displayName,
    jurisdiction: jurisdiction.optional(),
    description: z.string().max(500).optional().describe('For you; not shown to customers'),
    idempotency_key: idempotencyKeySchema.optional().describe('A create repeated with the same key and the same parameters (every one) answers the tax rate it made (200, `resource_created` false); the key with other parameters is a 400 `idempotency_key_in_use`'),
  })
  .strict();
export type TaxRateCreateBody = z.infer<typeof taxRateCreateBody>;

export const taxRateUpdateBody = z
  .object({
    display_name: displayName.optional(),
    jurisdiction: jurisdiction.nullable().optional().describe('null removes it'),
    active: z.boolean().optional().describe('false: no new subscription may use it; those that have it keep it'),
  })
  .strict();
export type TaxRateUpdateBody = z.infer<typeof taxRateUpdateBody>;

export const taxRateViewSchema = z.object({
  tax_rate: z.string().describe('`txr_...`'),
  object: z.literal('tax_rate'),
  active: z.boolean(),
  percentage: z.number(),
  inclusive: z.boolean(),
  display_name: z.string(),
  jurisdiction: z.string().nullable(),
  description: z.string().nullable(),
  created: z.number().int().describe('Unix seconds'),
});
export type TaxRateView = z.infer<typeof taxRateViewSchema>;
