import type { Mongo } from '../platform/mongo';
import type { TenantRecord } from '../platform/records';
import { sequencesFor } from './sequences';

/** The sequence of tenant numbers, the integer `tenant_id` of the older interface. */
export const TENANT_SEQUENCE = 'tenants';

// Tenants are few and made by hand: blocks of one keep their numbers dense across restarts, at the price of
// an insert per tenant. Every process numbering tenants must use this size (data/sequences.ts).
const TENANT_BLOCK_SIZE = 1;
const tenantNumbers = (mongo: Mongo) => sequencesFor(mongo, TENANT_BLOCK_SIZE);

export type NewTenant = Omit<TenantRecord, 'number'> & { number?: number };

/** Tenants: created and read by the admin API (and `npm run dev`'s demo tenant). */
export function tenantData(mongo: Mongo) {
  const c = mongo.c.tenants;
  return {
    find: (id: string) => c.findOne({ _id: id }),
    findByNumber: (n: number) => c.findOne({ number: n }),
    /** Inserts the tenant, numbered from the `tenants` sequence unless it carries a number; returns what was stored. */
    insert: async (tenant: NewTenant): Promise<TenantRecord> => {
      const record: TenantRecord = { ...tenant, number: tenant.number ?? (await tenantNumbers(mongo).next(TENANT_SEQUENCE)) };
      await c.insertOne(record);
      return record;
    },
  };
}

/**
 * Numbers every tenant that has none (those of a `.data/` from before integer ids), oldest first; returns the
 * number each of them holds afterwards. Idempotent, and safe when two processes run it at once: the write
 * applies only while the tenant has no number, and the re-read says which number stayed. (FerretDB can let
 * both racing writes through, the later one winning, so a racer may briefly read a number that is then
 * replaced: each tenant still ends with exactly one. The API alone runs this, before it listens.)
 */
export async function ensureTenantNumbers(mongo: Mongo): Promise<Map<string, number>> {
  const c = mongo.c.tenants;
  const numbered = new Map<string, number>();
  const missing = await c.find({ number: { $exists: false } }, { projection: { _id: 1 } }).sort({ created_at: 1, _id: 1 }).toArray();
  for (const { _id } of missing) {
    const number = await tenantNumbers(mongo).next(TENANT_SEQUENCE);
    await c.updateOne({ _id, number: { $exists: false } }, { $set: { number } });
    const after = await c.findOne({ _id }, { projection: { number: 1 } });
    if (after && typeof after.number === 'number') numbered.set(_id, after.number);
  }
  return numbered;
}
