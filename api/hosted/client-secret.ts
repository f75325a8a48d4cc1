import { createHmac } from 'node:crypto';
import { hashesEqual } from '../../platform/keys';
import type { Config } from '../../platform/config';
import { parseId } from '../../platform/ids';
import { regionPublicBaseUrl, type RegionalBaseConfig } from '../http/region';

// The hosted page cannot hold a publishable key (keys are shown once and stored hashed), so each intent's
// `url` carries a client secret bound to that one intent: an HMAC of its id under the server's pepper.
// It allows what a publishable key allows for that intent (show it, submit attempts) and a little more: its holder
// is the customer on the page, so the front-end retrieve shows them the contact details and the page's own URL.

export function clientSecretFor(paymentIntentId: string, pepper: string): string {
  return `pics_${createHmac('sha256', pepper).update(`client-secret:${paymentIntentId}`).digest('hex')}`;
}

export function isClientSecretFor(paymentIntentId: string, candidate: string, pepper: string): boolean {
  if (!/^pics_[0-9a-f]{64}$/.test(candidate)) return false;
  return hashesEqual(candidate.slice(5), clientSecretFor(paymentIntentId, pepper).slice(5));
}

export function hostedPageUrl(publicBaseUrl: string, paymentIntentId: string, pepper: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}/pay/${paymentIntentId}?client_secret=${clientSecretFor(paymentIntentId, pepper)}`;
}

/**
 * An intent's hosted page, on the public base of the intent's region (the region segment of its typed id,
 * `pi_<region>_...`; see regionPublicBaseUrl): its `url` (v202607) and `target_url` (older interface).
 */
export function intentPageUrl(paymentIntentId: string, config: RegionalBaseConfig & Pick<Config, 'KEY_HASH_SECRET'>): string {
  return hostedPageUrl(regionPublicBaseUrl(parseId(paymentIntentId)?.region, config), paymentIntentId, config.KEY_HASH_SECRET);
}
