// Environment of the sandbox process, parsed once at start with zod. Empty strings count as unset.

import { z } from 'zod';

/** Dev/test callback secret; equal to the API's default SANDBOX_CALLBACK_SECRET in platform/config.ts. */
export const DEV_CALLBACK_SECRET = 'sandbox-dev-callback-secret';

export const sandboxEnvSchema = z
  .object({
    // Unset means production: dev defaults are for a process told it runs on a developer's machine.
    NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
    SANDBOX_PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(4010),
    SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
    SANDBOX_CALLBACK_SECRET: z.string().min(8, 'must be at least 8 characters').optional(),
    SANDBOX_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    SANDBOX_LATENCY_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(0).max(120_000).default(0),
    SANDBOX_FAILURE_RATE: z.coerce.number({ error: 'must be a number between 0 and 1' }).min(0).max(1).default(0),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    // The same rule platform/config.ts applies to the API and the worker: anyone who knows the dev secret
    // could sign callbacks, so production sets its own.
    if (env.NODE_ENV !== 'production') return;
    const path = ['SANDBOX_CALLBACK_SECRET'];
    if (!env.SANDBOX_CALLBACK_SECRET) ctx.addIssue({ code: 'custom', path, message: 'is required in production' });
    else if (env.SANDBOX_CALLBACK_SECRET === DEV_CALLBACK_SECRET)
      ctx.addIssue({ code: 'custom', path, message: 'must not be the development default in production' });
  });

export interface SandboxConfig {
  port: number;
  host: string;
  callbackSecret: string;
  publicUrl: string;
  latencyMs: number;
  failureRate: number;
  logLevel: string;
}

export class SandboxConfigError extends Error {}

export function loadSandboxConfig(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = sandboxEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new SandboxConfigError(`invalid sandbox configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    callbackSecret: e.SANDBOX_CALLBACK_SECRET ?? DEV_CALLBACK_SECRET,
    publicUrl: e.SANDBOX_PUBLIC_URL ?? `http://localhost:${e.SANDBOX_PORT}`,
    latencyMs: e.SANDBOX_LATENCY_MS,
    failureRate: e.SANDBOX_FAILURE_RATE,
    logLevel: e.LOG_LEVEL,
  };
}
