// Routes for tests and drills, not for adapters: health, drill settings and the effect ledger. Unauthenticated
// on purpose: the sandbox is a local test double and listens on 127.0.0.1 by default.

import Router from '@koa/router';
import type { SandboxDeps } from './deps';
import { parseInput } from './http-errors';
import { effectsQuerySchema } from './request-schemas';
import { recordJson } from './resources';
import { settingsJson, settingsUpdateSchema } from './settings';

export function adminRoutes(deps: SandboxDeps): Router {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });

  router.get('/v1/admin/settings', (ctx) => {
    ctx.body = settingsJson(deps.settings);
  });

  router.post('/v1/admin/settings', (ctx) => {
    const update = parseInput(settingsUpdateSchema, ctx.request.body);
    if (update.latency_ms !== undefined) deps.settings.latencyMs = update.latency_ms;
    if (update.failure_rate !== undefined) deps.settings.failureRate = update.failure_rate;
    deps.log.info(settingsJson(deps.settings), 'sandbox settings changed');
    ctx.body = settingsJson(deps.settings);
  });

  // `count` is the number of effects matching the filter, `total` the number of effects of any kind.
  router.get('/v1/effects', (ctx) => {
    const query = parseInput(effectsQuerySchema, ctx.query);
    const effects = deps.store.effects({ idempotencyKey: query.idempotency_key, kind: query.kind });
    ctx.body = {
      count: effects.length,
      total: deps.store.totalEffects,
      effects: effects.map((e) => {
        const found = deps.store.find(e.kind, e.id);
        const json = found ? recordJson(found) : null;
        return {
          kind: e.kind,
          id: e.id,
          idempotency_key: e.idempotencyKey,
          status: json?.status ?? null,
          // What moved, so a drill can check amounts as well as counts (a refund names the charge it refunds).
          amount: json && 'amount' in json ? json.amount : null,
          currency: json && 'currency' in json ? json.currency : null,
          charge_id: json && 'charge_id' in json ? json.charge_id : null,
          replays: e.replays,
          created_at: e.createdAt.toISOString(),
        };
      }),
    };
  });

  return router;
}
