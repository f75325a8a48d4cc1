import { z } from 'zod';
import { MISSING } from '../http/validate';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from '../../domain/payment-intent';
import { lineItemSchema } from '../../domain/older-views';
import { amountSchema, currencySchema, merchantIntentKeySchema, metadataSchema, phoneNumberSchema, sharedSecretWebhookFields, typedId } from '../http/common-schemas';

// The older interface's request shapes: the unprefixed create (bound to a gateway), the v202606 create, and
// the fields they share with checkout intents.

/** The merchant's free JSON: any JSON object up to 16 KB, kept as text and returned in every older webhook. */
const MAX_PAYLOAD_BYTES = 16 * 1024;
const payloadSchema = z
  .record(z.string(), z.unknown())
  .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= MAX_PAYLOAD_BYTES, `at most ${MAX_PAYLOAD_BYTES} bytes as JSON`)
  .meta({ description: 'Free JSON, returned in every webhook of the intent (at most 16 KB as JSON)' });

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** webhook_urls share the one webhook_secret, sent back in the header Service-Webhook-Secret. */
const olderWebhookFields = sharedSecretWebhookFields('Each receives the same body on every event, at the same time. A URL listed twice is a 400 naming the repeat (`webhook_urls[i]`): it would get every event twice');

/** What an older intent and a checkout intent share: where the customer ends, what the page shows. */
export const olderPresentationFields = {
  human_friendly_payment_intent_secret: z.string().min(1).max(100).optional().meta({ description: 'Shown to the customer as a reference' }),
  payment_intent_timeout_seconds: z.number().int().min(1).max(MAX_TIMEOUT_SECONDS).optional().meta({ description: `Counted from creation; default ${DEFAULT_TIMEOUT_SECONDS}` }),
  final_success_url: httpUrl.optional().meta({ description: 'Where the hosted page sends the customer after a successful payment' }),
  final_failure_url: httpUrl.optional().meta({ description: 'Where the hosted page sends the customer when the payment fails or ends' }),
  lg: z
    .string()
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/, 'a language tag such as en, ar or fr-FR')
    .optional()
    .meta({ description: 'The hosted page language (en, ar, fr; others fall back to en); `?lg=` on the page overrides it' }),
  line_items: z.array(lineItemSchema).max(100).optional(),
  payload: payloadSchema.optional(),
  ...olderWebhookFields,
};

export const gatewayNameSchema = z.string().min(1).max(64).meta({ description: "A gateway of the tenant's live connectors (GET /gateways lists them)" });

export const olderCreateBody = z
  .object({
    gateway: gatewayNameSchema,
    checkout_intent: z.uuid().toLowerCase().optional().meta({ description: 'The checkout intent this payment belongs to; amount, currency and the other fields then come from it' }),
    amount: amountSchema.optional().meta({ description: 'Cents, >= 0; required without checkout_intent (with it, must equal its amount if given)' }),
    currency: currencySchema.optional(),
    checkout_intent_idempotency_key: merchantIntentKeySchema.optional().meta({
      description:
        'A repeated create with this key answers the existing intent (resource_created false) when gateway, checkout_intent, amount and currency are the same; otherwise 400 `idempotency_key_in_use`. The page fields, payload, timeout and webhooks may differ',
    }),
    feature_flag: z.string().min(1).max(100).optional(),
    tenant: z.string().min(1).max(64).optional().meta({ description: "Defaults to the key's tenant; when given, must name it (its id, name or integer tenant_id)" }),
    ...olderPresentationFields,
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.checkout_intent !== undefined) return;
    if (v.amount === undefined) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'amount is required without checkout_intent', params: MISSING });
    if (v.currency === undefined) ctx.addIssue({ code: 'custom', path: ['currency'], message: 'currency is required without checkout_intent', params: MISSING });
  });
export type OlderCreateBody = z.infer<typeof olderCreateBody>;

export const olderCreateResponse = z.object({
  payment_intent: z.uuid(),
  resource_created: z.boolean(),
  target_url: z.string().meta({ description: 'Where to send the customer: the hosted payment page' }),
});

const customerV202606 = z
  .object({
    merchant_id: z.string().min(1).max(200).optional().meta({ description: "Your id for the customer: the customer's `reference`. A known one is matched (and updated)" }),
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    phone_number: phoneNumberSchema.optional(),
    email: z.email({ pattern: z.regexes.html5Email }).max(320).optional(),
  })
  .strict();

export const createBodyV202606 = z
  .object({
    amount: amountSchema,
    currency: currencySchema,
    idempotency_key: merchantIntentKeySchema
      .optional()
      .meta({ description: 'A repeated create with this key answers the intent it made (200, payment_intent_created false) when amount and currency are the same; otherwise 400 `idempotency_key_in_use`' }),
    customer: z.union([typedId('cus'), customerV202606]).optional(),
    metadata: metadataSchema.optional().meta({ description: 'String key-value pairs, returned in every webhook of the intent as `metadata`, beside `payload` (null here)' }),
    timeout: z.number().int().min(1).max(MAX_TIMEOUT_SECONDS).default(DEFAULT_TIMEOUT_SECONDS),
    final_success_url: httpUrl.optional(),
    final_failure_url: httpUrl.optional(),
    ...olderWebhookFields,
  })
  .strict();
export type CreateBodyV202606 = z.infer<typeof createBodyV202606>;

export const createResponseV202606 = z.object({
  payment_intent: z.string().meta({ description: 'The `pi_...` id (its UUID and integer secret are on GET /payment-intents/{payment_intent})' }),
  payment_intent_created: z.boolean(),
  customer: z
    .object({ customer: z.string(), merchant_id: z.string().nullable(), created: z.boolean() })
    .optional()
    .meta({ description: 'When the create named a customer: the one created or matched' }),
});

export const olderIntentParams = z.object({ payment_intent: z.string().min(1).max(100) }).strict();
