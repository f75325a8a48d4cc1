import { createHash } from 'node:crypto';
import { invalidRequest } from '../domain/errors';
import { createOnce } from './versioned-writes';

// A keyed create held to the request that made it, as Stripe holds one (README, idempotency): the key with the
// same parameters answers what it made; with other parameters it is refused, since answering the first object
// would read as the second one made. The record keeps a digest of its request rather than being compared
// field by field, because some of its fields change after (a plan's nickname, a tax rate's display name).

/** What a keyed record keeps of the create that made it. */
export interface CreateFingerprint {
  /** Absent without a key (nothing can repeat that create), and on records made before it was kept. */
  create_fingerprint?: string;
}

/** JSON with every object's keys sorted and undefined values left out: the same parameters in any order read alike. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
    const entries = Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * The digest of a create's parameters as validated (defaults filled in, currencies upper case), every one of
 * them, metadata too, as Stripe counts any difference; the key itself is left out.
 */
export function createFingerprint(body: object): string {
  return createHash('sha256')
    .update(canonicalJson({ ...body, idempotency_key: undefined }))
    .digest('base64url');
}

/**
 * createOnce, with a known key held to its request: the same parameters answer the record (`created` false),
 * other ones are a 400 `idempotency_key_in_use` (`what` names the object in its message). Of concurrent creates
 * with one key and different bodies, one insert wins and the others are refused, since each compares itself
 * with the winner.
 */
export async function createOnceForRequest<T extends { idempotency_scope: string }>(
  store: { byScope(scope: string): Promise<(T & CreateFingerprint) | null>; insert(record: T & CreateFingerprint): Promise<void> },
  body: { idempotency_key?: string },
  record: T,
  what: string,
): Promise<{ record: T; created: boolean }> {
  if (body.idempotency_key === undefined) return createOnce(store, false, record);
  const fingerprint = createFingerprint(body);
  const done = await createOnce(store, true, { ...record, create_fingerprint: fingerprint });
  const was = done.record.create_fingerprint;
  // A record made before fingerprints were kept has nothing to compare with: its key answers it, as it always did.
  if (!done.created && was !== undefined && was !== fingerprint)
    throw invalidRequest('idempotency_key_in_use', `This idempotency_key was used for a ${what} with other parameters: use a new key for a new ${what}`, 'idempotency_key');
  return done;
}
