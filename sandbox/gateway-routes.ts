// The gateway API that adapters call: create charges, refunds, recipients and payouts (each at most once per
// idempotency key) and read their current status. New effects answer 201; a repeated key answers 200 with
// the same resource in its current state and the header `Idempotent-Replayed: true`.

import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { chargeOnce } from './charges';
import type { SandboxDeps } from './deps';
import { notFound, parseInput } from './http-errors';
import { payoutOnce, recipientOnce } from './payouts';
import { refundOnce } from './refunds';
import {
  chargeRequestSchema,
  payoutRequestSchema,
  recipientRequestSchema,
  refundRequestSchema,
} from './request-schemas';
import { chargeJson, payoutJson, recipientJson, refundJson } from './resources';

function answer(ctx: Context, replayed: boolean, body: unknown): void {
  ctx.status = replayed ? 200 : 201;
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.body = body;
}

/** Aborts when the client goes away (its own timeout) so a never-answered request can be released. */
function clientGone(ctx: Context): AbortSignal {
  const controller = new AbortController();
  if (ctx.res.closed || ctx.req.socket.destroyed) controller.abort();
  else ctx.res.once('close', () => controller.abort());
  return controller.signal;
}

export function gatewayRoutes(deps: SandboxDeps, drill: Middleware): Router {
  const router = new Router();

  router.post('/v1/charges', drill, async (ctx) => {
    const input = parseInput(chargeRequestSchema, ctx.request.body);
    const { record, replayed } = chargeOnce(deps, input);
    if (record.behaviour === 'timeout') {
      // tok_timeout: never answer, on the first try or any retry. Drop the socket once the client gave up
      // or the sandbox closes, without writing a response.
      await deps.scheduler.hang(clientGone(ctx));
      ctx.respond = false;
      ctx.req.socket.destroy();
      return;
    }
    answer(ctx, replayed, chargeJson(record));
  });

  router.get('/v1/charges/:id', drill, (ctx) => {
    const charge = deps.store.charges.get(ctx.params.id!);
    if (!charge) throw notFound('charge', ctx.params.id!);
    ctx.body = chargeJson(charge);
  });

  router.post('/v1/refunds', drill, (ctx) => {
    const { record, replayed } = refundOnce(deps, parseInput(refundRequestSchema, ctx.request.body));
    answer(ctx, replayed, refundJson(record));
  });

  router.get('/v1/refunds/:id', drill, (ctx) => {
    const refund = deps.store.refunds.get(ctx.params.id!);
    if (!refund) throw notFound('refund', ctx.params.id!);
    ctx.body = refundJson(refund);
  });

  router.post('/v1/recipients', drill, (ctx) => {
    const { record, replayed } = recipientOnce(deps, parseInput(recipientRequestSchema, ctx.request.body));
    answer(ctx, replayed, recipientJson(record));
  });

  router.get('/v1/recipients/:id', drill, (ctx) => {
    const recipient = deps.store.recipients.get(ctx.params.id!);
    if (!recipient) throw notFound('recipient', ctx.params.id!);
    ctx.body = recipientJson(recipient);
  });

  router.post('/v1/payouts', drill, (ctx) => {
    const { record, replayed } = payoutOnce(deps, parseInput(payoutRequestSchema, ctx.request.body));
    answer(ctx, replayed, payoutJson(record));
  });

  router.get('/v1/payouts/:id', drill, (ctx) => {
    const payout = deps.store.payouts.get(ctx.params.id!);
    if (!payout) throw notFound('payout', ctx.params.id!);
    ctx.body = payoutJson(payout);
  });

  return router;
}
