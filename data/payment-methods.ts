import type { Mongo } from '../platform/mongo';
import type { SavedPaymentMethodRecord } from '../platform/records';
import { paginate, type Page, type PageQuery } from './list';

/** Saved cards (`pm_...`), every read scoped by tenant; a detached card is invisible to reads. */
export function paymentMethodData(mongo: Mongo) {
  const c = mongo.c.savedPaymentMethods;
  return {
    /** The tenant's card, attached (not detached). */
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId, detached_at: null }),
    /** The tenant's card whether detached or not (to tell a detached card from an unknown one). */
    findAny: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** A customer's attached cards, newest first. */
    listOfCustomer: (tenantId: string, customer: string, page: PageQuery): Promise<Page<SavedPaymentMethodRecord>> =>
      paginate(c, { tenant_id: tenantId, customer, detached_at: null }, page),
    /** Detaches the customer's card; false when it is not one of theirs (or was detached already). */
    detach: async (tenantId: string, customer: string, id: string, at: Date) =>
      (await c.updateOne({ _id: id, tenant_id: tenantId, customer, detached_at: null }, { $set: { detached_at: at } })).matchedCount > 0,
    /** Detaches every card of the customer still attached (a deleted customer's); repeated, it finds none left. */
    detachAllOf: async (tenantId: string, customer: string, at: Date) =>
      void (await c.updateMany({ tenant_id: tenantId, customer, detached_at: null }, { $set: { detached_at: at } })),
  };
}
