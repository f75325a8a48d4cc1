import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../../clients/typescript/src';

// The client's verifier against deliveries signed by the Standard Webhooks library itself.

const SIGNING = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
const body = JSON.stringify({ id: 'evt_eu_00000001', type: 'payment.success', created_at: '2026-08-01T10:00:00.000Z', data: { payment_intent: 'pi_eu_00000001' } });

function delivery(at = new Date(), secret = SIGNING, endpointSecret: string | null = 'merchant-secret') {
  return {
    'content-type': 'application/json',
    'webhook-id': 'evt_eu_00000001',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_eu_00000001', at, body),
    ...(endpointSecret ? { 'service-webhook-secret': endpointSecret } : {}),
  };
}

test('a signed delivery verifies with the signing secret and the endpoint secret, and answers the event', () => {
  const event = verifyWebhook(body, delivery(), { signingSecret: SIGNING, endpointSecret: 'merchant-secret' });
  expect(event.type).toBe('payment.success');
  expect(event.data).toEqual({ payment_intent: 'pi_eu_00000001' });
  // a Buffer body, fetch Headers, header names in any case
  const h = new Headers(delivery());
  expect(verifyWebhook(Buffer.from(body), h, { signingSecret: SIGNING }).id).toBe('evt_eu_00000001');
  const upper = Object.fromEntries(Object.entries(delivery()).map(([k, v]) => [k.toUpperCase(), v]));
  expect(verifyWebhook(body, upper, { signingSecret: SIGNING, endpointSecret: 'merchant-secret' }).id).toBe('evt_eu_00000001');
});

test('several signatures (a rotation): one match is enough', () => {
  const other = 'whsec_' + Buffer.from('another-secret-another-secret-00').toString('base64');
  const d = delivery();
  const both = { ...d, 'webhook-signature': `${new Webhook(other).sign('evt_eu_00000001', new Date(), body)} ${d['webhook-signature']}` };
  expect(verifyWebhook(body, both, { signingSecret: SIGNING }).id).toBe('evt_eu_00000001');
});

test.each([
  ['another signing secret', () => verifyWebhook(body, delivery(), { signingSecret: 'whsec_' + Buffer.from('x'.repeat(32)).toString('base64') })],
  ['a changed body', () => verifyWebhook(body.replace('pi_eu_00000001', 'pi_eu_00000002'), delivery(), { signingSecret: SIGNING })],
  ['an old timestamp', () => verifyWebhook(body, delivery(new Date(Date.now() - 10 * 60_000)), { signingSecret: SIGNING })],
  ['no signature headers', () => verifyWebhook(body, { 'service-webhook-secret': 'merchant-secret' }, { signingSecret: SIGNING })],
  ['the wrong endpoint secret', () => verifyWebhook(body, delivery(), { endpointSecret: 'not-it' })],
  ['no Service-Webhook-Secret', () => verifyWebhook(body, delivery(new Date(), SIGNING, null), { endpointSecret: 'merchant-secret' })],
])('refused: %s', (_what, attempt) => {
  expect(attempt).toThrow(WebhookVerificationError);
});

test('an older-interface delivery (Service-Webhook-Secret only) verifies with the endpoint secret', () => {
  const payout = JSON.stringify({ uuid: 'p1', status: 'success' });
  expect(verifyWebhook<{ uuid: string }>(payout, { 'service-webhook-secret': 's3cr3t' }, { endpointSecret: 's3cr3t' }).uuid).toBe('p1');
});

test('no secret at all is a programming error', () => {
  expect(() => verifyWebhook(body, delivery(), {})).toThrow(/needs signingSecret/);
});
