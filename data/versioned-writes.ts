import type { Collection, Document, Filter, OptionalUnlessRequiredId, UpdateFilter } from 'mongodb';
import type { VersionZeroCursor } from '../domain/stranded-kinds';
import { isDuplicateKeyError } from '../platform/mongo';

// The writes every workflow-owned record uses: a versioned update (one at a time per record), an insert a
// retried activity may repeat, an insert guarded by an idempotency scope, and what is done to a record still
// at version 0 (a create's take-back, the stranded-records sweep).

/** Each record's save in flight in this process, by collection and id: the next save of it waits for it. */
const inFlight = new Map<string, Promise<unknown>>();
/** How long a save waits for the one before it: a bound, so a request the server never answers blocks nothing for good. */
const SAVE_WAITS_AT_MOST_MS = 60_000;

/** Resolves once `p` settled, or after `ms`, whichever comes first. */
async function settledOrAfter(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * Runs `save` after any save of the same record still in flight in this process (each waits at most
 * SAVE_WAITS_AT_MOST_MS for the one before it).
 *
 * Why: FerretDB (the dev, test and cluster stacks) runs an update as a read that evaluates the filter, then a
 * write by `_id`, not atomically: two saves of one record in flight at once can both match and land in either
 * order, the older last. A workflow writes its record one save after another, but a local activity attempt
 * that timed out (waiting on SQLite's one writer) keeps running in the worker while its retry and the next
 * saves go ahead; the Temporal outage drill caught exactly that, a paid intent left reading `pending`
 * (docs/reliability.md, 2026-11-27 07:20). MongoDB applies the filter and the update atomically, so this
 * costs it only the wait. saveVersioned goes through here, and so do the writes with filters of their own
 * (product stock's `stock_version`, invoices' upsert).
 */
export async function oneSaveAtATime<R>(collection: string, id: string, save: () => Promise<R>): Promise<R> {
  const key = `${collection}\u0000${id}`;
  const before = inFlight.get(key);
  const run = (async () => {
    if (before) await settledOrAfter(before, SAVE_WAITS_AT_MOST_MS);
    return save();
  })();
  inFlight.set(key, run);
  try {
    return await run;
  } finally {
    if (inFlight.get(key) === run) inFlight.delete(key);
  }
}

/** The version guard: applied only over an older version, so writes that arrive late or twice are `stale`. */
export function saveVersioned<T extends { _id: string; version: number }>(
  c: Collection<T>,
  id: string,
  version: number,
  fields: Partial<T>,
): Promise<'applied' | 'stale'> {
  return oneSaveAtATime(c.collectionName, id, async () => {
    const res = await c.updateOne({ _id: id, version: { $lt: version } } as Filter<T>, { $set: { version, ...fields } } as UpdateFilter<T>);
    return res.matchedCount === 1 ? ('applied' as const) : ('stale' as const);
  });
}

/** An insert a retried activity may repeat: the second finds the first and changes nothing. */
export async function insertOnce<T extends { _id: string }>(c: Collection<T>, record: T): Promise<void> {
  try {
    await c.insertOne(record as Parameters<Collection<T>['insertOne']>[0]);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/**
 * An insert guarded by a unique `idempotency_scope`: a retried insert finds its own record and answers null;
 * when another record holds the scope, answers that record's id.
 */
export async function insertOrHolder<T extends { _id: string; idempotency_scope: string }>(c: Collection<T>, record: T): Promise<string | null> {
  try {
    await c.insertOne(record as Parameters<Collection<T>['insertOne']>[0]);
    return null;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const holder = await c.findOne({ idempotency_scope: record.idempotency_scope } as Filter<T>);
    return holder && holder._id !== record._id ? holder._id : null;
  }
}

/**
 * A create guarded by its idempotency key (a unique `idempotency_scope`): a known key answers its record
 * (`created` false); of two concurrent creates with one key, one insert wins and the other answers the winner.
 */
export async function createOnce<T extends { idempotency_scope: string }>(
  store: { byScope(scope: string): Promise<T | null>; insert(record: T): Promise<void> },
  hasKey: boolean,
  record: T,
): Promise<{ record: T; created: boolean }> {
  if (hasKey) {
    const known = await store.byScope(record.idempotency_scope);
    if (known) return { record: known, created: false };
  }
  try {
    await store.insert(record);
    return { record, created: true };
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const winner = await store.byScope(record.idempotency_scope);
    if (!winner) throw err;
    return { record: winner, created: false };
  }
}

/**
 * A collection's records a create left at version 0 (inserted, its workflow not yet owning them): the create's
 * take-back when its start failed, and the stranded-records sweep's page, take-back and put-back
 * (activities/stranded-records.ts). Its data layer spreads these into its own methods.
 */
export function versionZeroRecords<T extends Document & { _id: string; version: number; created_at: Date }>(c: Collection<T>) {
  return {
    /** Version-0 records created before `cutoff`, oldest first, after `after`. */
    strandedBefore: (cutoff: Date, limit: number, after: VersionZeroCursor | null): Promise<T[]> => {
      const from = after ? { $or: [{ created_at: { $gt: new Date(after.createdAt) } }, { created_at: new Date(after.createdAt), _id: { $gt: after.id } }] } : {};
      return c
        .find({ version: 0, created_at: { $lt: cutoff }, ...from } as Filter<T>)
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray() as Promise<T[]>;
    },
    /**
     * Deletes the record while still at version 0 (and, given `createdAt`, still the one created then) and answers
     * it as it was; null when a workflow took it over, or it is gone.
     */
    takeBack: async (id: string, createdAt?: Date): Promise<T | null> =>
      (await c.findOneAndDelete({ _id: id, version: 0, ...(createdAt ? { created_at: createdAt } : {}) } as unknown as Filter<T>)) as T | null,
    /** Whether a record with this id stands, at any version. */
    standing: async (id: string): Promise<boolean> => (await c.findOne({ _id: id } as Filter<T>, { projection: { _id: 1 } })) !== null,
    /** Puts back a record takeBack answered (a repeated put-back changes nothing). */
    putBack: (record: T): Promise<void> => insertOnce(c, record as T & OptionalUnlessRequiredId<T>),
  };
}
