import { regionOfHost } from './region-hosts';
import { parseCodecKeys } from './payload-codec';
import { parseCodecOperators } from './codec-operators';
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

/** A Schedule's timing: a 5-field cron in UTC, or `off` (the worker then deletes the Schedule). */
const cronOrOff = z
  .string()
  .trim()
  .regex(/^(off|[0-9*,/-]+( [0-9*,/-]+){4})$/, 'must be a 5-field cron (minute hour day month weekday, UTC) or off');

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

/** A gateway's name as the registry knows it (gateways/registry.ts); it is also part of its task queue's name. */
const gatewayName = /^[a-z][a-z0-9_-]{0,39}$/;
/** Poll calls kept open per worker: a fixed maximum, or `auto` (the SDK scales them on the server's feedback). */
const pollers = (min: number) =>
  z.union([z.literal('auto'), z.coerce.number({ error: 'must be a whole number or auto' }).int().min(min).max(100)]);

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
    // The connection to a Temporal cluster behind TLS or to Temporal Cloud (platform/temporal.ts builds it
    // for the API and the worker). TLS is on when TEMPORAL_TLS is true or any of the values below is set.
    TEMPORAL_TLS: bool.optional(),
    /** PEM file of the CA the server's certificate chains to, when the system's roots do not (a private CA). */
    TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
    /** mTLS: PEM files of this process's client certificate and its key, given together. */
    TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
    /** The name checked against the server's certificate (SNI), when it is not TEMPORAL_ADDRESS's host. */
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    /** Temporal Cloud API key, sent as a bearer token; implies TLS. */
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    /** Encrypt workflow payloads with a per-tenant key (platform/payload-codec.ts); off by default, on in production compose. */
    PAYLOAD_CODEC: z.enum(['off', 'aes-256-gcm']).default('off'),
    /** `id:base64,id:base64` (32-byte keys), newest first: the first encrypts, all decrypt. Required with the codec on. */
    PAYLOAD_CODEC_KEYS: z.string().min(1).optional(),
    /** The codec server (`npm run start:codec`) for the Temporal UI: its port, and the UI origins allowed to call it. */
    CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8234),
    CODEC_CORS_ORIGINS: z.string().default('http://localhost:8233'),
    /**
     * Operators the codec server decodes for: `name:token:scope+scope,...`, a scope being a tenant id or `*`
     * for every tenant and the platform's payloads. Tokens of 24+ characters.
     */
    CODEC_OPERATORS: z.string().min(1).optional(),
    /** Operators signed in to the Temporal UI through OIDC (platform/codec-oidc.ts): issuer, audience, key set, scopes claim. */
    CODEC_OIDC_ISSUER: z.url().optional(),
    CODEC_OIDC_AUDIENCE: z.string().min(1).optional(),
    CODEC_OIDC_JWKS_URL: z.url().optional(),
    CODEC_OIDC_SCOPES_CLAIM: z.string().min(1).default('payorch_codec_scopes'),
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI').default('mongodb://127.0.0.1:27017/payorch'),
    /** Requests one API process works on at once; past it a request is answered 503 `overloaded` at once (0: no cap). */
    API_MAX_IN_FLIGHT: z.coerce.number().int().min(0).max(100_000).default(512),
    /** Connections each process's MongoDB pool may open (every request and activity of the process shares it). */
    MONGODB_MAX_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(50),
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
    /** An endpoint whose every attempt failed for this long is disabled (one duration, e.g. 3d; tests use seconds). */
    WEBHOOK_DISABLE_AFTER: durationList
      .refine((l) => l.length === 1 && l[0]! >= 1000, 'must be one duration of at least 1s, like 3d')
      .transform((l) => l[0]!)
      .default(3 * 86_400_000),
    /** Attempts in flight at once to one endpoint, over every worker (0: no limit): a slow endpoint holds at most this many activity slots. */
    WEBHOOK_ENDPOINT_MAX_IN_FLIGHT: z.coerce.number().int().min(0).max(1000).default(10),
    /** Attempts in flight at once to all of one tenant's endpoints, over every worker (0: no limit): a merchant with many slow URLs is still one merchant. */
    WEBHOOK_TENANT_MAX_IN_FLIGHT: z.coerce.number().int().min(0).max(10_000).default(50),
    /** Per gateway call (charge, refund, status); past it the outcome is unknown and reconciled by key. */
    GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Payment attempts one intent accepts (a card-testing brake); each is a charge at the gateway. */
    MAX_ATTEMPTS_PER_INTENT: z.coerce.number().int().min(1).max(1000).default(20),
    /** How long the API waits for a workflow to answer an Update before it answers 503. */
    WORKFLOW_UPDATE_DEADLINE_MS: z.coerce.number().int().min(1000).max(120_000).default(45_000),
    /** How long POST /v202607/test-clocks/{id}/advance waits for the subscriptions on the clock before answering `advancing`. */
    TEST_CLOCK_ADVANCE_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    /**
     * How long after its creation a cart never converted into an order is deleted, in seconds (tests). Unset, as
     * the spec says: 6 calendar months (the same day and time of the month, or the month's last day).
     */
    CART_RETENTION_SECONDS: z.coerce.number().int().min(1).max(10 * 365 * 86_400).optional(),
    /**
     * When the reconciliation Schedule (`reconciliation-daily`, created at worker start) runs: a 5-field cron
     * in UTC, or `off` (the worker then deletes the Schedule). Each run covers the RECONCILIATION_WINDOW_SECONDS
     * period that ended before it (default: at 02:00, the previous UTC day).
     */
    RECONCILIATION_SCHEDULE: cronOrOff.default('0 2 * * *'),
    RECONCILIATION_WINDOW_SECONDS: z.coerce.number().int().min(60).max(31 * 86_400).default(86_400),
    /** How far outside a window settlement-report entries are read to pair objects the two sides stamp at different moments. */
    RECONCILIATION_GRACE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(900),
    /**
     * When the stranded-records sweep (`stranded-records-sweep`, created at worker start) runs: a 5-field cron
     * in UTC, or `off`. It deletes payment intents, payouts, checkouts, test clocks and subscriptions (giving back
     * their coupon redemptions) a create left at version 0 without a workflow (the API stopped, or the start and
     * the take-back both failed, between the insert and the start).
     */
    STRANDED_SWEEP_SCHEDULE: cronOrOff.default('*/5 * * * *'),
    /** How old a version-0 record must be before the sweep looks at it: well past any create still starting its workflow. */
    STRANDED_AFTER_SECONDS: z.coerce.number().int().min(60).max(7 * 86_400).default(300),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    WORKFLOW_BUNDLE_PATH: z.string().optional(),
    // Worker configuration (worker/worker-options.ts turns it into one Worker per task queue; figures that
    // chose the defaults: docs/workers.md).
    /**
     * What this worker process polls: `payments` (every workflow but deliveries, their activities, and each
     * gateway's activity queue), `webhooks` (deliveries), `gateway:<name>` (only that gateway's calls). Separate
     * deployments with `payments` and `webhooks` scale payments and webhook sends apart.
     */
    WORKER_QUEUES: z
      .string()
      .default('payments,webhooks')
      .transform((raw, ctx) => {
        const out = { payments: false, webhooks: false, gateways: [] as string[] };
        const items = raw.split(',').map((p) => p.trim()).filter(Boolean);
        for (const item of items) {
          const gw = item.startsWith('gateway:') ? item.slice('gateway:'.length) : null;
          if (item === 'payments' || item === 'webhooks') out[item] = true;
          else if (gw !== null && gatewayName.test(gw) && !out.gateways.includes(gw)) out.gateways.push(gw);
          else {
            ctx.addIssue({ code: 'custom', message: `"${item}" is not payments, webhooks or gateway:<name> (each once)` });
            return z.NEVER;
          }
        }
        if (items.length === 0) {
          ctx.addIssue({ code: 'custom', message: 'must name at least one of payments, webhooks, gateway:<name>' });
          return z.NEVER;
        }
        return out;
      }),
    /** Workflow tasks one workflow worker (payments, webhooks) runs at once. */
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(2000).default(40),
    /** Workflows one workflow worker keeps in memory (sticky cache; about 1.1 MB each measured); an evicted one is replayed on its next task. */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(500),
    /** Activities the payments queue's worker runs at once (MongoDB writes; gateway calls until routed to their queues). */
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Webhook sends at once per worker: mostly waiting on merchants' endpoints (up to WEBHOOK_TIMEOUT_MS each). */
    WORKER_WEBHOOK_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(200),
    /** Gateway calls at once per worker on each gateway's own queue. */
    WORKER_GATEWAY_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Workflow task polls per workflow worker (at most its workflow task slots), or auto. */
    WORKER_WORKFLOW_POLLERS: pollers(2).default(10),
    /** Activity task polls per worker and queue (at most its activity slots), or auto. */
    WORKER_ACTIVITY_POLLERS: pollers(1).default(10),
    /**
     * Calls per second each gateway's task queue hands out, over every worker (a server-side task-queue rate
     * limit), e.g. `sandbox=50`. Unlisted gateways are not limited.
     */
    GATEWAY_RATE_LIMITS: z
      .string()
      .default('')
      .transform((raw, ctx) => {
        const map: Record<string, number> = {};
        for (const pair of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
          const [name, rate, extra] = pair.split('=').map((p) => p.trim());
          const n = Number(rate);
          if (!name || !gatewayName.test(name) || extra !== undefined || !rate || !Number.isFinite(n) || n <= 0 || n > 100_000 || Object.hasOwn(map, name)) {
            ctx.addIssue({ code: 'custom', message: `"${pair}" is not gateway=calls-per-second (a positive number, each gateway once)` });
            return z.NEVER;
          }
          map[name] = n;
        }
        return map;
      }),
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
    if (Boolean(c.TEMPORAL_TLS_CERT_PATH) !== Boolean(c.TEMPORAL_TLS_KEY_PATH))
      ctx.addIssue({ code: 'custom', path: [c.TEMPORAL_TLS_CERT_PATH ? 'TEMPORAL_TLS_KEY_PATH' : 'TEMPORAL_TLS_CERT_PATH'], message: 'TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together (mTLS)' });
    if (c.TEMPORAL_TLS === false && (c.TEMPORAL_TLS_CA_PATH || c.TEMPORAL_TLS_CERT_PATH || c.TEMPORAL_TLS_SERVER_NAME || c.TEMPORAL_API_KEY))
      ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: 'is false while TLS settings or TEMPORAL_API_KEY are given: the key and certificates would travel in clear' });
    if (c.PAYLOAD_CODEC !== 'off') {
      if (!c.PAYLOAD_CODEC_KEYS) ctx.addIssue({ code: 'custom', path: ['PAYLOAD_CODEC_KEYS'], message: `is required with PAYLOAD_CODEC=${c.PAYLOAD_CODEC}` });
      else
        try {
          parseCodecKeys(c.PAYLOAD_CODEC_KEYS);
        } catch (err) {
          ctx.addIssue({ code: 'custom', path: ['PAYLOAD_CODEC_KEYS'], message: (err as Error).message });
        }
    }
    if (c.CODEC_OPERATORS)
      try {
        parseCodecOperators(c.CODEC_OPERATORS);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['CODEC_OPERATORS'], message: (err as Error).message });
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

/**
 * For a process's last catch: a configuration found wrong after loading (a TLS file that cannot be read) exits
 * 78 naming the variable, as loadConfigOrExit does, not 1 with a stack trace.
 */
export function exitIfConfigError(err: unknown): void {
  if (!(err instanceof ConfigError)) return;
  process.stderr.write(`${err.message.startsWith('invalid configuration') ? '' : 'invalid configuration:\n  '}${err.message}\n`);
  process.exit(78); // EX_CONFIG
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

/** The webhook activities' endpoint limits: when a failing endpoint is disabled, and its in-flight cap. */
export function webhookEndpointLimits(config: Pick<Config, 'WEBHOOK_DISABLE_AFTER' | 'WEBHOOK_ENDPOINT_MAX_IN_FLIGHT' | 'WEBHOOK_TENANT_MAX_IN_FLIGHT'>): {
  disableAfterMs: number;
  maxInFlightPerEndpoint: number;
  maxInFlightPerTenant: number;
} {
  return {
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
    maxInFlightPerEndpoint: config.WEBHOOK_ENDPOINT_MAX_IN_FLIGHT,
    maxInFlightPerTenant: config.WEBHOOK_TENANT_MAX_IN_FLIGHT,
  };
}
