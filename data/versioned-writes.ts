import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { isDuplicateKeyError } from '../platform/mongo';

// The three writes every workflow-owned record uses: a versioned update, an insert a retried activity may
// repeat, and an insert guarded by an idempotency scope.

/** The version guard: applied only over an older version, so writes that arrive late or twice are `stale`. */
export async function saveVersioned<T extends { _id: string; version: number }>(
  c: Collection<T>,
  id: string,
  version: number,
  fields: Partial<T>,
): Promise<'applied' | 'stale'> {
  const res = await c.updateOne({ _id: id, version: { $lt: version } } as Filter<T>, { $set: { version, ...fields } } as UpdateFilter<T>);
  return res.matchedCount === 1 ? 'applied' : 'stale';
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
