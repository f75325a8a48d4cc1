// Every error leaves the sandbox as `{ error: { code, message, param } }`, like a real gateway's API, so
// adapters and the hosted page can read failures one way.

import type { Context, Next } from 'koa';
import { z } from 'zod';

export class SandboxHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'SandboxHttpError';
  }
}

export const badRequest = (code: string, message: string, param?: string) =>
  new SandboxHttpError(400, code, message, param);

export const notFound = (what: string, id: string) =>
  new SandboxHttpError(404, 'resource_missing', `No such ${what}: '${id}'`, 'id');

export const idempotencyConflict = (message: string) =>
  new SandboxHttpError(409, 'idempotency_key_in_use', message, 'idempotency_key');

export const unavailable = (message: string) => new SandboxHttpError(503, 'sandbox_unavailable', message);

/** Parses a request body or query with zod, turning the first issue into a 400 naming the parameter. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  // An unknown parameter is usually the root cause (a typo), so it is reported before missing ones.
  const issues = parsed.error.issues;
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
  // Nested unknown keys are named by their full path (agreement.surprise).
  const unknownKey = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]].join('.') : undefined;
  const param = unknownKey ?? (issue.path.length > 0 ? issue.path.join('.') : undefined);
  const message = unknownKey ? `Unknown parameter: ${unknownKey}` : `${param ?? 'body'}: ${issue.message}`;
  throw badRequest(unknownKey ? 'parameter_unknown' : 'parameter_invalid', message, param);
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

export interface ErrorLog {
  error(obj: Record<string, unknown>, msg: string): void;
}

export function errorMiddleware(log: ErrorLog) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) {
        throw new SandboxHttpError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      if (err instanceof SandboxHttpError) {
        ctx.status = err.status;
        ctx.body = { error: { code: err.code, message: err.message, param: err.param ?? null } };
        return;
      }
      // Body-parser and Koa errors carry an HTTP status (400 bad JSON, 413 too large, 415).
      const httpErr = err as HttpLikeError;
      const status = httpErr.status ?? httpErr.statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        ctx.status = status;
        const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_body';
        ctx.body = { error: { code, message: httpErr.message ?? 'Invalid request', param: null } };
        return;
      }
      log.error({ err }, 'sandbox request failed');
      ctx.status = 500;
      ctx.body = { error: { code: 'internal_error', message: 'Internal sandbox error', param: null } };
    }
  };
}
