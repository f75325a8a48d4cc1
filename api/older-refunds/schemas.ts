import { z } from 'zod';
import { DEFAULT_REFUND_SLA_SECONDS, MAX_REFUND_SLA_SECONDS } from '../../domain/refund';
import { MAX_AMOUNT } from '../../domain/money';
import { pageQuerySchema } from '../../domain/page-query';
import { olderRefundRow } from '../../domain/older-refund-views';
import { OLDER_REFUND_LIST } from '../../data/refunds';
import { currencySchema, idempotencyKeySchema, sharedSecretWebhookFields } from '../http/common-schemas';

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
      'Each receives a POST on every sub-status change of the refund: the refund as GET /refunds lists it, plus `webhook_type` ("refund"), `event` (`refund.<sub_status>`) and `event_id`',
    ),
    refund_sla_timeout: z
      .number()
      .int()
      .min(1)
      .max(MAX_REFUND_SLA_SECONDS)
      .optional()
      .meta({ description: `Seconds the gateway has to execute the refund before it is canceled (canceled_timeout_*). Default ${DEFAULT_REFUND_SLA_SECONDS} (3 days)` }),
    checkout_intent_idempotency_key: idempotencyKeySchema
      .optional()
      .meta({ description: "Prevents duplicates: a known key answers its refund (200, resource_created false). Keys are the tenant's, shared with v202607 refunds' idempotency_key" }),
  })
  .strict();
export type OlderRefundCreateBody = z.infer<typeof olderRefundCreateBody>;

export const olderRefundCreateResponse = z.object({
  refund_id: z.number().int().meta({ description: 'The integer id of the refund (GET /refunds?filter.id=$eq:<refund_id>)' }),
  refundable_amount_left: z.number().int().meta({ description: 'Cents of the payment left to refund once this refund is counted' }),
  resource_created: z.boolean().meta({ description: 'false when checkout_intent_idempotency_key named an existing refund' }),
});

export { olderRefundRow };

/** What each filter of GET /refunds means, where its name does not say it (before the operators' notes). */
const FILTER_NOTES: Record<string, string> = {
  id: 'The integer refund id; `$eq:<id>` fetches one refund.',
  uuid: "The refund's UUID.",
  status: 'Base status: pending, success or canceled.',
  sub_status: `Sub-status: ${olderRefundRow.shape.sub_status.options.join(', ')}.`,
  amount: 'Cents.',
  checkout_intent_idempotency_key: 'The idempotency key the refund was created with (either interface).',
  checkout_intent_secret: "The refunded payment intent's integer payment_intent_secret.",
  gateway: 'The gateway that took the refunded payment.',
  gateway_transaction_id: "The gateway's reference of the refund (set once it executed).",
  gateway_transaction_human_readable: 'The same gateway reference as gateway_transaction_id.',
  created_at: 'When the refund was admitted.',
  updated_at: 'When the refund last changed.',
  currency: '3-letter ISO code, upper case.',
};

/** GET /refunds's query: the page-numbered list language, each filter's meaning in the document. */
export function olderRefundListQuery() {
  const schema = pageQuerySchema(OLDER_REFUND_LIST);
  const shape = (schema as unknown as { in: z.ZodObject }).in.shape as Record<string, z.ZodType>;
  for (const [name, note] of Object.entries(FILTER_NOTES)) {
    const param = shape[`filter.${name}`];
    if (!param) throw new Error(`GET /refunds documents filter.${name}, which OLDER_REFUND_LIST does not declare`);
    const meta = param.meta() ?? {};
    // Registering this schema instance again replaces its metadata (it is this list's own instance).
    z.globalRegistry.add(param, { ...meta, description: `${note} ${String(meta.description ?? '')}`.trim() });
  }
  return schema;
}
