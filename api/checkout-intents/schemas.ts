import { z } from 'zod';
import { lineItemSchema } from '../../domain/older-views';
import { amountSchema, currencySchema, idempotencyKeySchema } from '../http/common-schemas';
import { gatewayNameSchema, olderPresentationFields } from '../older-payment-intents/schemas';

// A checkout intent: one purchase (amount, currency, the page and webhooks), and the gateways its customer
// may choose between. Each gateway tried is a payment intent created with `checkout_intent`; at most one of
// them can succeed.

export const checkoutIntentCreateBody = z
  .object({
    amount: amountSchema,
    currency: currencySchema,
    checkout_intent_idempotency_key: idempotencyKeySchema.optional().meta({ description: 'A repeated create with this key answers the existing checkout intent' }),
    gateways: z
      .array(gatewayNameSchema)
      .min(1)
      .max(20)
      .optional()
      .meta({ description: "The gateways the customer may choose; default: every gateway of the tenant's live connectors" }),
    ...olderPresentationFields,
  })
  .strict();
export type CheckoutIntentCreateBody = z.infer<typeof checkoutIntentCreateBody>;

const gatewayEntry = z.object({
  gateway: z.string().meta({ description: 'The name POST /payment-intents takes as `gateway`' }),
  payment_methods: z.array(z.string()),
});

export const checkoutIntentView = z.object({
  checkout_intent: z.uuid(),
  status: z.enum(['open', 'completed']).meta({ description: 'completed once one of its payment intents succeeded' }),
  amount: z.number().int(),
  currency: z.string(),
  gateways: z.array(gatewayEntry),
  payment_intent: z.uuid().nullable().meta({ description: 'The payment intent that paid it' }),
  checkout_intent_idempotency_key: z.string().nullable(),
  human_friendly_payment_intent_secret: z.string().nullable(),
  final_success_url: z.string().nullable(),
  final_failure_url: z.string().nullable(),
  lg: z.string().nullable(),
  line_items: z.array(lineItemSchema),
  created_at: z.string(),
});
export type CheckoutIntentView = z.infer<typeof checkoutIntentView>;

export const checkoutIntentCreateResponse = checkoutIntentView.extend({ resource_created: z.boolean() });

export const gatewayList = z.object({ data: z.array(gatewayEntry) });
