import { z } from 'zod';
import { idempotencyKeySchema, metadataSchema, typedId, unixSecondsSchema, webhooksFor } from '../http/common-schemas';
import { MAX_TRIAL_PERIOD_DAYS } from '../plans/schemas';

// Subscriptions (v202607), as Stripe Billing has them: items of plans sharing one currency and billing
// interval, charged off-session with the customer's saved card every period.

// Up to the last second of year 9999, as every time input: a `resumes_at` past what a date can hold failed the preview (500).
const unixSeconds = unixSecondsSchema;
const quantity = z.number().int('an integer').min(1).max(100_000).default(1).describe('Units of the plan; default 1');

const itemInput = z.object({ plan: typedId('plan').describe('The plan (`plan_...`)'), quantity }).strict();

const dunningInput = z
  .object({
    retry_days: z
      .array(z.number().int().min(1).max(60))
      .max(8)
      .refine((d) => d.every((x, i) => i === 0 || x > d[i - 1]!), 'ascending days')
      .optional()
      .describe('Days after the first failed attempt at which a renewal invoice is attempted again; default [1, 3, 7]'),
    when_exhausted: z.enum(['cancel', 'unpaid']).optional().describe('When every attempt failed: cancel the subscription (default; the invoice becomes uncollectible) or leave it `unpaid` (invoices go on being issued but are not attempted; paying the latest makes it active again)'),
  })
  .strict();

/** A subscription's tax rates (and a checkout session's for its subscription): at most 5, each once, since each is applied once per listing. */
export const defaultTaxRatesSchema = z
  .array(typedId('txr'))
  .max(5)
  .refine((ids) => new Set(ids).size === ids.length, 'a tax rate is listed once');

export const subscriptionCreateBody = z
  .object({
    customer: typedId('cus').describe('The customer (`cus_...`); on a test clock when the customer was created with one'),
    items: z.array(itemInput).min(1).max(20).describe('Plans of one currency and one billing interval'),
    default_payment_method: typedId('pm').describe("A card saved to the customer (`pm_...`): every invoice is charged to it off-session (agreement type RECURRING)"),
    coupon: typedId('coupon').optional().describe('A coupon to apply (give this or `promotion_code`)'),
    promotion_code: typedId('promo').optional().describe('A promotion code (`promo_...`) whose coupon applies'),
    default_tax_rates: defaultTaxRatesSchema.optional().describe('Tax rates of every line, each listed once'),
    trial_period_days: z.number().int().min(0).max(MAX_TRIAL_PERIOD_DAYS).optional().describe("Days of free trial; default the first plan's `trial_period_days`"),
    cancel_at_period_end: z.boolean().optional(),
    dunning: dunningInput.optional(),
    metadata: metadataSchema.optional(),
    webhooks: webhooksFor(['subscription.created', 'subscription.updated', 'subscription.canceled', 'invoice.created', 'invoice.paid', 'invoice.payment_failed'], 'a subscription').optional().describe("Endpoints for this subscription's `subscription.*` and `invoice.*` events"),
    idempotency_key: idempotencyKeySchema
      .optional()
      .meta({
        description:
          'A repeated create with this key answers the subscription it made (200, as it stands) when customer, items (plans and quantities, in order), coupon, promotion_code, default_payment_method, default_tax_rates and trial_period_days are the same (each given or left out alike); otherwise 400 `idempotency_key_in_use`. Metadata, webhooks, dunning and cancel_at_period_end may differ',
      }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.coupon !== undefined && b.promotion_code !== undefined)
      ctx.addIssue({ code: 'custom', path: ['promotion_code'], message: 'give only one of coupon and promotion_code' });
  });
export type SubscriptionCreateBody = z.infer<typeof subscriptionCreateBody>;

