/**
 * The records a create writes before starting the workflow that owns them (whose id is the record's), which the
 * stranded-records sweep looks at, in order. A subscription's create also counted its coupon's redemption:
 * the sweep gives that back with the delete (subscriptions came last, under a patch of the sweep).
 */
export const STRANDED_KINDS = ['payment_intent', 'payout', 'checkout', 'test_clock', 'subscription'] as const;
export type StrandedKind = (typeof STRANDED_KINDS)[number];

/** Where a page of version-0 records ends: the next page starts after it, in (created_at, _id) order. */
export interface VersionZeroCursor {
  createdAt: string;
  id: string;
}

/** A coupon redemption a stranded subscription's create counted, which the sweep gives back. */
export interface CountedDiscount {
  tenantId: string;
  subscription: string;
  coupon: string;
  /** The promotion code it was counted through, or null. */
  promotionCode: string | null;
}
