import { isDuplicateKeyError } from '../platform/mongo';

/**
 * The unique key that makes a create idempotent: the merchant's key scoped to its tenant, or the new
 * object's own id when there is none (a unique index needs a value in every document, on MongoDB and
 * FerretDB alike). The one place that spells it.
 */
export function idempotencyScope(tenantId: string, idempotencyKey: string | null | undefined, ownId: string): string {
  return idempotencyKey ? `${tenantId}:${idempotencyKey}` : ownId;
}

/**
 * The scope of a recipient a payout registers from its inline fields, derived from the payout's key so that
 * concurrent repeats share one recipient. It starts with `payout:`, which no tenant id does, so no key given to
 * POST /payout-recipients (scoped `<tenant>:<key>`) can name it.
 */
export function inlineRecipientScope(tenantId: string, payoutKey: string): string {
  return `payout:${tenantId}:${payoutKey}`;
}

/** A customer's `reference`, scoped the same way (unique per tenant). */
export function referenceScope(tenantId: string, reference: string | null | undefined, ownId: string): string {
  return reference ? `${tenantId}:${reference}` : ownId;
}

/**
 * A create's insert under its unique idempotency scope: null when this request inserted it, else the record
 * that holds the scope (its request won). A holder that took its record back between our insert and our read
 * (its workflow did not start) has freed the scope, so the insert is tried again, `tries` times in all; a
 * duplicate that no holder explains past that (another unique index) is thrown as it came.
 */
export async function insertOrHolder<T>(insert: () => Promise<unknown>, holder: () => Promise<T | null>, tries = 3): Promise<T | null> {
  for (let left = tries; ; left--) {
    try {
      await insert();
      return null;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const held = await holder();
      if (held) return held;
      if (left <= 1) throw err;
    }
  }
}
