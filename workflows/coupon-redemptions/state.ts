import type {
  CountedRedemption,
  DeleteCouponRequest,
  RedeemRequest,
  RedeemResult,
  RedemptionCounts,
  RedemptionsCarried,
  ReleaseResult,
  UpdateCodeRequest,
} from './messages';

/**
 * How many subscriptions a coupon remembers (newest kept): far more than can retry or release one
 * redemption while the workflow runs. Older ones are counted still; they are only no longer recognised.
 */
export const REDEMPTIONS_KEPT = 1000;

/** A record the owner writes, with the version of its last write. */
interface Owned {
  timesRedeemed: number;
  version: number;
}
interface CouponCount extends Owned {
  /** When the merchant deleted the coupon (Unix ms), or null. */
  deletedAt: number | null;
}
interface CodeCount extends Owned {
  active: boolean;
}

/** What a change asks the owner to write: the coupon record, a promotion code's, or both. */
export interface Dirty {
  coupon: boolean;
  code: string | null;
  /** The subscription whose redemption it gave back (marked, durably: see couponReleaseData). */
  givenBack?: string;
  /** The subscription it counted (an earlier give-back's mark goes). */
  counted?: string;
}

// A coupon's redemptions as plain code: what a redemption, a release and the merchant's changes do to the
// counts. No Temporal API here, so it is tested directly. Ids and subscription ids are data: Maps only.

export class RedemptionState {
  coupon: CouponCount | null;
  readonly codes: Map<string, CodeCount>;
  /** Subscription -> the promotion code it was counted for (null: the coupon itself), oldest first. */
  readonly redemptions: Map<string, string | null>;
  /** Subscriptions whose redemption was given back, oldest first: a release vouched `counted` for them again is ignored. */
  readonly released: Set<string>;

  constructor(carried?: RedemptionsCarried) {
    this.coupon = carried?.coupon ? { ...carried.coupon } : null;
    this.codes = new Map((carried?.codes ?? []).map(([id, c]) => [id, { ...c }]));
    this.redemptions = new Map(carried?.redemptions ?? []);
    this.released = new Set(carried?.released ?? []);
  }

  /** The coupon's count: the one in memory, else what its record said. */
  private couponOf(onRecord: { timesRedeemed: number; version: number }): CouponCount {
    if (!this.coupon) this.coupon = { timesRedeemed: onRecord.timesRedeemed, version: onRecord.version, deletedAt: null };
    return this.coupon;
  }

  private codeOf(id: string, onRecord: { timesRedeemed: number; version: number; active: boolean }): CodeCount {
    let code = this.codes.get(id);
    if (!code) {
      code = { timesRedeemed: onRecord.timesRedeemed, version: onRecord.version, active: onRecord.active };
      this.codes.set(id, code);
    }
    return code;
  }

  /**
   * Checks every limit, then counts one redemption for the subscription (on the coupon and on the promotion
   * code it came through). A subscription already counted is answered ok and counted once.
   */
  redeem(req: RedeemRequest): { result: RedeemResult; dirty: Dirty | null } {
    const coupon = this.couponOf({ timesRedeemed: req.couponTimesRedeemedOnRecord, version: req.couponVersionOnRecord ?? 0 });
    const limits = req.codeLimits;
    const code =
      req.promotionCode !== null && limits !== null
        ? this.codeOf(req.promotionCode, { timesRedeemed: limits.timesRedeemedOnRecord, version: limits.versionOnRecord ?? 0, active: limits.active })
        : null;
    if (this.redemptions.has(req.subscription)) {
      const countedFor = this.redemptions.get(req.subscription) ?? null;
      const countedCode = countedFor !== null ? this.codes.get(countedFor) : undefined;
      return { result: { ok: true, couponTimesRedeemed: coupon.timesRedeemed, promotionCodeTimesRedeemed: countedCode?.timesRedeemed ?? null }, dirty: null };
    }
    const refuse = (result: Extract<RedeemResult, { ok: false }>) => ({ result, dirty: null });
    if (coupon.deletedAt !== null) return refuse({ ok: false, code: 'resource_missing', message: 'The coupon was deleted' });
    const { redeemBy, maxRedemptions } = req.couponLimits;
    if (redeemBy !== null && req.at >= redeemBy) return refuse({ ok: false, code: 'coupon_expired', message: 'The coupon can no longer be redeemed: its redeem_by has passed' });
    if (maxRedemptions !== null && coupon.timesRedeemed >= maxRedemptions)
      return refuse({ ok: false, code: 'coupon_max_redemptions', message: `The coupon has been redeemed its maximum of ${maxRedemptions} times` });
    if (code && limits) {
      if (!code.active) return refuse({ ok: false, code: 'promotion_code_inactive', message: 'The promotion code is not active' });
      if (limits.expiresAt !== null && req.at >= limits.expiresAt) return refuse({ ok: false, code: 'promotion_code_expired', message: 'The promotion code has expired' });
      if (limits.maxRedemptions !== null && code.timesRedeemed >= limits.maxRedemptions)
        return refuse({ ok: false, code: 'promotion_code_max_redemptions', message: `The promotion code has been redeemed its maximum of ${limits.maxRedemptions} times` });
    }
    coupon.timesRedeemed += 1;
    if (code) code.timesRedeemed += 1;
    const codeId = code ? req.promotionCode : null;
    this.remember(req.subscription, codeId);
    return {
      result: { ok: true, couponTimesRedeemed: coupon.timesRedeemed, promotionCodeTimesRedeemed: code?.timesRedeemed ?? null },
      dirty: { coupon: true, code: codeId, counted: req.subscription },
    };
  }

