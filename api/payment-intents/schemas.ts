import { z } from 'zod';
import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from '../../domain/payment-intent';
import { SERVICE_INTENT_KEY_SHAPES } from '../../domain/intent-keys';
import { amountSchema, currencySchema, merchantIntentKeySchema, metadataSchema, typedId, webhooksFor } from '../http/common-schemas';
import { customerInlineV202608, customerUpsertBody } from '../customers/schemas';
import { paymentIntentView } from '../../domain/views';

// Where the spec contradicts itself or is silent, the choice is stated in the field's description (and the
// README, "Documented choices"); test/integration/spec-choices.test.ts holds each one.

/** Currency in any case on the way in, upper case on the way out. */
const CURRENCY_CASE = 'A 3-letter ISO 4217 code, accepted in any case and answered in upper case (`eur` is stored and answered as `EUR`).';

const base = {
  amount: amountSchema,
  currency: currencySchema.describe(CURRENCY_CASE),
  idempotency_key: merchantIntentKeySchema
    .optional()
    .describe(`A create repeated with the same key returns the intent it made (200, \`resource_created\` false) in its current state, not a new one; the same key with another \`amount\` or \`currency\` is a 400 \`idempotency_key_in_use\`. Keys shaped ${SERVICE_INTENT_KEY_SHAPES} are the service's own (400).`),
  metadata: metadataSchema.optional(),
  timeout: z.number().int().min(1).max(MAX_TIMEOUT_SECONDS).default(DEFAULT_TIMEOUT_SECONDS),
  webhooks: webhooksFor(['payment.success', 'payment.canceled', 'payment.attempt_failed', 'refund.success', 'refund.canceled'], 'a payment intent')
    .optional()
    .describe(
      "Endpoints for this intent's events (`payment.success`, `payment.canceled`, `payment.attempt_failed`), each subscribing through its own `events`. A merchant's refund sends its events only to the `webhooks` given when it is created (POST /v202607/refunds); `refund.success` and `refund.canceled` reach these endpoints only for the refund of an operator's force-cancel. Subscription and invoice events are a 400 here.",
    ),
  return_url: z.url({ protocol: /^https?$/ }).max(2048).optional(),
};

export const createBodyV202607 = z
  .object({ ...base, customer: z.union([typedId('cus'), customerUpsertBody]).optional() })
  .strict();

export const createBodyV202608 = z
  .object({
    ...base,
    customer: z.union([typedId('cus'), customerInlineV202608]).optional(),
    payment_form: typedId('pf').optional(),
    orchestrator: typedId('orc').optional(),
    connector: typedId('con').optional(),
    setup_future_usage: z
      .literal('off_session')
      .optional()
      .describe(
        'v202608. The merchant may charge the card later with the customer absent (POST /cards/mit): when the intent has a customer, the hosted page and the embedded form offer "Save this card for future payments". Needs `customer`.',
      ),
  })
  .strict();

export type CreateBody = z.infer<typeof createBodyV202608>;

/** The payment intent as retrieve answers it: one definition, in domain/views.ts (documented here). */
export const intentView = paymentIntentView.extend({
  currency: paymentIntentView.shape.currency.describe('3-letter ISO 4217 code, in upper case whatever case the create sent'),
  url: paymentIntentView.shape.url.describe(
    "Hosted payment page, on the host of the intent's region (the region in its `pi_<region>_...` id): `api-<region>.` on the public base address, or that region's own base",
  ),
});

/** v202608's retrieve: the intent, and once paid, the card and the connector that took the payment. */
export const intentViewV202608 = intentView.extend({
  payment_method: z.string().optional().describe('The saved card (`pm_...`) it was paid with: saved by this payment, or charged by POST /cards/mit.'),
  connector: z.string().optional().describe('Once paid: the connector that took the payment (after any failover of an orchestrator).'),
  setup_future_usage: z.literal('off_session').optional(),
});

export const createResponse = intentView
  .omit({ created_at: true })
  .extend({
    status: intentView.shape.status.describe(
      'A new intent is `pending`. An intent returned by `idempotency_key` is answered in its current state (`pending`, `success` or `canceled`): where the spec says both "always `pending`" and "the existing intent\'s state", the current state is what a retrieve would answer.',
    ),
    resource_created: z.boolean().describe('true when new; false when an existing intent was returned by `idempotency_key` (status 200)'),
  })
  .describe('The created intent, or the one an `idempotency_key` already made, in its current state');

export const listRow = intentView.pick({ payment_intent: true, status: true, amount: true, currency: true, customer: true, created_at: true });

export const attemptBody = z
  .object({
    token: z.string().regex(/^tok_[0-9A-Za-z_]{3,128}$/, 'a tok_... token from the gateway'),
    connector: typedId('con').optional(),
    save_payment_method: z
      .boolean()
      .optional()
      .describe(
        "Keep the card on the intent's customer for later charges (`pm_...`). An intent a checkout session or a billing portal made always keeps it (its subscription charges it later): `false` there is a 400.",
      ),
  })
  .strict();

export const attemptResponse = z.object({
  payment_intent: z.string(),
  status: z.enum(['success', 'pending', 'requires_action', 'failed']),
  next_action: z.object({ type: z.literal('redirect_to_url'), url: z.string() }).optional(),
  failure_code: z.string().optional(),
  payment_method_uuid: z.string().optional(),
});

export const intentParams = z.object({ payment_intent: z.string() }).strict();
