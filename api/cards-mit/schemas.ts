import { z } from 'zod';
import { typedId } from '../http/common-schemas';

export const AGREEMENT_TYPES = ['RECURRING', 'INSTALLMENT', 'UNSCHEDULED'] as const;

/** POST /cards/mit, exactly as the spec lists it. */
export const mitChargeBody = z
  .object({
    payment_intent_secret: z
      .string()
      .min(1)
      .max(255)
      .describe('The payment intent to charge (its amount and currency): its `pi_...` id, its UUID or its integer payment_intent_secret.'),
    payment_method_uuid: typedId('pm').describe("The saved card's `pm_...` id (from a customer-present payment that saved it)."),
    agreement_id: z
      .string()
      .min(1)
      .max(255)
      .describe('Your stable id of the agreement with the cardholder; every charge under it names the same one.'),
    agreement_type: z.enum(AGREEMENT_TYPES),
  })
  .strict();
export type MitChargeBody = z.infer<typeof mitChargeBody>;

const transactionUuid = z.string().describe('The transaction (`ti_...`) of this charge; GET /v202608/transactions/{transaction}.');

export const mitChargeResponse = z.union([
  z.object({ code: z.literal('ok'), transaction_uuid: transactionUuid }),
  z.object({
    code: z.literal('REQUIRES_ACTION'),
    transaction_uuid: transactionUuid,
    next_action: z
      .object({ type: z.literal('redirect_to_url'), url: z.string() })
      .describe('Send the cardholder to `url` to authenticate (3D Secure); completing it completes the payment intent.'),
  }),
]);

export const mitProcessingResponse = z.object({ code: z.literal('PROCESSING'), transaction_uuid: transactionUuid });

/** A merchant-initiated charge as GET /v202608/transactions/{transaction} answers it. */
export const transactionView = z.object({
  transaction: z.string(),
  object: z.literal('transaction'),
  kind: z.literal('merchant_initiated'),
  payment_intent: z.string(),
  status: z.enum(['processing', 'requires_action', 'succeeded', 'failed']),
  amount: z.number().int(),
  currency: z.string(),
  payment_method: z.string(),
  agreement: z.object({ agreement: z.string(), agreement_id: z.string(), agreement_type: z.enum(AGREEMENT_TYPES) }),
  connector: z.string(),
  failure_code: z.string().nullable(),
  next_action: z.object({ type: z.literal('redirect_to_url'), url: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TransactionView = z.infer<typeof transactionView>;