  private remember(subscription: string, codeId: string | null): void {
    this.released.delete(subscription); // counted again: a later release gives this one back
    this.redemptions.set(subscription, codeId);
    if (this.redemptions.size > REDEMPTIONS_KEPT) this.redemptions.delete(this.redemptions.keys().next().value!);
  }

  /**
   * Gives back the subscription's redemption (idempotent: a second release, or an unknown one, changes nothing).
   * An unknown subscription vouched `counted` by the caller is given back from the caller's figures, unless
   * this run gave it back already: an owner started again after an idle close remembers none it counted.
   */
  release(subscription: string, counted?: CountedRedemption): { result: ReleaseResult; dirty: Dirty | null } {
    const heard = counted ? { countedHeard: true as const } : {};
    let codeId: string | null;
    if (this.redemptions.has(subscription) && this.coupon) {
      codeId = this.redemptions.get(subscription) ?? null;
      this.redemptions.delete(subscription);
    } else if (counted && !this.released.has(subscription)) {
      this.couponOf(counted.couponOnRecord);
      codeId = counted.promotionCode;
      if (codeId !== null && counted.codeOnRecord) this.codeOf(codeId, counted.codeOnRecord);
    } else return { result: { released: false, couponTimesRedeemed: this.coupon?.timesRedeemed ?? null, ...heard }, dirty: null };
    const coupon = this.coupon!;
    coupon.timesRedeemed = Math.max(0, coupon.timesRedeemed - 1);
    const code = codeId !== null ? this.codes.get(codeId) : undefined;
    if (code) code.timesRedeemed = Math.max(0, code.timesRedeemed - 1);
    this.released.add(subscription);
    if (this.released.size > REDEMPTIONS_KEPT) this.released.delete(this.released.values().next().value!);
    return { result: { released: true, couponTimesRedeemed: coupon.timesRedeemed, ...heard }, dirty: { coupon: true, code: code ? codeId : null, givenBack: subscription } };
  }

  /** The merchant's change of a promotion code: `active` counts at once for redemptions. */
  updateCode(req: UpdateCodeRequest): { result: { active: boolean; timesRedeemed: number }; dirty: Dirty } {
    const code = this.codeOf(req.promotionCode, req.onRecord);
    if (req.active !== undefined) code.active = req.active;
    return { result: { active: code.active, timesRedeemed: code.timesRedeemed }, dirty: { coupon: false, code: req.promotionCode } };
  }

  /** The merchant deleted the coupon: every later redemption is refused. */
  deleteCoupon(req: DeleteCouponRequest): { dirty: Dirty | null } {
    const coupon = this.couponOf(req.onRecord);
    if (coupon.deletedAt !== null) return { dirty: null };
    coupon.deletedAt = req.at;
    return { dirty: { coupon: true, code: null } };
  }

  /** The next version of the coupon record's owner write: above the last, and at least `floor`. */
  nextCouponVersion(floor = 0): number {
    if (!this.coupon) throw new Error('no coupon count yet');
    this.coupon.version = Math.max(this.coupon.version + 1, floor);
    return this.coupon.version;
  }

  nextCodeVersion(id: string, floor = 0): number {
    const code = this.codes.get(id);
    if (!code) throw new Error(`no count for promotion code ${id}`);
    code.version = Math.max(code.version + 1, floor);
    return code.version;
  }

  counts(): RedemptionCounts {
    const codes: RedemptionCounts['codes'] = {};
    // Object.defineProperty: a promotion code id is data, never a key that could reach the prototype.
    for (const [id, c] of this.codes) Object.defineProperty(codes, id, { value: { timesRedeemed: c.timesRedeemed, active: c.active }, enumerable: true });
    return { coupon: this.coupon ? { timesRedeemed: this.coupon.timesRedeemed, deleted: this.coupon.deletedAt !== null } : null, codes, subscriptions: this.redemptions.size };
  }

  carry(): RedemptionsCarried {
    return {
      coupon: this.coupon ? { ...this.coupon } : null,
      codes: [...this.codes].map(([id, c]) => [id, { ...c }]),
      redemptions: [...this.redemptions],
      // Left out when empty: the carried state keeps the shape it had before releases were remembered.
      ...(this.released.size ? { released: [...this.released] } : {}),
    };
  }
}
