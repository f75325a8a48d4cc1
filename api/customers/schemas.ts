import { z } from 'zod';

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
  phone_number: z.string().regex(/^\+?[0-9 ()-]{4,32}$/, 'a phone number such as +4915112345678').optional(),
};

export const customerUpsertBody = z.object(customerFields).strict();
export const customerInlineV202608 = z.object({ ...customerFields, address: addressSchema.optional() }).strict();
export type CustomerInput = z.infer<typeof customerInlineV202608>;

/**
 * The customer object as v202607 documents it, and nothing more: `address` is a v202608 field, answered only
 * to requests for v202608 or later (the customer endpoints themselves fall back to v202607's).
 */
export const customerView = z
  .object({
    customer: z.string(),
    reference: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    phone_number: z.string().nullable(),
    created_at: z.string(),
  })
  .strict();

/** The first version whose customer objects carry `address`. */
export const ADDRESS_SINCE = 'v202608';
