import { createHash } from 'node:crypto';
import { z } from 'zod';
import { sharedSecretWebhookFields, webhooksSchema } from '../../../api/http/common-schemas';
import { canonicalWebhookUrl, endpointId } from '../../../data/webhook-endpoints';

// An endpoint is one tenant's receiver, however its URL is written: one id, so one health, one disable clock, one
// in-flight cap, and one URL that replay, redelivery and the disabled 409 match.

const SPELLINGS = ['HTTP://127.0.0.1:18901/ok/norm', 'http://127.0.0.1:18901/ok/norm', 'http://127.0.0.1:18901/ok/./norm', 'http://127.0.0.1:18901/ok/x/../norm', 'http://127.0.0.1:18901/ok/norm#frag'];

test('every spelling of one receiver is one endpoint, named by its canonical URL', () => {
  expect(new Set(SPELLINGS.map(canonicalWebhookUrl))).toEqual(new Set(['http://127.0.0.1:18901/ok/norm']));
  expect(new Set(SPELLINGS.map((u) => endpointId('ten_eu_a', u))).size).toBe(1);
  expect(endpointId('ten_eu_a', 'http://127.0.0.1:80/x')).toBe(endpointId('ten_eu_a', 'http://127.0.0.1/x'));
  expect(endpointId('ten_eu_a', 'https://Hooks.Example.com:443/x')).toBe(endpointId('ten_eu_a', 'https://hooks.example.com/x'));
});

test('a URL already canonical keeps the id it had (its sha256 of tenant and URL), so existing endpoints keep theirs', () => {
  const url = 'https://hooks.example.com/pay?order=1';
  expect(canonicalWebhookUrl(url)).toBe(url);
  expect(endpointId('ten_eu_a', url)).toBe(`whe_${createHash('sha256').update(`ten_eu_a\n${url}`).digest('hex').slice(0, 32)}`);
});

test('what tells receivers apart still does: path, query, port, scheme, tenant', () => {
  const base = 'https://hooks.example.com/pay';
  const others = ['https://hooks.example.com/pay/', 'https://hooks.example.com/pay?a=1', 'https://hooks.example.com:8443/pay', 'http://hooks.example.com/pay', 'https://hooks.example.com/Pay'];
  for (const o of others) expect(endpointId('ten_eu_a', o)).not.toBe(endpointId('ten_eu_a', base));
  expect(endpointId('ten_eu_b', base)).not.toBe(endpointId('ten_eu_a', base));
});

test('the webhook schemas of every interface take a URL in its canonical spelling, and a repeat is one however written', () => {
  const v = z.object({ webhooks: webhooksSchema }).strict();
  expect(v.parse({ webhooks: [{ url: 'HTTPS://Hooks.Example.com:443/a/./b#x', events: ['payment.success'] }] }).webhooks[0]!.url).toBe('https://hooks.example.com/a/b');
  expect(v.safeParse({ webhooks: [{ url: 'https://hooks.example.com/a', events: ['payment.success'] }, { url: 'https://hooks.example.com/a#again', events: ['payment.canceled'] }] }).success).toBe(false);
  const older = z.object(sharedSecretWebhookFields('urls')).strict();
  expect(older.parse({ webhook_urls: ['HTTP://127.0.0.1:80/x/../y', 'https://hooks.example.com/z'] }).webhook_urls).toEqual(['http://127.0.0.1/y', 'https://hooks.example.com/z']);
});