export const subscriptionUpdateBody = z
  .object({
    items: z
      .array(z.object({ item: typedId('si').optional().describe('The item this entry keeps (its id stays)'), plan: typedId('plan'), quantity }).strict())
      .min(1)
      .max(20)
      .optional()
      .refine((items) => {
        const kept = (items ?? []).flatMap((i) => (i.item ? [i.item] : []));
        return new Set(kept).size === kept.length;
      }, 'an item may appear once')
      .describe('The complete new list of items: an entry with `item` changes that item, one without adds an item, an item left out is removed'),
    proration_behavior: z
      .enum(['create_prorations', 'always_invoice', 'none'])
      .optional()
      .describe('`create_prorations` (default): the prorations go on the next renewal invoice; `always_invoice`: invoiced and charged now (while collection is paused, the invoice is made void at once); `none`'),
    proration_date: unixSeconds.optional().describe('The instant the prorations are computed for (a preview shown to the customer); default now'),
    cancel_at_period_end: z.boolean().optional(),
    pause_collection: z
      .object({ behavior: z.literal('void'), resumes_at: unixSeconds.optional() })
      .strict()
      .nullable()
      .optional()
      .describe('Pause collection (periods go on, nothing is invoiced; an `always_invoice` change makes a void invoice) until `resumes_at` or until set to null'),
    default_payment_method: typedId('pm').optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type SubscriptionUpdateBody = z.infer<typeof subscriptionUpdateBody>;

export const SUBSCRIPTION_STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'canceled'] as const;

export const subscriptionViewSchema = z
  .object({
    subscription: z.string(),
    object: z.literal('subscription'),
    customer: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    currency: z.string(),
    items: z.array(z.object({ item: z.string(), plan: z.string(), quantity: z.number().int() })),
    default_payment_method: z.string(),
    default_tax_rates: z.array(z.string()),
    discount: z.object({ coupon: z.string(), promotion_code: z.string().nullable(), start: z.number().int(), end: z.number().int().nullable() }).nullable(),
    cancel_at_period_end: z.boolean(),
    canceled_at: z.number().int().nullable(),
    ended_at: z.number().int().nullable(),
    pause_collection: z.object({ behavior: z.literal('void'), resumes_at: z.number().int().nullable() }).nullable(),
    billing_cycle_anchor: z.number().int(),
    current_period_start: z.number().int(),
    current_period_end: z.number().int(),
    trial_start: z.number().int().nullable(),
    trial_end: z.number().int().nullable(),
    latest_invoice: z.string().nullable(),
    test_clock: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    created: z.number().int(),
  })
  .meta({ id: 'Subscription', description: 'A subscription. Times are Unix seconds, as in Stripe Billing.' });

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;

export const invoiceViewSchema = z
  .object({
    invoice: z.string(),
    object: z.literal('invoice'),
    customer: z.string(),
    subscription: z.string().nullable(),
    status: z.enum(INVOICE_STATUSES),
    billing_reason: z.enum(['subscription_create', 'subscription_cycle', 'subscription_update', 'manual']),
    currency: z.string(),
    lines: z.array(
      z.object({
        line: z.string(),
        description: z.string(),
        amount: z.number().int(),
        quantity: z.number().int(),
        plan: z.string().nullable(),
        proration: z.boolean(),
        period: z.object({ start: z.number().int(), end: z.number().int() }),
        discount_amount: z.number().int(),
        tax_amounts: z.array(z.object({ tax_rate: z.string(), amount: z.number().int(), inclusive: z.boolean() })),
      }),
    ),
    subtotal: z.number().int(),
    discount: z.number().int(),
    tax: z.number().int(),
    total: z.number().int(),
    applied_balance: z.number().int(),
    amount_due: z.number().int(),
    amount_paid: z.number().int(),
    amount_remaining: z.number().int(),
    attempt_count: z.number().int(),
    next_payment_attempt: z.number().int().nullable(),
    payment_intent: z.string().nullable(),
    last_payment_error: z.object({ code: z.string() }).nullable(),
    period_start: z.number().int(),
    period_end: z.number().int(),
    test_clock: z.string().nullable(),
    created: z.number().int(),
    finalized_at: z.number().int().nullable(),
    paid_at: z.number().int().nullable(),
    voided_at: z.number().int().nullable(),
  })
  .meta({
    id: 'Invoice',
    description:
      'An invoice of a subscription. Amounts in minor units: `subtotal` (lines, inclusive taxes inside them) − `discount` + exclusive `tax` = `total`; `amount_due` is what is charged after the customer credit `applied_balance`. Times are Unix seconds.',
  });

export const invoicePreviewBody = z
  .object({
    subscription: typedId('sub'),
    items: subscriptionUpdateBody.shape.items,
    proration_date: unixSeconds.optional(),
  })
  .strict();
export type InvoicePreviewBody = z.infer<typeof invoicePreviewBody>;
