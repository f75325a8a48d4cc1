import { z } from 'zod';
import { ISO_4217, MAX_AMOUNT } from '../domain/money';

// Field schemas shared by several resources.

export const currencySchema = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'a 3-letter ISO 4217 code')
  .transform((c) => c.toUpperCase())
  .refine((c) => ISO_4217.has(c), 'an ISO 4217 currency code');

export const amountSchema = z.number().int('an integer in minor units').min(0).max(MAX_AMOUNT);

/** Metadata as Stripe bounds it: 50 keys, keys up to 40 characters, values up to 500. */
export const metadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

export const EVENT_TYPES = [
  'payment.success',
  'payment.canceled',
  'payment.attempt_failed',
  'refund.success',
  'refund.canceled',
  'subscription.created',
  'subscription.updated',
  'subscription.canceled',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export const webhookEndpointSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    // Sent back in an HTTP header, which carries only visible ASCII.
    secret: z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/, 'visible ASCII characters only').optional(),
    events: z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length),
  })
  .strict();

export const webhooksSchema = z.array(webhookEndpointSchema).max(10);

export const idempotencyKeySchema = z.string().min(1).max(255);

export const typedId = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[a-z]{2,8}_[0-9A-Za-z]{8,64}$`), `a ${prefix}_... id`);
