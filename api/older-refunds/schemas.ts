import { z } from 'zod';
import { DEFAULT_REFUND_SLA_SECONDS, MAX_REFUND_SLA_SECONDS, SERVICE_REFUND_KEY_SHAPES } from '../../domain/refund';
import { MAX_AMOUNT } from '../../domain/money';
import { olderRefundRow } from '../../domain/older-refund-views';
import { currencySchema, sharedSecretWebhookFields } from '../http/common-schemas';
import { merchantRefundKeySchema } from '../refunds/schemas';

// The older interface's refunds (unprefixed `/refunds`): a payment named by its integer transaction_id,
// webhook_urls sharing one webhook_secret, integer refund ids, page-numbered lists.

export const olderRefundCreateBody = z
  .object({
    transaction_id: z
      .number()
      .int('an integer')
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ description: 'The integer transaction_id of a successful payment (older payment-intent webhooks and reads show it); one of another tenant reads as unknown (404)' }),
    amount: z.number().int('an integer in cents').min(1).max(MAX_AMOUNT).meta({ description: 'Cents, at most what is left to refund of the payment' }),
    currency: currencySchema.meta({ description: "3-letter ISO code; must be the payment's currency (REFUND_CCY_MISMATCH otherwise)" }),
    ...sharedSecretWebhookFields(
      'Each receives a POST on every sub-status change of the refund: the refund as GET /refunds lists it, plus `webhook_type` ("refund"), `event` (`refund.<sub_status>`) and `event_id`. A URL listed twice is a 400 naming the repeat (`webhook_urls[i]`): it would get every event twice',
    ),
    refund_sla_timeout: z
      .number()
      .int()
      .min(1)
      .max(MAX_REFUND_SLA_SECONDS)
      .optional()
      .meta({ description: `Seconds the gateway has to execute the refund before it is canceled (canceled_timeout_*). Default ${DEFAULT_REFUND_SLA_SECONDS} (3 days)` }),
    checkout_intent_idempotency_key: merchantRefundKeySchema
      .optional()
      .meta({
        description: `Prevents duplicates: a known key answers its refund (200, resource_created false) when transaction_id, amount and currency are the same, else 400 \`idempotency_key_in_use\`. Keys are the tenant's, shared with v202607 refunds' idempotency_key; keys shaped ${SERVICE_REFUND_KEY_SHAPES} are the service's own (400)`,
      }),
  })
  .strict();
export type OlderRefundCreateBody = z.infer<typeof olderRefundCreateBody>;

export const olderRefundCreateResponse = z.object({
  refund_id: z.number().int().meta({ description: 'The integer id of the refund (GET /refunds?filter.id=$eq:<refund_id>)' }),
  refundable_amount_left: z.number().int().meta({ description: 'Cents of the payment left to refund once this refund is counted' }),
  resource_created: z.boolean().meta({ description: 'false when checkout_intent_idempotency_key named an existing refund' }),
});

export { olderRefundRow };
