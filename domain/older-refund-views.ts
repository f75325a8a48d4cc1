import { z } from 'zod';
import { OLDER_REFUND_SUB_STATUSES } from './older-refund-progress';

// The older interface's refund row as the API answers it (its zod schema). How the refund workflow's state
// reads as the older sub-status, the row and the webhook body: older-refund-progress.ts.

/** The older refund, as a row of GET /refunds and as its webhooks carry it. */
export const olderRefundRow = z.object({
  id: z.number().int().meta({ description: 'The integer refund id (POST /refunds answers it as refund_id); a single refund is `?filter.id=$eq:<id>`' }),
  uuid: z.uuid().meta({ description: 'The refund\'s UUID' }),
  amount: z.number().int().meta({ description: 'Cents' }),
  currency: z.string(),
  status: z.enum(['pending', 'success', 'canceled']).meta({ description: 'Base form of sub_status' }),
  sub_status: z.enum(OLDER_REFUND_SUB_STATUSES).meta({
    description:
      'pending_created: admitted, the gateway has not answered the refund request yet. pending_promise: the gateway has the refund. ' +
      'success: executed. canceled_rejected: the gateway rejected (or itself canceled) the refund before its refund_sla_timeout. ' +
      'canceled_timeout_potential_ghost: canceled at refund_sla_timeout, the gateway never acknowledged the refund. ' +
      'canceled_timeout_e2e_manual: canceled at refund_sla_timeout, the gateway had acknowledged it but it never settled (needs a manual look). ' +
      'A refund canceled at its refund_sla_timeout keeps its amount reserved until the gateway confirms the cancel; one the gateway executed anyway becomes success.',
  }),
  checkout_intent_idempotency_key: z.string().nullable().meta({ description: 'The idempotency key the refund was created with (v202607: idempotency_key)' }),
  gateway_transaction_id: z.string().nullable().meta({ description: "The gateway's reference of the refund, once it executed it" }),
  gateway_transaction_human_readable: z.string().nullable().meta({ description: 'The same gateway reference, for display' }),
  gateway: z.string().nullable().meta({ description: 'The gateway that took the refunded payment' }),
  transaction_id: z.number().int().nullable().meta({ description: 'The refunded payment (the transaction_id POST /refunds took)' }),
  payment_intent: z.uuid().nullable().meta({ description: 'The refunded payment intent\'s UUID' }),
  created_at: z.string(),
  updated_at: z.string(),
  succeeded_at: z.string().nullable().meta({ description: 'When the refund was known to have executed; null unless success' }),
});
export type OlderRefundRow = z.infer<typeof olderRefundRow>;
