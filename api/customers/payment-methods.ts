import { z } from 'zod';
import { DomainError, notFound } from '../../domain/errors';
import type { Mongo } from '../../platform/mongo';
import type { SavedPaymentMethodRecord } from '../../platform/records';
import { customerData } from '../../data/customers';
import { paymentMethodData } from '../../data/payment-methods';
import { listQuerySchema } from '../http/pagination';
import { route, type RouteDef } from '../http/route';

// A customer's saved cards (`pm_...`, saved by paying with `save_payment_method: true`): list them and
// detach them. From v202608 on. The gateway token behind a card never leaves the service: the view below
// is the one shape a card is answered in.

const tags = ['Saved cards'];
const versions = ['v202608'] as const;

const customerParam = z.string().meta({ description: "The customer's id (cus_...): one of this key's tenant's customers, not deleted" });
const paymentMethodParam = z.string().meta({ description: 'The saved card (pm_...), as `payment_method_uuid` of the payment attempt that saved it' });

const listParams = z.object({ customer: customerParam }).strict();
const detachParams = z.object({ customer: customerParam, payment_method: paymentMethodParam }).strict();

export const savedCardView = z
  .object({
    payment_method: z.string().meta({ description: 'Id of the saved card (pm_...): what a charge of a saved card names' }),
    customer: z.string().meta({ description: 'The customer the card is saved to (cus_...)' }),
    brand: z.string().nullable().meta({ description: 'Card network as the gateway reported it (e.g. `visa`, `mastercard`); null when it reported none' }),
    last4: z.string().nullable().meta({ description: 'Last four digits of the card number; null when the gateway reported none' }),
    exp_month: z.number().int().nullable().meta({ description: 'Expiry month, 1 to 12; null when the gateway reported none' }),
    exp_year: z.number().int().nullable().meta({ description: 'Expiry year, four digits; null when the gateway reported none' }),
    created_at: z.string().meta({ description: 'When the card was saved (ISO 8601, UTC)' }),
  })
  .strict()
  .meta({ description: 'A card saved to a customer' });
export type SavedCardView = z.infer<typeof savedCardView>;

const detachedCardView = savedCardView
  .extend({ detached: z.literal(true).meta({ description: 'Always true: the card is detached, no longer listed and never charged again' }) })
  .meta({ description: 'The card as it was, now detached' });

/** A saved card in its public shape: never the gateway token, the connector or the intent that saved it. */
export function savedCardViewOf(r: SavedPaymentMethodRecord, customer: string): SavedCardView {
  return {
    payment_method: r._id,
    customer: r.customer ?? customer,
    brand: r.brand ?? null,
    last4: r.last4 ?? null,
    exp_month: r.exp_month ?? null,
    exp_year: r.exp_year ?? null,
    created_at: r.created_at.toISOString(),
  };
}

/**
 * The 404 of a detach: the same status and code whatever the reason (a card of another customer or tenant
 * is as unknown as a made-up id), but one of this customer's cards detached before says so.
 */
async function missingCard(mongo: Mongo, tenantId: string, customer: string, id: string): Promise<DomainError> {
  const any = await paymentMethodData(mongo).findAny(tenantId, id);
  if (any && any.customer === customer && any.detached_at)
    return new DomainError('not_found', 'resource_missing', `Payment method '${id}' was detached on ${any.detached_at.toISOString()}`, 'payment_method');
  return notFound('payment method', id, 'payment_method');
}

export const customerPaymentMethodRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/customers/:customer/payment-methods',
    versions,
    auth: 'secret',
    summary: "List a customer's saved cards, newest first",
    tags,
    params: listParams,
    query: listQuerySchema('pm', {}),
    responses: {
      200: {
        description: 'A page of the attached cards (detached ones are not listed)',
        schema: z.object({
          data: z.array(savedCardView).meta({ description: 'The cards of this page, newest first' }),
          has_more: z.boolean().meta({ description: 'Whether more cards follow in this direction' }),
        }),
      },
      400: { description: 'Invalid `limit`, `starting_after`, `ending_before` or `created`' },
      404: { description: "Unknown customer: deleted, or not this tenant's" },
    },
    handler: async ({ params: p, query, auth, deps }) => {
      if (!(await customerData(deps.mongo).find(auth.tenantId, p.customer))) throw notFound('customer', p.customer, 'customer');
      const { data, has_more } = await paymentMethodData(deps.mongo).listOfCustomer(auth.tenantId, p.customer, query);
      return { status: 200, body: { data: data.map((r) => savedCardViewOf(r, p.customer)), has_more } };
    },
  }),
  route({
    method: 'delete',
    path: '/customers/:customer/payment-methods/:payment_method',
    versions,
    auth: 'secret',
    summary: 'Detach a saved card: it is no longer listed and can never be charged again',
    tags,
    params: detachParams,
    responses: {
      200: { description: 'Detached', schema: detachedCardView },
      404: { description: "No such attached card of this customer: unknown, another customer's or tenant's, or detached already" },
    },
    handler: async ({ params: p, auth, deps }) => {
      const cards = paymentMethodData(deps.mongo);
      const card = await cards.find(auth.tenantId, p.payment_method);
      // Detached by the conditional update itself (which also checks the customer), so of two concurrent
      // detaches only one answers 200.
      if (!card || !(await cards.detach(auth.tenantId, p.customer, p.payment_method, new Date())))
        throw await missingCard(deps.mongo, auth.tenantId, p.customer, p.payment_method);
      return { status: 200, body: { ...savedCardViewOf(card, p.customer), detached: true } };
    },
  }),
];
