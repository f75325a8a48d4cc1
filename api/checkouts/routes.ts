import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { typedId } from '../http/common-schemas';
import { checkoutChanged, checkoutCreateBody, checkoutCreated, checkoutView, orderView } from './schemas';
import { createCheckout, getCheckout, getOrder } from './service';

// Checkouts and orders: unprefixed like the rest of the commerce interface, with the tenant's secret key.

const tags = ['Commerce: checkouts and orders'];
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'Missing or invalid key' }, 404: { description: "Unknown, or another tenant's" } };

export const checkoutRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/checkouts',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Check a cart out: hold its stock, price it live with shipping, and make the payment intent that pays it',
    tags,
    body: checkoutCreateBody,
    responses: {
      201: { description: 'Stock held until the payment intent succeeds (the order is made) or is canceled or expires (released)', schema: checkoutCreated },
      200: {
        description:
          'The cart changed (stock or prices): `status: "changed"`, `cartChanges` with a new cart to continue with, and `totals` of checking that new cart out (shipping included); nothing held, no payment intent (GET of this checkout shows it as asked: the cart\'s quantities at live prices). Or the cart already has an open checkout of the same contents and address: that checkout as it stands (`reserving` or `awaiting_payment`, with its payment intent)',
        schema: z.union([checkoutChanged, checkoutCreated]),
      },
      ...errors,
      400: { description: 'Invalid request; `cart_empty`; `checkout_total_zero`: the checkout would total 0 (a payment must be above 0), nothing held or saved; `cart_total_too_large`: with live prices, tax and shipping it would exceed the largest payment' },
      409: {
        description:
          '`cart_converted`: the cart was checked out and paid already. `checkout_in_progress`: its open checkout is still being made (retry), or was made of other contents or for another shipping address (it must be paid or end first). `cart_changed`: the cart kept changing while this checkout was being made; check it out again',
      },
      503: { description: "`service_unavailable`: a hold its product's owner refused though enough is for sale came past the checkout's 2-minute window (a backlog); nothing is held and the cart is let go: send the same request again" },
    },
    handler: async ({ body, auth, deps }) => createCheckout(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/checkouts/:checkoutId',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Retrieve a checkout: its status, its payment intent and, once paid, its order',
    tags,
    params: z.object({ checkoutId: typedId('chk') }).strict(),
    responses: { 200: { description: 'The checkout', schema: checkoutView }, ...errors },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await getCheckout(deps, auth.tenantId, params.checkoutId) }),
  }),
  route({
    method: 'get',
    path: '/orders/:orderId',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Retrieve an order, with what of it can still be returned',
    tags,
    params: z.object({ orderId: typedId('ord') }).strict(),
    responses: { 200: { description: 'The order', schema: orderView }, ...errors },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await getOrder(deps, auth.tenantId, params.orderId) }),
  }),
];
