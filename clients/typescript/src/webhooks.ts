import { createHash, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { paths } from './generated/schema';

// Verifying a delivery, the two ways it is authenticated:
// - Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`, an HMAC made with the
//   tenant's `whsec_...` signing secret; checked by the `standardwebhooks` library (5 minutes' tolerance,
//   any one of several signatures during a secret rotation).
// - `Service-Webhook-Secret`: the secret you set on the endpoint, sent back as is. Every delivery (older
//   interface and commerce included) is also signed: check the signature; the header alone proves nothing
//   about the body or its age.
// Give the raw body exactly as received: re-serialised JSON does not verify.

export { WebhookVerificationError };

/** The event envelope of the versioned API's webhooks: what GET /v202607/events/{event} answers, less deliveries. */
export type WebhookEvent = Omit<paths['/v202607/events/{event}']['get']['responses'][200]['content']['application/json'], 'deliveries'>;

/** Node's `req.headers`, a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The tenant's signing secret, `whsec_<base64>`: checks the Standard Webhooks signature. */
  signingSecret?: string;
  /** The `secret` you gave the endpoint: checks Service-Webhook-Secret. */
  endpointSecret?: string;
}

function lowerCased(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((v, k) => (out[k] = v));
  else for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Constant-time equality that does not leak the length either (both sides are hashed first). */
function sameSecret(given: string, expected: string): boolean {
  const h = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(given), h(expected));
}

/**
 * Checks a delivery with every secret given (at least one) and answers its parsed body; throws
 * WebhookVerificationError otherwise. Answer 2xx only after this succeeds.
 */
export function verifyWebhook<T = WebhookEvent>(rawBody: string | Buffer, headers: WebhookHeaders, opts: VerifyWebhookOptions): T {
  if (!opts.signingSecret && !opts.endpointSecret) throw new Error('verifyWebhook needs signingSecret, endpointSecret or both');
  const h = lowerCased(headers);
  if (opts.endpointSecret !== undefined) {
    const given = h['service-webhook-secret'];
    if (given === undefined) throw new WebhookVerificationError('Missing Service-Webhook-Secret');
    if (!sameSecret(given, opts.endpointSecret)) throw new WebhookVerificationError('Service-Webhook-Secret does not match');
  }
  if (opts.signingSecret !== undefined) new Webhook(opts.signingSecret).verify(rawBody, h, { jsonParse: false });
  return JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as T;
}
