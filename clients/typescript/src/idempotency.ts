import { createHash, randomUUID } from 'node:crypto';

// Creates take their idempotency key in the body (`idempotency_key`; the older interface's
// `checkout_intent_idempotency_key`, the commerce API's `idempotencyKey`). Send the same key again (a retry,
// a crash between request and answer) and the API answers the first outcome (200, `resource_created:
// false`) instead of creating twice; the client's retries repeat a 503'd create only when it has a key.

/** A fresh key, unique per operation you mean to do once: store it with the operation to reuse it. */
export function idempotencyKey(prefix = ''): string {
  return `${prefix}${randomUUID()}`;
}

/**
 * A key derived from what identifies the operation in your system (`idempotencyKeyFor('order', orderId,
 * 'payment')`): a restarted process that sends the same operation again sends the same key, without
 * having stored one. 64 hex characters whatever the parts' length (the API takes up to 255).
 */
export function idempotencyKeyFor(...parts: string[]): string {
  if (parts.length === 0) throw new Error('idempotencyKeyFor needs at least one part');
  return createHash('sha256').update(parts.map((p) => `${p.length}:${p}`).join('|'), 'utf8').digest('hex');
}
