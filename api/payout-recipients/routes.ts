import { z } from 'zod';
import { pageEnvelopeSchema, pageQuerySchema } from '../../domain/page-query';
import { payoutRecipientData, RECIPIENT_LIST } from '../../data/payout-recipients';
import { route, type RouteDef } from '../http/route';
import { recipientCreateBody, recipientCreateResponse, recipientView as recipientViewSchema } from './schemas';
import { createRecipient, recipientView } from './service';

const tags = ['Payout recipients'];

export const payoutRecipientRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/payout-recipients',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Register a payout destination with the gateway',
    tags,
    body: recipientCreateBody,
    responses: {
      201: { description: 'Registered', schema: recipientCreateResponse },
      200: { description: 'The recipient this idempotency_key registered', schema: recipientCreateResponse },
      400: {
        description:
          'Missing gateway, missing or conflicting bank/wallet fields, unsupported gateway, the gateway refused the registration, or `idempotency_key_in_use` (the key registered another gateway or destination)',
      },
      503: { description: 'The gateway did not answer; nothing was kept' },
    },
    handler: async ({ body, auth, deps }) => createRecipient(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/payout-recipients',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'List payout recipients, page-numbered',
    tags,
    query: pageQuerySchema(RECIPIENT_LIST),
    responses: { 200: { description: 'A page of recipients', schema: pageEnvelopeSchema(recipientViewSchema) } },
    handler: async ({ query, auth, deps }) => {
      const page = await payoutRecipientData(deps.mongo).list(auth.tenantId, query, '/payout-recipients');
      return { status: 200, body: { ...page, data: page.data.map(recipientView) } };
    },
  }),
  route({
    method: 'get',
    path: '/payout-recipients/:uuid',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Retrieve a payout recipient',
    tags,
    params: z.object({ uuid: z.uuid().toLowerCase() }).strict(),
    responses: {
      200: { description: 'The recipient, or a null body when none of this tenant has this uuid', schema: recipientViewSchema.nullable() },
      400: { description: 'uuid is not a UUID' },
    },
    handler: async ({ params, auth, deps }) => {
      const r = await payoutRecipientData(deps.mongo).find(auth.tenantId, params.uuid);
      return { status: 200, body: r ? recipientView(r) : null };
    },
  }),
];
