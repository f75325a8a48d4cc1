import type { Context } from 'koa';
import type { Config } from '../../platform/config';

/**
 * The base URL customers' browsers reach us at. PUBLIC_BASE_URL is required in production; in development
 * and tests the request's own origin stands in, so links work on whatever port the API was started on.
 */
export function publicBaseUrl(config: Pick<Config, 'PUBLIC_BASE_URL'>, ctx: Pick<Context, 'origin'>): string {
  return (config.PUBLIC_BASE_URL ?? ctx.origin).replace(/\/+$/, '');
}

/** The gateway sandbox as the browser reaches it (card tokenization, 3DS pages). */
export function sandboxPublicUrl(config: Pick<Config, 'SANDBOX_PUBLIC_URL' | 'SANDBOX_URL'>): string {
  return (config.SANDBOX_PUBLIC_URL ?? config.SANDBOX_URL).replace(/\/+$/, '');
}
