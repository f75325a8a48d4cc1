import type { Mongo } from '../platform/mongo';
import { couponData, couponReleaseData, promotionCodeData } from '../data/coupons';

// The writes of a coupon's redemption workflow (workflows/coupon-redemptions), its records' one writer once
// they exist: each applied only over an older version, so a retried or late write never moves a count back.

/** The coupon record as the owner has it. */
export interface CouponOwnerWrite {
  tenantId: string;
  couponId: string;
  version: number;
  timesRedeemed: number;
  /** When the merchant deleted it (Unix ms), or null. */
  deletedAt: number | null;
  /** The subscription whose redemption this change gave back: marked before the count is saved. */
  givenBack?: string;
  /** The subscription this change counted: a mark of an earlier give-back is removed before the count is saved. */
  counted?: string;
}

/** A promotion code record as the owner has it. */
export interface PromotionCodeOwnerWrite {
  tenantId: string;
  promotionCodeId: string;
  version: number;
  timesRedeemed: number;
  active: boolean;
  /** Only when the merchant changed it. */
  metadata?: Record<string, string>;
}

export function createCouponRedemptionActivities({ mongo }: { mongo: Mongo }) {
  const coupons = couponData(mongo);
  const codes = promotionCodeData(mongo);
  const releases = couponReleaseData(mongo);
  return {
    async saveCouponRedemptions(w: CouponOwnerWrite): Promise<'applied' | 'stale'> {
      // The mark first: a retry after a crash between the two does both again (each is idempotent), and each
      // carries the write's version, so a late attempt of an older write does not undo a newer one.
      if (w.givenBack !== undefined) await releases.set(w.tenantId, w.couponId, w.givenBack, true, w.version);
      if (w.counted !== undefined) await releases.set(w.tenantId, w.couponId, w.counted, false, w.version);
      return coupons.saveOwned(w.couponId, w.version, { times_redeemed: w.timesRedeemed, ...(w.deletedAt !== null ? { deleted_at: new Date(w.deletedAt) } : {}) });
    },
    async savePromotionCodeRedemptions(w: PromotionCodeOwnerWrite): Promise<'applied' | 'stale'> {
      return codes.saveOwned(w.promotionCodeId, w.version, { times_redeemed: w.timesRedeemed, active: w.active, ...(w.metadata !== undefined ? { metadata: w.metadata } : {}) });
    },
  };
}
