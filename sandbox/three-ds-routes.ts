// The 3DS challenge: GET shows the page, the form POST completes or fails it, tells the charge's callback_url
// and sends the browser back to the merchant's return_url with a 303 (so the browser follows with a GET).
// Any challenged charge has a page: customer-present 3DS cards, and merchant-initiated charges of saved cards
// whose issuer demands authentication off-session (sca_on_mit).

import Router from '@koa/router';
import { AUTHENTICATION_FAILED, settleCharge } from './charges';
import type { SandboxDeps } from './deps';
import { notFound, parseInput } from './http-errors';
import { threeDsFormSchema } from './request-schemas';
import { alreadyDonePage, challengePage } from './three-ds-page';

export function threeDsRoutes(deps: SandboxDeps): Router {
  const router = new Router();

  router.get('/3ds/:id', (ctx) => {
    const charge = deps.store.charges.get(ctx.params.id!);
    if (!charge?.challengeUrl) throw notFound('3DS challenge', ctx.params.id!);
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body =
      charge.status === 'requires_action' ? challengePage(charge, `/3ds/${charge.id}`) : alreadyDonePage(charge);
  });

  router.post('/3ds/:id', async (ctx) => {
    const charge = deps.store.charges.get(ctx.params.id!);
    if (!charge?.challengeUrl) throw notFound('3DS challenge', ctx.params.id!);
    const { action } = parseInput(threeDsFormSchema, ctx.request.body);
    // A second submit (double click, back button) changes nothing and just redirects again.
    const delivery = settleCharge(
      deps,
      charge,
      action === 'complete' ? { status: 'succeeded' } : { status: 'declined', ...AUTHENTICATION_FAILED },
    );
    // Wait for the first callback attempt, so the merchant usually knows the outcome when the browser lands
    // on return_url. Retries continue in the background; the page must still cope with a late callback.
    if (delivery) await delivery.firstAttempt;
    ctx.redirect(charge.returnUrl);
    ctx.status = 303;
  });

  return router;
}
