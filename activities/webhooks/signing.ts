import { Webhook } from 'standardwebhooks';

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
