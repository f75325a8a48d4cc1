import { route, type RouteDef } from '../http/route';
import { portalPageRoutes } from '../hosted/billing-portal-routes';
import { portalSessionCreateBody, portalSessionViewSchema } from './schemas';
import { createPortalSession } from './service';

export const billingPortalRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/billing-portal/sessions',
    versions: ['v202607'],
    auth: 'secret',
    summary: "Create a billing-portal session: a page where the customer manages their subscriptions, card and invoices",
    description:
      "Send the customer to `url` (valid for an hour; the id in it is the credential, so give it to that customer only). The page lists the customer's subscriptions (plan, status, amount, next renewal, a cancellation at the period's end) and invoices, and the card on file. The customer can switch plan (the confirm step shows the next invoice with its prorations, computed for the moment shown, and the switch is applied at that same `proration_date` with `create_prorations`), cancel at the end of the period (and undo it), and update the card: a new card is saved by a card check of one major unit, refunded at once, and becomes `default_payment_method` of every live subscription of the customer. `return_url` is the page's way back.",
    tags: ['Billing: hosted sessions'],
    body: portalSessionCreateBody,
    responses: {
      201: { description: 'Created', schema: portalSessionViewSchema },
      400: { description: 'Invalid: unknown customer, unknown or archived plan in `plans`' },
    },
    handler: async ({ body, auth, deps }) => ({ status: 201, body: await createPortalSession(deps, auth, body) }),
  }),
  ...portalPageRoutes,
];
