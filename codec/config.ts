import { z } from 'zod';
import { parseCodecOperators } from '../platform/codec-operators';
import { parseCodecKeys } from '../platform/payload-codec';

// The codec server reads only what it needs (the merchant API's secrets are not its business): the payload
// keys, who it decodes for (static operator tokens, OIDC sign-on, or both), where it listens and which UI origins may call it. Same names as platform/config.ts.
export const codecEnvSchema = z
  .object({
    NODE_ENV: z.string().default('production'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    HOST: z.string().default('0.0.0.0'),
    PAYLOAD_CODEC: z.literal('aes-256-gcm', { message: 'must be aes-256-gcm: the codec server exists to open sealed payloads' }),
    PAYLOAD_CODEC_KEYS: z.string().min(1),
    CODEC_OPERATORS: z.string().min(1).optional(),
    CODEC_OIDC_ISSUER: z.url().optional(),
    CODEC_OIDC_AUDIENCE: z.string().min(1).optional(),
    CODEC_OIDC_JWKS_URL: z.url().optional(),
    CODEC_OIDC_SCOPES_CLAIM: z.string().min(1).default('payorch_codec_scopes'),
    CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8234),
    CODEC_CORS_ORIGINS: z.string().default('http://localhost:8233'),
  })
  .superRefine((c, ctx) => {
    for (const [name, parse] of [
      ['PAYLOAD_CODEC_KEYS', parseCodecKeys],
      ['CODEC_OPERATORS', parseCodecOperators],
    ] as const)
      try {
        if (c[name] !== undefined) parse(c[name]);
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: [name], message: (err as Error).message });
      }
    if (!c.CODEC_OPERATORS && !c.CODEC_OIDC_ISSUER)
      ctx.addIssue({ code: 'custom', path: ['CODEC_OPERATORS'], message: 'is required unless CODEC_OIDC_ISSUER signs operators in' });
    if (c.CODEC_OIDC_ISSUER && !c.CODEC_OIDC_AUDIENCE)
      ctx.addIssue({ code: 'custom', path: ['CODEC_OIDC_AUDIENCE'], message: 'is required with CODEC_OIDC_ISSUER (the audience its access tokens name)' });
  });

export type CodecConfig = z.infer<typeof codecEnvSchema>;

export function loadCodecConfig(env: NodeJS.ProcessEnv = process.env): CodecConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = codecEnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new Error(`invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  return parsed.data;
}
