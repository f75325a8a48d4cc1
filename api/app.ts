import { randomBytes } from 'node:crypto';
import Koa, { type Context, type Next } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { DomainError } from '../domain/errors';
import { base62 } from '../platform/ids';
import type { AppDeps } from './deps';
import { errorHandler } from './http/error-handler';
import { inFlightCap } from './http/in-flight-cap';
import { regionOfHost } from './http/region';
import { RateLimiter, rateLimitRules } from './http/rate-limit';
import type { RouteDef } from './http/route';
import { createVersionedRouter } from './http/versioned-router';
import { allRoutes } from './routes';

export const BODY_LIMIT = '1mb';

export function createApp(
  deps: AppDeps,
  routes: RouteDef[] = allRoutes(),
  rateLimiter: RateLimiter = new RateLimiter(rateLimitRules(deps.config)),
): Koa {
  const app = new Koa({ proxy: true });
  app.silent = true; // errors are logged by errorHandler, once, with the request id

  app.use(async (ctx: Context, next: Next) => {
    const incoming = ctx.get('request-id');
    const id = /^[\w-]{8,64}$/.test(incoming) ? incoming : `req_${base62(randomBytes(12))}`;
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

  // JSON only: a body in another media type is 415, malformed JSON 400, over 1 MB 413.
  app.use(async (ctx: Context, next: Next) => {
    const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) && !ctx.is('application/json')) {
      throw new DomainError('unsupported_media_type', 'unsupported_media_type', 'Send the request body as application/json');
    }
    await next();
  });
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: BODY_LIMIT,
      jsonStrict: false,
      encoding: 'utf-8',
      onError: (err: Error) => {
        const e = err as Error & { status?: number; type?: string };
        if (e.status === 413 || e.type === 'entity.too.large') throw e;
        // Valid JSON the parser refuses on purpose (prototype poisoning): say so, as a '$' key is refused.
        if (/forbidden prototype property/.test(e.message))
          throw new DomainError('invalid_request', 'parameter_invalid', "The request body has a key '__proto__' (or 'constructor' with 'prototype'): such keys are refused anywhere in a body");
        throw new DomainError('invalid_request', 'malformed_json', 'The request body is not valid JSON');
      },
    }),
  );

  app.use(createVersionedRouter(routes, deps, rateLimiter));
  return app;
}
