import { z } from 'zod';
import { tierProblem } from '../../domain/billing/pricing';
import { amountSchema, currencySchema, idempotencyKeySchema, metadataSchema } from '../http/common-schemas';

// Plans, as Stripe's: a price per unit (or by tiers of quantity) charged every `interval_count` intervals.
// Prices are immutable once made: an update changes only the nickname and the metadata.

/** A list filter written `true` or `false` in the query string. */
export const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const PLAN_INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** At most one year between two charges, as Stripe allows. */
export const MAX_INTERVAL_COUNT: Record<(typeof PLAN_INTERVALS)[number], number> = { day: 365, week: 52, month: 12, year: 1 };

export const MAX_TRIAL_PERIOD_DAYS = 730;
const MAX_TIERS = 50;

/**
 * An issue zod's own "required" issue looks like, so the API answers it as `parameter_missing` naming the
 * parameter (api/http/validate.ts), with the reason it is required here.
 */
export function missing(ctx: z.RefinementCtx, path: (string | number)[], expected: 'number' | 'string' | 'array' | 'boolean', why: string): void {
  ctx.addIssue({ code: 'invalid_type', expected, input: undefined, path, message: `Invalid input: expected ${expected}, received undefined (${why})` });
}

const tierInput = z
  .object({
    up_to: z
      .union([z.number().int('an integer').min(1), z.literal('inf')])
      .describe('The last unit this tier prices (inclusive), or `inf` for the last tier: the rest'),
    unit_amount: amountSchema.optional().describe('Per unit in this tier, in minor units'),
    flat_amount: amountSchema.optional().describe('Once per period when any unit falls in this tier, in minor units'),
  })
  .strict();

export const planCreateBody = z
  .object({
    amount: amountSchema.optional().describe('Per unit and period, in minor units. Required for `per_unit`; absent (or 0) for `tiered`'),
    currency: currencySchema.describe('A 3-letter ISO 4217 code, accepted in any case and answered in upper case'),
    interval: z.enum(PLAN_INTERVALS),
    interval_count: z
      .number()
      .int('an integer')
      .min(1)
      .default(1)
      .describe('Intervals between two charges: at most one year in total (day 365, week 52, month 12, year 1)'),
    trial_period_days: z.number().int('an integer').min(0).max(MAX_TRIAL_PERIOD_DAYS).optional().describe('Days of free trial a new subscription gets by default'),
    nickname: z.string().max(200).optional(),
    billing_scheme: z.enum(['per_unit', 'tiered']).default('per_unit'),
    tiers: z.array(tierInput).min(1).max(MAX_TIERS).optional().describe('For `tiered`: ascending `up_to`, the last one `inf`'),
    tiers_mode: z.enum(['graduated', 'volume']).optional().describe('For `tiered`: `graduated` prices each tier\'s own units; `volume` prices every unit at the tier the quantity falls in'),
    metadata: metadataSchema.optional(),
    idempotency_key: idempotencyKeySchema.optional().describe('A create repeated with the same key and the same parameters (every one, metadata too) answers the plan it made (200, `resource_created` false); the key with other parameters is a 400 `idempotency_key_in_use`'),
  })
  .strict()
  .superRefine((v, ctx) => {
    const max = MAX_INTERVAL_COUNT[v.interval];
    if (v.interval_count > max)
      ctx.addIssue({ code: 'custom', path: ['interval_count'], message: `at most one year between charges: ${max} for interval ${v.interval}` });
    if (v.billing_scheme === 'per_unit') {
      if (v.amount === undefined) missing(ctx, ['amount'], 'number', 'required with billing_scheme per_unit');
      if (v.tiers !== undefined) ctx.addIssue({ code: 'custom', path: ['tiers'], message: 'tiers are only allowed with billing_scheme tiered' });
      if (v.tiers_mode !== undefined) ctx.addIssue({ code: 'custom', path: ['tiers_mode'], message: 'tiers_mode is only allowed with billing_scheme tiered' });
      return;
    }
    if (v.amount !== undefined && v.amount !== 0) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'a tiered plan is priced by its tiers: leave amount out (or 0)' });
    if (v.tiers === undefined) missing(ctx, ['tiers'], 'array', 'required with billing_scheme tiered');
    if (v.tiers_mode === undefined) missing(ctx, ['tiers_mode'], 'string', 'required with billing_scheme tiered');
    if (v.tiers === undefined || v.tiers_mode === undefined) return;
    v.tiers.forEach((t, i) => {
      if (t.unit_amount === undefined && t.flat_amount === undefined) missing(ctx, ['tiers', i, 'unit_amount'], 'number', 'give unit_amount, flat_amount or both');
    });
    const problem = tierProblem({ amount: 0, billing_scheme: 'tiered', tiers_mode: v.tiers_mode, tiers: storedTiers(v.tiers) });
    if (problem) ctx.addIssue({ code: 'custom', path: problemPath(problem), message: problem });
  });
export type PlanCreateBody = z.infer<typeof planCreateBody>;

/** Tiers as stored: `inf` is null, an amount left out is 0. */
export function storedTiers(tiers: z.infer<typeof tierInput>[]): { up_to: number | null; unit_amount: number; flat_amount: number }[] {
  return tiers.map((t) => ({ up_to: t.up_to === 'inf' ? null : t.up_to, unit_amount: t.unit_amount ?? 0, flat_amount: t.flat_amount ?? 0 }));
}

/** The parameter a tierProblem() message is about (`tiers[1].up_to ...` -> tiers[1][up_to]). */
function problemPath(problem: string): (string | number)[] {
  const m = /tiers\[(\d+)\]\.?(\w+)?/.exec(problem);
  if (m) return m[2] ? ['tiers', Number(m[1]), m[2]] : ['tiers', Number(m[1])];
  if (/last tier/.test(problem)) return ['tiers'];
  if (/tiers_mode/.test(problem)) return ['tiers_mode'];
  return ['tiers'];
}

export const planUpdateBody = z
  .object({
    nickname: z.string().max(200).nullable().optional().describe('null (or an empty string) removes it'),
    metadata: metadataSchema
      .optional()
      .describe('Merged into the plan\'s metadata: a key with an empty value is removed. Prices cannot change: make a new plan'),
  })
  .strict();
export type PlanUpdateBody = z.infer<typeof planUpdateBody>;

export const planViewSchema = z.object({
  plan: z.string().describe('`plan_...`'),
  object: z.literal('plan'),
  active: z.boolean().describe('false once archived: existing subscriptions keep it, new ones cannot use it'),
  amount: z.number().int().nullable().describe('Per unit and period in minor units; null for a tiered plan'),
  currency: z.string().describe('3-letter ISO 4217 code, upper case'),
  interval: z.enum(PLAN_INTERVALS),
  interval_count: z.number().int(),
  trial_period_days: z.number().int().nullable(),
  nickname: z.string().nullable(),
  billing_scheme: z.enum(['per_unit', 'tiered']),
  tiers_mode: z.enum(['graduated', 'volume']).nullable(),
  tiers: z
    .array(z.object({ up_to: z.number().int().nullable().describe('null for the last tier'), unit_amount: z.number().int(), flat_amount: z.number().int() }))
    .nullable(),
  metadata: z.record(z.string(), z.string()),
  created: z.number().int().describe('Unix seconds'),
});
export type PlanView = z.infer<typeof planViewSchema>;
