import { z } from 'zod';
import { MAX_UNIX_SECONDS, typedId } from '../http/common-schemas';
import { LANGUAGES } from '../hosted/locale';

// Billing-portal sessions (v202607), as Stripe's customer portal has them: a link, valid for an hour, to a page
// where the customer sees their subscriptions and invoices, changes plan, cancels and updates their card.

export const portalSessionCreateBody = z
  .object({
    customer: typedId('cus').describe('The customer (`cus_...`) whose billing the page shows'),
    return_url: z.url({ protocol: /^https?$/ }).max(2048).optional().describe('Where the page\'s "Return to <merchant>" link goes'),
    plans: z
      .array(typedId('plan'))
      .min(1)
      .max(20)
      .optional()
      .describe('The plans (`plan_...`) the customer may switch to; default every active plan that bills like the subscription (currency, interval and interval_count)'),
    locale: z.enum(LANGUAGES).optional().describe('The page\'s language (`en`, `fr`, `ar`); `?lg=` on the URL chooses another. Default English'),
  })
  .strict();
export type PortalSessionCreateBody = z.infer<typeof portalSessionCreateBody>;

export const portalSessionViewSchema = z
  .object({
    billing_portal_session: z.string(),
    object: z.literal('billing_portal.session'),
    customer: z.string(),
    url: z.string().describe('The page to send the customer to: its id is the credential, so show it to that customer only'),
    return_url: z.string().nullable(),
    expires_at: z.number().int().describe('Unix seconds: an hour after creation'),
    created: z.number().int(),
  })
  .meta({ id: 'BillingPortalSession', description: 'A billing-portal session. Times are Unix seconds.' });
export type PortalSessionView = z.infer<typeof portalSessionViewSchema>;

// The page's own requests (its script sends them as JSON; every one carries the session's CSRF token).
const csrf = { csrf_token: z.string().max(128) };
export const portalActionBody = z.object(csrf).strict();
export const portalSwitchBody = z
  .object({
    ...csrf,
    plan: typedId('plan'),
    proration_date: z.coerce.number().int().min(0).max(MAX_UNIX_SECONDS),
    confirm_token: z.string().max(128),
  })
  .strict();
export type PortalSwitchBody = z.infer<typeof portalSwitchBody>;
