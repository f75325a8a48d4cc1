import { isIP } from 'node:net';
import { publicBaseUrl, type Config } from '../../platform/config';
import { REGION_SEGMENT } from '../../platform/region-hosts';

export { regionOfHost } from '../../platform/region-hosts';

/**
 * A host that takes no `api-<region>.` segment: `localhost` (and `*.localhost`), an IP address, or a single
 * label (`api`, a container name). A prefixed name would not resolve for every client there (browsers
 * resolve `api-eu.localhost`, most HTTP clients and Docker's DNS do not; an IP has no subdomains).
 */
export function isUnprefixableHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || isIP(h) !== 0 || !h.includes('.');
}

export type RegionalBaseConfig = Pick<Config, 'PUBLIC_BASE_URL' | 'PUBLIC_BASE_URLS' | 'PORT' | 'REGIONS'>;

/**
 * Where customers' browsers reach the API for `region`: the base of an intent's `url` (its hosted page) and
 * of a payment method's `logo_url`, so each region's links name that region's host (spec, Versioning:
 * regional hosts are `api-<region>` on the base address). In order:
 *
 * 1. PUBLIC_BASE_URLS's entry for the region, as given (config.ts checks its host serves that region);
 * 2. PUBLIC_BASE_URL with its host's region segment (`api-<r>.`) replaced by `api-<region>.`, or with
 *    `api-<region>.` prefixed when the host has none (`https://pay.example` -> `https://api-us.pay.example`);
 * 3. PUBLIC_BASE_URL unchanged when its host takes no prefix (localhost, an IP, a single label: see
 *    isUnprefixableHost), or when `region` is not one this process serves (an id from elsewhere). Such a
 *    host is served as the default region: hosted pages and logos still open there for every region (they
 *    need no key), but a key of another region is refused on it; set PUBLIC_BASE_URLS for distinct hosts.
 *
 * Every host 1 and 2 produce is one regionOfHost answers `region` for.
 */
export function regionPublicBaseUrl(region: string | null | undefined, config: RegionalBaseConfig): string {
  const base = publicBaseUrl(config);
  if (!region || !config.REGIONS.includes(region)) return base;
  const own = Object.hasOwn(config.PUBLIC_BASE_URLS, region) ? config.PUBLIC_BASE_URLS[region] : undefined;
  if (own) return own.replace(/\/+$/, '');
  const url = new URL(base);
  if (REGION_SEGMENT.test(url.hostname.toLowerCase())) url.hostname = url.hostname.toLowerCase().replace(REGION_SEGMENT, `api-${region}.`);
  else if (isUnprefixableHost(url.hostname)) return base;
  else url.hostname = `api-${region}.${url.hostname}`;
  // URL keeps the path; only a trailing slash of an empty path is dropped, as publicBaseUrl does.
  return url.toString().replace(/\/+$/, '');
}
