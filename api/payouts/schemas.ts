import { z } from 'zod';
import { MISSING } from '../http/validate';
import { MAX_PAYOUT_TIMEOUT_SECONDS, MIN_PAYOUT_TIMEOUT_SECONDS, PAYOUT_SUB_STATUSES, recipientRule } from '../../domain/payouts';
import { currencySchema, headerSecretSchema, metadataSchema } from '../http/common-schemas';
import { MAX_AMOUNT } from '../../domain/money';
import { checkRecipientRule, gatewayName, idempotencyKeySchema, recipientFields, recipientView } from '../payout-recipients/schemas';

/** A payout window in seconds: of one payout (POST /payouts), or a tenant's default (admin). */
export const payoutTimeoutSeconds = z.number().int().min(MIN_PAYOUT_TIMEOUT_SECONDS).max(MAX_PAYOUT_TIMEOUT_SECONDS);

export const payoutCreateBody = z
  .object({
    amount: z.number().int('an integer in cents').min(1).max(MAX_AMOUNT),
    currency: currencySchema,
    gateway: gatewayName,
    recipient_uuid: z.uuid().toLowerCase().optional().meta({ description: 'An existing recipient; required when no complete inline recipient is given' }),
    ...recipientFields,
    recipient_type: recipientFields.recipient_type.meta({
      description: "Inferred from the fields given when omitted; with recipient_uuid, when given it must be that recipient's type (400 naming recipient_type otherwise)",
    }),
    tenant: z.string().min(1).max(64).optional().meta({ description: "Defaults to the key's tenant; when given, must name it (its id, name or integer tenant_id)" }),
    narration: z.string().trim().min(1).max(140).optional(),
    idempotency_key: idempotencyKeySchema.optional().meta({
      description:
        'A repeat with this key answers the payout it made (resource_created false) when amount, currency, gateway and recipient (recipient_uuid, or the inline destination fields) are the same; otherwise 400 `idempotency_key_in_use`. Narration, metadata, webhooks and the window may differ',
    }),
    webhook_urls: z
      .array(z.string().max(2048))
      .max(10)
      .optional()
      .meta({ description: 'Each receives a POST on every status change. A URL listed twice is a 400 naming the repeat (`webhook_urls[i]`): it would get every event twice' }),
    webhook_secret: headerSecretSchema.optional().meta({ description: 'Sent to every webhook_urls entry in the header Service-Webhook-Secret' }),
    metadata: metadataSchema.optional(),
    payout_timeout_seconds: payoutTimeoutSeconds
      .optional()
      .meta({ description: "How long the transfer may take before it is canceled at the gateway (canceled_timeout). Default: the tenant's setting, else 259200 (72 hours)" }),
  })
  .strict()
  .superRefine((v, ctx) => {
    const inline = recipientRule(v);
    if (v.recipient_uuid !== undefined) {
      if (inline.kind !== 'none') ctx.addIssue({ code: 'custom', path: ['recipient_uuid'], message: 'give recipient_uuid or an inline recipient, not both' });
      return;
    }
    if (inline.kind === 'none') {
      ctx.addIssue({
        code: 'custom',
        path: ['recipient_uuid'],
        message: 'give recipient_uuid, or an inline recipient: the bank fields (bank_account_number, bank_account_name, bank_code) or mobile_money_number',
        params: MISSING,
      });
      return;
    }
    checkRecipientRule(v, ctx);
  });
export type PayoutCreateBody = z.infer<typeof payoutCreateBody>;

export const payoutCreateResponse = z.object({
  payout_uuid: z.uuid(),
  recipient_uuid: z.uuid(),
  status: z.enum(PAYOUT_SUB_STATUSES).meta({ description: 'The sub-status once the gateway answered the transfer request (or pending_created if it has not yet)' }),
  gateway_payout_id: z.string().nullable(),
  resource_created: z.boolean(),
});

/** A stored payout, as GET /payouts/{uuid} and its list answer it: with its recipient and integer tenant_id. */
export const payoutView = z.object({
  id: z.number().int(),
  uuid: z.uuid(),
  tenant_id: z.number().int(),
  recipient_uuid: z.uuid(),
  recipient: recipientView.nullable(),
  gateway: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  sub_status: z.enum(PAYOUT_SUB_STATUSES),
  gateway_payout_id: z.string().nullable(),
  failure_reason: z.string().nullable(),
  narration: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  webhook_urls: z.array(z.string()),
  timeout_seconds: z.number().int(),
  expires_at: z.string(),
  late_outcome: z.object({ status: z.string(), at: z.string() }).nullable(),
  idempotency_key: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PayoutView = z.infer<typeof payoutView>;

export const payoutStatusResponse = z.object({
  code: z.object({
    type: z.enum(['succeeded', 'pending', 'canceled', 'rejected', 'failed', 'not_found']),
    success: z.boolean(),
    code: z.number().int(),
  }),
  response: z.record(z.string(), z.unknown()).optional(),
  error_message: z.string().optional(),
});
