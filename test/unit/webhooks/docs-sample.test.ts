import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { Registry } from 'prom-client';
import { createWebhookActivities } from '../../../activities/webhooks';
import { signatureHeaders } from '../../../activities/webhooks/signing';
import { createLogger } from '../../../platform/logger';
import type { Mongo } from '../../../platform/mongo';
import { startReceiver } from './receiver';

// The receiver-side sample in docs/webhooks.md is code merchants copy: it must accept what we send and
// refuse what we do not.

type Verify = (secret: string, headers: object, rawBody: string, toleranceSeconds?: number) => boolean;

function loadSample(): Verify {
  const md = readFileSync(path.join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const marker = md.indexOf('docs-sample.test.ts');
  const block = /```js\n([\s\S]*?)```/.exec(md.slice(marker))![1]!;
  const context = vm.createContext({ require, Buffer });
  vm.runInContext(`${block}\nthis.verifyWebhook = verifyWebhook;`, context);
  return context.verifyWebhook as Verify;
}

describe('the verification sample in docs/webhooks.md', () => {
  const verifyWebhook = loadSample();
  const secret = 'whsec-döcs';
  const body = '{"id":"evt_eu_docs","type":"refund.success"}';
  const now = Math.floor(Date.now() / 1000);

  it('accepts a real delivery made by sendWebhook', async () => {
    const receiver = await startReceiver();
    try {
      const mongo = {
        c: { webhookSecrets: { findOne: async () => ({ _id: 'whs_eu_docs0001', tenant_id: 'ten_eu_docs', secrets: [secret], created_at: new Date() }) } },
      } as unknown as Mongo;
      const activities = createWebhookActivities({
        mongo,
        webhooks: { allowPrivateHosts: true, timeoutMs: 2000 },
        logger: createLogger({ name: 'test', level: 'silent' }),
        registry: new Registry(),
      });
      await activities.sendWebhook({ deliveryId: 'evt_eu_docs-0', attempt: 1, eventId: 'evt_eu_docs', tenantId: 'ten_eu_docs', url: receiver.url(), secretRef: 'whs_eu_docs0001#0', body });
      const got = receiver.received[0]!;
      expect(verifyWebhook(secret, got.headers, got.body)).toBe(true);
      expect(verifyWebhook('another-secret', got.headers, got.body)).toBe(false);
      expect(verifyWebhook(secret, got.headers, got.body.replace('refund', 'payment'))).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it('refuses a stale timestamp and missing headers', () => {
    const stale = signatureHeaders(secret, 'evt_eu_docs', now - 301, body);
    expect(verifyWebhook(secret, stale, body)).toBe(false);
    expect(verifyWebhook(secret, { ...signatureHeaders(secret, 'evt_eu_docs', now, body), 'webhook-signature': undefined }, body)).toBe(false);
    expect(verifyWebhook(secret, signatureHeaders(secret, 'evt_eu_docs', now, body), body)).toBe(true);
  });
});
