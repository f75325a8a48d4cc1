import pino from 'pino';

// Secrets never reach the logs: keys, webhook secrets, card tokens and credentials are censored wherever
// they appear in a logged object.
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["service-webhook-secret"]',
  'headers.authorization',
  'secret',
  '*.secret',
  'webhook_secret',
  '*.webhook_secret',
  'secret_key',
  '*.secret_key',
  'publishable_key',
  '*.publishable_key',
  'token',
  '*.token',
  'card_number',
  '*.card_number',
  'password',
  '*.password',
  'webhooks[*].secret',
  '*.webhooks[*].secret',
];

export function createLogger(opts: { level?: string; name: string }) {
  return pino({
    name: opts.name,
    level: opts.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: opts.name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type Logger = ReturnType<typeof createLogger>;
