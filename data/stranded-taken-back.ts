import type { StrandedKind } from '../domain/stranded-kinds';
import type { Mongo } from '../platform/mongo';
import type { StrandedTakenBackRecord } from '../platform/ops-records';

// What the stranded-records sweep holds between deleting a record and looking again whether its workflow
// started meanwhile (activities/stranded-records.ts): written before the delete, removed once the record was
// put back or what it held was freed. Spans tenants, like the sweep; only the sweep's activity uses it.

type Held = { _id: string; created_at: Date };

/** One copy per record and creation: a record a resend made again under the same id (a key's) is held apart. */
const keyOf = (kind: StrandedKind, r: Held) => `${kind}:${r._id}:${r.created_at.getTime()}`;

export function strandedTakenBackData(mongo: Mongo) {
  const c = mongo.c.strandedTakenBack;
  return {
    /** Holds a copy of the record as it is now, from now (again: the copy and its time are replaced). */
    hold: async (kind: StrandedKind, record: Held): Promise<void> =>
      void (await c.replaceOne({ _id: keyOf(kind, record) }, { kind, record: record as StrandedTakenBackRecord['record'], taken_at: new Date() }, { upsert: true })),
    /** Lets it go: put back, freed, or never deleted. */
    drop: async (kind: StrandedKind, record: Held): Promise<void> => void (await c.deleteOne({ _id: keyOf(kind, record) })),
    /** What the kind holds since `before` or longer (a sweep that died left some too), oldest first. */
    heldSince: (kind: StrandedKind, before: Date, limit: number): Promise<StrandedTakenBackRecord[]> =>
      c.find({ kind, taken_at: { $lte: before } }).sort({ taken_at: 1, _id: 1 }).limit(limit).toArray(),
  };
}
