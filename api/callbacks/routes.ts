import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { notFound, unauthenticated } from '../../domain/errors';
import { chargeOutcomeSignal } from '../../workflows/payment-intent/messages';
import { refundOutcomeSignal } from '../../workflows/refund/messages';
import { payoutOutcomeSignal } from '../../workflows/payout/messages';
import { route, type RouteDef } from '../http/route';
import { chargeTokenData } from '../../data/charge-tokens';

/**
 * Gateway callback ingress: a gateway posts an asynchronous outcome (3DS completed, async charge settled,
 * refund settled, payout completed); its adapter verifies the signature and parses it, and we signal the workflow that owns
 * the resource. Polling by the workflows covers callbacks that never arrive.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const callbackRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/callbacks/:gateway/:reference',
    versions: 'unversioned',
    auth: 'none',
    internal: true,
    summary: 'Gateway callbacks',
    tags: ['Internal'],
    params: z.object({ gateway: z.string(), reference: z.string() }).strict(),
    body: z.record(z.string(), z.unknown()),
    responses: { 200: { description: 'Received' }, 401: { description: 'Bad signature' }, 404: { description: 'No such gateway' } },
    handler: async ({ params, deps, ctx }) => {
      // The registry throws (a workflow failure) for an unknown name: here that is a URL that names nothing.
      if (!deps.gateways.names().includes(params.gateway)) throw notFound('gateway', params.gateway, 'gateway');
      const adapter = deps.gateways.get(params.gateway);
      const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
      const callback = adapter.parseCallback(ctx.headers, raw);
      if (!callback) throw unauthenticated('Callback signature does not verify');
      const handle = deps.temporal.workflow.getHandle(callback.reference);
      try {
        if (callback.kind === 'charge')
          await handle.signal(chargeOutcomeSignal, {
            chargeId: callback.chargeId,
            ...(callback.idempotencyKey ? { idempotencyKey: callback.idempotencyKey } : {}),
            // A saving charge's token is kept aside, never carried into the intent's history.
            outcome: await chargeTokenData(deps.mongo).withoutToken(params.gateway, callback.outcome),
          });
        else if (callback.kind === 'refund' && callback.reference.startsWith('re_')) await handle.signal(refundOutcomeSignal, { outcome: callback.outcome });
        else if (callback.kind === 'payout' && UUID.test(callback.reference)) await handle.signal(payoutOutcomeSignal, { outcome: callback.outcome });
      } catch (err) {
        // Anything else (Temporal down or busy) is a 503, so the gateway sends the callback again: a 200 here
        // would lose a 3DS completion that came just before the intent's deadline.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // The workflow has ended: nothing waits for this word any more. Acknowledge so the gateway stops.
        ctx.state.logger?.info({ err: String(err), reference: callback.reference }, 'callback for a closed workflow');
      }
      return { status: 200, body: { received: true } };
    },
  }),
];
