import { z } from 'zod';

// The public shapes of the resources, as the spec defines them: the one definition each. The API documents
// and answers them (OpenAPI, the retrieve endpoints), and the workflows build their views and event data
// against the same types, so a field added here is a compile error in every builder until each fills it.
// zod is pure code: workflows may import this module.

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

/** The first version whose customer objects carry `address`. */
export const CUSTOMER_ADDRESS_SINCE = 'v202608';

/**
 * The customer object: `address` (the fields it was given) is answered from CUSTOMER_ADDRESS_SINCE on.
 * `test_clock` is v202607's own (recurring billing is part of v202607), so every version answers it.
 */
export const customerObject = z
  .object({
    customer: z.string(),
    reference: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    phone_number: z.string().nullable(),
    address: z
      .object({
        line1: z.string().optional(),
        line2: z.string().optional(),
        city: z.string().optional(),
        state: z.string().optional(),
        postal_code: z.string().optional(),
        country: z.string().optional(),
      })
      .optional(),
    test_clock: z.string().nullable().meta({ description: 'The test clock (`clock_...`) the customer lives on, or null.' }),
    created_at: z.string(),
  })
  .strict();
export type CustomerView = z.infer<typeof customerObject>;

/** The customer object as v202607 answers it: v202608 redefines the customer endpoints to take and show `address`. */
export const customerView = customerObject.omit({ address: true });
