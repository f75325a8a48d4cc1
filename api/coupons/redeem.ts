import type { Client } from '@temporalio/client';
import { invalidRequest, type DomainError } from '../../domain/errors';
import type { CouponRecord, PromotionCodeRecord } from '../../platform/billing-records';
import { couponData, couponReleaseData, promotionCodeData, type StoredCoupon, type StoredPromotionCode } from '../../data/coupons';
import type { CountedDiscount } from '../../domain/stranded-kinds';
import { redeemUpdate, releaseUpdate, type CountedRedemption, type RedemptionRejection } from '../../workflows/coupon-redemptions/messages';
import type { AppDeps } from '../deps';
import { onCouponOwner, onOwnerIfRunning } from './owner';

// What subscriptions use to take a discount: the coupon (or promotion code) resolved and checked here, and
// the redemption counted by the coupon's owner (workflows/coupon-redemptions), exactly once per subscription
// however many ask at the same time.

export interface RedeemedDiscount {
  coupon: CouponRecord;
  promotionCode: PromotionCodeRecord | null;
}

/**
 * Resolves `coupon` (a coupon id) or `promotionCode` (a promo_ id; exactly one is given) of the tenant,
 * checks it, and counts one redemption for `subscription` through the coupon's workflow. Throws DomainError
 * 400 with param `coupon` or `promotion_code` (`resource_missing` for unknown/deleted, or the refusal codes
 * `coupon_expired`, `coupon_max_redemptions`, `promotion_code_inactive`, `promotion_code_expired`,
 * `promotion_code_max_redemptions`); for a `currency`-bound amount_off coupon whose currency differs from
 * `currency`: 400 `coupon_currency_mismatch`. The same subscription again is answered without counting twice.
 * The records answered carry the counts after this redemption.
 */
export async function redeemDiscount(
  deps: AppDeps,
  tenantId: string,
  req: { coupon?: string; promotionCode?: string; subscription: string; currency: string },
): Promise<RedeemedDiscount> {
  if ((req.coupon === undefined) === (req.promotionCode === undefined)) throw new Error('redeemDiscount: give exactly one of coupon and promotionCode');
  const param = req.promotionCode !== undefined ? 'promotion_code' : 'coupon';
  let code: StoredPromotionCode | null = null;
  let coupon: StoredCoupon | null;
  if (req.promotionCode !== undefined) {
    code = await promotionCodeData(deps.mongo).find(tenantId, req.promotionCode);
    if (!code) throw invalidRequest('resource_missing', `No such promotion code: '${req.promotionCode}'`, param);
    coupon = await couponData(deps.mongo).findLive(tenantId, code.coupon);
    if (!coupon) throw invalidRequest('resource_missing', `The coupon of promotion code '${req.promotionCode}' was deleted`, param);
  } else {
    coupon = await couponData(deps.mongo).findLive(tenantId, req.coupon!);
    if (!coupon) throw invalidRequest('resource_missing', `No such coupon: '${req.coupon}'`, param);
  }
  const currency = req.currency.toUpperCase();
  if (coupon.amount_off !== null && coupon.currency !== null && coupon.currency !== currency)
    throw invalidRequest('coupon_currency_mismatch', `The coupon takes an amount off in ${coupon.currency}; the subscription is in ${currency}`, param);

  const result = await onCouponOwner(deps, tenantId, coupon._id, redeemUpdate, [
    {
      subscription: req.subscription,
      promotionCode: code?._id ?? null,
      at: Date.now(),
      couponLimits: { maxRedemptions: coupon.max_redemptions, redeemBy: coupon.redeem_by?.getTime() ?? null },
      codeLimits: code
        ? { maxRedemptions: code.max_redemptions, expiresAt: code.expires_at?.getTime() ?? null, active: code.active, timesRedeemedOnRecord: code.times_redeemed, versionOnRecord: code.version }
        : null,
      couponTimesRedeemedOnRecord: coupon.times_redeemed,
      couponVersionOnRecord: coupon.version,
    },
  ]);
  if (!result.ok) throw refused(result.code, result.message, param);
  return {
    coupon: { ...coupon, times_redeemed: result.couponTimesRedeemed },
    promotionCode: code ? { ...code, times_redeemed: result.promotionCodeTimesRedeemed ?? code.times_redeemed } : null,
  };
}

/**
 * Gives back what redeemDiscount counted for `subscription` on `couponId` (a coupon it answered), for a
 * subscription that could not be started (idempotent: nothing to give back changes nothing). It reads nothing
 * first: a create whose insert failed with the database down still reaches the owner, whose own write waits for
 * the database. A closed owner remembers no subscription, so there is nothing to release then.
 */
export async function releaseRedeemed(deps: AppDeps, couponId: string, subscription: string): Promise<void> {
  await onOwnerIfRunning(deps, couponId, releaseUpdate, [{ subscription }]);
}

/**
 * Gives back a redemption the caller knows was counted (the stranded-records sweep's subscriptions), through the
 * coupon's owner, started again if it closed: it gives back from the records' figures what it no longer
 * remembers. A give-back already made (its mark is stored) sends nothing. Answers whether it gave one back
 * (false: it had already, or the coupon is gone).
 */
export async function giveBackCountedRedemption(deps: AppDeps, d: CountedDiscount): Promise<boolean> {
  const coupon = await couponData(deps.mongo).find(d.tenantId, d.coupon);
  if (!coupon) return false;
  if (await couponReleaseData(deps.mongo).has(d.tenantId, coupon._id, d.subscription)) return false;
  const code = d.promotionCode ? await promotionCodeData(deps.mongo).find(d.tenantId, d.promotionCode) : null;
  const counted: CountedRedemption = {
    promotionCode: code?._id ?? null,
    couponOnRecord: { timesRedeemed: coupon.times_redeemed, version: coupon.version },
    codeOnRecord: code ? { timesRedeemed: code.times_redeemed, version: code.version, active: code.active } : null,
  };
  const result = await onCouponOwner(deps, d.tenantId, coupon._id, releaseUpdate, [{ subscription: d.subscription, counted }]);
  // An owner still on code from before `counted` (a deploy under way) ignored it: not an answer, so try again later.
  if (!result.released && !result.countedHeard) throw new Error(`the owner of ${coupon._id} runs code that ignores a counted release; try again once every worker is upgraded`);
  return result.released;
}

/** The give-back the worker hands the stranded-records activities: the API's deps but the Temporal client, which is the worker's. */
export function redemptionGiveBack(base: Omit<AppDeps, 'temporal'>) {
  return { giveBack: (temporal: Client, d: CountedDiscount) => giveBackCountedRedemption({ ...base, temporal }, d) };
}

/** The owner's refusal as the API answers it: a 400 naming the parameter the discount came through. */
function refused(code: RedemptionRejection, message: string, param: string): DomainError {
  switch (code) {
    case 'coupon_expired':
      return invalidRequest('coupon_expired', message, param);
    case 'coupon_max_redemptions':
      return invalidRequest('coupon_max_redemptions', message, param);
    case 'promotion_code_inactive':
      return invalidRequest('promotion_code_inactive', message, param);
    case 'promotion_code_expired':
      return invalidRequest('promotion_code_expired', message, param);
    case 'promotion_code_max_redemptions':
      return invalidRequest('promotion_code_max_redemptions', message, param);
    case 'resource_missing':
      return invalidRequest('resource_missing', message, param);
  }
}
