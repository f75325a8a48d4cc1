import { isIdOf, parseId } from '../../platform/ids';
import { regionPublicBaseUrl, type RegionalBaseConfig } from '../http/region';

// Where the two hosted billing pages live: a checkout session's page (`url` of a `cs_...`) and a billing-portal
// session's pages (`url` of a `bps_...`). Their unguessable ids are the capability, as an intent's client secret
// is for its payment page. Absolute URLs name the host of the session's region, as intents' pages do.

export const checkoutPagePath = (session: string, suffix = '') => `/billing/checkout/${encodeURIComponent(session)}${suffix}`;
export const portalPagePath = (session: string, suffix = '') => `/billing/portal/${encodeURIComponent(session)}${suffix}`;

const base = (id: string, config: RegionalBaseConfig) => regionPublicBaseUrl(parseId(id)?.region, config);

export const checkoutPageUrl = (session: string, config: RegionalBaseConfig, suffix = '') => `${base(session, config)}${checkoutPagePath(session, suffix)}`;
export const portalPageUrl = (session: string, config: RegionalBaseConfig, suffix = '') => `${base(session, config)}${portalPagePath(session, suffix)}`;

/**
 * The intents these pages pay carry their session in their metadata, so the payment page of such an intent
 * (where a 3-D Secure challenge returns) sends the customer back to the billing page that made it.
 */
export const CHECKOUT_SESSION_METADATA = 'checkout_session';
export const PORTAL_SESSION_METADATA = 'billing_portal_session';

/**
 * An intent a billing session made (a checkout session's first payment, a portal's card check) is paid to keep
 * the card its subscription charges later: its attempts save the card whatever they say, as Stripe's Checkout
 * in subscription mode does. Its `owner` is the session (the metadata is the merchant's to set on any intent).
 */
export const savesCardForItsSession = (intent: { owner?: string | null }): boolean => isIdOf('cs', intent.owner ?? undefined) || isIdOf('bps', intent.owner ?? undefined);

/**
 * The billing page an intent's payment page sends the customer to instead (a checkout session's, or a portal's
 * card update), keeping the attempt a 3-D Secure challenge returns with and a chosen language; null for any
 * other intent.
 */
export function billingPageOf(intent: { _id: string; metadata?: Record<string, string> | null }, query: Record<string, unknown>): string | null {
  const meta = intent.metadata ?? {};
  const params = new URLSearchParams();
  let path: string | null = null;
  if (isIdOf('cs', meta[CHECKOUT_SESSION_METADATA])) path = checkoutPagePath(meta[CHECKOUT_SESSION_METADATA]!);
  else if (isIdOf('bps', meta[PORTAL_SESSION_METADATA])) {
    path = portalPagePath(meta[PORTAL_SESSION_METADATA]!, '/card');
    params.set('payment_intent', intent._id);
  }
  if (!path) return null;
  for (const name of ['attempt', 'lg']) {
    const v = query[name];
    if (typeof v === 'string' && /^[A-Za-z0-9_-]{1,12}$/.test(v)) params.set(name, v);
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
