import { z } from 'zod';
import { RECIPIENT_TYPES, recipientRule } from '../../domain/payouts';
import { metadataSchema } from '../http/common-schemas';

// Request and response shapes of payout recipients. The destination fields and their rule (exactly one of
// a full bank trio or a mobile-money number) are shared with POST /payouts, which creates recipients inline.

const text = (max: number) => z.string().trim().min(1).max(max);

/** The destination and contact fields a recipient is made of, as POST /payout-recipients and POST /payouts take them. */
export const recipientFields = {
  bank_account_number: text(34).optional(),
  bank_account_name: text(140).optional(),
  bank_code: text(34).optional(),
  bank_name: text(140).optional(),
  mobile_money_number: text(20).optional(),
  mobile_money_provider: text(40).optional().meta({ description: 'Network label when the gateway needs one, e.g. `MTN`' }),
  recipient_type: z.enum(RECIPIENT_TYPES).optional().meta({ description: 'Inferred from the fields given when omitted' }),
  name: text(140).optional(),
  email: z.string().trim().max(254).email().optional(),
  phone: text(32).optional(),
};

export const gatewayName = z.string().trim().min(1).max(64).meta({ description: 'A gateway registered for payouts for the tenant (e.g. `sandbox`)' });
export const idempotencyKeySchema = z.string().min(1).max(255);

/** Adds the inline recipient rule's verdict as an issue on the parameter it names (no destination at all too). */
export function checkRecipientRule(v: Parameters<typeof recipientRule>[0], ctx: z.RefinementCtx): void {
  const rule = recipientRule(v);
  if (rule.ok) return;
  if (rule.kind === 'invalid') ctx.addIssue({ code: 'custom', path: [rule.param], message: rule.message });
  else ctx.addIssue({ code: 'custom', path: ['bank_account_number'], message: 'give the bank fields (bank_account_number, bank_account_name, bank_code) or mobile_money_number' });
}

export const recipientCreateBody = z
  .object({
    ...recipientFields,
    gateway: gatewayName,
    idempotency_key: idempotencyKeySchema.optional().meta({
      description:
        'A repeat with this key answers the recipient it registered (200) when gateway and destination (bank_account_number, bank_account_name, bank_code, mobile_money_number, mobile_money_provider) are the same; otherwise 400 `idempotency_key_in_use`. Contact fields, bank_name and metadata may differ',
    }),
    metadata: metadataSchema.optional(),
  })
  // Status notifications are for payouts only: webhook_urls / webhook_secret are unknown parameters here.
  .strict()
  .superRefine((v, ctx) => checkRecipientRule(v, ctx));
export type RecipientCreateBody = z.infer<typeof recipientCreateBody>;

export const recipientCreateResponse = z.object({
  recipient_uuid: z.uuid(),
  gateway_recipient_id: z.string(),
  resource_created: z.boolean(),
});

/** A stored recipient, as GET /payout-recipients/{uuid} and its list answer it. */
export const recipientView = z.object({
  id: z.number().int(),
  uuid: z.uuid(),
  tenant_id: z.number().int(),
  gateway: z.string(),
  recipient_type: z.enum(RECIPIENT_TYPES),
  gateway_recipient_id: z.string().nullable(),
  bank_account_number: z.string().nullable(),
  bank_account_name: z.string().nullable(),
  bank_code: z.string().nullable(),
  bank_name: z.string().nullable(),
  mobile_money_number: z.string().nullable(),
  mobile_money_provider: z.string().nullable(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type RecipientView = z.infer<typeof recipientView>;
