import type { z } from 'zod';
import { DomainError } from '../../domain/errors';

// Stripe sends its idempotency key in an `Idempotency-Key` header; the spec puts ours in the body. A merchant
// coming from Stripe who sends the header must not get a second payment on a retry, so a route whose body
// takes a key takes the header as that key.

const KEY_FIELDS = ['idempotency_key', 'idempotencyKey', 'checkout_intent_idempotency_key'] as const;

/** The body field a route takes its idempotency key in (looking through refinements and transforms), or null. */
export function idempotencyKeyField(schema: z.ZodType | undefined): string | null {
  let s = schema as unknown as { shape?: Record<string, unknown>; _zod?: { def?: Record<string, unknown> } } | undefined;
  for (let i = 0; s && !s.shape && i < 5; i++) {
    const def = s._zod?.def;
    s = (def?.in ?? def?.innerType ?? def?.schema) as typeof s;
  }
  const shape = s?.shape;
  return shape ? (KEY_FIELDS.find((f) => f in shape) ?? null) : null;
}

/** The body with the header's key in `field`; the header and a different key in the body is a 400. */
export function withIdempotencyHeader(field: string | null, body: unknown, header: string): unknown {
  if (!header || !field || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const given = (body as Record<string, unknown>)[field];
  if (given !== undefined && given !== header)
    throw new DomainError('invalid_request', 'parameter_invalid', `The Idempotency-Key header and the body's ${field} differ: send the key once`, field);
  return { ...(body as Record<string, unknown>), [field]: header };
}
