import { z } from 'zod';
import { listQuerySchema } from '../http/pagination';
import { typedId } from '../http/common-schemas';
import { route, type RouteDef } from '../http/route';
import { SUBSCRIPTION_STATUSES, subscriptionCreateBody, subscriptionUpdateBody, subscriptionViewSchema } from './schemas';
import { cancelSubscription, createSubscription, getSubscription, recordView, updateSubscription } from './service';
import { subscriptionData } from '../../data/subscriptions';
import { requireMitClaim } from '../cards-mit/service';

const tags = ['Billing: subscriptions'];
const params = z.object({ subscription: z.string() }).strict();
const versions = ['v202607'] as const;

export const subscriptionRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/subscriptions',
    versions,
    auth: 'secret',
    summary: "Start a subscription: the first invoice is charged at once to the customer's saved card",
    description:
      'The first invoice is charged off-session with `default_payment_method` (a merchant-initiated charge, agreement type RECURRING, agreement id = the subscription id) before the answer: `active` when it was paid, `incomplete` when it was not (pay the invoice, or complete its 3DS, within 23 hours, else `incomplete_expired`), `trialing` with a trial (a zero invoice; the first charge comes at the trial\'s end, which anchors the billing cycle). Renewals fall on the anchor\'s day of month, clamped to the month\'s last day (31 January, 28/29 February, 31 March). A renewal that fails is retried per `dunning` (default after 1, 3 and 7 days: 3 more attempts over 7 days) while the subscription is `past_due`; then it is canceled (or `unpaid`). A customer on a test clock: its time is the clock\'s.',
    tags,
    body: subscriptionCreateBody,
    responses: {
      201: { description: 'Started', schema: subscriptionViewSchema },
      200: { description: 'The subscription of this idempotency_key, as it stands (a repeat sent while the first request is still charging its first invoice waits for its answer)', schema: subscriptionViewSchema },
      400: { description: 'Invalid: unknown or archived plan, plans of different currencies or intervals, a card that cannot be charged (`NO_GATEWAY_TOKENS`), a refused coupon or promotion code, an unknown or deleted customer (`resource_missing`, also when it was deleted while this create ran: nothing of the subscription stays live), `idempotency_key_in_use` (the key made a subscription with another customer, items, coupon or promotion code, default_payment_method, default_tax_rates or trial_period_days)' },
      403: { description: '`missing_claim`: charging a saved card needs a secret key with the claim `cards.mit`' },
      409: {
        description:
          "`test_clock_advancing`: the customer's test clock is advancing; `idempotency_request_in_progress` (with Retry-After): the first request with this idempotency_key is still making the subscription, and this repeat waited without getting its answer",
      },
    },
    handler: async ({ body, auth, deps }) => {
      requireMitClaim(auth);
      return createSubscription(deps, auth, body);
    },
  }),
  route({
    method: 'get',
    path: '/subscriptions',
    versions,
    auth: 'secret',
    summary: 'List subscriptions, newest first',
    tags,
    // The customer is checked for its id shape, as every other list's filters are: a typo answered an empty page.
    query: listQuerySchema('sub', { customer: typedId('cus').optional(), status: z.enum(SUBSCRIPTION_STATUSES).optional() }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(subscriptionViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { customer, status, ...page } = query;
      const { data, has_more } = await subscriptionData(deps.mongo).list(auth.tenantId, { customer, status }, page);
      return { status: 200, body: { data: data.map(recordView), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/subscriptions/:subscription',
    versions,
    auth: 'secret',
    summary: 'Retrieve a subscription',
    tags,
    params,
    responses: { 200: { description: 'The subscription', schema: subscriptionViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: recordView(await getSubscription(deps, auth.tenantId, p.subscription)) }),
  }),
  route({
    method: 'post',
    path: '/subscriptions/:subscription',
    versions,
    auth: 'secret',
    summary: 'Update a subscription: switch plans or quantities (prorated), cancel at period end, pause or resume collection, change the card',
    description:
      'Prorations, exact to the minor unit: for each item whose plan or quantity changed, a credit of −round(old price × unused seconds / period seconds) and a charge of +round(new price × remaining seconds / period seconds), rounded half away from zero; taxes and the discount apply to them as to any line. `create_prorations` (default) adds them to the next renewal invoice; `always_invoice` invoices and charges them now; `none` makes none.',
    tags,
    params,
    body: subscriptionUpdateBody,
    responses: {
      200: { description: 'The subscription', schema: subscriptionViewSchema },
      403: { description: '`missing_claim`: changing the card or the items (what the card is charged) needs a secret key with the claim `cards.mit`' },
      404: { description: 'Unknown' },
      409: { description: '`subscription_ended` (canceled or expired), `subscription_incomplete` (items of an unpaid first invoice)' },
    },
    handler: async ({ params: p, body, auth, deps }) => {
      // Cancelling at the period end, pausing or metadata charge nothing new: any secret key may.
      if (body.default_payment_method !== undefined || body.items !== undefined) requireMitClaim(auth);
      return { status: 200, body: await updateSubscription(deps, auth, p.subscription, body) };
    },
  }),
  route({
    method: 'post',
    path: '/subscriptions/:subscription/cancel',
    versions,
    auth: 'secret',
    summary: 'Cancel a subscription now (to cancel at the period end, update `cancel_at_period_end`)',
    tags,
    params,
    body: z.object({}).strict().optional(),
    responses: { 200: { description: 'Canceled (repeated: the same answer)', schema: subscriptionViewSchema }, 404: { description: 'Unknown' }, 409: { description: '`subscription_ended`: it expired incomplete' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: await cancelSubscription(deps, auth, p.subscription) }),
  }),
];
