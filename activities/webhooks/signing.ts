import { Webhook, WebhookVerificationError } from 'standardwebhooks';

// Webhook signatures are Standard Webhooks signatures (standardwebhooks.com), made by the reference library
// itself (`standardwebhooks`), so that any Standard Webhooks library verifies them with the merchant's
// `whsec_...` signing secret. Three headers:
//   webhook-id:        the event id (the same on every retry and redelivery, for the receiver's dedup)
//   webhook-timestamp: unix seconds of this attempt (so a captured request cannot be replayed later)
//   webhook-signature: `v1,<base64 HMAC-SHA256(base64-decoded secret, "<id>.<timestamp>.<body>")>`, one per
//                      signing secret, space-separated: the tenant's current secret, then any rotated out
//                      less than 24 h ago (data/webhook-signing-secrets.ts).
// The endpoint's own `secret` plays no part here: it travels as is in Service-Webhook-Secret.

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers of one attempt, signed with every given `whsec_` secret (at least one). */
export function signatureHeaders(signingSecrets: readonly string[], id: string, timestampSeconds: number, body: string): SignedHeaders {
  if (signingSecrets.length === 0) throw new Error('a delivery is signed with at least one signing secret');
  const at = new Date(timestampSeconds * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signingSecrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

export type VerifyFailure = 'invalid_secret' | 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature';
export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  /** The merchant's signing secret, `whsec_<base64>`. */
  secret: string;
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  /** The raw request body, exactly as received: re-serialised JSON does not verify. */
  body: string;
}

/**
 * What a merchant's receiver does, for our tests: the library's `Webhook.verify` (5 minutes' tolerance
 * either way, one matching `v1` signature among several is enough, constant-time comparison), its
 * exception turned into a reason.
 */
export function verify(input: VerifyInput): VerifyResult {
  let webhook: Webhook;
  try {
    webhook = new Webhook(input.secret);
  } catch {
    return { ok: false, reason: 'invalid_secret' };
  }
  const headers: Record<string, string> = {};
  if (input.id !== undefined) headers['webhook-id'] = input.id;
  if (input.timestamp !== undefined) headers['webhook-timestamp'] = input.timestamp;
  if (input.signature !== undefined) headers['webhook-signature'] = input.signature;
  try {
    webhook.verify(input.body, headers, { jsonParse: false });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) return { ok: false, reason: 'invalid_signature' };
    if (/missing/i.test(err.message)) return { ok: false, reason: 'missing_headers' };
    if (/too (old|new)/i.test(err.message)) return { ok: false, reason: 'timestamp_out_of_tolerance' };
    if (/headers/i.test(err.message)) return { ok: false, reason: 'invalid_timestamp' };
    return { ok: false, reason: 'invalid_signature' };
  }
}
