import { createHmac, timingSafeEqual } from 'node:crypto';

// Webhook signatures the Standard Webhooks way (standardwebhooks.com): three headers,
//   webhook-id:        the event id (the same on every retry and redelivery, for the receiver's dedup)
//   webhook-timestamp: unix seconds of this attempt (so a captured request cannot be replayed later)
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>
// The key is the endpoint's secret string as raw UTF-8 bytes. (Standard Webhooks libraries base64-decode
// a `whsec_` secret; ours are plain strings, so a receiver using such a library must pass the bytes of the
// secret, see docs/webhooks.md.) Endpoints without a secret are not signed.

export const SIGNATURE_VERSION = 'v1';
/** A receiver refuses timestamps further than this from its clock, either way. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signedContent(id: string, timestampSeconds: number | string, body: string): string {
  return `${id}.${timestampSeconds}.${body}`;
}

/** The `v1,<base64>` value for one (id, timestamp, body). */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `${SIGNATURE_VERSION},${mac(secret, id, timestampSeconds, body).toString('base64')}`;
}

/** The same construction with the key given as bytes (what Standard Webhooks' own test vectors use). */
export function signWithKey(key: Uint8Array, id: string, timestampSeconds: number, body: string): string {
  return `${SIGNATURE_VERSION},${createHmac('sha256', key).update(signedContent(id, timestampSeconds, body), 'utf8').digest('base64')}`;
}

function mac(secret: string, id: string, timestamp: number | string, body: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(signedContent(id, timestamp, body), 'utf8').digest();
}

export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, id, timestampSeconds, body),
  };
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature' };

export interface VerifyInput {
  secret: string;
  /** Header values as received (any case of names is the caller's business). */
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  /** The raw request body, exactly as received: re-serialised JSON does not verify. */
  body: string;
  nowSeconds?: number;
  toleranceSeconds?: number;
}

/**
 * Receiver-side check, also used by our tests. The signature header may carry several space-separated
 * `v1,<sig>` values (key rotation); one match is enough. Comparison is constant-time.
 */
export function verify(input: VerifyInput): VerifyResult {
  const { secret, id, timestamp, signature, body } = input;
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'invalid_timestamp' };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  // Signed over the timestamp exactly as sent, not as re-printed from a number.
  const expected = mac(secret, id, timestamp, body);
  for (const candidate of signature.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== SIGNATURE_VERSION || !value) continue;
    const given = Buffer.from(value, 'base64');
    // Lengths are public (an HMAC-SHA256 is always 32 bytes); only equal-length buffers are compared.
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'invalid_signature' };
}
