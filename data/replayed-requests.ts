import type { Mongo } from '../platform/mongo';
import type { ReplayedRequestRecord } from '../platform/records';
import { insertOrHolder } from './idempotency';

/** The answers of creates made under the `Idempotency-Key` header (api/http/header-replay.ts), by `<tenant>:<key>`. */
export function replayedRequestData(mongo: Mongo) {
  const c = mongo.c.replayedRequests;
  // Every change after the claim names the claim (its `started_at`): a request that lost its claim to a
  // take-over (it ran past ABANDONED_AFTER_MS) writes nothing over its successor's.
  const claimed = (id: string, startedAt: Date) => ({ _id: id, state: 'running' as const, started_at: startedAt });
  return {
    /** Claims the key for this request: null when it did, else the record holding it. */
    claim: (record: ReplayedRequestRecord) => insertOrHolder(() => c.insertOne(record), () => c.findOne({ _id: record._id })),
    /** Takes a claim whose request is presumed dead; false when another repeat took it first or it finished. */
    takeOver: async (id: string, startedAt: Date, now: Date) => (await c.updateOne(claimed(id, startedAt), { $set: { started_at: now } })).matchedCount === 1,
    /** Keeps the answer for the repeats. */
    complete: async (id: string, startedAt: Date, answer: Pick<ReplayedRequestRecord, 'status' | 'body' | 'headers'>) =>
      void (await c.updateOne(claimed(id, startedAt), { $set: { state: 'done', ...answer } })),
    /** Frees the key: the request made nothing a repeat should be answered with. */
    release: async (id: string, startedAt: Date) => void (await c.deleteOne(claimed(id, startedAt))),
  };
}
