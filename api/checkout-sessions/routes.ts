import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { checkoutPageRoutes } from '../hosted/billing-checkout-routes';
import { checkoutSessionCreateBody, checkoutSessionViewSchema } from './schemas';
import { createCheckoutSession, retrieveCheckoutSession } from './service';

const tags = ['Billing: hosted sessions'];
const versions = ['v202607'] as const;

export const checkoutSessionRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/checkout-sessions',
    versions,
    auth: 'secret',
    summary: 'Create a checkout session: a hosted page where the customer enters a card and subscribes',
    description:
      "Send the customer to `url`. The page shows the plans, the first invoice (subtotal, discount, tax, total; then what each renewal costs; the trial, if any), and a card form; paying saves the card to the customer and starts the subscription with it, its first invoice paid by the session's `payment_intent` (never charged twice), then sends the customer to `success_url`. With a trial (or a 100 % coupon) nothing is due today: the intent is then a card check of one major unit (1.00 EUR, 1 JPY), refunded when the session completes, because a card is saved only by a payment and gateways refuse a charge of 0. The session completes as soon as its intent has succeeded, whether or not the customer comes back from paying (the worker completes it; the page and a retrieve do too, and it completes once). It expires after 24 hours (`status: expired`, its page says so).",
    tags,
    body: checkoutSessionCreateBody,
    responses: {
      201: { description: 'Created', schema: checkoutSessionViewSchema },
      200: { description: 'The session of this idempotency_key, as it stands', schema: checkoutSessionViewSchema },
      400: { description: 'Invalid: unknown customer, unknown or archived plan, plans that do not bill together, an inactive tax rate or one listed twice, a refused coupon or promotion code, an idempotency_key used with other parameters (`idempotency_key_in_use`)' },
    },
    handler: async ({ body, auth, deps }) => createCheckoutSession(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/checkout-sessions/:checkout_session',
    versions,
    auth: 'secret',
    summary: 'Retrieve a checkout session (completing it when its payment has succeeded)',
    tags,
    params: z.object({ checkout_session: z.string() }).strict(),
    responses: { 200: { description: 'The session', schema: checkoutSessionViewSchema }, 404: { description: 'Unknown (or another tenant\'s)' } },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await retrieveCheckoutSession(deps, auth.tenantId, params.checkout_session) }),
  }),
  ...checkoutPageRoutes,
];
