import { z } from 'zod';
import { MAX_AMOUNT } from './money';
import { OLDER_SUB_STATUSES } from './older-progress';

// The older interface's payment intent (unprefixed `/payment-intents`): its shape as the API answers it.
// How the workflow's state reads in the older fields, and the webhook body: older-progress.ts.

export const lineItemSchema = z
  .object({
    name: z.string().min(1).max(200),
    // quantity x price stays below 2^53, so a line total is exact.
    quantity: z.number().int().min(1).max(10_000),
    price: z.number().int('an integer in cents').min(0).max(MAX_AMOUNT),
    image: z.url({ protocol: /^https?$/ }).max(2048).optional(),
    category: z.string().max(200).optional(),
    slug: z.string().max(200).optional(),
    url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
  })
  .strict();

/** The older payment intent, as its retrieve answers it: public fields only (no secrets, webhooks or payload). */
export const olderIntentView = z.object({
  payment_intent: z.uuid(),
  payment_intent_secret: z.number().int(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  sub_status: z.enum(OLDER_SUB_STATUSES),
  gateway: z.string().nullable().meta({ description: 'The gateway the intent was created for; null for a v202606 or v202607 intent, which any live connector may pay' }),
  human_friendly_payment_intent_secret: z.string().nullable(),
  payment_intent_timeout_seconds: z.number().int(),
  final_success_url: z.string().nullable(),
  final_failure_url: z.string().nullable(),
  initial_data: z.object({ payment_intent_id: z.string().meta({ description: 'The `pi_...` id the versioned interface names it by' }) }),
  payment_intent_date: z.string(),
  feature_flag: z.string().nullable(),
  tenant: z.object({ logo: z.string().nullable(), favicon: z.string().nullable() }),
  tenant_initial_user_data: z.object({
    phone_number: z.string().nullable(),
    email: z.string().nullable(),
    payment_intent_channel: z.enum(['api', 'checkout_intent']),
    redirect_to: z.string().nullable().meta({ description: 'Where the customer goes to pay: the hosted page (`target_url`)' }),
  }),
  lg: z.string().nullable(),
  x_token_id: z.string().nullable().meta({ description: 'Always null: the intent keeps no card token (a one-time token is spent by its charge; a saved card is named by the v202608 `payment_method`). Kept for clients that read the field' }),
  step_number: z.number().int(),
  last_reason: z.string().nullable(),
  transaction_id: z.number().int().nullable().meta({ description: 'The integer id of the successful payment (POST /refunds takes it); null until paid' }),
  checkout_intent: z.uuid().nullable(),
  line_items: z.array(lineItemSchema),
});
export type OlderIntentView = z.infer<typeof olderIntentView>;

/** A row of GET /payment-intents: the retrieve's fields and the list-only ones. */
export const olderIntentRow = olderIntentView.extend({
  checkout_intent_idempotency_key: z.string().nullable(),
  idempotency_key: z.string().nullable().meta({ description: 'The same key as checkout_intent_idempotency_key, by the v202606 name' }),
  phone_number: z.string().nullable(),
  amount_paid_by_customer: z.number().int(),
  gateway_transaction_id: z.string().nullable(),
  gateway_transaction_human_readable: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OlderIntentRow = z.infer<typeof olderIntentRow>;
