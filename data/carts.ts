import type { Mongo } from '../platform/mongo';
import type { CartLineRecord, CartRecord, ProductRecord } from '../platform/records';
import { idempotencyScope } from './idempotency';
import { oneSaveAtATime } from './versioned-writes';

/** What a cart needs of a product: its live price, stock, currency, and what a cart line shows. */
export type CartProduct = Pick<ProductRecord, '_id' | 'sku' | 'title' | 'price' | 'currency' | 'stock' | 'image_url'>;

const CART_PRODUCT_FIELDS = { _id: 1, sku: 1, title: 1, price: 1, currency: 1, stock: 1, image_url: 1 } as const;

/** Carts, every query scoped by tenant. The API inserts them (the unique idempotency scope is the create's guard). */
export function cartData(mongo: Mongo) {
  const c = mongo.c.carts;
  /**
   * Sets `fields` on the open cart only if its updated_at is still `readAt`, and moves updated_at strictly
   * past it: the compare-and-set that orders a cart's edits and its checkout's claim. FerretDB evaluates the
   * filter and writes apart, so this process's writes of one cart go one at a time (oneSaveAtATime).
   */
  const setIfUnchanged = (tenantId: string, id: string, readAt: Date, fields: Partial<CartRecord>): Promise<boolean> =>
    oneSaveAtATime(c.collectionName, id, async () => {
      const now = new Date(Math.max(Date.now(), readAt.getTime() + 1));
      const r = await c.updateOne({ _id: id, tenant_id: tenantId, status: 'open', updated_at: readAt }, { $set: { ...fields, updated_at: now } });
      return r.matchedCount === 1;
    });
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    /** Throws the driver's duplicate-key error when another create holds the same idempotency scope. */
    insert: async (record: CartRecord) => void (await c.insertOne(record)),
    /** Takes back a create whose retention could not be started (its id was never answered). */
    takeBack: async (tenantId: string, id: string) => void (await c.deleteOne({ _id: id, tenant_id: tenantId, status: 'open' })),
    /**
     * Replaces an open cart's contents if it is still as read (`readAt`, its updated_at then); answers the cart
     * as stored now, or null when no open cart of this tenant has this id as read (changed since, gone, or
     * converted: the caller reads it again to say which).
     */
    replaceContents: async (tenantId: string, id: string, products: CartLineRecord[], readAt: Date): Promise<CartRecord | null> => {
      if (!(await setIfUnchanged(tenantId, id, readAt, { products }))) return null;
      return c.findOne({ _id: id, tenant_id: tenantId });
    },
    /**
     * A checkout's claim: marks the open cart as written now (so an edit read before it no longer applies),
     * only if it is still as the checkout read it. False: it changed since (or is gone).
     */
    claimForCheckout: (tenantId: string, id: string, readAt: Date): Promise<boolean> => setIfUnchanged(tenantId, id, readAt, {}),
    /** A paid checkout's cart: it no longer changes, and is kept (retention deletes only carts never converted). */
    markConverted: async (tenantId: string, id: string) => void (await c.updateOne({ _id: id, tenant_id: tenantId }, { $set: { status: 'converted', updated_at: new Date() } })),
    /**
     * Retention: deletes the open cart only as read (`readAt`, its updated_at then), so a checkout that claimed
     * it since (the claim writes updated_at) keeps it. `deleted`; `changed` (still open, written since: read
     * again); `converted` (kept); or `gone` (already deleted, or never inserted).
     */
    deleteIfUnchanged: (tenantId: string, id: string, readAt: Date): Promise<'deleted' | 'changed' | 'converted' | 'gone'> =>
      oneSaveAtATime(c.collectionName, id, async () => {
        const r = await c.deleteOne({ _id: id, tenant_id: tenantId, status: 'open', updated_at: readAt });
        if (r.deletedCount === 1) return 'deleted';
        const left = await c.findOne({ _id: id, tenant_id: tenantId }, { projection: { status: 1 } });
        return !left ? 'gone' : left.status === 'open' ? 'changed' : 'converted';
      }),
  };
}

/**
 * The tenant's products among `ids`, live (price, stock, currency as stored now), with only what a cart needs
 * (data/catalog.ts's productData.some reads them whole). Another tenant's product is simply absent.
 */
export async function cartProducts(mongo: Mongo, tenantId: string, ids: string[]): Promise<CartProduct[]> {
  if (ids.length === 0) return [];
  return mongo.c.products.find({ _id: { $in: ids }, tenant_id: tenantId }, { projection: CART_PRODUCT_FIELDS }).toArray();
}
