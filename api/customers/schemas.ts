import { z } from 'zod';
import { customerObject, customerView } from '../../domain/views';
import { phoneNumberSchema, typedId } from '../http/common-schemas';

const text = (max = 200) => z.string().max(max);

export const addressSchema = z
  .object({
    line1: text().optional(),
    line2: text().optional(),
    city: text().optional(),
    state: text().optional(),
    postal_code: text(40).optional(),
    country: z.string().regex(/^[A-Za-z]{2}$/, 'a 2-letter ISO 3166 country code').optional(),
  })
  .strict();

export const customerFields = {
  reference: text(200).min(1).optional(),
  first_name: text().optional(),
  last_name: text().optional(),
  // What a browser's email field accepts: the document says `format: email`, and so should we.
  email: z.email({ pattern: z.regexes.html5Email }).max(320).optional(),
  phone_number: phoneNumberSchema.optional(),
};

/** A customer given inline to a payment intent (v202607). */
export const customerUpsertBody = z.object(customerFields).strict();
export const customerInlineV202608 = z.object({ ...customerFields, address: addressSchema.optional() }).strict();

/**
 * The body of the customer endpoints: the inline fields, and the test clock the customer lives on (set at
 * create only; an inline customer of a payment intent takes none).
 */
export const customerBody = customerUpsertBody.extend({
  test_clock: typedId('clock')
    .optional()
    .meta({ description: "A test clock of yours (`clock_...`): the customer's subscriptions follow its time. Set when the customer is created; it cannot be changed." }),
});

/** v202608's body of the customer endpoints: an address too, as its inline customers take and its customers answer. */
export const customerBodyV202608 = customerBody.extend({ address: addressSchema.optional() });

export type CustomerInput = z.infer<typeof customerInlineV202608> & { test_clock?: string };

/** The customer as retrieve answers it: one definition, in domain/views.ts (v202607's, and v202608's with the address). */
export { customerView, customerObject };
