import { z } from 'zod';
import { MAX_REFUND_SLA_SECONDS } from '../../domain/refund';
import { MAX_AMOUNT } from '../../domain/money';
import { currencySchema, idempotencyKeySchema, webhooksSchema } from '../http/common-schemas';

export const refundCreateBody = z
  .object({
    // Any string: one that names no payment intent of this tenant (a `pi_` id or not) is the spec's 404.
    payment_intent: z.string().max(255).describe('The `pi_...` id of a successful payment intent'),
    amount: z.number().int('an integer in minor units').min(1).max(MAX_AMOUNT),
    currency: currencySchema,
    webhooks: webhooksSchema.optional(),
    refund_sla_timeout: z.number().int().min(1).max(MAX_REFUND_SLA_SECONDS).optional(),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict();
export type RefundCreateBody = z.infer<typeof refundCreateBody>;

export const refundView = z.object({
  refund: z.string(),
  payment_intent: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  amount: z.number().int(),
  currency: z.string(),
  created_at: z.string(),
  gateway_transaction_id: z.string().nullable(),
});

export const refundCreateResponse = refundView
  .omit({ created_at: true, gateway_transaction_id: true })
  .extend({ refundable_amount_left: z.number().int(), resource_created: z.boolean() });
