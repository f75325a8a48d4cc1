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

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
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
    SANDBOX_CALLBACK_SECRET: z.string().min(8).default('sandbox-dev-callback-secret'),
    WEBHOOK_RETRY_SCHEDULE: durationList.optional(),
    WEBHOOK_ALLOW_PRIVATE_HOSTS: bool.default(false),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    WORKFLOW_BUNDLE_PATH: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production') {
      if (c.WEBHOOK_ALLOW_PRIVATE_HOSTS)
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOW_PRIVATE_HOSTS'], message: 'must be false in production (SSRF guard)' });
      if (!c.ADMIN_API_TOKEN) ctx.addIssue({ code: 'custom', path: ['ADMIN_API_TOKEN'], message: 'is required in production' });
      if (!c.KEY_HASH_SECRET) ctx.addIssue({ code: 'custom', path: ['KEY_HASH_SECRET'], message: 'is required in production' });
      if (!c.PUBLIC_BASE_URL) ctx.addIssue({ code: 'custom', path: ['PUBLIC_BASE_URL'], message: 'is required in production' });
    }
  });

export type RawConfig = z.infer<typeof configSchema>;
export interface Config extends RawConfig {
  KEY_HASH_SECRET: string;
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
    // Dev and tests get a fixed pepper so keys survive restarts; production must set its own.
    KEY_HASH_SECRET: c.KEY_HASH_SECRET ?? 'dev-only-key-hash-secret-change-me',
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

export function webhookSchedule(config: Pick<Config, 'WEBHOOK_RETRY_SCHEDULE'>): number[] | undefined {
  return config.WEBHOOK_RETRY_SCHEDULE;
}
