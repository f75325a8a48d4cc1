import type { Config } from '../../platform/config';

/**
 * The region a request is addressed to, from its host: `api-<region>.<domain>` names it, an alias from
 * REGION_HOST_ALIASES maps an older host name, and a host with no region segment (localhost, an IP)
 * serves the default region. Returns null for `api-<unknown>.<domain>`.
 */
export function regionOfHost(host: string, config: Pick<Config, 'REGIONS' | 'DEFAULT_REGION' | 'REGION_HOST_ALIASES'>): string | null {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  const alias = config.REGION_HOST_ALIASES[name];
  if (alias) return alias;
  const m = /^api-([a-z]{2,8})\./.exec(name);
  if (!m) return config.DEFAULT_REGION;
  return config.REGIONS.includes(m[1]!) ? m[1]! : null;
}
