import { randomBytes } from 'node:crypto';

// Typed ids `<prefix>_<region>_<opaque>`: 128 bits of randomness in base62, so ids cannot be guessed.
export const ID_PREFIXES = [
  'pi', 're', 'cus', 'pf', 'orc', 'con', 'ti', 'pm', 'agr', 'ten', 'evt', 'whs',
  // commerce: categories, their attributes and values, products, catalogs, carts, addresses, checkouts, orders, returns
  'cat', 'attr', 'val', 'prod', 'ctl', 'cart', 'addr', 'chk', 'ord', 'ret',
  // billing: plans, tax rates, coupons, promotion codes, subscriptions and their items, invoices and their
  // lines, credit notes, test clocks, checkout sessions, billing-portal sessions
  'plan', 'txr', 'coupon', 'promo', 'sub', 'si', 'in', 'il', 'cn', 'clock', 'cs', 'bps',
  // operations: operator actions (the audit trail), reconciliation runs and their discrepancies
  'opa', 'rec', 'dsc',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

export function newId(prefix: IdPrefix, region: string): string {
  return `${prefix}_${region}_${base62(randomBytes(16))}`;
}

const ID_RE = /^([a-z]+)_([a-z]{2,8})_([0-9A-Za-z]{8,64})$/;

export function parseId(id: string): { prefix: string; region: string; opaque: string } | null {
  const m = ID_RE.exec(id);
  return m ? { prefix: m[1]!, region: m[2]!, opaque: m[3]! } : null;
}

export function isIdOf(prefix: IdPrefix, id: unknown): id is string {
  return typeof id === 'string' && parseId(id)?.prefix === prefix;
}
