import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import { isDuplicateKeyError } from '../../platform/mongo';
import type { CouponRecord, PromotionCodeRecord } from '../../platform/billing-records';
import { codeScope, couponData, promotionCodeData, type PromotionCodeFilter, type StoredPromotionCode } from '../../data/coupons';
import type { PageQuery } from '../../data/list';
import { updatePromotionCodeUpdate } from '../../workflows/coupon-redemptions/messages';
import type { AppDeps } from '../deps';
import { couponView } from '../coupons/service';
import { onCouponOwner } from '../coupons/owner';
import { mergeMetadata } from '../plans/service';
import { unixSeconds } from '../../domain/billing/snapshots';
import type { PromotionCodeCreateBody, PromotionCodeUpdateBody, PromotionCodeView } from './schemas';

/** A stored promotion code in its one public shape, with its coupon embedded (as Stripe does). */
export function promotionCodeView(p: PromotionCodeRecord, coupon: CouponRecord, now: number = Date.now()): PromotionCodeView {
  return {
    promotion_code: p._id,
    object: 'promotion_code',
    code: p.code,
    coupon: couponView(coupon, now),
    active: p.active,
    max_redemptions: p.max_redemptions,
    times_redeemed: p.times_redeemed,
    expires_at: p.expires_at ? unixSeconds(p.expires_at) : null,
    metadata: (p as StoredPromotionCode).metadata ?? {},
    created: unixSeconds(p.created_at),
  };
}

/** Promotion codes with their coupons (deleted ones too: a code keeps showing what it stood for). */
export async function promotionCodeViews(deps: Pick<AppDeps, 'mongo'>, tenantId: string, codes: PromotionCodeRecord[]): Promise<PromotionCodeView[]> {
  if (codes.length === 0) return [];
  const coupons = new Map((await couponData(deps.mongo).findMany(tenantId, codes.map((c) => c.coupon))).map((c) => [c._id, c]));
  const now = Date.now();
  return codes.map((p) => {
    const coupon = coupons.get(p.coupon);
    if (!coupon) throw new Error(`promotion code ${p._id}: its coupon ${p.coupon} is not stored`);
    return promotionCodeView(p, coupon, now);
  });
}

/**
 * Creates a promotion code for a live coupon of the tenant. The code is unique per tenant whatever its case:
 * the unique `code_scope` decides between concurrent creates (409 `promotion_code_exists` for the others).
 */
export async function createPromotionCode(deps: AppDeps, tenantId: string, region: string, body: PromotionCodeCreateBody): Promise<PromotionCodeView> {
  const coupon = await couponData(deps.mongo).findLive(tenantId, body.coupon);
  if (!coupon) throw invalidRequest('resource_missing', `No such coupon: '${body.coupon}'`, 'coupon');
  const record: StoredPromotionCode = {
    _id: newId('promo', region),
    tenant_id: tenantId,
    coupon: coupon._id,
    code: body.code,
    code_scope: codeScope(tenantId, body.code),
    max_redemptions: body.max_redemptions ?? null,
    expires_at: body.expires_at !== undefined ? new Date(body.expires_at * 1000) : null,
    active: body.active,
    times_redeemed: 0,
    metadata: body.metadata ?? {},
    created_at: new Date(),
    version: 0,
  };
  try {
    await promotionCodeData(deps.mongo).insert(record);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw conflict('promotion_code_exists', `A promotion code '${body.code}' exists already (codes match whatever their case)`);
    throw err;
  }
  return promotionCodeView(record, coupon);
}

export async function getPromotionCode(deps: Pick<AppDeps, 'mongo'>, tenantId: string, id: string): Promise<StoredPromotionCode> {
  const code = await promotionCodeData(deps.mongo).find(tenantId, id);
  if (!code) throw notFound('promotion code', id, 'promotion_code');
  return code;
}

export async function promotionCodeOf(deps: Pick<AppDeps, 'mongo'>, tenantId: string, id: string): Promise<PromotionCodeView> {
  return (await promotionCodeViews(deps, tenantId, [await getPromotionCode(deps, tenantId, id)]))[0]!;
}

export async function listPromotionCodes(deps: Pick<AppDeps, 'mongo'>, tenantId: string, filter: PromotionCodeFilter, page: PageQuery) {
  const { data, has_more } = await promotionCodeData(deps.mongo).list(tenantId, filter, page);
  return { data: await promotionCodeViews(deps, tenantId, data), has_more };
}

/**
 * Changes `active` and `metadata` through the coupon's redemption workflow, the record's one writer once it
 * exists: a deactivation counts at once for redemptions, and never overwrites a count written beside it.
 */
export async function updatePromotionCode(deps: AppDeps, tenantId: string, id: string, body: PromotionCodeUpdateBody): Promise<PromotionCodeView> {
  const current = await getPromotionCode(deps, tenantId, id);
  if (body.active === undefined && body.metadata === undefined) return promotionCodeOf(deps, tenantId, id);
  const metadata = body.metadata !== undefined ? mergeMetadata(current.metadata ?? {}, body.metadata) : undefined;
  await onCouponOwner(deps, tenantId, current.coupon, updatePromotionCodeUpdate, [
    {
      promotionCode: id,
      ...(body.active !== undefined ? { active: body.active } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
      onRecord: { active: current.active, timesRedeemed: current.times_redeemed, version: current.version },
    },
  ]);
  return promotionCodeOf(deps, tenantId, id);
}
