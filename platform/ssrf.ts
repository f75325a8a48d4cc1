import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Webhook URLs are chosen by merchants, so every send is a request our network makes on someone else's
// behalf. Only public unicast addresses are reachable. Two checks:
// - checkWebhookUrl: syntax, scheme and literal addresses, at input time (a 400) and again before each send;
// - guardedLookup: the addresses a host name resolves to, checked inside the socket's own lookup, so the
//   address we checked is the address we connect to (no window for DNS rebinding between check and use).

export interface SsrfOptions {
  /** Local development only (config refuses it in production): loopback and private ranges allowed. */
  allowPrivateHosts: boolean;
  /** Production (platform/config.ts webhookTargetPolicy): the body and the secret header never travel in clear. */
  httpsOnly?: boolean;
}

export type Check = { ok: true } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

/** Ranges only a development machine may reach, and only with allowPrivateHosts. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Is this IP address a permitted webhook target? IPv4 must be plain unicast (ipaddr.js range `unicast`:
 * not loopback, private, link-local incl. 169.254.169.254, CGNAT, multicast, broadcast, unspecified,
 * reserved or documentation ranges). IPv6 must be global unicast (2000::/3) outside the special ranges
 * (6to4, Teredo, NAT64 and others that tunnel to an IPv4 address we would not have checked). IPv4-mapped
 * IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it maps to.
 */
export function checkAddress(address: string, opts: SsrfOptions): Check {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return { ok: false, reason: `not an IP address: ${address}` };
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    const v4 = (parsed as ipaddr.IPv6).toIPv4Address();
    const inner = checkAddress(v4.toString(), opts);
    return inner.ok ? inner : { ok: false, reason: `${inner.reason} (IPv4-mapped ${address})` };
  }
  const range = parsed.range();
  if (opts.allowPrivateHosts && PRIVATE_RANGES.has(range)) return { ok: true };
  if (parsed.kind() === 'ipv4') {
    return range === 'unicast' ? { ok: true } : { ok: false, reason: `${address} is ${describeRange(range)}` };
  }
  if (range !== 'unicast') return { ok: false, reason: `${address} is ${describeRange(range)}` };
  if (!(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return { ok: false, reason: `${address} is not a global unicast address` };
  return { ok: true };
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    uniqueLocal: 'a private (unique local) address',
    linkLocal: 'a link-local address',
    carrierGradeNat: 'a carrier-grade NAT address',
    unspecified: 'the unspecified address',
    multicast: 'a multicast address',
    broadcast: 'the broadcast address',
  };
  return names[range] ?? `a reserved address (${range})`;
}

/** RFC 6761: these names always mean this machine, whatever DNS says. */
function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * Syntax, scheme and literal-address checks, without DNS: pure, so the API calls it on every `webhooks`
 * entry at create time. Host names are judged again at connect time by guardedLookup.
 */
export function checkWebhookUrl(url: string, opts: SsrfOptions): Check {
  if (url.length > MAX_URL_LENGTH) return { ok: false, reason: `URL is longer than ${MAX_URL_LENGTH} characters` };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { ok: false, reason: `scheme ${u.protocol.replace(/:$/, '')} is not allowed; use https` };
  if (u.protocol === 'http:' && opts.httpsOnly) return { ok: false, reason: 'http is not allowed; use https' };
  // Credentials in the URL would travel in logs, search attributes and the Temporal UI; use the secret instead.
  if (u.username || u.password) return { ok: false, reason: 'credentials in the URL are not allowed' };
  const host = u.hostname; // WHATWG normalises 0x7f.1, 2130706433 and friends to dotted IPv4
  if (!host) return { ok: false, reason: 'the URL has no host' };
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(literal)) {
    const c = checkAddress(literal, opts);
    return c.ok ? c : { ok: false, reason: c.reason };
  }
  if (isLocalhostName(host) && !opts.allowPrivateHosts) return { ok: false, reason: `${host} is a loopback host name` };
  return { ok: true };
}

export class SsrfRefusedError extends Error {
  readonly code = 'ESSRFREFUSED';
  constructor(readonly reason: string) {
    super(`ssrf_refused: ${reason}`);
    this.name = 'SsrfRefusedError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A drop-in for dns.lookup, given to the HTTP agent as `lookup`: resolves every address of the host and
 * refuses the connection when any of them is forbidden (a name that mixes public and private answers is
 * treated as hostile rather than filtered). Node calls it with `all: true` when it races IPv4 and IPv6
 * (autoSelectFamily), with a single address otherwise; both forms are answered.
 */
export function guardedLookup(opts: SsrfOptions, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, options.all ? [] : '');
      if (addresses.length === 0) {
        const e = Object.assign(new Error(`no addresses for ${hostname}`), { code: 'ENOTFOUND' });
        return callback(e, options.all ? [] : '');
      }
      for (const a of addresses) {
        const c = checkAddress(a.address, opts);
        // The kind of address, not the address: the reason reaches the merchant (the events API), and would
        // otherwise map internal names to addresses for whoever can register a webhook URL.
        if (!c.ok) return callback(new SsrfRefusedError(`${hostname} resolves to ${c.reason.replace(/^\S+ is /, '')}`), options.all ? [] : '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
