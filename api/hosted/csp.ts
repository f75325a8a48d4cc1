// Content-Security-Policy of our customer-facing pages. Scripts and styles only from our origin (no inline
// code, so an injected string cannot run), card data may only leave for the gateway sandbox's tokenization
// endpoint, and the hosted page cannot be framed (clickjacking) while the embedded form must be.

export interface CspOptions {
  /** Origins the page may fetch from besides our own (the tokenization endpoint's). */
  connect?: string[];
  /** Who may frame the page: nobody, or any merchant site. */
  frameAncestors: 'none' | 'any';
  /** Origins the page may itself frame (the demo shop frames our embedded form). */
  frames?: string[];
  /** https origins of merchant images the page shows (line items): added to img-src, nothing else. */
  images?: string[];
}

export function originOf(url: string): string {
  return new URL(url).origin;
}

/** An https origin as URL.origin writes it: nothing that could end a source list or a directive (no IPv6 literal either). */
export function isHttpsOrigin(origin: string): boolean {
  return /^https:\/\/[a-z0-9.-]+(:\d{1,5})?$/.test(origin);
}

export function contentSecurityPolicy(opts: CspOptions): string {
  const connect = ["'self'", ...(opts.connect ?? [])].join(' ');
  const directives = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    ["img-src 'self' data:", ...new Set((opts.images ?? []).filter(isHttpsOrigin))].join(' '),
    `connect-src ${connect}`,
    `form-action ${connect}`,
    opts.frames ? `frame-src ${opts.frames.join(' ')}` : null,
    `frame-ancestors ${opts.frameAncestors === 'none' ? "'none'" : '*'}`,
    "base-uri 'none'",
  ];
  return directives.filter((d) => d !== null).join('; ');
}

/** Headers of every HTML page we serve to customers. */
export function pageHeaders(csp: string, opts: { framable?: boolean } = {}): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    // Per-intent pages (their URLs carry a client secret): no shared or back-button cache.
    'Cache-Control': 'no-store',
    'Content-Security-Policy': csp,
    // The URL carries the client secret: never send it to the gateway or the merchant as a Referer.
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    ...(opts.framable ? {} : { 'X-Frame-Options': 'DENY' }),
  };
}
