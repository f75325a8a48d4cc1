import Koa, { type Context, type Next } from 'koa';
import { DomainError } from '../domain/errors';
import type { AppDeps } from './deps';
import { errorHandler } from './http/error-handler';
import { inFlightCap } from './http/in-flight-cap';
import { admitJsonBody, readJsonBody } from './http/json-body';
import { regionOfHost } from './http/region';
import { RateLimiter, rateLimitRules } from './http/rate-limit';
import type { RouteDef } from './http/route';
import { requestIdOf } from './http/request-id';
import { createVersionedRouter } from './http/versioned-router';
import { wellFormedBody } from './http/well-formed-body';
import { allRoutes } from './routes';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export function createApp(
  deps: AppDeps,
  routes: RouteDef[] = allRoutes(),
  rateLimiter: RateLimiter = new RateLimiter(rateLimitRules(deps.config)),
): Koa {
  const app = new Koa({ proxy: true });
  app.silent = true; // errors are logged by errorHandler, once, with the request id

  app.use(async (ctx: Context, next: Next) => {
    const id = requestIdOf(ctx.get('request-id'));
    ctx.state.requestId = id;
    ctx.set('Request-Id', id);
    ctx.state.logger = deps.logger.child({ request_id: id });
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const routeLabel = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      deps.metrics.httpRequests.inc({ method: ctx.method, route: routeLabel, status: String(ctx.status) });
      deps.metrics.httpDuration.observe({ method: ctx.method, route: routeLabel }, seconds);
      ctx.state.logger.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000), tenant: ctx.state.tenantId },
        'request',
      );
    }
  });
  app.use(errorHandler);
  app.use(
    inFlightCap(deps.config.API_MAX_IN_FLIGHT, { inFlight: (n) => deps.metrics.httpInFlight.set(n), shed: () => deps.metrics.httpShed.inc() }),
  );

  app.use(async (ctx: Context, next: Next) => {
    // The Host header, never X-Forwarded-Host (which Koa's proxy mode would read): a client could name another
    // region's host in it and have a key of that region accepted here. The proxy in front passes Host on.
    const host = ctx.get('host');
    const region = regionOfHost(host, deps.config);
    if (!region) throw new DomainError('not_found', 'unknown_region', `No region is served at host '${host}'`);
    ctx.state.region = region;
    await next();
  });

  // JSON in UTF-8 only: another media type, charset or content coding is 415; bytes that are not UTF-8 or not
  // JSON 400, over 1 MB 413; then every parsed body is checked for what no route accepts (lone surrogates,
  // nesting past a bound, prototype keys) before a route sees it.
  app.use(admitJsonBody);
  app.use(readJsonBody(BODY_LIMIT_BYTES));
  app.use(wellFormedBody);

  app.use(createVersionedRouter(routes, deps, rateLimiter));
  return app;
}
