import { Writable } from 'node:stream';
import pino from 'pino';
import { REDACT_PATHS } from '../../../platform/logger';

test('keys, webhook secrets, tokens and Authorization never reach the logs', () => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  const log = pino({ redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
  log.info({
    req: { headers: { authorization: 'Bearer sk_eu_secretvalue' } },
    body: { secret_key: 'sk_eu_x', publishable_key: 'pk_eu_y', token: 'tok_z', webhooks: [{ url: 'https://a', secret: 'whsec' }] },
    webhook_secret: 'legacy-secret',
  });
  const out = lines.join('');
  for (const secret of ['sk_eu_secretvalue', 'sk_eu_x', 'pk_eu_y', 'tok_z', 'whsec', 'legacy-secret']) expect(out).not.toContain(secret);
  expect(out).toContain('https://a');
});
