import { z } from 'zod';
import { isServiceRefundKey, MAX_REFUND_SLA_SECONDS, SERVICE_REFUND_KEY_SHAPES } from '../../domain/refund';
import { MAX_AMOUNT } from '../../domain/money';
import { refundView } from '../../domain/views';
import { currencySchema, idempotencyKeySchema, webhooksFor } from '../http/common-schemas';

/** A merchant's refund key: any but the exact shapes of the service's own (domain/refund.ts serviceRefundKey). */
export const merchantRefundKeySchema = idempotencyKeySchema.refine((k) => !isServiceRefundKey(k), `keys shaped ${SERVICE_REFUND_KEY_SHAPES} are the service’s own`);

export const refundCreateBody = z
  .object({
    // Any string: one that names no payment intent of this tenant (a `pi_` id or not) is the spec's 404.
    payment_intent: z.string().max(255).describe('The `pi_...` id of a successful payment intent'),
    amount: z.number().int('an integer in minor units').min(1).max(MAX_AMOUNT),
    currency: currencySchema.describe(
      'Must equal the paid currency (REFUND_CCY_MISMATCH otherwise). Accepted in any case and answered in upper case.',
    ),
    webhooks: webhooksFor(['refund.success', 'refund.canceled'], 'a refund')
      .optional()
      .describe(
        "Endpoints for this refund's events (`refund.success`, `refund.canceled`; any other type is a 400). This refund's events go only here: the payment intent's `webhooks` do not receive them.",
      ),
    refund_sla_timeout: z.number().int().min(1).max(MAX_REFUND_SLA_SECONDS).optional(),
    idempotency_key: merchantRefundKeySchema
      .optional()
      .describe(
        `A repeated create with this key answers the refund it made (200, resource_created false) when payment_intent, amount and currency are the same; otherwise 400 \`idempotency_key_in_use\`. Keys shaped ${SERVICE_REFUND_KEY_SHAPES} are the service's own (400)`,
      ),
  })
  .strict();
export type RefundCreateBody = z.infer<typeof refundCreateBody>;

/** The refund as retrieve answers it: one definition, in domain/views.ts. */
export { refundView };

export const refundCreateResponse = refundView
  .omit({ created_at: true, gateway_transaction_id: true })
  .extend({
    currency: refundView.shape.currency.describe('3-letter ISO 4217 code, in upper case'),
    refundable_amount_left: z.number().int(),
    resource_created: z.boolean(),
  });
