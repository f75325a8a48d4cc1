import { regionOfHost } from './region-hosts';
import { z } from 'zod';

// Environment is parsed once at start; a wrong or missing value stops the process with a message that
// names the variable, instead of failing later in a request.

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const durationList = z.string().transform((raw, ctx) => {
  const out: number[] = [];
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(ms|s|m|h|d)$/.exec(part);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not a duration like 5s, 30m, 2h` });
      return z.NEVER;
    }
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
    out.push(Number(m[1]) * unit);
  }
  if (out.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must list at least one duration' });
    return z.NEVER;
  }
  return out;
});

const regionName = z.string().regex(/^[a-z]{2,8}$/, 'regions are 2-8 lowercase letters');

/**
 * Values a developer's machine may run with and production never may: a process in production refuses to
 * start while any of these variables is unset or holds its value here.
 */
export const DEV_DEFAULTS = {
  KEY_HASH_SECRET: 'dev-only-key-hash-secret-change-me',
  /** Equal to sandbox/config.ts DEV_CALLBACK_SECRET: the dev sandbox and the dev API must agree. */
  SANDBOX_CALLBACK_SECRET: 'sandbox-dev-callback-secret',
} as const;

/**
 * The secret each gateway adapter verifies its callbacks with. A new adapter's secret joins this list (and
 * DEV_DEFAULTS, if it has a dev value), so production cannot start with it missing or left at its default.
 */
export const GATEWAY_CALLBACK_SECRETS = ['SANDBOX_CALLBACK_SECRET'] as const;

/** What production must be given: no dev value stands in for these. */
export const REQUIRED_IN_PRODUCTION = ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL', ...GATEWAY_CALLBACK_SECRETS] as const;

/** Requests per second refilled into a token bucket; 0 turns that limit off (e.g. for a benchmark). */
const perSecond = z.coerce.number({ error: 'must be a number of requests per second' }).min(0).max(1_000_000);
const burst = z.coerce.number({ error: 'must be a whole number of requests' }).int().min(1).max(1_000_000);

export const configSchema = z
  .object({
    // Unset means production: dev defaults are for a process told it runs on a developer's machine.
    NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
    HOST: z.string().default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('payments'),
    TEMPORAL_WEBHOOK_TASK_QUEUE: z.string().min(1).default('webhooks'),
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI').default('mongodb://127.0.0.1:27017/payorch'),
    ADMIN_API_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    KEY_HASH_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    PUBLIC_BASE_URL: z.url().optional(),
    /**
     * Per-region public bases, e.g. "eu=https://api-eu.pay.example,us=https://api-us.pay.example": the host an
     * intent's `url` and a method's `logo_url` use for that region. A region without one gets `api-<region>.`
     * on PUBLIC_BASE_URL's host (api/http/region.ts regionPublicBaseUrl).
     */
    PUBLIC_BASE_URLS: z
      .string()
      .default('')
      .transform((s, ctx) => {
        const map: Record<string, string> = {};
        for (const pair of s.split(',').map((p) => p.trim()).filter(Boolean)) {
          const at = pair.indexOf('=');
          const region = pair.slice(0, at).trim();
          const url = pair.slice(at + 1).trim();
          if (at < 0 || !regionName.safeParse(region).success || !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(url) || !URL.canParse(url)) {
            ctx.addIssue({ code: 'custom', message: `"${pair}" is not region=http(s)://host[:port][/path] (regions are 2-8 lowercase letters)` });
            return z.NEVER;
          }
          if (map[region]) {
            ctx.addIssue({ code: 'custom', message: `region '${region}' is given twice` });
            return z.NEVER;
          }
          map[region] = url.replace(/\/+$/, '');
        }
        return map;
      }),
    /** Where gateways post callbacks, when it differs from PUBLIC_BASE_URL (e.g. a private network name). */
    GATEWAY_CALLBACK_BASE_URL: z.url().optional(),
    REGIONS: z
      .string()
      .default('eu')
      .transform((s) => s.split(',').map((r) => r.trim()).filter(Boolean))
      .pipe(z.array(regionName).min(1)),
    /** Older regional host names that keep working, e.g. "payments-europe.example.com=eu". */
    REGION_HOST_ALIASES: z
      .string()
      .default('')
      .transform((s, ctx) => {
        const map: Record<string, string> = {};
        for (const pair of s.split(',').map((p) => p.trim()).filter(Boolean)) {
          const [host, region] = pair.split('=');
          if (!host || !region) {
            ctx.addIssue({ code: 'custom', message: `"${pair}" is not host=region` });
            return z.NEVER;
          }
          map[host.toLowerCase()] = region;
        }
        return map;
      }),
    SANDBOX_URL: z.url().default('http://127.0.0.1:4010'),
    /** The sandbox as the customer's browser reaches it (tokenization); defaults to SANDBOX_URL. */
    SANDBOX_PUBLIC_URL: z.url().optional(),
    SANDBOX_CALLBACK_SECRET: z.string().min(8, 'must be at least 8 characters').optional(),
    WEBHOOK_RETRY_SCHEDULE: durationList.optional(),
    WEBHOOK_ALLOW_PRIVATE_HOSTS: bool.default(false),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Per gateway call (charge, refund, status); past it the outcome is unknown and reconciled by key. */
    GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Payment attempts one intent accepts (a card-testing brake); each is a charge at the gateway. */
    MAX_ATTEMPTS_PER_INTENT: z.coerce.number().int().min(1).max(1000).default(20),
    /** How long the API waits for a workflow to answer an Update before it answers 503. */
    WORKFLOW_UPDATE_DEADLINE_MS: z.coerce.number().int().min(1000).max(120_000).default(45_000),
    /** How long POST /v202607/test-clocks/{id}/advance waits for the subscriptions on the clock before answering `advancing`. */
    TEST_CLOCK_ADVANCE_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    /** How long after its creation a cart never converted into an order is deleted (180 days; seconds in tests). */
    CART_RETENTION_SECONDS: z.coerce.number().int().min(1).max(10 * 365 * 86_400).default(180 * 86_400),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    WORKFLOW_BUNDLE_PATH: z.string().optional(),
    // Token buckets per API key and per client secret, in each API process (api/rate-limit.ts).
    RATE_LIMIT_SECRET_PER_SEC: perSecond.default(100),
    RATE_LIMIT_SECRET_BURST: burst.default(200),
    RATE_LIMIT_PUBLISHABLE_PER_SEC: perSecond.default(20),
    RATE_LIMIT_PUBLISHABLE_BURST: burst.default(40),
    /** Card submissions (payment attempts) per publishable key, on top of its general bucket: slows card testing. */
    RATE_LIMIT_ATTEMPTS_PER_SEC: perSecond.default(5),
    RATE_LIMIT_ATTEMPTS_BURST: burst.default(20),
    /** Requests per client secret (`pics_...`, one per payment intent, held by the hosted page). */
    RATE_LIMIT_CLIENT_SECRET_PER_SEC: perSecond.default(1),
    RATE_LIMIT_CLIENT_SECRET_BURST: burst.default(10),
  })
  .superRefine((c, ctx) => {
    // Each per-region base must be a host region detection serves as that region, so a key of that region
    // works on the links it is given.
    for (const [region, url] of Object.entries(c.PUBLIC_BASE_URLS)) {
      const host = new URL(url).hostname.toLowerCase();
      const served = regionOfHost(host, { REGIONS: c.REGIONS, DEFAULT_REGION: c.REGIONS[0]!, REGION_HOST_ALIASES: c.REGION_HOST_ALIASES }) ?? 'none it serves';
      if (!c.REGIONS.includes(region))
        ctx.addIssue({ code: 'custom', path: ['PUBLIC_BASE_URLS'], message: `names region '${region}', which REGIONS (${c.REGIONS.join(',')}) does not serve` });
      else if (served !== region)
        ctx.addIssue({
          code: 'custom',
          path: ['PUBLIC_BASE_URLS'],
          message: `${region}=${url}: host '${host}' is served as region '${served}'; use api-${region}.<domain>, or map the host with REGION_HOST_ALIASES`,
        });
    }
    if (c.NODE_ENV !== 'production') return;
    if (c.WEBHOOK_ALLOW_PRIVATE_HOSTS)
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOW_PRIVATE_HOSTS'], message: 'must be false in production (SSRF guard)' });
    for (const name of REQUIRED_IN_PRODUCTION) {
      const value = c[name];
      if (!value) ctx.addIssue({ code: 'custom', path: [name], message: 'is required in production' });
      else if (value === (DEV_DEFAULTS as Record<string, string>)[name])
        ctx.addIssue({ code: 'custom', path: [name], message: 'must not be the development default in production' });
    }
  });

