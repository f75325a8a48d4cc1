// Card tokenization, called straight from the browser by our hosted payment page, so card numbers never
// touch our API. Hence CORS: any origin, POST with a JSON body (which needs a preflight).

import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { validateCard } from './cards';
import type { SandboxDeps } from './deps';
import { badRequest, parseInput } from './http-errors';
import { newId } from './ids';
import { tokenRequestSchema } from './request-schemas';

export const TOKENS_PATH = '/v1/tokens';

/** Sets CORS headers on every answer of the tokens endpoint (errors included, so the page can read them). */
export async function tokensCors(ctx: Context, next: Next): Promise<void> {
  if (ctx.path !== TOKENS_PATH) return next();
  ctx.set('Access-Control-Allow-Origin', '*');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
    return;
  }
  return next();
}

export function tokenRoutes(deps: SandboxDeps, drill: Middleware, now: () => Date = () => new Date()): Router {
  const router = new Router();
  router.post(TOKENS_PATH, drill, (ctx) => {
    const input = parseInput(tokenRequestSchema, ctx.request.body);
    const result = validateCard(
      { number: input.number, expMonth: input.exp_month, expYear: input.exp_year, cvc: input.cvc },
      now(),
    );
    if (!result.ok) throw badRequest(result.error.code, result.error.message, result.error.param);
    const { card } = result;
    const token = {
      id: newId('tok'),
      behaviour: card.behaviour,
      brand: card.brand,
      last4: card.last4,
      expMonth: card.expMonth,
      expYear: card.expYear,
      createdAt: now(),
    };
    deps.store.tokens.set(token.id, token);
    ctx.status = 201;
    ctx.body = {
      id: token.id,
      object: 'token',
      card: { brand: card.brand, last4: card.last4, exp_month: card.expMonth, exp_year: card.expYear },
      created_at: token.createdAt.toISOString(),
    };
  });
  return router;
}
