import type { Mongo } from '../platform/mongo';
import type { ReplayedRequestRecord } from '../platform/records';
import { insertOrHolder } from './idempotency';

/** The answers of creates made under the `Idempotency-Key` header (api/http/header-replay.ts), by `<tenant>:<key>`. */
export function replayedRequestData(mongo: Mongo) {
  const c = mongo.c.replayedRequests;
  // Every change after the claim names the claim (its `started_at`): a request that lost its claim to a
  // take-over writes nothing over its successor's.
  const claimed = (id: string, startedAt: Date) => ({ _id: id, state: 'running' as const, started_at: startedAt });
  return {
    /** Claims the key for this request: null when it did, else the record holding it. */
    claim: (record: ReplayedRequestRecord) => insertOrHolder(() => c.insertOne(record), () => c.findOne({ _id: record._id })),
    /**
     * Takes over a claim presumed dead, or a record past its keeping: true for exactly one taker. The take-over is
     * decided by the insert of a marker with a unique id naming the claim taken, since FerretDB runs a conditional
     * update as a read then a write, which two takers could both pass (data/versioned-writes.ts).
     */
    takeOver: async (holder: ReplayedRequestRecord, replacement: ReplayedRequestRecord): Promise<boolean> => {
      try {
        await c.insertOne({ ...replacement, _id: `${holder._id}#taken#${holder.started_at.getTime()}`, state: 'done', status: 0 });
      } catch {
        return false; // another taker's marker (or the store failed: the repeat answers 409 and is retried)
      }
      // Matches nothing when the first request answered meanwhile (it was slow, not dead): its answer stands.
      return (await c.replaceOne({ _id: holder._id, started_at: holder.started_at, state: holder.state }, replacement)).matchedCount === 1;
    },
    /** Keeps the answer for the repeats; false when the claim was taken over meanwhile. */
    complete: async (id: string, startedAt: Date, answer: Pick<ReplayedRequestRecord, 'status' | 'body' | 'headers'>) =>
      (await c.updateOne(claimed(id, startedAt), { $set: { state: 'done', ...answer } })).matchedCount === 1,
    /** Frees the key: the request made nothing a repeat should be answered with. */
    release: async (id: string, startedAt: Date) => void (await c.deleteOne(claimed(id, startedAt))),
    /** The tenant's records past their keeping (take-over markers included): nothing replays them any more. */
    purgeExpired: async (tenantId: string, before: Date) => void (await c.deleteMany({ tenant_id: tenantId, started_at: { $lt: before } })),
  };
}
