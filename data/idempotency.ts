/**
 * The unique key that makes a create idempotent: the merchant's key scoped to its tenant, or the new
 * object's own id when there is none (a unique index needs a value in every document, on MongoDB and
 * FerretDB alike). The one place that spells it.
 */
export function idempotencyScope(tenantId: string, idempotencyKey: string | null | undefined, ownId: string): string {
  return idempotencyKey ? `${tenantId}:${idempotencyKey}` : ownId;
}

/** A customer's `reference`, scoped the same way (unique per tenant). */
export function referenceScope(tenantId: string, reference: string | null | undefined, ownId: string): string {
  return reference ? `${tenantId}:${reference}` : ownId;
}
