import { oneSaveAtATime } from './versioned-writes';
import type { Mongo } from '../platform/mongo';

/** The product record's units for sale (and price), as written by the product's stock workflow (its only writer). */
export function productStockData(mongo: Mongo) {
  const c = mongo.c.products;
  return {
    /** The record's `stock` now (what a newly started stock workflow begins from); null for an unknown product. */
    stockOf: async (tenantId: string, productId: string) =>
      (await c.findOne({ _id: productId, tenant_id: tenantId }, { projection: { stock: 1 } }))?.stock ?? null,
    /** Applied only over an older write of the owner: a late or repeated write never moves the stock back. */
    save: (tenantId: string, productId: string, stock: number, version: number, price?: number) =>
      oneSaveAtATime(c.collectionName, productId, async () => {
        await c.updateOne(
          { _id: productId, tenant_id: tenantId, $or: [{ stock_version: { $lt: version } }, { stock_version: { $exists: false } }] },
          { $set: { stock, ...(price !== undefined ? { price } : {}), stock_version: version, updated_at: new Date() } },
        );
      }),
  };
}
