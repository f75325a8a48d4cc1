import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { regionPublicBaseUrl } from '../http/region';
import { serveAsset, staticAsset, type StaticAsset } from '../hosted/static-asset';
import { LOGO_PATH, PAYMENT_METHOD_NAMES, paymentMethodEntry, paymentMethodEntrySchema } from './catalog';
import { logoSvg } from './logos';
import { formPaymentMethods, tenantPaymentMethods, type MethodListing } from './resolve';
import { route, type RouteDef, type RouteInput } from '../http/route';

const listingSchema = z
  .object({
    payment_form: z
      .string()
      .nullable()
      .describe(
        "The pf_ form whose list narrowed the methods; null when they come straight from connectors (the tenant's default orchestrator, or every live connector when there is no default form with a usable live connector)",
      ),
    payment_methods: z.array(paymentMethodEntrySchema).describe('In display order: exactly what the hosted page and the embedded form offer now'),
  })
  .describe(
    'Payment methods, resolved by the same function as the hosted page and the embedded form: the methods a live connector of the checkout takes, narrowed to the form\'s own list when it has one',
  );

const formParams = z.object({ payment_form: z.string().min(1).max(100) }).strict();

function listingBody(listing: MethodListing, baseUrl: string) {
  return { payment_form: listing.paymentForm, payment_methods: listing.methods.map((m) => paymentMethodEntry(m, baseUrl)) };
}

// The version history names the listing both /payment-methods and /payment-forms; both are served by the
// same handler so a merchant on either spelling gets the same answer.
const listDefault = async ({ deps, auth }: RouteInput<unknown, unknown, unknown>) => ({
  status: 200,
  body: listingBody(await tenantPaymentMethods(deps.mongo, auth.tenantId), regionPublicBaseUrl(auth.region, deps.config)),
});

const listForm = async ({ deps, auth, params }: RouteInput<z.infer<typeof formParams>, unknown, unknown>) => {
  const listing = await formPaymentMethods(deps.mongo, auth.tenantId, params.payment_form);
  // Another tenant's form is answered exactly like an unknown one: ids of others are never confirmed.
  if (!listing) throw notFound('payment form', params.payment_form, 'payment_form');
  return { status: 200, body: listingBody(listing, regionPublicBaseUrl(auth.region, deps.config)) };
};

const common = { versions: ['v202607'] as const, auth: 'secret' as const, tags: ['Payment methods'] };
const listResponses = { 200: { description: 'The methods, in display order', schema: listingSchema } };
const formResponses = { ...listResponses, 404: { description: 'No such payment form for this merchant' } };

// Logos and favicons, rendered once at start.
const LOGO_ASSETS = new Map<string, StaticAsset>(
  PAYMENT_METHOD_NAMES.flatMap((name) => [
    [`${name}.svg`, staticAsset(logoSvg(name, 'logo'), 'image/svg+xml; charset=utf-8')] as const,
    [`${name}-favicon.svg`, staticAsset(logoSvg(name, 'favicon'), 'image/svg+xml; charset=utf-8')] as const,
  ]),
);

export const paymentMethodRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'get',
    path: '/payment-methods',
    summary: "List what an unpinned intent's checkout offers now: the default orchestrator's, else the default form's, else the live connectors' methods",
    responses: listResponses,
    handler: listDefault,
  }),
  route({
    ...common,
    method: 'get',
    path: '/payment-methods/:payment_form',
    summary: "List what a payment form's checkout offers now (for a live form: an intent pinned to it)",
    params: formParams,
    responses: formResponses,
    handler: listForm,
  }),
  route({
    ...common,
    method: 'get',
    path: '/payment-forms',
    summary: "List what an unpinned intent's checkout offers now (alias of /payment-methods)",
    responses: listResponses,
    handler: listDefault,
  }),
  route({
    ...common,
    method: 'get',
    path: '/payment-forms/:payment_form',
    summary: "List what a payment form's checkout offers now (alias of /payment-methods/{payment_form})",
    params: formParams,
    responses: formResponses,
    handler: listForm,
  }),
  route({
    method: 'get',
    path: `${LOGO_PATH}/:file`,
    versions: 'unversioned',
    auth: 'none',
    internal: true,
    summary: 'Payment-method logo or favicon (SVG)',
    tags: ['Assets'],
    params: z.object({ file: z.string() }),
    query: z.looseObject({}),
    responses: { 200: { description: 'SVG image' }, 404: { description: 'No such logo' } },
    handler: async ({ params, ctx }) => {
      const asset = LOGO_ASSETS.get(params.file);
      if (!asset) throw notFound('payment method logo', params.file, 'file');
      const res = serveAsset(asset, ctx, 'day');
      // An SVG opened on its own is a document: it must not be able to run anything.
      res.headers = { ...res.headers, 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" };
      return res;
    },
  }),
];

