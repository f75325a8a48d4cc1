import type { StrandedKind } from '../domain/stranded-kinds';
import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
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
    hold: async (kind: StrandedKind, record: Held): Promise<void> => {
      const replace = () => c.replaceOne({ _id: keyOf(kind, record) }, { kind, record: record as StrandedTakenBackRecord['record'], taken_at: new Date() }, { upsert: true });
      // FerretDB's upsert is a read, then an insert: of two at once, the second insert fails; it then replaces.
      await replace().catch((err: unknown) => (isDuplicateKeyError(err) ? replace() : Promise.reject(err)));
    },
    /** Lets a held copy go (by its own id): put back, or freed. */
    drop: async (heldId: string): Promise<void> => void (await c.deleteOne({ _id: heldId })),
    /** A copy that could not be settled goes to the back, a recheck later, so it never blocks the ones behind it. */
    postpone: async (heldId: string): Promise<void> => void (await c.updateOne({ _id: heldId }, { $set: { taken_at: new Date() } })),
    /** What the kind holds since `before` or longer (a sweep that died left some too), oldest first. */
    heldSince: (kind: StrandedKind, before: Date, limit: number): Promise<StrandedTakenBackRecord[]> =>
      c.find({ kind, taken_at: { $lte: before } }).sort({ taken_at: 1, _id: 1 }).limit(limit).toArray(),
  };
}