export type RawConfig = z.infer<typeof configSchema>;
export interface Config extends RawConfig {
  KEY_HASH_SECRET: string;
  SANDBOX_CALLBACK_SECRET: string;
  DEFAULT_REGION: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, so `FOO= cmd` falls back to the default.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    ...c,
    // Development and tests get fixed values (keys survive restarts, the dev sandbox's callbacks verify);
    // production has been refused above unless it set its own.
    KEY_HASH_SECRET: c.KEY_HASH_SECRET ?? DEV_DEFAULTS.KEY_HASH_SECRET,
    SANDBOX_CALLBACK_SECRET: c.SANDBOX_CALLBACK_SECRET ?? DEV_DEFAULTS.SANDBOX_CALLBACK_SECRET,
    DEFAULT_REGION: c.REGIONS[0]!,
  };
}

/** For process entry points: print the problem and exit non-zero. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

/**
 * What a webhook target must be, for the check at create time and before each send: production sends only
 * over https (the body and the secret header travel to the merchant); development and tests may use http.
 */
export function webhookTargetPolicy(config: Pick<Config, 'NODE_ENV' | 'WEBHOOK_ALLOW_PRIVATE_HOSTS'>): { allowPrivateHosts: boolean; httpsOnly: boolean } {
  return { allowPrivateHosts: config.WEBHOOK_ALLOW_PRIVATE_HOSTS, httpsOnly: config.NODE_ENV === 'production' };
}

/** Where customers' browsers reach the API (hosted pages, logos). */
export function publicBaseUrl(config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
}

/** Where gateways reach the API with callbacks, when it differs from the public base. */
export function gatewayCallbackBaseUrl(config: Pick<Config, 'GATEWAY_CALLBACK_BASE_URL' | 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (config.GATEWAY_CALLBACK_BASE_URL ?? publicBaseUrl(config)).replace(/\/+$/, '');
}

export function webhookSchedule(config: Pick<Config, 'WEBHOOK_RETRY_SCHEDULE'>): number[] | undefined {
  return config.WEBHOOK_RETRY_SCHEDULE;
}
