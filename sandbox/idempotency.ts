// Applies an effect at most once per idempotency key. The lookup and the insert run in one synchronous
// stretch, so two concurrent requests with the same key cannot both create an effect.

import { idempotencyConflict } from './http-errors';
import type { EffectKind } from './resources';
import type { SandboxStore } from './store';

export function fingerprint(...parts: Array<string | number | boolean | undefined>): string {
  return JSON.stringify(parts.map((p) => p ?? null));
}

/**
 * Returns the existing record for a repeated key (in its current state, same id) or the record that
 * `create` made. `create` may throw (validation) and then nothing is recorded.
 */
export function applyOnce<R extends { id: string; createdAt: Date }>(
  store: SandboxStore,
  kind: EffectKind,
  idempotencyKey: string,
  requestFingerprint: string,
  existing: (id: string) => R | undefined,
  create: () => R,
): { record: R; replayed: boolean } {
  const lookup = store.lookup(kind, idempotencyKey, requestFingerprint);
  if (lookup.found) {
    if ('conflict' in lookup) throw idempotencyConflict(lookup.conflict);
    const record = existing(lookup.effect.id);
    if (!record) throw new Error(`effect ${lookup.effect.id} recorded without its ${kind}`);
    return { record, replayed: true };
  }
  const record = create();
  store.recordEffect(kind, record.id, idempotencyKey, requestFingerprint, record.createdAt);
  return { record, replayed: false };
}
