import type { Mongo } from '../platform/mongo';
import type { EventRecord } from '../platform/records';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

/** Events in MongoDB, every read scoped by tenant. Written by the workflows that emit them. */
export function eventData(mongo: Mongo) {
  const c = mongo.c.events;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** Every delivery attempt of an event, oldest first (at most 1,000). */
    deliveryAttempts: (tenantId: string, eventId: string) =>
      mongo.c.deliveryAttempts.find({ event_id: eventId, tenant_id: tenantId }).sort({ attempted_at: 1, _id: 1 }).limit(1000).toArray(),
    /** The URLs this event's deliveries wait parked at (their endpoint disabled), not replayed yet. */
    parkedUrls: async (tenantId: string, eventId: string) =>
      (await mongo.c.parkedDeliveries.find({ event_id: eventId, tenant_id: tenantId, replayed_by: null }, { projection: { url: 1 } }).toArray()).map((p) => p.url),
    list: (tenantId: string, filter: { type?: string }, page: PageQuery): Promise<Page<EventRecord>> =>
      paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
  };
}
