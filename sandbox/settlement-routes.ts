// GET /v1/settlement-report (what an adapter reads, like a gateway's settlement file) and the test hooks
// that plant mismatches in it, under /v1/admin like the other drills: unauthenticated on purpose, the
// sandbox is a local test double listening on 127.0.0.1 by default.

import Router from '@koa/router';
import type { SandboxDeps } from './deps';
import { notFound, parseInput } from './http-errors';
import { entryJson, isReportable, overrideSchema, phantomEntry, phantomSchema, settlementPage, settlementQuerySchema } from './settlement-report';

export function settlementRoutes(deps: SandboxDeps): Router {
  const router = new Router();
  const { store } = deps;

  router.get('/v1/settlement-report', (ctx) => {
    ctx.body = settlementPage(store, parseInput(settlementQuerySchema, ctx.query));
  });

  // Plants a mismatch about a real capture, refund or payout: left out of the report, or another amount/status.
  router.post('/v1/admin/settlement-report/entries/:id', (ctx) => {
    const id = ctx.params.id!;
    if (!isReportable(store, id)) throw notFound('capture, refund or payout', id);
    const o = parseInput(overrideSchema, ctx.request.body);
    const override = { omit: o.omit === true, ...(o.amount !== undefined ? { amount: o.amount } : {}), ...(o.status !== undefined ? { status: o.status } : {}) };
    store.settlementOverrides.set(id, override);
    deps.log.info({ id, ...override }, 'settlement report adjusted');
    ctx.body = { id, ...override };
  });

  // Plants an entry the gateway reports but nobody asked for.
  router.post('/v1/admin/settlement-report/phantoms', (ctx) => {
    const entry = phantomEntry(parseInput(phantomSchema, ctx.request.body));
    store.phantomEntries.push(entry);
    deps.log.info({ id: entry.id, object: entry.object }, 'settlement report phantom entry added');
    ctx.status = 201;
    ctx.body = entryJson(entry);
  });

  router.delete('/v1/admin/settlement-report/adjustments', (ctx) => {
    const cleared = store.settlementOverrides.size + store.phantomEntries.length;
    store.settlementOverrides.clear();
    store.phantomEntries.length = 0;
    ctx.body = { cleared };
  });

  return router;
}
