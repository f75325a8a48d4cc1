import { route, type RouteDef } from '../http/route';
import { addressCreateBody, addressView, cartCreateBody, cartCreateResponse, cartParams, cartSetBody, cartView } from './schemas';
import { createAddress, createCart, getCart, setCartContents } from './service';

// Carts and addresses of the commerce interface (unprefixed, version-neutral), with the tenant's secret key.
// Another tenant's cart is a 404; errors are the API's one error shape.

const tags = ['Commerce: carts'];
const common = { versions: 'unversioned' as const, auth: 'secret' as const, tags };

const productRefusals =
  "A product refused, named by `param` (`products[i][id]` or `products[i][quantity]`) and in the message: listed twice (`product_duplicate`), unknown to this tenant (`product_unknown`), priced in another currency (`product_currency_mismatch`), quantity below 1 (`quantity_invalid`) or above the product's current stock (`quantity_above_stock`); or a total above the largest payment (`cart_total_too_large`)";

export const cartRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'post',
    path: '/commerce/cart',
    summary: "Create a cart for a user, with the user's saved addresses",
    body: cartCreateBody,
    responses: {
      201: {
        description:
          'A new, empty cart, and the addresses saved for this user (newest first). Keep `cartId`. A cart never converted into an order is deleted 6 months after its creation',
        schema: cartCreateResponse,
      },
      200: { description: 'The cart this idempotencyKey already made (concurrent creates with one key make one cart)', schema: cartCreateResponse },
      400: { description: 'Invalid body; `idempotency_key_in_use`: the idempotencyKey made a cart of another userId or currency' },
      503: { description: "The cart's retention could not be started; nothing was kept: retry (with the same idempotencyKey)" },
    },
    handler: async ({ body, auth, deps }) => createCart(deps, auth, body),
  }),
  route({
    ...common,
    method: 'get',
    path: '/cart/:cartId',
    summary: 'Retrieve a cart',
    params: cartParams,
    responses: {
      200: {
        description:
          "The cart: each line at the price it was set at (a checkout reports price changes as `cartChanges`), the products' live titles and images, totals at the tenant's current tax rate; `shipping` is null",
        schema: cartView,
      },
      404: { description: "No cart of this tenant has this id (another tenant's, or deleted at retention)" },
    },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await getCart(deps, auth.tenantId, params.cartId) }),
  }),
  route({
    ...common,
    method: 'post',
    path: '/cart',
    summary: "Replace a cart's contents (send every product wanted) at live prices",
    body: cartSetBody,
    responses: {
      200: { description: "The cart with its new contents, each line at the product's live price, and its totals (`shipping` null)", schema: cartView },
      400: { description: productRefusals },
      404: { description: "No cart of this tenant has this id (another tenant's, or deleted at retention)" },
      409: {
        description:
          '`cart_converted`: a checkout of this cart was paid; it can no longer change. `checkout_in_progress`: a checkout of this cart is open (reserving or awaiting payment); the contents can change once it ends unpaid (its payment intent canceled or expired). `cart_changed`: other requests kept changing it; send the contents again',
      },
    },
    handler: async ({ body, auth, deps }) => ({ status: 200, body: await setCartContents(deps, auth, body) }),
  }),
  route({
    ...common,
    method: 'post',
    path: '/commerce/addresses',
    summary: 'Save an address for a user',
    replaysIdempotencyKeyHeader: true,
    body: addressCreateBody,
    responses: {
      201: { description: "The saved Address: later carts of this user list it in `customerAddresses`; a checkout takes its id as `shippingAddress: {id}`", schema: addressView },
      400: { description: 'Invalid body' },
    },
    handler: async ({ body, auth, deps }) => ({ status: 201, body: await createAddress(deps, auth, body) }),
  }),
];
