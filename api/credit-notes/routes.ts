import { z } from 'zod';
import { listQuerySchema } from '../http/pagination';
import { typedId } from '../http/common-schemas';
import { route, type RouteDef } from '../http/route';
import { creditNoteData } from '../../data/credit-notes';
import { findCustomer } from '../customers/service';
import { notFound } from '../../domain/errors';
import { creditBalanceViewSchema, creditNoteCreateBody, creditNoteViewSchema } from './schemas';
import { createCreditNote, creditBalanceOf, creditNoteViews, getCreditNote } from './service';

const tags = ['Billing: credit notes'];
const versions = ['v202607'] as const;

export const creditNoteRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/credit-notes',
    versions,
    auth: 'secret',
    summary: "Credit a paid invoice: refund it to the card, or credit the customer's balance",
    description:
      "Credit notes and refunds of one invoice draw on one balance, its payment intent's: their total never exceeds what the invoice's intent was paid. With `refund: true` the money goes back through the refund workflow (a `re_...`, with its SLA and events); otherwise it is added to the customer's credit balance in the invoice's currency, which the next invoices of any of the customer's subscriptions use first (`applied_balance`).",
    tags,
    body: creditNoteCreateBody,
    responses: {
      201: { description: 'Issued', schema: creditNoteViewSchema },
      200: { description: 'The credit note of this idempotency_key', schema: creditNoteViewSchema },
      400: {
        description:
          '`invoice_not_paid`, `credit_note_amount_too_large` (more than is left of the invoice after its refunds and credit notes, or of a line after earlier notes of it), unknown invoice or line, `idempotency_key_in_use` (the key was used for a credit note with other parameters)',
      },
    },
    handler: async ({ body, auth, deps }) => createCreditNote(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/credit-notes',
    versions,
    auth: 'secret',
    summary: 'List credit notes, newest first',
    tags,
    // Ids are checked for their shape, as every other list's are: a typo answered an empty list, as if none existed.
    query: listQuerySchema('cn', { invoice: typedId('in').optional(), customer: typedId('cus').optional() }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(creditNoteViewSchema), has_more: z.boolean() }) } },
    handler: async ({ query, auth, deps }) => {
      const { invoice, customer, ...page } = query;
      const { data, has_more } = await creditNoteData(deps.mongo).list(auth.tenantId, { invoice, customer }, page);
      return { status: 200, body: { data: await creditNoteViews(deps, auth.tenantId, data), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/credit-notes/:credit_note',
    versions,
    auth: 'secret',
    summary: 'Retrieve a credit note',
    tags,
    params: z.object({ credit_note: z.string() }).strict(),
    responses: { 200: { description: 'The credit note', schema: creditNoteViewSchema }, 404: { description: 'Unknown' } },
    handler: async ({ params: p, auth, deps }) => ({ status: 200, body: (await creditNoteViews(deps, auth.tenantId, [await getCreditNote(deps, auth.tenantId, p.credit_note)]))[0]! }),
  }),
  route({
    method: 'get',
    path: '/customers/:customer/credit-balance',
    versions,
    auth: 'secret',
    summary: "A customer's credit balances (one per currency), which invoices use first",
    tags,
    params: z.object({ customer: z.string() }).strict(),
    responses: { 200: { description: 'The balances', schema: creditBalanceViewSchema }, 404: { description: 'Unknown customer' } },
    handler: async ({ params: p, auth, deps }) => {
      if (!(await findCustomer(deps.mongo, auth.tenantId, p.customer))) throw notFound('customer', p.customer, 'customer');
      return { status: 200, body: await creditBalanceOf(deps, auth.tenantId, p.customer) };
    },
  }),
];
