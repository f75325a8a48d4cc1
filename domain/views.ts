import { z } from 'zod';

// The public shapes of the resources a workflow owns, as the spec defines them: the one definition each.
// The API documents and answers them (OpenAPI, the retrieve endpoints), and the workflows build their
// views and event data against the same types, so a field added here is a compile error in every builder
// until each fills it. zod is pure code: workflows may import this module.

export const paymentIntentView = z.object({
  payment_intent: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  amount: z.number().int(),
  currency: z.string(),
  url: z.string(),
  expires_at: z.string(),
  customer: z.string().optional(),
  created_at: z.string(),
});
export type PaymentIntentView = z.infer<typeof paymentIntentView>;

export const refundView = z.object({
  refund: z.string(),
  payment_intent: z.string(),
  status: z.enum(['pending', 'success', 'canceled']),
  amount: z.number().int(),
  currency: z.string(),
  created_at: z.string(),
  gateway_transaction_id: z.string().nullable(),
});
export type RefundView = z.infer<typeof refundView>;
