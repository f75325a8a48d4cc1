import type { TestClockRecord } from '../platform/billing-records';
import type { Mongo } from '../platform/mongo';
import { paginate, type Page, type PageQuery } from './list';
import { saveVersioned, versionZeroRecords } from './versioned-writes';
import { ENDED_SUBSCRIPTION_STATUSES } from '../domain/billing/snapshots';
import type { Interval } from '../domain/billing/periods';

/**
 * Test clocks in MongoDB, every read scoped by tenant. The API inserts a clock's record (and takes it back
 * when its workflow cannot be started); after that only the clock's workflow writes it, versioned, and
 * removes it when the clock is deleted.
 */
export function testClockData(mongo: Mongo) {
  const c = mongo.c.testClocks;
  const liveOn = (tenantId: string, clock: string, projection: Record<string, 1>) =>
    mongo.c.subscriptions.find({ tenant_id: tenantId, test_clock: clock, status: { $nin: [...ENDED_SUBSCRIPTION_STATUSES] } }, { projection }).toArray();
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    insert: async (record: TestClockRecord) => void (await c.insertOne(record)),
    /** Records at version 0: the create's take-back, and the stranded-records sweep's page and put-back. */
    ...versionZeroRecords(c),
    list: (tenantId: string, page: PageQuery): Promise<Page<TestClockRecord>> => paginate(c, { tenant_id: tenantId }, page),
    /** The workflow's write: applied only over an older version. */
    save: (id: string, version: number, set: Pick<TestClockRecord, 'frozen_time' | 'status'>) => saveVersioned(c, id, version, set),
    /** The workflow's last write: the clock is deleted, and every call on it is a 404 from now on. */
    remove: async (tenantId: string, id: string) => void (await c.deleteOne({ _id: id, tenant_id: tenantId })),
    /** The billing intervals of the subscriptions living on the clock that have not ended (what bounds an advance). */
    subscriptionIntervalsOn: async (tenantId: string, clock: string): Promise<{ interval: Interval; intervalCount: number }[]> =>
      (await liveOn(tenantId, clock, { 'snapshot.interval': 1, 'snapshot.intervalCount': 1 })).map((s) => ({ interval: s.snapshot.interval, intervalCount: s.snapshot.intervalCount })),
    /** The ids of the subscriptions living on the clock that have not ended. */
    subscriptionsOn: async (tenantId: string, clock: string): Promise<string[]> => (await liveOn(tenantId, clock, { _id: 1 })).map((s) => s._id),
    /** How many invoices of the clock's customers are open (a deleted clock's subscriptions close theirs as they end). */
    openInvoicesOn: (tenantId: string, clock: string): Promise<number> => mongo.c.invoices.countDocuments({ tenant_id: tenantId, status: 'open', 'snapshot.testClock': clock }),
  };
}
