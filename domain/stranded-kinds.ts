/**
 * The records a create writes before starting the workflow that owns them (whose id is the record's), which the
 * stranded-records sweep looks at, in order. Not subscriptions: their create's give-back (a coupon redemption,
 * a customer's credit) has to run with the delete, so the sweep leaves them.
 */
export const STRANDED_KINDS = ['payment_intent', 'payout', 'checkout', 'test_clock'] as const;
export type StrandedKind = (typeof STRANDED_KINDS)[number];

/** Where a page of version-0 records ends: the next page starts after it, in (created_at, _id) order. */
export interface VersionZeroCursor {
  createdAt: string;
  id: string;
}
