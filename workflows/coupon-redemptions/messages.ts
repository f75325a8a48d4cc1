import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

// Messages of a coupon's redemption workflow: the one owner of how many times a coupon (and each of its
// promotion codes) has been redeemed, and after their creation the one writer of their records. A
// redemption is an Update whose handler checks the limits and counts before its first await, so concurrent
// subscriptions never pass a limit together; a refusal is an answer (data), not an error.
//
// The workflow is started lazily by whoever needs it (Update-with-Start) and may close after an idle hour;
// a later start begins again from the counts on the records, which is why each request carries what the
// records said when the caller read them (`...OnRecord`): the count in memory wins whenever there is one.

export const COUPON_REDEMPTIONS_WORKFLOW = 'couponRedemptionsWorkflow';

/** One redemption workflow per coupon. */
export const couponRedemptionsWorkflowId = (couponId: string) => `coupon-redemptions:${couponId}`;

/** How long the workflow stays open with nothing to do before it closes (its writes flushed). */
export const IDLE_CLOSE_MS = 60 * 60 * 1000;

export interface CouponRedemptionsInput {
  tenantId: string;
  couponId: string;
  /** Tests shorten it; the API leaves it out (IDLE_CLOSE_MS). */
  idleCloseMs?: number;
  carried?: RedemptionsCarried;
}

/** What one run hands the next (continue-as-new). */
export interface RedemptionsCarried {
  coupon: { timesRedeemed: number; version: number; deletedAt: number | null } | null;
  codes: [string, { timesRedeemed: number; version: number; active: boolean }][];
  /** Subscriptions counted, oldest first, with the promotion code each was counted for. */
  redemptions: [string, string | null][];
  /** Subscriptions whose redemption was given back, oldest first (left out when none: runs from before had none). */
  released?: string[];
}

/** The coupon's limits as its record has them (times in Unix ms). */
export interface CouponLimits {
  maxRedemptions: number | null;
  redeemBy: number | null;
}

/** A promotion code as its record had it when the caller read it (times in Unix ms). */
export interface CodeLimits {
  maxRedemptions: number | null;
  expiresAt: number | null;
  active: boolean;
  timesRedeemedOnRecord: number;
  /** The record's `version`: the owner's next write of it goes above (0 when left out). */
  versionOnRecord?: number;
}

export interface RedeemRequest {
  /** Who redeems: a subscription id. The same subscription again is answered without counting twice. */
  subscription: string;
  /** The promotion code (`promo_...`) the coupon was redeemed through, or null for the coupon itself. */
  promotionCode: string | null;
  /** When, in Unix ms (the caller's clock: a test clock's time for subscriptions on one). */
  at: number;
  couponLimits: CouponLimits;
  codeLimits: CodeLimits | null;
  couponTimesRedeemedOnRecord: number;
  /** The coupon record's `version` (0 when left out). */
  couponVersionOnRecord?: number;
}

/** Why a redemption is refused: the API answers each as a 400 with this code. */
export type RedemptionRejection =
  | 'coupon_expired'
  | 'coupon_max_redemptions'
  | 'promotion_code_inactive'
  | 'promotion_code_expired'
  | 'promotion_code_max_redemptions'
  | 'resource_missing';

export type RedeemResult =
  | { ok: true; couponTimesRedeemed: number; promotionCodeTimesRedeemed: number | null }
  | { ok: false; code: RedemptionRejection; message: string };

export interface ReleaseRequest {
  subscription: string;
  /**
   * Sent by a caller that knows the subscription's redemption was counted and never given back (the
   * stranded-records sweep: a subscription still at version 0 had redeemed before its insert). An owner that
   * does not remember the subscription (it closed, idle, since the count) gives it back from these figures; one
   * that remembers it, or its release, ignores them. A run that closed remembers nothing, so the caller first
   * looks for the mark every give-back leaves (couponReleaseData in data/coupons.ts) and sends nothing if there is one.
   */
  counted?: CountedRedemption;
}

/** What the caller read of the records a redemption counted on, for an owner that has no count in memory. */
export interface CountedRedemption {
  /** The promotion code it was counted for, or null for the coupon itself. */
  promotionCode: string | null;
  couponOnRecord: { timesRedeemed: number; version: number };
  codeOnRecord: { timesRedeemed: number; version: number; active: boolean } | null;
}

export interface ReleaseResult {
  /** False when the subscription had no redemption here (never counted, or released already, or unknown and not `counted`). */
  released: boolean;
  couponTimesRedeemed: number | null;
  /** Set when the request was `counted` and the owner's code knows what that means (an owner from before would ignore it). */
  countedHeard?: true;
}

/** The merchant changes a promotion code (POST /promotion-codes/{id}): through the owner, its one writer. */
export interface UpdateCodeRequest {
  promotionCode: string;
  active?: boolean;
  /** The whole metadata to store (the API has merged the change into what the record had). */
  metadata?: Record<string, string>;
  /** The record as the API read it. */
  onRecord: { active: boolean; timesRedeemed: number; version: number };
}

/** The merchant deletes the coupon: no redemption after this, and the record is marked deleted. */
export interface DeleteCouponRequest {
  /** When, in Unix ms. */
  at: number;
  onRecord: { timesRedeemed: number; version: number };
}

export interface RedemptionCounts {
  coupon: { timesRedeemed: number; deleted: boolean } | null;
  codes: Record<string, { timesRedeemed: number; active: boolean }>;
  /** Subscriptions counted and remembered. */
  subscriptions: number;
}

export const redeemUpdate = defineUpdate<RedeemResult, [RedeemRequest]>('redeem');
export const releaseUpdate = defineUpdate<ReleaseResult, [ReleaseRequest]>('release');
/**
 * The release as a signal, for a workflow (an Update cannot be sent from one). The stranded-records sweep sent it
 * until it gave back through an activity's Update-with-Start (which reaches an owner that closed, too); runs
 * from before that still send it on replay.
 */
export const releaseSignal = defineSignal<[ReleaseRequest]>('releaseRedemption');
export const updatePromotionCodeUpdate = defineUpdate<{ active: boolean; timesRedeemed: number }, [UpdateCodeRequest]>('updatePromotionCode');
export const deleteCouponUpdate = defineUpdate<{ deleted: true }, [DeleteCouponRequest]>('deleteCoupon');
export const redemptionCountsQuery = defineQuery<RedemptionCounts>('redemptionCounts');
