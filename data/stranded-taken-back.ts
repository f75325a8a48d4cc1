import type { StrandedKind } from '../domain/stranded-kinds';
import type { Mongo } from '../platform/mongo';
import type { StrandedTakenBackRecord } from '../platform/ops-records';
import { insertOnce } from './versioned-writes';

// What the stranded-records sweep holds between deleting a record and looking again whether its workflow
// started meanwhile (activities/stranded-records.ts): written before the delete, removed once the record was
// put back or what it held was freed. Spans tenants, like the sweep; only the sweep's activity uses it.

const keyOf = (kind: StrandedKind, id: string) => `${kind}:${id}`;

export function strandedTakenBackData(mongo: Mongo) {
  const c = mongo.c.strandedTakenBack;
  return {
    /** Holds a copy of the record before its delete (a repeated hold changes nothing). */
    hold: (kind: StrandedKind, record: { _id: string }): Promise<void> =>
      insertOnce(c, { _id: keyOf(kind, record._id), kind, record: record as StrandedTakenBackRecord['record'], taken_at: new Date() }),
    /** Lets it go: put back, freed, or never deleted. */
    drop: async (kind: StrandedKind, id: string): Promise<void> => void (await c.deleteOne({ _id: keyOf(kind, id) })),
    /** What the kind holds since `before` or longer (a sweep that died left some too), oldest first. */
    heldSince: (kind: StrandedKind, before: Date, limit: number): Promise<StrandedTakenBackRecord[]> =>
      c.find({ kind, taken_at: { $lte: before } }).sort({ taken_at: 1, _id: 1 }).limit(limit).toArray(),
  };
}
