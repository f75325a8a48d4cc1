/** The records a create writes before starting the workflow that owns them: what the stranded-records sweep looks at, in order. */
export const STRANDED_KINDS = ['payment_intent', 'payout'] as const;
export type StrandedKind = (typeof STRANDED_KINDS)[number];

/** Where a page of version-0 records ends: the next page starts after it, in (created_at, _id) order. */
export interface VersionZeroCursor {
  createdAt: string;
  id: string;
}
