import type { Mongo } from '../platform/mongo';
import type { CustomerRecord } from '../platform/records';
import { referenceScope } from './idempotency';
import { oneSaveAtATime } from './versioned-writes';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

/** Customers in MongoDB, every read and write scoped by tenant (deleted ones are invisible). */
export function customerData(mongo: Mongo) {
  const c = mongo.c.customers;
  // One write at a time per customer in this process: FerretDB runs a guarded update as a read then a whole-document
  // write, so an update racing a delete could write the customer back undeleted (data/versioned-writes.ts).
  const oneSave = <R>(id: string, save: () => Promise<R>) => oneSaveAtATime('customers', id, save);
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId, deleted_at: null }),
    /** The tenant's customer, deleted or not: a repeated delete finishes what the first began. */
    findAny: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** Whether this customer was deleted: its cards are charged no more. */
    isDeleted: async (tenantId: string, id: string) =>
      Boolean((await c.findOne({ _id: id, tenant_id: tenantId }, { projection: { deleted_at: 1 } }))?.deleted_at),
    byReference: (tenantId: string, reference: string) => c.findOne({ reference_scope: referenceScope(tenantId, reference, '') }),
    /** Whether a customer other than `exceptId` holds this reference. */
    referenceTaken: async (tenantId: string, reference: string, exceptId: string) =>
      (await c.countDocuments({ reference_scope: referenceScope(tenantId, reference, ''), _id: { $ne: exceptId } }, { limit: 1 })) > 0,
    /** Throws the driver's duplicate-key error when another customer holds the reference. */
    insert: async (record: CustomerRecord) => void (await c.insertOne(record)),
    /** Takes back a customer this request created, unless it changed since (`updatedAt`). */
    removeIfUnchanged: async (id: string, updatedAt: Date) => void (await oneSave(id, () => c.deleteOne({ _id: id, updated_at: updatedAt }))),
    /** False when there is no such live customer (deleted meanwhile: a reference written then would stay held). */
    update: async (tenantId: string, id: string, set: Partial<CustomerRecord>) =>
      (await oneSave(id, () => c.updateOne({ _id: id, tenant_id: tenantId, deleted_at: null }, { $set: set }))).matchedCount > 0,
    /** Puts fields back, unless the customer changed since (`updatedAt`). */
    restoreIfUnchanged: async (id: string, updatedAt: Date, previous: Partial<CustomerRecord>) =>
      void (await oneSave(id, () => c.updateOne({ _id: id, updated_at: updatedAt, deleted_at: null }, { $set: previous }))),
    /** Detaches the record and frees its reference; false when there was no such (live) customer. */
    remove: async (tenantId: string, id: string) =>
      // updated_at moves too: an update's or create's undo (restoreIfUnchanged, removeIfUnchanged) then finds the
      // customer changed and leaves the deleted one alone, its reference freed.
      (await oneSave(id, () => c.updateOne({ _id: id, tenant_id: tenantId, deleted_at: null }, { $set: { deleted_at: new Date(), updated_at: new Date(), reference_scope: id } })))
        .matchedCount > 0,
    list: (tenantId: string, filter: { reference?: string; email?: string }, page: PageQuery): Promise<Page<CustomerRecord>> =>
      // An empty `reference=` or `email=` filters nothing (as it always has), so only non-empty values count.
      paginate(c, { tenant_id: tenantId, deleted_at: null, ...definedOnly({ reference: filter.reference || undefined, email: filter.email || undefined }) }, page),
  };
}
