import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { DomainError, forbidden, unauthenticated } from '../../domain/errors';
import { hashesEqual, hashKey, parseKey } from '../../platform/keys';
import type { ApiKeyRecord } from '../../platform/records';
import type { AppDeps, AuthContext } from '../deps';
import type { AuthMode } from './route';
import { apiKeyData } from '../../data/api-keys';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function bearer(ctx: Context): string | null {
  const h = ctx.get('authorization');
  if (!h) return null;
  const m = BEARER.exec(h);
  if (!m) throw unauthenticated('The Authorization header must be "Bearer <API key>"');
  return m[1]!;
}

/** The bearer token, if the request carries a well-formed one (for checks that run before authentication). */
export function bearerToken(ctx: Context): string | null {
  return BEARER.exec(ctx.get('authorization'))?.[1] ?? null;
}

/** Resolves the caller. The tenant always comes from the key, never from the request. */
export async function authenticate(ctx: Context, mode: AuthMode, deps: AppDeps): Promise<AuthContext | null> {
  if (mode === 'none') return null;
  const token = bearer(ctx);
  if (mode === 'admin') {
    const want = deps.config.ADMIN_API_TOKEN;
    if (!token) throw unauthenticated('Admin routes need Authorization: Bearer <ADMIN_API_TOKEN>');
    if (!want || !sameSecret(token, want)) throw unauthenticated('Invalid admin token');
    return null;
  }
  if (!token) throw unauthenticated('No API key provided. Send Authorization: Bearer <API key>');
  const record = await verifyApiKey(token, ctx.state.region as string, deps);
  if (mode === 'secret' && record.kind !== 'secret')
    throw forbidden('secret_key_required', 'A publishable key can only submit payment attempts; use a secret key');
  return { tenantId: record.tenant_id, region: record.region, keyKind: record.kind, claims: record.claims };
}

/**
 * Key records read in the last few seconds, by lookup id. The hash is still compared on every request; the
 * cache only saves the MongoDB read. A revocation is seen at once by the process that made it and within
 * KEY_CACHE_MS by the others.
 */
export const KEY_CACHE_MS = 5000;
const KEY_CACHE_MAX = 10_000;
const keyCache = new Map<string, { record: ApiKeyRecord; at: number }>();

export function forgetApiKey(lookupId: string): void {
  keyCache.delete(lookupId);
}

type KeyDeps = Pick<AppDeps, 'mongo'> & { config: Pick<AppDeps['config'], 'KEY_HASH_SECRET'> };

async function keyRecord(lookupId: string, deps: KeyDeps): Promise<ApiKeyRecord | null> {
  const hit = keyCache.get(lookupId);
  if (hit && Date.now() - hit.at < KEY_CACHE_MS) return hit.record;
  const record = await apiKeyData(deps.mongo).byLookupId(lookupId);
  if (record) {
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(lookupId, { record, at: Date.now() });
  }
  return record;
}

/** A live key of the host's region, or an authentication error. */
export async function verifyApiKey(token: string, hostRegion: string, deps: KeyDeps): Promise<ApiKeyRecord> {
  const parsed = parseKey(token);
  if (!parsed) throw unauthenticated('Invalid API key provided');
  if (parsed.region !== hostRegion)
    throw new DomainError(
      'authentication',
      'wrong_region',
      `This key belongs to region '${parsed.region}'; send requests to that region's host (api-${parsed.region}.<domain>), not the '${hostRegion}' host`,
    );
  const record = await keyRecord(parsed.lookupId, deps);
  if (!record || !hashesEqual(record.hash, hashKey(token, deps.config.KEY_HASH_SECRET)))
    throw unauthenticated('Invalid API key provided');
  if (record.revoked_at) throw new DomainError('authentication', 'api_key_revoked', 'This API key has been revoked');
  return record;
}

function sameSecret(a: string, b: string): boolean {
  // Hash first so the comparison takes the same time whatever the lengths.
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}
