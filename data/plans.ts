import type { Mongo } from '../platform/mongo';
import type { PlanRecord } from '../platform/billing-records';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

export interface PlanFilter {
  active?: boolean;
  currency?: string;
}

/** Plans in MongoDB, every read and write scoped by tenant. Written by the API only (no workflow owns a plan). */
export function planData(mongo: Mongo) {
  const c = mongo.c.plans;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** The tenant's plans among `ids` (an id of another tenant, or none, is simply absent), in no order. */
    findMany: (tenantId: string, ids: readonly string[]) =>
      ids.length === 0 ? Promise.resolve([] as PlanRecord[]) : c.find({ _id: { $in: [...new Set(ids)] }, tenant_id: tenantId }).toArray(),
    /** The plan a create with this idempotency scope made, if any. */
    byScope: (scope: string) => c.findOne({ idempotency_scope: scope }),
    /** Throws the driver's duplicate-key error when the idempotency scope is taken (the create's guard). */
    insert: async (record: PlanRecord) => void (await c.insertOne(record)),
    /** Sets fields of a plan; the plan as it is after, or null when the tenant has no such plan. */
    update: async (tenantId: string, id: string, set: Partial<Pick<PlanRecord, 'nickname' | 'metadata' | 'active'>>): Promise<PlanRecord | null> => {
      const res = await c.updateOne({ _id: id, tenant_id: tenantId }, { $set: { ...set, updated_at: new Date() } });
      return res.matchedCount === 0 ? null : c.findOne({ _id: id, tenant_id: tenantId });
    },
    list: (tenantId: string, filter: PlanFilter, page: PageQuery): Promise<Page<PlanRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
  };
}
