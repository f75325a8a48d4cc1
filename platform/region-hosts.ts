// Which region a host name is addressed to. Shared by the API (each request's region) and the config's
// check of PUBLIC_BASE_URLS (each regional base must be a host served as its region).

/** The region segment of a host name: `api-<region>.` at its start. */
export const REGION_SEGMENT = /^api-([a-z]{2,8})\./;

export interface RegionHostsConfig {
  REGIONS: readonly string[];
  DEFAULT_REGION: string;
  REGION_HOST_ALIASES: Readonly<Record<string, string>>;
}

/**
 * The region a host is addressed to: `api-<region>.<domain>` names it, an alias from REGION_HOST_ALIASES
 * maps an older host name, and a host with no region segment (localhost, an IP) serves the default region.
 * Returns null for `api-<unknown>.<domain>`.
 */
export function regionOfHost(host: string, config: RegionHostsConfig): string | null {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  const alias = Object.hasOwn(config.REGION_HOST_ALIASES, name) ? config.REGION_HOST_ALIASES[name] : undefined;
  if (alias) return alias;
  const m = REGION_SEGMENT.exec(name);
  if (!m) return config.DEFAULT_REGION;
  return config.REGIONS.includes(m[1]!) ? m[1]! : null;
}
