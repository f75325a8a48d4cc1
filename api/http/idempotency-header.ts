import type { IncomingMessage } from 'node:http';
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

/**
 * What the `Idempotency-Key` header is on a route: the body's key field (`key`), the key a create without one keeps
 * its first answer under (`replay`, header-replay.ts), or nothing. The router and the OpenAPI document both ask.
 */
export type IdempotencyHeaderUse = { kind: 'key'; field: string } | { kind: 'replay' } | null;

export function idempotencyHeaderUse(def: { body?: z.ZodType; replaysIdempotencyKeyHeader?: boolean }): IdempotencyHeaderUse {
  const field = idempotencyKeyField(def.body);
  if (field) return { kind: 'key', field };
  return def.replaysIdempotencyKeyHeader ? { kind: 'replay' } : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const headerRefused = (field: string, why: string) => new DomainError('invalid_request', 'parameter_invalid', `The Idempotency-Key header ${why}`, field);

/**
 * The `Idempotency-Key` header as text, or undefined when it was not sent. Node hands header values over as
 * Latin-1, so `café` sent as UTF-8 (as browsers and HTTP libraries send it) arrived as `cafÃ©` and named another
 * key than the same text in the body; its bytes are read as UTF-8. Sent twice, Node would join the two into
 * "a, b", a key neither request meant; sent empty, it read as no key at all, so a retry made a second object.
 */
export function idempotencyHeaderOf(req: IncomingMessage, field: string | null): string | undefined {
  const values = req.headersDistinct['idempotency-key'];
  if (!values || !field) return undefined;
  if (values.length > 1) throw headerRefused(field, 'was sent more than once: send it once');
  const raw = values[0]!;
  if (raw.trim() === '') throw headerRefused(field, 'is empty: send the key, or leave the header out');
  try {
    return utf8.decode(Buffer.from(raw, 'latin1'));
  } catch {
    throw headerRefused(field, 'is not UTF-8 text');
  }
}

/** The body with the header's key in `field`; the header and a different key in the body is a 400. */
export function withIdempotencyHeader(field: string | null, body: unknown, header: string | undefined): unknown {
  if (header === undefined || !field || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const given = (body as Record<string, unknown>)[field];
  if (given !== undefined && given !== header)
    throw new DomainError('invalid_request', 'parameter_invalid', `The Idempotency-Key header and the body's ${field} differ: send the key once`, field);
  return { ...(body as Record<string, unknown>), [field]: header };
}
