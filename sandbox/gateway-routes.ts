// The gateway API that adapters call: create charges, refunds, recipients and payouts (each at most once per
// idempotency key) and read their current status. New effects answer 201; a repeated key answers 200 with
// the same resource in its current state and the header `Idempotent-Replayed: true`. A caller that lost an
// answer asks by its idempotency key (GET ?idempotency_key=, 404 when the gateway has none); refunds and
// payouts can also be canceled by key (POST .../cancel), even before their request arrives.

import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { chargeByKey, chargeLater, chargeOnce, planCharge } from './charges';
import type { SandboxDeps } from './deps';
import { badRequest, notFound, parseInput } from './http-errors';
import { cancelPayoutByKey, isAnswerLost, payoutByKey, payoutOnce, recipientOnce } from './payouts';
import { cancelRefundByKey, isSlowRefund, refundByKey, refundOnce, SLOW_REFUND_ANSWER_MS } from './refunds';
import {
  byKeyQuerySchema,
  cancelByKeySchema,
  chargeRequestSchema,
  payoutRequestSchema,
  recipientRequestSchema,
  refundRequestSchema,
} from './request-schemas';
import { chargeJson, payoutJson, recipientJson, refundJson } from './resources';

/** Request header of the broken-connector drill (see brokenConnector below). */
export const SANDBOX_BEHAVIOR_HEADER = 'Sandbox-Behavior';

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

  /** Never answers: drops the socket once the client gave up or the sandbox closes, writing nothing. */
  const hangUp = async (ctx: Context) => {
    await deps.scheduler.hang(clientGone(ctx));
    ctx.respond = false;
    ctx.req.socket.destroy();
  };

  /**
   * A broken connector, for failover drills: `Sandbox-Behavior: timeout` on a charge request is never
   * answered and nothing is recorded (a query by its key answers 404). Other routes ignore the header.
   */
  const brokenConnector: Middleware = async (ctx, next) => {
    const behavior = ctx.get(SANDBOX_BEHAVIOR_HEADER).trim().toLowerCase();
    if (behavior === '') return next();
    if (behavior === 'timeout') return hangUp(ctx);
    throw badRequest(
      'header_invalid',
      `${SANDBOX_BEHAVIOR_HEADER}: unknown behavior '${behavior.slice(0, 40)}' (known: timeout)`,
      SANDBOX_BEHAVIOR_HEADER,
    );
  };

  router.post('/v1/charges', brokenConnector, drill, async (ctx) => {
    const input = parseInput(chargeRequestSchema, ctx.request.body);
    if (planCharge(deps, input).plan.kind === 'late_arrival' && !chargeByKey(deps, input.idempotency_key)) {
      chargeLater(deps, input);
      return hangUp(ctx);
    }
    const { record, replayed } = chargeOnce(deps, input);
    // tok_timeout and the lost-answer drills: never answered, on the first try or any retry.
    if (record.neverAnswered) return hangUp(ctx);
    answer(ctx, replayed, chargeJson(record));
  });

  // A caller that lost a charge's answer asks by its idempotency key: 404 means the gateway has no such charge.
  router.get('/v1/charges', drill, (ctx) => {
    const { idempotency_key } = parseInput(byKeyQuerySchema, ctx.query);
    const charge = chargeByKey(deps, idempotency_key);
    if (!charge) throw notFound('charge with idempotency_key', idempotency_key);
    ctx.body = chargeJson(charge);
  });

  router.get('/v1/charges/:id', drill, (ctx) => {
    const charge = deps.store.charges.get(ctx.params.id!);
    if (!charge) throw notFound('charge', ctx.params.id!);
    ctx.body = chargeJson(charge);
  });

  router.post('/v1/refunds', drill, async (ctx) => {
    const input = parseInput(refundRequestSchema, ctx.request.body);
    const { record, replayed } = refundOnce(deps, input);
    // A slow gateway: the refund is taken at once, its answer comes late (the caller may time out first).
    if (isSlowRefund(input.amount) && !replayed) await deps.scheduler.sleep(SLOW_REFUND_ANSWER_MS).catch(() => undefined);
    answer(ctx, replayed, refundJson(record));
  });

  router.get('/v1/refunds', drill, (ctx) => {
    const { idempotency_key } = parseInput(byKeyQuerySchema, ctx.query);
    const refund = refundByKey(deps, idempotency_key);
    if (!refund) throw notFound('refund with idempotency_key', idempotency_key);
    ctx.body = refundJson(refund);
  });

  router.post('/v1/refunds/cancel', drill, (ctx) => {
    const { idempotency_key } = parseInput(cancelByKeySchema, ctx.request.body);
    ctx.body = refundJson(cancelRefundByKey(deps, idempotency_key));
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

  router.post('/v1/payouts', drill, async (ctx) => {
    const { record, replayed } = payoutOnce(deps, parseInput(payoutRequestSchema, ctx.request.body));
    // 000555555551: the transfer is made, its answer is lost, on the first try or any retry.
    if (isAnswerLost(record)) return hangUp(ctx);
    answer(ctx, replayed, payoutJson(record));
  });

  router.get('/v1/payouts', drill, (ctx) => {
    const { idempotency_key } = parseInput(byKeyQuerySchema, ctx.query);
    const payout = payoutByKey(deps, idempotency_key);
    if (!payout) throw notFound('payout with idempotency_key', idempotency_key);
    ctx.body = payoutJson(payout);
  });

  router.post('/v1/payouts/cancel', drill, (ctx) => {
    const { idempotency_key } = parseInput(cancelByKeySchema, ctx.request.body);
    ctx.body = payoutJson(cancelPayoutByKey(deps, idempotency_key));
  });

  router.get('/v1/payouts/:id', drill, (ctx) => {
    const payout = deps.store.payouts.get(ctx.params.id!);
    if (!payout) throw notFound('payout', ctx.params.id!);
    ctx.body = payoutJson(payout);
  });

  return router;
}
