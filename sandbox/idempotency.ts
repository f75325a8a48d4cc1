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

/** The effect of `kind` made under a key (an answer lost on the way is found so), or undefined. */
export function recordByKey<R>(store: SandboxStore, kind: EffectKind, idempotencyKey: string, records: Map<string, R>): R | undefined {
  const effect = store.effectByKey(idempotencyKey);
  return effect?.kind === kind ? records.get(effect.id) : undefined;
}

/** What a cancel of a key never seen leaves behind (see cancelByKey); real refunds and payouts have an amount. */
export function isTombstone(r: { status: string; amount: number } | undefined): boolean {
  return r?.status === 'canceled' && r.amount === 0;
}

/**
 * Cancels the effect made under a key (refunds, payouts): a pending one is canceled (no money moves), a final
 * one answers its final state. A key never seen gets a canceled tombstone of 0 under it, so a late request
 * with it is void. A key that holds another kind is a conflict: tombstoning it would hide that effect.
 */
export function cancelByKey<R extends { id: string; status: string; updatedAt: Date }>(
  store: SandboxStore,
  kind: EffectKind,
  idempotencyKey: string,
  records: Map<string, R>,
  tombstone: (now: Date) => R,
): R {
  const effect = store.effectByKey(idempotencyKey);
  if (effect && effect.kind !== kind) throw idempotencyConflict(`Idempotency key already used for a ${effect.kind} (${effect.id}).`);
  const existing = effect ? records.get(effect.id) : undefined;
  if (existing) {
    if (existing.status === 'pending') {
      existing.status = 'canceled';
      existing.updatedAt = new Date();
    }
    return existing;
  }
  const now = new Date();
  const record = tombstone(now);
  records.set(record.id, record);
  store.recordEffect(kind, record.id, idempotencyKey, 'canceled-before-arrival', now);
  return record;
}
