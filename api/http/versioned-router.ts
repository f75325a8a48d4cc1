import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { z } from 'zod';
import { API_VERSIONS, isVersionString, resolveVersion, type ApiVersion } from '../../domain/versions';
import { DomainError } from '../../domain/errors';
import { authenticate } from './auth';
import type { AppDeps } from '../deps';
import { parseQuery } from './query';
import { enforceRateLimit, type RateLimiter } from './rate-limit';
import { V202502_TAGS, type RouteDef } from './route';
import { parseOrThrow } from './validate';
import { idempotencyHeaderOf, idempotencyHeaderUse, withIdempotencyHeader, type IdempotencyHeaderUse } from './idempotency-header';
import { answeredOnce } from './header-replay';
import { idempotencyKeySchema } from './common-schemas';

const EMPTY = z.object({}).strict();

/**
 * Routes are registered per version; `/v<YYYYMM>/<rest>` is served by the nearest version not after the
 * requested one that defines that method and path (so /v202609/customers is v202607's, and
 * /v202606/payment-intents/{id} v202502's). Unprefixed paths are version-neutral.
 */
export function createVersionedRouter(routes: RouteDef[], deps: AppDeps, limiter?: RateLimiter): Middleware {
  const byVersion = new Map<ApiVersion, Router>(API_VERSIONS.map((v) => [v, new Router()]));
  const unversioned = new Router();
  for (const def of routes) {
    const handler = (version: ApiVersion | null) => async (ctx: Context) => run(def, ctx, deps, version, limiter);
    if (def.versions === 'unversioned') {
      unversioned[def.method](def.path, handler(null));
      if (def.tags.some((t) => V202502_TAGS.includes(t))) byVersion.get('v202502')![def.method](def.path, handler('v202502'));
    } else for (const v of def.versions) byVersion.get(v)![def.method](def.path, handler(v));
  }
  const unversionedRoutes = unversioned.routes();

  return async (ctx: Context, next: Next) => {
    const m = /^\/(v\d{6})(\/.*)?$/.exec(ctx.path);
    if (!m) {
      const match = unversioned.match(ctx.path, ctx.method);
      if (match.path.length > 0 && match.pathAndMethod.length === 0) throw methodNotAllowed(ctx, match.path);
      return unversionedRoutes(ctx as never, next);
    }
    const requested = m[1]!;
    const rest = m[2] ?? '/';
    if (!isVersionString(requested)) throw new DomainError('not_found', 'unknown_version', `'${requested}' is not an API version (v<YYYYMM>)`);
    ctx.state.requestedVersion = requested;
    const candidates = API_VERSIONS.filter((v) => v <= requested).reverse();
    // A 405 names what every candidate version serves on this path: the fallback would serve each of those.
    const pathOnly: { methods: string[] }[] = [];
    for (const v of candidates) {
      const router = byVersion.get(v)!;
      const match = router.match(rest, ctx.method);
      if (match.pathAndMethod.length > 0) {
        const served = resolveVersion(requested, definingVersions(byVersion, rest, ctx.method));
        ctx.state.servedVersion = served;
        (ctx as unknown as { newRouterPath: string }).newRouterPath = rest;
        return router.routes()(ctx as never, next);
      }
      pathOnly.push(...match.path);
    }
    if (pathOnly.length > 0) throw methodNotAllowed(ctx, pathOnly);
    throw new DomainError('not_found', 'route_not_found', `Unrecognized request URL (${ctx.method} ${ctx.path})`);
  };
}

/** The Idempotency-Key header of a create that keeps its answer under it: a key as a body's would be (1 to 255 characters). */
function replayKeyOf(ctx: Context): string | undefined {
  const key = idempotencyHeaderOf(ctx.req, 'Idempotency-Key');
  if (key !== undefined && !idempotencyKeySchema.safeParse(key).success)
    throw new DomainError('invalid_request', 'parameter_invalid', 'The Idempotency-Key header must be 1 to 255 characters', 'Idempotency-Key');
  return key;
}

