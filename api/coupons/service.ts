import { notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import type { Mongo } from '../../platform/mongo';
import { createOnceForRequest } from '../../data/keyed-create';
import type { CouponRecord } from '../../platform/billing-records';
import { couponData, type StoredCoupon } from '../../data/coupons';
import { idempotencyScope } from '../../data/idempotency';
import { deleteCouponUpdate } from '../../workflows/coupon-redemptions/messages';
import type { AppDeps } from '../deps';
import { unixSeconds } from '../../domain/billing/snapshots';
import { onCouponOwner } from './owner';
import type { CouponCreateBody, CouponView } from './schemas';

/** Whether the coupon can still be redeemed at `now` (Unix ms): not deleted, before redeem_by, under max_redemptions. */
export function couponValid(c: CouponRecord, now: number): boolean {
  if ((c as StoredCoupon).deleted_at) return false;
  if (c.redeem_by !== null && c.redeem_by.getTime() <= now) return false;
  return c.max_redemptions === null || c.times_redeemed < c.max_redemptions;
}

/** A stored coupon in its one public shape (`valid` as of `now`, Unix ms). */
export function couponView(c: CouponRecord, now: number = Date.now()): CouponView {
  return {
    coupon: c._id,
    object: 'coupon',
    name: c.name,
    percent_off: c.percent_off,
    amount_off: c.amount_off,
    currency: c.currency,
    duration: c.duration,
    duration_in_months: c.duration_in_months,
    max_redemptions: c.max_redemptions,
    redeem_by: c.redeem_by ? unixSeconds(c.redeem_by) : null,
    times_redeemed: c.times_redeemed,
    valid: couponValid(c, now),
    metadata: (c as StoredCoupon).metadata ?? {},
    created: unixSeconds(c.created_at),
  };
}

/** Creates a coupon, or answers the one this idempotency key made with the same parameters (`created` false; other ones are a 400). */
export async function createCoupon(mongo: Mongo, tenantId: string, region: string, body: CouponCreateBody): Promise<{ record: StoredCoupon; created: boolean }> {
  const data = couponData(mongo);
  const id = newId('coupon', region);
  const scope = idempotencyScope(tenantId, body.idempotency_key, id);
  const record: StoredCoupon = {
    _id: id,
    tenant_id: tenantId,
    name: body.name ?? null,
    percent_off: body.percent_off ?? null,
    amount_off: body.amount_off ?? null,
    currency: body.amount_off !== undefined ? body.currency! : null,
    duration: body.duration,
    duration_in_months: body.duration === 'repeating' ? body.duration_in_months! : null,
    max_redemptions: body.max_redemptions ?? null,
    redeem_by: body.redeem_by !== undefined ? new Date(body.redeem_by * 1000) : null,
    times_redeemed: 0,
    metadata: body.metadata ?? {},
    idempotency_scope: scope,
    created_at: new Date(),
    deleted_at: null,
    version: 0,
  };
  return createOnceForRequest(data, body, record, 'coupon');
}

/** The tenant's coupon, unless unknown or deleted (404). */
export async function getCoupon(mongo: Mongo, tenantId: string, id: string): Promise<StoredCoupon> {
  const coupon = await couponData(mongo).findLive(tenantId, id);
  if (!coupon) throw notFound('coupon', id, 'coupon');
  return coupon;
}

/**
 * Deletes a coupon, as Stripe does: it is then unknown to new redemptions, lists and retrieves (a second
 * delete is a 404), while subscriptions that have it keep their discount. Its owner marks it, so a
 * redemption in flight is decided before or after, never beside it.
 */
export async function deleteCoupon(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const coupon = await getCoupon(deps.mongo, tenantId, id);
  await onCouponOwner(deps, tenantId, id, deleteCouponUpdate, [{ at: Date.now(), onRecord: { timesRedeemed: coupon.times_redeemed, version: coupon.version } }]);
}
