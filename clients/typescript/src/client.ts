import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './generated/schema';
import { retryingFetch, type RetryOptions } from './retry';

export type PayorchClient = Client<paths>;

export interface PayorchClientOptions {
  /** `sk_<region>_...` (server calls), `pk_<region>_...` (the attempts endpoint) or the admin token. */
  apiKey: string;
  /** Where the API is, e.g. `http://localhost:3000`. Wins over `region` and `domain`. */
  baseUrl?: string;
  /** With `domain`: `https://api-<region>.<domain>`. Defaults to the key's region (`sk_eu_...` is `eu`). */
  region?: string;
  /** The API's domain without the region segment, e.g. `pay.example.com`. */
  domain?: string;
  /** Retries on 429 and 503 (see retry.ts); `false` turns them off. */
  retry?: RetryOptions | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** The fetch to call (tests, proxies); globalThis.fetch by default. */
  fetch?: (input: Request) => Promise<Response>;
}

const KEY_REGION = /^(?:sk|pk)_([a-z]{2,8})_/;

/** The region a key belongs to (`sk_eu_...` is `eu`), or null for a key that names none (the admin token). */
export function regionOfKey(apiKey: string): string | null {
  return KEY_REGION.exec(apiKey)?.[1] ?? null;
}

/** The API's base URL: `baseUrl` as given, else `https://api-<region>.<domain>` (keys are regional). */
export function baseUrlFor(opts: Pick<PayorchClientOptions, 'apiKey' | 'baseUrl' | 'region' | 'domain'>): string {
  if (opts.baseUrl) return opts.baseUrl.replace(/\/+$/, '');
  const region = opts.region ?? regionOfKey(opts.apiKey);
  if (!opts.domain || !region) throw new Error('give baseUrl, or domain with a regional key (sk_<region>_...) or region');
  return `https://api-${region}.${opts.domain}`;
}

/**
 * The typed client: openapi-fetch over the generated `paths`, with the key as bearer token, the regional
 * host and retries. Calls are `client.GET('/v202607/payment-intents/{payment_intent}', { params: ... })`,
 * answering `{ data }` or `{ error }` (see unwrap() for a throwing style).
 */
export function createPayorchClient(opts: PayorchClientOptions): PayorchClient {
  const baseFetch = opts.fetch ?? ((input: Request) => globalThis.fetch(input));
  const clientOptions: ClientOptions = {
    baseUrl: baseUrlFor(opts),
    headers: { ...opts.headers, Authorization: `Bearer ${opts.apiKey}` },
    fetch: opts.retry === false ? baseFetch : retryingFetch(baseFetch, opts.retry),
  };
  return createClient<paths>(clientOptions);
}
