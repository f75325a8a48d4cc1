// API versions, oldest first. A request to /v<YYYYMM>/... for an endpoint that version does not define is
// served by the nearest lower version that defines it.
export const API_VERSIONS = ['v202502', 'v202606', 'v202607', 'v202608'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export const VERSION_RE = /^v(\d{4})(0[1-9]|1[0-2])$/;

export function isVersionString(s: string): boolean {
  return VERSION_RE.test(s);
}

/**
 * The version that serves `requested` among those that define an endpoint: the greatest one not after it.
 * `v202609` is valid even though no such release exists: it falls back like any other month.
 */
export function resolveVersion<V extends string>(requested: string, definedIn: readonly V[]): V | null {
  if (!isVersionString(requested)) return null;
  let best: V | null = null;
  for (const v of definedIn) {
    if (v <= requested && (best === null || v > best)) best = v;
  }
  return best;
}
