import type { Mongo } from '../platform/mongo';
import { testClockData } from '../data/test-clocks';

/** What the clock's workflow writes of its record (times in Unix ms, as the workflow holds them). */
export interface TestClockWrite {
  tenantId: string;
  id: string;
  frozenTime: number;
  status: 'ready' | 'advancing';
  /** The clock was deleted: its record is removed. */
  deleted: boolean;
  version: number;
}

// The MongoDB side of a test clock's workflow (workflows/test-clock): its one writer's versioned writes, and
// the subscriptions it tells the time.
export function createTestClockActivities({ mongo }: { mongo: Mongo }) {
  const clocks = testClockData(mongo);
  return {
    async saveTestClock(w: TestClockWrite): Promise<void> {
      if (w.deleted) await clocks.remove(w.tenantId, w.id);
      else await clocks.save(w.id, w.version, { frozen_time: new Date(w.frozenTime), status: w.status });
    },

    /** The subscriptions on the clock that have not ended (not canceled, not incomplete_expired). */
    async subscriptionsOnClock(q: { tenantId: string; clock: string }): Promise<string[]> {
      return clocks.subscriptionsOn(q.tenantId, q.clock);
    },
  };
}
