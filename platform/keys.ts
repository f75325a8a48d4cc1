import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base62 } from './ids';

// API keys: `sk_<region>_<lookup><secret>` and `pk_<region>_...`. The lookup part (96 random bits) finds the
// record; the secret part (256 random bits) is never stored: only an HMAC of the whole key, keyed by a
// server-side pepper, compared in constant time.
export type KeyKind = 'secret' | 'publishable';
const PREFIX: Record<KeyKind, string> = { secret: 'sk', publishable: 'pk' };
const LOOKUP_LEN = 17; // base62 of 12 bytes
const SECRET_LEN = 43; // base62 of 32 bytes

export function generateKey(kind: KeyKind, region: string, pepper: string) {
  const lookupId = base62(randomBytes(12));
  const key = `${PREFIX[kind]}_${region}_${lookupId}${base62(randomBytes(32))}`;
  return { key, lookupId, hash: hashKey(key, pepper) };
}

export function hashKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

export function parseKey(key: string): { kind: KeyKind; region: string; lookupId: string } | null {
  const m = /^(sk|pk)_([a-z]{2,8})_([0-9A-Za-z]+)$/.exec(key);
  if (!m || m[3]!.length !== LOOKUP_LEN + SECRET_LEN) return null;
  return { kind: m[1] === 'sk' ? 'secret' : 'publishable', region: m[2]!, lookupId: m[3]!.slice(0, LOOKUP_LEN) };
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export const KNOWN_CLAIMS = ['cards.mit'] as const;
