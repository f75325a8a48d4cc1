import { z } from 'zod';
import { route, type RouteDef } from '../http/route';
import { typedId } from '../http/common-schemas';
import { mitChargeBody, mitChargeResponse, mitProcessingResponse, transactionView } from './schemas';
import { chargeSavedCard, getTransaction } from './service';

const tags = ['Saved cards'];
const errorShape = z.object({
  error: z.object({
    type: z.string(),
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    decline_code: z.string().optional(),
    transaction_uuid: z.string().optional(),
    request_id: z.string(),
  }),
});

export const cardsMitRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/cards/mit',
    versions: 'unversioned',
    auth: 'secret',
    summary: 'Charge a saved card with the customer absent (merchant-initiated), for the amount of a pending payment intent',
    tags,
    body: mitChargeBody,
    responses: {
      200: {
        description:
          '`ok`: the intent is paid (its workflow emits payment.success and its webhooks). `REQUIRES_ACTION`: the issuer demands 3D Secure; send the cardholder to next_action.url, completing it pays the intent. The same call repeated, at once or later, charges once and answers the same transaction_uuid.',
        schema: mitChargeResponse,
      },
      202: { description: 'The gateway has not decided yet; the outcome arrives as payment.success or payment.attempt_failed', schema: mitProcessingResponse },
      400: {
        description:
          'Invalid request; `NO_GATEWAY_TOKENS` when the card has no reusable gateway token, `payment_method_customer_mismatch` when it is not saved to the intent\'s customer, `payment_method_detached`, `agreement_type_mismatch`',
        schema: errorShape,
      },
      401: { description: 'Missing or invalid key' },
      402: {
        description:
          'Declined: `card_declined` with the issuer\'s `decline_code`, or the failure\'s own code (`processing_error`, or a gateway\'s: `network_transaction_id_missing`, `network_transaction_id_mismatch`, `invalid_token`, `payment_method_not_reusable`), without `decline_code`; the intent stays pending',
        schema: errorShape,
      },
      403: { description: 'The key lacks the claim `cards.mit`' },
      404: { description: 'The intent or the card is not the key tenant\'s' },
      409: {
        description:
          'The intent is not pending (and was not paid by this same charge), or another attempt is in progress; `agreement_first_charge_in_progress` (with Retry-After) when the agreement\'s first charge, made by another request, still has no outcome after a few seconds\' wait: later charges need its network transaction id; `checkout_intent_completed` when another payment of the older intent\'s checkout intent succeeded first (this charge was given back, its capture voided, and the intent canceled)',
      },
    },
    handler: async ({ body, auth, deps }) => chargeSavedCard(deps, auth, body),
  }),
  route({
    method: 'get',
    path: '/transactions/:transaction',
    versions: ['v202608'],
    auth: 'secret',
    summary: 'Retrieve a merchant-initiated charge (`ti_...`) and how it stands',
    tags,
    params: z.object({ transaction: typedId('ti') }).strict(),
    responses: { 200: { description: 'The transaction', schema: transactionView }, 404: { description: 'Unknown' }, 401: { description: 'Missing or invalid key' } },
    handler: async ({ params, auth, deps }) => ({ status: 200, body: await getTransaction(deps, auth.tenantId, params.transaction) }),
  }),
];
