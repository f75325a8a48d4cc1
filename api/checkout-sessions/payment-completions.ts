import type { Client } from '@temporalio/client';
import { checkoutSessionData, portalSessionData } from '../../data/billing-sessions';
import { paymentIntentData } from '../../data/payment-intents';
import type { AppDeps } from '../deps';
import { isIdOf } from '../../platform/ids';
import { finishCardUpdate } from '../billing-portal/service';
import { settleCheckoutSession } from './service';

// What a billing page's payment does once its intent has succeeded, run by the worker when the intent's
// workflow says so (its `owner` is the session): a checkout session completes (the subscription is made, a
// card check refunded), and a portal's card check sets the new card and is refunded. The pages and a retrieve
// do the same when the customer or the merchant comes by; this makes it happen when neither does (a tab
// closed after 3-D Secure, a portal session that expired before the customer came back). Each is idempotent.

export function createSessionPaymentCompletions(base: Omit<AppDeps, 'temporal'>) {
  return {
    /** The session's side of its paid intent; a session that no longer exists has nothing to finish. */
    async paid(temporal: Client, req: { tenantId: string; owner: string; paymentIntent: string }): Promise<'finished' | 'gone'> {
      const deps: AppDeps = { ...base, temporal };
      if (isIdOf('cs', req.owner)) {
        const s = await checkoutSessionData(deps.mongo).find(req.tenantId, req.owner);
        if (!s) return 'gone';
        await settleCheckoutSession(deps, s);
        return 'finished';
      }
      const s = await portalSessionData(deps.mongo).find(req.tenantId, req.owner);
      const intent = await paymentIntentData(deps.mongo).find(req.tenantId, req.paymentIntent);
      if (!s || !intent) return 'gone';
      await finishCardUpdate(deps, s, intent);
      return 'finished';
    },
  };
}
