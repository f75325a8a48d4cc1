import type { Context, Next } from 'koa';
import { DomainError, type ErrorKind } from '../../domain/errors';
import { isDependencyDown } from './dependency-errors';

// The one place that turns failures into HTTP. Every error leaves as
// { error: { type, code, message, param?, request_id } }; no stack or database text reaches a client.

const STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  payment_failed: 402,
  authentication: 401,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
};

const TYPE: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  payment_failed: 'card_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  conflict: 'invalid_request_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  unavailable: 'api_error',
};

export function errorBody(kind: ErrorKind, code: string, message: string, requestId: string, param?: string, extra?: Record<string, string>) {
  return { error: { type: TYPE[kind], code, message, ...(param ? { param } : {}), ...extra, request_id: requestId } };
}

export async function errorHandler(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new DomainError('not_found', 'route_not_found', `Unrecognized request URL (${ctx.method} ${ctx.path})`);
    }
  } catch (raw) {
    const err = toDomainError(raw);
    const requestId = String(ctx.state.requestId ?? '');
    if (!err) {
      ctx.state.logger?.error({ err: raw, request_id: requestId }, 'unexpected failure');
      ctx.status = 500;
      const body = errorBody('unavailable', 'internal_error', 'An unexpected error occurred; it has been logged', requestId);
      ctx.body = body;
      return;
    }
    if (err.kind === 'unavailable') ctx.state.logger?.warn({ err: raw, request_id: requestId }, 'dependency unavailable');
    ctx.status = STATUS[err.kind];
    ctx.body = errorBody(err.kind, err.code, err.message, requestId, err.param, err.extra);
    const retryAfter = err.retryAfterSeconds ?? (err.kind === 'unavailable' ? 1 : undefined);
    if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
  }
}

/** Errors raised by middleware we do not own (the router) become domain errors here; bodies are read by json-body.ts. */
function toDomainError(raw: unknown): DomainError | null {
  if (raw instanceof DomainError) return raw;
  if (isDependencyDown(raw)) return new DomainError('unavailable', 'service_unavailable', 'A dependency of the service is unavailable; retry later');
  const e = raw as { status?: number; statusCode?: number };
  const status = e?.status ?? e?.statusCode;
  if (status === 405) return new DomainError('method_not_allowed', 'method_not_allowed', 'This method is not allowed on this URL');
  if (status === 404) return new DomainError('not_found', 'route_not_found', 'Unrecognized request URL');
  return null;
}
