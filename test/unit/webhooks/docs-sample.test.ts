import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import vm from 'node:vm';
import { Registry } from 'prom-client';
import { createWebhookActivities } from '../../../activities/webhooks';
import { webhookSigningSecretData } from '../../../data/webhook-signing-secrets';
import { createLogger } from '../../../platform/logger';
import { FakeCollection, fakeMongo } from './fake-mongo';
import { startReceiver } from './receiver';

// The receiver-side samples in docs/webhooks.md are code merchants copy: run as written (with the real
// `standardwebhooks` package), they must accept what we send and refuse what we do not.

type Verify = (secret: string, headers: object, rawBody: string) => unknown;

function sampleBlocks(): [string, string] {
  const md = readFileSync(path.join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const after = md.slice(md.indexOf('docs-sample.test.ts'));
  const blocks = [...after.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return [blocks[0]!, blocks[1]!];
}

/** Runs the blocks in a fresh context; the server's listen(8080) becomes a free loopback port. */
function runSamples(env: Record<string, string>) {
  const [verifyBlock, serverBlock] = sampleBlocks();
  const servers: http.Server[] = [];
  const shimmedHttp = {
    ...http,
    createServer: (...args: Parameters<typeof http.createServer>) => {
      const server = http.createServer(...args);
      servers.push(server);
      const listen = server.listen.bind(server);
      (server as unknown as { listen: (port: number) => http.Server }).listen = () => listen(0, '127.0.0.1');
      return server;
    },
  };
  const realRequire = require;
  const sampleRequire = (name: string) => (name === 'node:http' ? shimmedHttp : realRequire(name));
  const context = vm.createContext({ require: sampleRequire, process: { env } });
  vm.runInContext(`${verifyBlock}\nthis.verifyWebhook = verifyWebhook;`, context);
  vm.runInContext(serverBlock, context);
  return { verifyWebhook: context.verifyWebhook as Verify, server: servers[0]! };
}

const TENANT = 'ten_eu_docs';
const body = '{"id":"evt_eu_docs","type":"refund.success","created_at":"2026-01-01T00:00:00.000Z","data":{"refund":"re_eu_1"}}';

function setup() {
  const mongo = fakeMongo({
    webhookSecrets: new FakeCollection([{ _id: 'whs_eu_docs0001', tenant_id: TENANT, secrets: ['merchant-secret'], created_at: new Date() }]),
    webhookSigningSecrets: new FakeCollection(),
    deliveryAttempts: new FakeCollection(),
  });
  const activities = createWebhookActivities({
    mongo,
    webhooks: { allowPrivateHosts: true, timeoutMs: 2000, disableAfterMs: 0, maxInFlightPerEndpoint: 0, maxInFlightPerTenant: 0 },
    logger: createLogger({ name: 'test', level: 'silent' }),
    registry: new Registry(),
  });
  const send = (url: string, tenantId = TENANT, payload = body) =>
    activities.sendWebhook({ deliveryId: 'evt_eu_docs-0', attempt: 1, eventId: 'evt_eu_docs', tenantId, url, ...(tenantId === TENANT ? { secretRef: 'whs_eu_docs0001#0' } : {}), body: payload });
  const signingSecret = async (tenantId = TENANT) => (await webhookSigningSecretData(mongo).ensure(tenantId)).secret;
  return { send, signingSecret };
}

afterEach(() => jest.restoreAllMocks());

describe('the verification samples in docs/webhooks.md', () => {
  it('verifyWebhook accepts a real delivery and refuses another secret, a tampered body and a stale one', async () => {
    const receiver = await startReceiver();
    try {
      const { send, signingSecret } = setup();
      await send(receiver.url());
      const got = receiver.received[0]!;
      const secret = await signingSecret();
      const { verifyWebhook, server } = runSamples({});
      server.close();
      expect(verifyWebhook(secret, got.headers, got.body)).toEqual(JSON.parse(body));
      expect(verifyWebhook(await signingSecret('ten_eu_other'), got.headers, got.body)).toBeNull();
      expect(verifyWebhook(secret, got.headers, got.body.replace('refund.success', 'refund.failed'))).toBeNull();
      expect(verifyWebhook(secret, { ...got.headers, 'webhook-signature': undefined }, got.body)).toBeNull();
      // the same request replayed 5 minutes and 1 second after it was signed
      jest.spyOn(Date, 'now').mockReturnValue((Number(got.headers['webhook-timestamp']) + 301) * 1000);
      expect(verifyWebhook(secret, got.headers, got.body)).toBeNull();
    } finally {
      await receiver.close();
    }
  });

  it('the sample server answers 204 to our delivery and 400 to one signed with another secret', async () => {
    const { send, signingSecret } = setup();
    const { server } = runSamples({ WEBHOOK_SIGNING_SECRET: await signingSecret() });
    try {
      await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      expect(await send(url)).toMatchObject({ outcome: 'delivered', statusCode: 204 });
      expect(await send(url, 'ten_eu_other')).toMatchObject({ outcome: 'failed', statusCode: 400 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
