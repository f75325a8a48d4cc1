import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewaysOfConfig } from '../../../gateways/registry';

// The API and the worker build their gateways from one configuration: GATEWAY_TIMEOUT_MS bounds the API's own
// gateway calls (a recipient's registration, a payout's status) as it bounds the worker's.

test('a gateway call made with the configuration gives up after GATEWAY_TIMEOUT_MS', async () => {
  // A gateway that takes the request and never answers.
  const silent = http.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const gateways = gatewaysOfConfig({ SANDBOX_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, SANDBOX_CALLBACK_SECRET: 'sandbox-secret', GATEWAY_TIMEOUT_MS: 300 });
    await expect(gateways.get('sandbox').registerRecipient({ idempotencyKey: 'rcp-1', recipientType: 'bank_account', bankAccountNumber: '0123456789', bankCode: '058' })).rejects.toThrow(
      /timed out after 300 ms/,
    );
  } finally {
    silent.closeAllConnections();
    await new Promise((r) => silent.close(r));
  }
});