const headerUses = new WeakMap<RouteDef, IdempotencyHeaderUse>();
/** What the Idempotency-Key header is on a route, found once per route. */
function headerUseOf(def: RouteDef): IdempotencyHeaderUse {
  if (!headerUses.has(def)) headerUses.set(def, idempotencyHeaderUse(def));
  return headerUses.get(def)!;
}

function definingVersions(byVersion: Map<ApiVersion, Router>, path: string, method: string): ApiVersion[] {
  return API_VERSIONS.filter((v) => byVersion.get(v)!.match(path, method).pathAndMethod.length > 0);
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

function methodNotAllowed(ctx: Context, layers: { methods: string[] }[]): DomainError {
  // Allow lists every method served, HEAD too (the router serves it for each GET, RFC 9110 15.5.6), in one
  // order whatever the routes' order; the message names the ones a client means, HEAD being GET without a body.
  const served = new Set(layers.flatMap((l) => l.methods));
  const allowed = METHOD_ORDER.filter((x) => served.has(x));
  ctx.set('Allow', allowed.join(', '));
  return new DomainError('method_not_allowed', 'method_not_allowed', `${ctx.method} is not allowed here; use ${allowed.filter((x) => x !== 'HEAD').join(' or ')}`);
}

async function run(def: RouteDef, ctx: Context, deps: AppDeps, version: ApiVersion | null, limiter?: RateLimiter): Promise<void> {
  // Before authentication: a refused request costs no key lookup.
  if (limiter) enforceRateLimit(ctx, limiter, def);
  const auth = await authenticate(ctx, def.auth, deps);
  if (auth) ctx.state.tenantId = auth.tenantId;
  const params = parseOrThrow(def.params ?? z.record(z.string(), z.string()), (ctx as unknown as { params: unknown }).params ?? {}, 'path');
  const query = parseOrThrow(def.query ?? EMPTY, parseQuery(new URLSearchParams(ctx.querystring)), 'query');
  // An empty body sent with `Content-Type: application/json` (as many clients do on a bodyless POST) is no body.
  // (A JSON string literal `""` is a body, and not an object: refused below like any other non-object.)
  const request = ctx.request as { body?: unknown; rawBody?: string };
  const rawBody = request.body === '' && !request.rawBody?.trim() ? undefined : request.body;
  // A literal JSON `null` is a body, and not an object: refused below like any other non-object.
  const bodyInput = rawBody === undefined || (rawBody !== null && typeof rawBody === 'object' && Object.keys(rawBody as object).length === 0 && !def.body) ? {} : rawBody;
  if (def.body && (bodyInput === null || typeof bodyInput !== 'object' || Array.isArray(bodyInput)))
    throw new DomainError('invalid_request', 'parameter_invalid', 'The request body must be a JSON object');
  const use = headerUseOf(def);
  const keyField = use?.kind === 'key' ? use.field : null;
  const keyed = withIdempotencyHeader(keyField, bodyInput, idempotencyHeaderOf(ctx.req, keyField));
  const body = parseOrThrow(def.body ?? EMPTY, keyed, 'body');
  const handle = () =>
    def.handler({
      params,
      query,
      body,
      auth: auth ?? { tenantId: '', region: String(ctx.state.region ?? ''), keyKind: 'secret', claims: [] },
      deps,
      ctx,
      version: { requested: (ctx.state.requestedVersion as string) ?? null, served: version },
    });
  const replayKey = use?.kind === 'replay' && auth ? replayKeyOf(ctx) : undefined;
  const result =
    replayKey === undefined
      ? await handle()
      : await answeredOnce(deps, { tenantId: auth!.tenantId, key: replayKey, route: `${ctx.method} ${ctx.path}`, params, body }, handle);
  ctx.status = result.status;
  if (result.headers) for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
  if (result.body === null) {
    // A JSON `null` body (the older interface's "nothing matches"): Koa would turn a null body into a 204.
    ctx.type = 'application/json';
    ctx.body = 'null';
  } else ctx.body = result.body;
}
