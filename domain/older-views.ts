import { z } from 'zod';
import { MAX_AMOUNT } from './money';

// The older interface's payment intent (unprefixed `/payment-intents`, its webhooks): one shape, built by the
// API from the stored record and by the intent's workflow for its webhook body. zod and plain code only, so
// workflows may import it.
//
// How the workflow's state reads in the older fields (documented in the OpenAPI document too):
//
// | workflow state                                       | status   | sub_status                  | step_number |
// |------------------------------------------------------|----------|-----------------------------|-------------|
// | no attempt made yet                                  | pending  | pending_created             | 1           |
// | a charge on the wire, or its lost answer checked     | pending  | pending_processing          | 2           |
// | the gateway asked for 3DS; the customer is away      | pending  | pending_requires_action     | 3           |
// | the gateway took the charge, its answer will follow  | pending  | pending_promise             | 3           |
// | the last attempt failed; the customer may retry      | pending  | pending_failed_attempt      | 1           |
// | paid                                                 | success  | success                     | 4           |
// | canceled by the merchant                             | canceled | canceled_requested          | reached     |
// | its payment_intent_timeout_seconds ran out           | canceled | canceled_timeout            | reached     |
// | another intent of its checkout intent paid for it    | canceled | canceled_checkout_completed | reached     |
//
// Steps: 1 created, 2 payment details sent to the gateway, 3 the gateway took them and waits on the customer
// (3DS) or on itself, 4 paid. On a canceled intent `step_number` is the furthest step any of its attempts
// reached ("the last successful step before failure"). `last_reason` is the failure code of the last failed
// attempt (our codes name every outcome: card_declined, insufficient_funds, ...), '' when none failed, and
// null in a cancel's response when none failed.

export const OLDER_SUB_STATUSES = [
  'pending_created',
  'pending_processing',
  'pending_requires_action',
  'pending_promise',
  'pending_failed_attempt',
  'success',
  'canceled_requested',
  'canceled_timeout',
  'canceled_checkout_completed',
] as const;
export type OlderSubStatus = (typeof OLDER_SUB_STATUSES)[number];

export type OlderAttemptPhase = 'charging' | 'unknown' | 'awaiting_action' | 'awaiting_callback';

export interface OlderProgressInput {
  status: 'pending' | 'success' | 'canceled';
  attemptPhase: OlderAttemptPhase | null;
  lastFailureCode: string | null;
  /** The furthest step reached (1 when no attempt got anywhere). */
  stepReached: number;
  cancellationReason: 'requested' | 'expired' | 'checkout_completed' | null;
}

export interface OlderProgress {
  sub_status: OlderSubStatus;
  step_number: number;
  last_reason: string;
}

/** The step an open attempt is at. */
export function stepOfPhase(phase: OlderAttemptPhase): number {
  return phase === 'charging' || phase === 'unknown' ? 2 : 3;
}

/** The older fields that follow the workflow's state (the table above). */
export function olderProgress(p: OlderProgressInput): OlderProgress {
  const last_reason = p.status === 'success' ? '' : (p.lastFailureCode ?? '');
  if (p.status === 'success') return { sub_status: 'success', step_number: 4, last_reason };
  if (p.status === 'canceled') {
    const sub_status: OlderSubStatus =
      p.cancellationReason === 'expired' ? 'canceled_timeout' : p.cancellationReason === 'checkout_completed' ? 'canceled_checkout_completed' : 'canceled_requested';
    return { sub_status, step_number: Math.max(1, p.stepReached), last_reason };
  }
  if (p.attemptPhase === null) return { sub_status: p.lastFailureCode ? 'pending_failed_attempt' : 'pending_created', step_number: 1, last_reason };
  const sub_status: OlderSubStatus =
    p.attemptPhase === 'awaiting_action' ? 'pending_requires_action' : p.attemptPhase === 'awaiting_callback' ? 'pending_promise' : 'pending_processing';
  return { sub_status, step_number: stepOfPhase(p.attemptPhase), last_reason };
}

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
  x_token_id: z.string().nullable().meta({ description: 'The gateway token of the attempt that paid the intent; null before' }),
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

/**
 * The body every `webhook_urls` entry of an older intent (and of its checkout intent) receives: the intent
 * as the older retrieve shows it, the event's name, and the `payload` given at create.
 */
export function olderIntentWebhookBody(view: OlderIntentView, event: string, payload: unknown): Record<string, unknown> {
  return { webhook_type: 'payment_intent', event, ...view, payload: payload ?? null };
}
