import { z } from 'zod';
import { idempotencyKeySchema, metadataSchema, typedId, webhooksFor } from '../http/common-schemas';
import { LANGUAGES } from '../hosted/locale';
import { MAX_TRIAL_PERIOD_DAYS } from '../plans/schemas';
import { defaultTaxRatesSchema } from '../subscriptions/schemas';

// Checkout sessions (v202607), as Stripe Checkout has them in `mode: "subscription"`: a hosted page where the
// customer enters a card, pays the first invoice and is subscribed.

const pageUrl = z.url({ protocol: /^https?$/ }).max(2048);
const quantity = z.number().int('an integer').min(1).max(100_000).default(1).describe('Units of the plan; default 1');

export const checkoutSessionCreateBody = z
  .object({
    mode: z.literal('subscription').describe('Only `subscription`: the session starts a subscription'),
    customer: typedId('cus').describe('The customer (`cus_...`) who subscribes; the card entered on the page is saved to them'),
    line_items: z
      .array(z.object({ plan: typedId('plan').describe('The plan (`plan_...`)'), quantity }).strict())
      .min(1)
      .max(20)
      .describe('Plans of one currency and one billing interval, as for a subscription'),
    success_url: pageUrl.describe(
      'Where the customer goes once subscribed. `{CHECKOUT_SESSION_ID}` in it is replaced by the session id; without it, `session_id=<id>` is added to its query',
    ),
    cancel_url: pageUrl.describe('Where the page\'s "back" link goes, and where an expired session sends the customer'),
    subscription_data: z
      .object({
        trial_period_days: z.number().int().min(0).max(MAX_TRIAL_PERIOD_DAYS).optional().describe("Days of free trial; default the first plan's `trial_period_days`"),
        default_tax_rates: defaultTaxRatesSchema.optional().describe('Tax rates of every line, each listed once'),
        metadata: metadataSchema.optional().describe("The subscription's metadata"),
        webhooks: webhooksFor(['subscription.created', 'subscription.updated', 'subscription.canceled', 'invoice.created', 'invoice.paid', 'invoice.payment_failed'], "a checkout session's subscription").optional().describe("Endpoints for the subscription's `subscription.*` and `invoice.*` events"),
      })
      .strict()
      .optional(),
    coupon: typedId('coupon').optional().describe('A coupon to apply (give this or `promotion_code`)'),
    promotion_code: typedId('promo').optional().describe('A promotion code (`promo_...`) whose coupon applies'),
    locale: z.enum(LANGUAGES).optional().describe('The page\'s language (`en`, `fr`, `ar`); the customer may choose another with `?lg=` on the URL. Default English'),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.coupon !== undefined && b.promotion_code !== undefined)
      ctx.addIssue({ code: 'custom', path: ['promotion_code'], message: 'give only one of coupon and promotion_code' });
  });
export type CheckoutSessionCreateBody = z.infer<typeof checkoutSessionCreateBody>;

export const CHECKOUT_SESSION_STATUSES = ['open', 'complete', 'expired'] as const;

export const checkoutSessionViewSchema = z
  .object({
    checkout_session: z.string(),
    object: z.literal('checkout_session'),
    mode: z.literal('subscription'),
    status: z.enum(CHECKOUT_SESSION_STATUSES),
    customer: z.string(),
    url: z.string().describe('The hosted page to send the customer to'),
    success_url: z.string(),
    cancel_url: z.string(),
    subscription: z.string().nullable().describe('The subscription (`sub_...`) once complete'),
    payment_intent: z.string().nullable().describe("The intent the page pays: the first invoice's total, or a card check of one major unit (refunded at completion) when nothing is due today"),
    amount_total: z.number().int().describe('What the first invoice comes to (0 with a trial)'),
    currency: z.string(),
    completion_error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe('Paid, but the subscription could not be started (an archived plan, a card the gateway gave no reusable token for ...): the payment was refunded and the session is `expired`'),
    expires_at: z.number().int().describe('Unix seconds: 24 hours after creation'),
    created: z.number().int(),
  })
  .meta({ id: 'CheckoutSession', description: 'A checkout session (mode `subscription`). Times are Unix seconds.' });
export type CheckoutSessionView = z.infer<typeof checkoutSessionViewSchema>;
