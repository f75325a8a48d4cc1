import { z } from 'zod';
import { listQuerySchema } from '../http/pagination';
import { typedId } from '../http/common-schemas';
import { route, type RouteDef } from '../http/route';
import { INVOICE_STATUSES, invoicePreviewBody, invoiceViewSchema } from '../subscriptions/schemas';
import { getInvoice, payInvoice, previewInvoice, recordInvoiceView, voidInvoice } from './service';
import { requireMitClaim } from '../cards-mit/service';
import { invoiceData } from '../../data/subscriptions';

const tags = ['Billing: invoices'];
const params = z.object({ invoice: z.string() }).strict();
const versions = ['v202607'] as const;

export const invoiceRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/invoices',
    versions,
    auth: 'secret',
    summary: 'List invoices, newest first',
    tags,
    // Ids are checked for their shape, as every other list's are: a typo answered an empty list, as if none existed.
    query: listQuerySchema('in', { customer: typedId('cus').optional(), subscription: typedId('sub').optional(), status: z.enum(INVOICE_STATUSES).optional() }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(invoiceViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { customer, subscription, status, ...page } = query;
      const { data, has_more } = await invoiceData(deps.mongo).list(auth.tenantId, { customer, subscription, status }, page);
      return { status: 200, body: { data: data.map(recordInvoiceView), has_more } };
    },
  }),
  route({
    method: 'post',
    path: '/invoices/create-preview',
    versions,
    auth: 'secret',
    summary: "Preview a subscription's next invoice, with the prorations a proposed items change would add",
    description:
      'Nothing is written. Taxes are computed per line and rate, rounded half away from zero: exclusive = amount × rate / 100; inclusive = amount − amount × 100 / (100 + all the inclusive rates of the line), split over those rates in proportion (largest remainder). A discount is spread over the lines in proportion to their amounts (largest remainder) before tax.',
    tags,
    body: invoicePreviewBody,
    responses: { 200: { description: 'The invoice as it would be (`status` draft)', schema: invoiceViewSchema }, 404: { description: 'Unknown subscription' }, 409: { description: '`subscription_ended`' } },
    handler: async ({ body, auth, deps }) => ({ status: 200, body: await previewInvoice(deps, auth, body) }),
  }),
  route({
    method: 'get',
    path: '/invoices/:invoice',
    versions,
    auth: 'secret',
    summary: 'Retrieve an invoice',
    tags,
    params,
    responses: { 200: { description: 'The invoice', schema: invoiceViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: recordInvoiceView(await getInvoice(deps, auth.tenantId, p.invoice)) }),
  }),
  route({
    method: 'post',
    path: '/invoices/:invoice/pay',
    versions,
    auth: 'secret',
    summary: 'Attempt an open or uncollectible invoice now with the subscription\'s card',
    description:
      'An uncollectible invoice (dunning ran out and canceled the subscription) can be paid too, as Stripe allows: one new charge, however many requests; paid, it is `paid` and the subscription stays canceled; declined, it stays `uncollectible` with `last_payment_error`.',
    tags,
    params,
    body: z.object({}).strict().optional(),
    responses: {
      200: { description: 'The invoice after the attempt (`paid`, or still `open` or `uncollectible` with `last_payment_error`)', schema: invoiceViewSchema },
      403: { description: '`missing_claim`: charging a saved card needs a secret key with the claim `cards.mit`' },
      404: { description: 'Unknown' },
      409: { description: '`invoice_not_open`' },
    },
    handler: async ({ params: p, auth, deps }) => {
      requireMitClaim(auth);
      return { status: 200, body: await payInvoice(deps, auth, p.invoice) };
    },
  }),
  route({
    method: 'post',
    path: '/invoices/:invoice/void',
    versions,
    auth: 'secret',
    summary: 'Void an open or uncollectible invoice (its payment intent is canceled); voiding the first invoice of an incomplete subscription expires it',
    tags,
    params,
    body: z.object({}).strict().optional(),
    responses: { 200: { description: 'The invoice, `void`', schema: invoiceViewSchema }, 404: { description: 'Unknown' }, 409: { description: '`invoice_not_open`' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: await voidInvoice(deps, auth, p.invoice) }),
  }),
];
