import type { Collection } from 'mongodb';
import type { CouponRecord, PromotionCodeRecord } from '../platform/billing-records';
import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import { saveVersioned } from './versioned-writes';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

/**
 * A coupon as stored: `metadata` and `deleted_at` (null while it lives) are written on every new coupon;
 * CouponRecord does not declare them yet (platform/billing-records.ts), so they are optional here.
 */
export type StoredCoupon = CouponRecord & { metadata?: Record<string, string>; deleted_at?: Date | null };
/** A promotion code as stored (`metadata` is not declared on PromotionCodeRecord yet). */
export type StoredPromotionCode = PromotionCodeRecord & { metadata?: Record<string, string> };

/** The unique key of a promotion code: its tenant and the code in lower case (codes match whatever the case). */
export function codeScope(tenantId: string, code: string): string {
  return `${tenantId}:${code.toLowerCase()}`;
}

/**
 * Coupons in MongoDB, every read scoped by tenant. The API inserts a coupon; after that only the coupon's
 * redemption workflow (workflows/coupon-redemptions) writes it, through `saveOwned`.
 */
export function couponData(mongo: Mongo) {
  const c = mongo.c.coupons as unknown as Collection<StoredCoupon>;
  return {
    /**
     * The tenant's coupon, also once deleted (`deleted_at` set): subscriptions that had it keep their discount.
     * What the API shows or redeems is `findLive`.
     */
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** The tenant's coupon unless it was deleted. */
    findLive: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId, deleted_at: null }),
    /** The tenant's coupons among `ids`, deleted ones too, in no order. */
    findMany: (tenantId: string, ids: readonly string[]): Promise<StoredCoupon[]> =>
      ids.length === 0 ? Promise.resolve([]) : c.find({ _id: { $in: [...new Set(ids)] }, tenant_id: tenantId }).toArray(),
    byScope: (scope: string) => c.findOne({ idempotency_scope: scope }),
    /** Throws the driver's duplicate-key error when the idempotency scope is taken (the create's guard). */
    insert: async (record: StoredCoupon) => void (await c.insertOne(record)),
    /** The owner's write (its version guard): applied only over an older version. */
    saveOwned: (id: string, version: number, fields: { times_redeemed: number; deleted_at?: Date }) => saveVersioned(c, id, version, fields),
    /** Live coupons, newest first. */
    list: (tenantId: string, page: PageQuery): Promise<Page<StoredCoupon>> => paginate(c, { tenant_id: tenantId, deleted_at: null }, page),
  };
}

/**
 * The redemptions coupons' owners gave back, one record per coupon and subscription: a unique insert (atomic on
 * FerretDB too), written by the owner with the count it gave back, removed when the subscription is counted again.
 */
export function couponReleaseData(mongo: Mongo) {
  const c = mongo.c.couponReleases;
  const idOf = (couponId: string, subscription: string) => `${couponId}:${subscription}`;
  return {
    /** Whether the coupon's owner gave back the subscription's redemption (and it was not counted again since). */
    has: async (tenantId: string, couponId: string, subscription: string): Promise<boolean> =>
      (await c.findOne({ _id: idOf(couponId, subscription), tenant_id: tenantId, given_back: { $ne: false } })) !== null,
    /**
     * Given back (`true`) or counted again (`false`), as the owner's write `version` says: applied only over an
     * older write, so an attempt of an older write that lands late (a timed-out activity still running) does not
     * undo a newer one. A repeated write changes nothing.
     */
    set: async (tenantId: string, couponId: string, subscription: string, givenBack: boolean, version: number): Promise<void> => {
      const _id = idOf(couponId, subscription);
      try {
        await c.updateOne(
          { _id, $or: [{ version: { $lt: version } }, { version: { $exists: false } }] },
          { $set: { tenant_id: tenantId, released_at: new Date(), given_back: givenBack, version } },
          // Counted again without a give-back before it: nothing to record (the write before it has landed,
          // since an owner's writes run one after another, so a give-back it made is already here).
          { upsert: givenBack },
        );
      } catch (err) {
        // The record stands at this version or a newer one: the upsert's insert found its _id.
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
  };
}

export interface PromotionCodeFilter {
  coupon?: string;
  active?: boolean;
  /** Matched whatever its case. */
  code?: string;
}

/**
 * Promotion codes in MongoDB, every read scoped by tenant. The API inserts one (its unique `code_scope` makes
 * a code one per tenant); after that only its coupon's redemption workflow writes it, through `saveOwned`.
 */
export function promotionCodeData(mongo: Mongo) {
  const c = mongo.c.promotionCodes as unknown as Collection<StoredPromotionCode>;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** Throws the driver's duplicate-key error when the tenant has this code already (in any case). */
    insert: async (record: StoredPromotionCode) => void (await c.insertOne(record)),
    /** The owner's write (its version guard): applied only over an older version. */
    saveOwned: (id: string, version: number, fields: { times_redeemed: number; active?: boolean; metadata?: Record<string, string> }) =>
      saveVersioned(c, id, version, fields),
    list: (tenantId: string, filter: PromotionCodeFilter, page: PageQuery): Promise<Page<StoredPromotionCode>> =>
      paginate(
        c,
        {
          tenant_id: tenantId,
          ...definedOnly({ coupon: filter.coupon, active: filter.active, code_scope: filter.code === undefined ? undefined : codeScope(tenantId, filter.code) }),
        },
        page,
      ),
  };
}
