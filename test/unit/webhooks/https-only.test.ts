import { checkWebhookUrl } from '../../../platform/ssrf';
import { planWebhookEndpoints } from '../../../api/events/endpoints';
import { DomainError } from '../../../domain/errors';
import { loadConfig, webhookTargetPolicy } from '../../../platform/config';

// Production sends webhooks over https only (checked at create time and before every send); development and
// tests may use http.

const productionConfig = loadConfig({
  NODE_ENV: 'production',
  ADMIN_API_TOKEN: 'a'.repeat(32),
  KEY_HASH_SECRET: 'k'.repeat(32),
  PUBLIC_BASE_URL: 'https://pay.example.com',
  SANDBOX_CALLBACK_SECRET: 's'.repeat(32),
});
const developmentConfig = loadConfig({ NODE_ENV: 'development' });
const production = webhookTargetPolicy(productionConfig);
const development = webhookTargetPolicy(developmentConfig);

test('production refuses http, saying to use https', () => {
  expect(checkWebhookUrl('http://merchant.example.com/hooks', production)).toEqual({ ok: false, reason: 'http is not allowed; use https' });
  expect(checkWebhookUrl('HTTP://merchant.example.com/hooks', production).ok).toBe(false);
  expect(checkWebhookUrl('https://merchant.example.com/hooks', production)).toEqual({ ok: true });
});

test('development accepts http', () => {
  expect(checkWebhookUrl('http://merchant.example.com/hooks', development)).toEqual({ ok: true });
});

test('https does not open what the SSRF guard closes', () => {
  expect(checkWebhookUrl('https://127.0.0.1/hooks', production).ok).toBe(false);
  expect(checkWebhookUrl('https://localhost/hooks', production).ok).toBe(false);
});

// Both services hand planWebhookEndpoints their config (nothing else), so this is what every create does.
test('at create time, production answers 400 naming the endpoint refused', () => {
  const webhooks = [
    { url: 'https://merchant.example.com/ok', events: ['payment.success' as const] },
    { url: 'http://merchant.example.com/clear', events: ['payment.success' as const] },
  ];
  let refused: unknown;
  try {
    planWebhookEndpoints('ten_eu_x', 'eu', webhooks, productionConfig);
  } catch (err) {
    refused = err;
  }
  expect(refused).toBeInstanceOf(DomainError);
  expect(refused).toMatchObject({ kind: 'invalid_request', code: 'webhook_url_invalid', param: 'webhooks[1][url]' });
  expect((refused as Error).message).toMatch(/use https/);
  expect(planWebhookEndpoints('ten_eu_x', 'eu', webhooks, developmentConfig).endpoints).toHaveLength(2);
});
