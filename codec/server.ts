import { randomUUID } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Payload } from '@temporalio/common';
import Koa from 'koa';
import { errorBody } from '../api/http/error-handler';
import type { ErrorKind } from '../domain/errors';
import { mayRead, operatorByToken, type CodecOperator, type Reader } from '../platform/codec-operators';
import { looksLikeJwt, type OidcOperatorOf } from '../platform/codec-oidc';
import { isEncrypted, PLATFORM_SCOPE, scopeOf, type TenantPayloadCodec } from '../platform/payload-codec';

// The codec server the Temporal UI calls (its "Codec Server" setting, with "pass access token" on) to show
// operators the payloads the codec sealed. POST /decode opens what the operator's scopes allow and returns
// the rest still sealed; POST /encode (the UI's input to signals and Updates) seals as the workers would.
// A process of its own, apart from the merchant API: it holds the payload keys, and only operators reach it.

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const toPayload = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

class CodecHttpError extends Error {
  constructor(
    readonly status: number,
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CodecServerOptions {
  codec: TenantPayloadCodec;
  operators: CodecOperator[];
  /** Operators signed in to the UI through OIDC: their access token verified (platform/codec-oidc.ts). */
  oidc?: OidcOperatorOf;
  corsOrigins: string[];
  /** Called once per request with what was done, never with payloads or tokens. */
  audit?: (line: { operator: string | null; path: string; payloads: number; opened: number; status: number }) => void;
}

export function createCodecServer(opts: CodecServerOptions): Koa {
  const app = new Koa();
  const router = new Router();

  app.use(async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin && opts.corsOrigins.includes(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Vary', 'Origin');
      ctx.set('Access-Control-Allow-Credentials', 'true');
      ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    }
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    const requestId = randomUUID();
    try {
      await next();
    } catch (err) {
      const e = err instanceof CodecHttpError ? err : new CodecHttpError(400, 'invalid_request', 'payload_not_decodable', err instanceof Error ? err.message : String(err));
      ctx.status = e.status;
      ctx.body = errorBody(e.kind, e.code, e.message, requestId);
      // Refusals are audited too: a run of bad tokens or of refused encodes is what an audit is for.
      opts.audit?.({ operator: (ctx.state.operator as string | undefined) ?? null, path: ctx.path, payloads: 0, opened: 0, status: e.status });
    }
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = errorBody('not_found', 'route_not_found', `Unrecognized request URL (${ctx.method} ${ctx.path})`, requestId);
    }
  });
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '4mb' }));

  const operatorOf = async (authorization: string): Promise<Reader> => {
    const token = /^Bearer (.+)$/.exec(authorization)?.[1];
    let op: Reader | null = token ? operatorByToken(opts.operators, token) : null;
    if (!op && token && opts.oidc && looksLikeJwt(token)) {
      try {
        op = await opts.oidc(token);
      } catch {
        throw new CodecHttpError(503, 'unavailable', 'service_unavailable', "The sign-on issuer's keys could not be read; retry shortly");
      }
    }
    if (!op) throw new CodecHttpError(401, 'authentication', 'operator_token_invalid', 'An operator token is required (Authorization: Bearer <token>)');
    return op;
  };
  const operatorFor = async (ctx: Koa.Context): Promise<Reader> => {
    const op = await operatorOf(ctx.get('Authorization'));
    ctx.state.operator = op.name;
    return op;
  };
  const payloadsOf = (body: unknown): Payload[] => {
    const list = (body as { payloads?: unknown } | undefined)?.payloads;
    if (!Array.isArray(list)) throw new CodecHttpError(400, 'invalid_request', 'parameter_invalid', 'The body must be {"payloads": [...]}');
    return list.map((p) => toPayload(p as JsonPayload));
  };

  router.post('/decode', async (ctx) => {
    const op = await operatorFor(ctx);
    const payloads = payloadsOf(ctx.request.body);
    const out = opts.codec.decodeAllowed(payloads, (scope) => mayRead(op, scope));
    const opened = out.filter((p, i) => p !== payloads[i]).length;
    opts.audit?.({ operator: op.name, path: '/decode', payloads: payloads.length, opened, status: 200 });
    ctx.body = { payloads: out.map(toJson) };
  });
  router.post('/encode', async (ctx) => {
    const op = await operatorFor(ctx);
    const payloads = payloadsOf(ctx.request.body);
    // An operator seals no tenant's payload but its own: else one scoped to a tenant could make input sealed as
    // another's. Input naming no tenant (the platform's: an operator's stamp) and payloads sealed already are
    // sealed or passed on as before; sealing reveals nothing, and the UI's signals and Updates need it.
    const foreign = payloads.filter((p) => !isEncrypted(p)).map(scopeOf).find((scope) => scope !== PLATFORM_SCOPE && !mayRead(op, scope));
    if (foreign !== undefined) throw new CodecHttpError(403, 'permission', 'scope_not_allowed', `This operator may not seal payloads of scope '${foreign}'`);
    ctx.body = { payloads: payloads.map((p) => toJson(opts.codec.seal(p))) };
    opts.audit?.({ operator: op.name, path: '/encode', payloads: payloads.length, opened: 0, status: 200 });
  });
  app.use(router.routes());
  return app;
}
