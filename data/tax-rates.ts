import type { Mongo } from '../platform/mongo';
import type { TaxRateRecord } from '../platform/billing-records';
import type { TaxRateInput } from '../domain/billing/invoice-math';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

/**
 * A tax rate as stored. `description` is written on every new tax rate; TaxRateRecord does not declare it
 * yet (platform/billing-records.ts), so it is optional here and read as null when absent.
 */
export type StoredTaxRate = TaxRateRecord & { description?: string | null };

/** A stored tax rate as invoice arithmetic takes it. */
export const taxRateInputOf = (r: Pick<TaxRateRecord, '_id' | 'percentage' | 'inclusive'>): TaxRateInput => ({ id: r._id, percentage: r.percentage, inclusive: r.inclusive });

export interface TaxRateFilter {
  active?: boolean;
  inclusive?: boolean;
}

/** Tax rates in MongoDB, every read and write scoped by tenant. Written by the API only. */
export function taxRateData(mongo: Mongo) {
  const c = mongo.c.taxRates;
  return {
    find: (tenantId: string, id: string): Promise<StoredTaxRate | null> => c.findOne({ _id: id, tenant_id: tenantId }),
    /** The tenant's tax rates among `ids` (an id of another tenant, or none, is simply absent), in no order. */
    findMany: (tenantId: string, ids: readonly string[]): Promise<StoredTaxRate[]> =>
      ids.length === 0 ? Promise.resolve([]) : c.find({ _id: { $in: [...new Set(ids)] }, tenant_id: tenantId }).toArray(),
    byScope: (scope: string): Promise<StoredTaxRate | null> => c.findOne({ idempotency_scope: scope }),
    /** Throws the driver's duplicate-key error when the idempotency scope is taken (the create's guard). */
    insert: async (record: StoredTaxRate) => void (await c.insertOne(record)),
    /** Sets fields of a tax rate; the tax rate as it is after, or null when the tenant has no such tax rate. */
    update: async (tenantId: string, id: string, set: Partial<Pick<TaxRateRecord, 'display_name' | 'jurisdiction' | 'active'>>): Promise<StoredTaxRate | null> => {
      const res = await c.updateOne({ _id: id, tenant_id: tenantId }, { $set: set });
      return res.matchedCount === 0 ? null : c.findOne({ _id: id, tenant_id: tenantId });
    },
    list: (tenantId: string, filter: TaxRateFilter, page: PageQuery): Promise<Page<StoredTaxRate>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
  };
}
