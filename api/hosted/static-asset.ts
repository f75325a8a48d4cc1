import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { RouteResult } from '../http/route';

// Small files the API serves itself (hosted-page script and styles, embed loader, logos). They are read
// once at start and kept in memory; each has a content hash that pages put in the URL (`?v=<hash>`), so a
// matching URL can be cached for a year and a deploy still reaches every browser at once.

export interface StaticAsset {
  body: string;
  contentType: string;
  /** First 12 hex digits of the SHA-256 of the body. */
  version: string;
  etag: string;
}

export function staticAsset(body: string, contentType: string): StaticAsset {
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, contentType, version, etag: `"${version}"` };
}

/** A file under api/hosted/assets; the Dockerfile copies non-TS files next to the compiled output. */
export function assetFile(name: string, contentType: string): StaticAsset {
  return staticAsset(readFileSync(join(__dirname, 'assets', name), 'utf8'), contentType);
}

export type CachePolicy = 'versioned' | 'short' | 'day';

const CACHE: Record<CachePolicy, string> = {
  // Only when the URL names this exact content; any other URL revalidates.
  versioned: 'public, max-age=31536000, immutable',
  // A URL merchants embed without a version (embed.js): a deploy reaches browsers within minutes.
  short: 'public, max-age=300',
  day: 'public, max-age=86400',
};

export function serveAsset(asset: StaticAsset, ctx: Pick<Context, 'get' | 'query'>, policy: CachePolicy): RouteResult {
  const cacheControl = policy === 'versioned' && ctx.query['v'] !== asset.version ? 'no-cache' : CACHE[policy];
  const headers: Record<string, string> = {
    'Content-Type': asset.contentType,
    'Cache-Control': cacheControl,
    ETag: asset.etag,
    'X-Content-Type-Options': 'nosniff',
    // Served from our origin to other origins (logos in merchants' pickers, embed.js in merchants' pages).
    'Cross-Origin-Resource-Policy': 'cross-origin',
  };
  if (ctx.get('if-none-match').split(/\s*,\s*/).includes(asset.etag)) return { status: 304, body: null, headers };
  return { status: 200, body: asset.body, headers };
}
