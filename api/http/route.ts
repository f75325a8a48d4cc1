import type { Context } from 'koa';
import type { z } from 'zod';
import type { ApiVersion } from '../../domain/versions';
import type { AppDeps, AuthContext } from '../deps';

// A route is data: method, path, the versions that define it, its auth, its zod schemas and its handler.
// The same objects register the Koa routes and generate the OpenAPI document.

export type AuthMode = 'secret' | 'publishable' | 'admin' | 'none';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
  deps: AppDeps;
  ctx: Context;
  /** The version in the URL (`v202609`), and the one that serves it (`v202607`). */
  version: { requested: string | null; served: ApiVersion | null };
}

export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: Method;
  /** Koa-style path without the version prefix, e.g. `/payment-intents/:payment_intent`. */
  path: string;
  versions: readonly ApiVersion[] | 'unversioned';
  auth: AuthMode;
  summary: string;
  /** Longer words for the OpenAPI operation. */
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  handler(input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>): Promise<RouteResult>;
  /** Hidden from the OpenAPI document (hosted page assets, callbacks). */
  internal?: boolean;
  /** A card is submitted here: a publishable key also spends from its stricter `attempts` rate limit. */
  cardEntry?: boolean;
  /**
   * A create whose body has no idempotency key field: under an `Idempotency-Key` header its first answer is kept
   * and given again to a repeat (header-replay.ts). Never on a route whose answer holds a secret shown once.
   */
  replaysIdempotencyKeyHeader?: boolean;
}

/**
 * The tags of v202502's endpoints, served unprefixed (version-neutral, as the older interface always was), also
 * under /v202502/... and, by the spec's fallback, under any later prefix that defines no endpoint of its own at
 * that method and path (GET /v202606/payment-intents is the older list).
 */
export const V202502_TAGS: readonly string[] = ['Payment intents (older interface)', 'Checkout intents (older interface)', 'Refunds (older interface)'];

export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}
