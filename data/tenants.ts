import type { Mongo } from '../platform/mongo';
import type { TenantRecord } from '../platform/records';

/** Tenants: created and read by the admin API (and `npm run dev`'s demo tenant). */
export function tenantData(mongo: Mongo) {
  const c = mongo.c.tenants;
  return {
    find: (id: string) => c.findOne({ _id: id }),
    insert: async (tenant: TenantRecord) => void (await c.insertOne(tenant)),
  };
}
