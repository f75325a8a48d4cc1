import { createHmac } from 'node:crypto';
import { CALLBACK_TOLERANCE_SECONDS, SandboxGateway } from '../../../gateways/sandbox-adapter';
import type { SandboxLogger } from '../../../sandbox/app';
import { signatureHeader } from '../../../sandbox/callbacks';
import { type CallbackReceiver, eventually, key, RETURN_URL, SECRET, startCallbackReceiver } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const adapter = new SandboxGateway({ baseUrl: 'http://127.0.0.1:1', callbackSecret: SECRET });
const now = () => Math.floor(Date.now() / 1000);

/** Signed independently of the sandbox's signer, to pin the scheme both sides must agree on. */
function sign(body: string, t = now(), secret = SECRET): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

const chargeCallback = JSON.stringify({
  event_id: 'evt_1',
  kind: 'charge',
  created_at: new Date().toISOString(),
  data: {
    object: 'charge',
    id: 'ch_123',
    status: 'declined',
    failure_code: 'authentication_failed',
    failure_message: 'The cardholder failed 3D Secure authentication.',
    reference: 'pi_eu_abc',
    callback_url: 'http://api.test/callbacks/sandbox/pi_eu_abc',
  },
});

describe('callback signature verification', () => {
  it('accepts a valid signature and parses the outcome', () => {
    expect(adapter.parseCallback({ 'sandbox-signature': sign(chargeCallback) }, chargeCallback)).toEqual({
      kind: 'charge',
      reference: 'pi_eu_abc',
      chargeId: 'ch_123',
      outcome: {
        status: 'declined',
        chargeId: 'ch_123',
        failureCode: 'authentication_failed',
        failureMessage: 'The cardholder failed 3D Secure authentication.',
      },
    });
  });

  it('agrees with the sandbox signer, whatever the header name casing or array form', () => {
    const header = signatureHeader(SECRET, chargeCallback, now());
    expect(header).toBe(sign(chargeCallback));
    expect(adapter.parseCallback({ 'Sandbox-Signature': header }, chargeCallback)).not.toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': [header] }, chargeCallback)).not.toBeNull();
  });

  it('rejects a tampered body or signature, a wrong secret and a missing or malformed header', () => {
    const header = sign(chargeCallback);
    const tamperedBody = chargeCallback.replace('"declined"', '"succeeded"');
    expect(adapter.parseCallback({ 'sandbox-signature': header }, tamperedBody)).toBeNull();

    const lastHex = header.at(-1) === '0' ? '1' : '0';
    expect(adapter.parseCallback({ 'sandbox-signature': header.slice(0, -1) + lastHex }, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': header.slice(0, -2) }, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': sign(chargeCallback, now(), 'other-secret') }, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({}, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': 'garbage' }, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': `v1=${header.split('v1=')[1]}` }, chargeCallback)).toBeNull();
  });

  it('rejects stale and far-future timestamps, accepts ones inside the tolerance', () => {
    const tolerance = CALLBACK_TOLERANCE_SECONDS;
    expect(tolerance).toBe(300);
    expect(adapter.parseCallback({ 'sandbox-signature': sign(chargeCallback, now() - tolerance - 5) }, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': sign(chargeCallback, now() + tolerance + 5) }, chargeCallback)).toBeNull();
    expect(adapter.parseCallback({ 'sandbox-signature': sign(chargeCallback, now() - tolerance + 30) }, chargeCallback)).not.toBeNull();
  });

  it('accepts any matching v1 among several (secret rotation)', () => {
    const t = now();
    const good = sign(chargeCallback, t).split('v1=')[1];
    const other = sign(chargeCallback, t, 'old-secret').split('v1=')[1];
    expect(adapter.parseCallback({ 'sandbox-signature': `t=${t},v1=${other},v1=${good}` }, chargeCallback)).not.toBeNull();
  });

  it('returns null for a signed body that is not a callback, or cannot be routed', () => {
    for (const body of ['not json', '{"kind":"charge"}', JSON.stringify({ kind: 'refund', data: { object: 'refund', id: 'rf_1', status: 'weird' } })]) {
      expect(adapter.parseCallback({ 'sandbox-signature': sign(body) }, body)).toBeNull();
    }
    const unroutable = JSON.stringify({ kind: 'refund', data: { object: 'refund', id: 'rf_1', status: 'succeeded', reference: null, callback_url: 'http://x.test/elsewhere' } });
    expect(adapter.parseCallback({ 'sandbox-signature': sign(unroutable) }, unroutable)).toBeNull();
    const byUrl = JSON.stringify({ kind: 'refund', data: { object: 'refund', id: 'rf_1', status: 'succeeded', reference: null, callback_url: 'http://x.test/callbacks/sandbox/re_eu_9' } });
    expect(adapter.parseCallback({ 'sandbox-signature': sign(byUrl) }, byUrl)).toMatchObject({ kind: 'refund', reference: 're_eu_9' });
  });
});

describe('callback delivery', () => {
  const logs: string[] = [];
  const log: SandboxLogger = {
    info: (_o, msg) => logs.push(msg),
    warn: (_o, msg) => logs.push(msg),
    error: (_o, msg) => logs.push(msg),
  };
  beforeEach(() => {
    logs.length = 0;
  });
  // A fresh sandbox per test, logging into `logs`; each test starts the receiver its answers need.
  const { h } = useSandbox({ per: 'test', sandbox: { log }, receiver: false });

  async function asyncCharge(receiver: CallbackReceiver | string) {
    const outcome = await h.adapter.charge({
      idempotencyKey: key('cb'),
      token: 'tok_async',
      amount: 100,
      currency: 'EUR',
      callbackUrl: typeof receiver === 'string' ? receiver : receiver.url('pi_cb'),
      returnUrl: RETURN_URL,
    });
    if (outcome.status !== 'pending') throw new Error(`unexpected ${outcome.status}`);
    return outcome.chargeId;
  }

  it('retries a failed callback and stops once it is acknowledged', async () => {
    const receiver = await startCallbackReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const chargeId = await asyncCharge(receiver);
      const delivered = await eventually(() => receiver.received[0], { what: 'second attempt' });
      expect(receiver.attempts).toBe(2);
      expect(delivered.body).toMatchObject({ kind: 'charge', event_id: expect.stringMatching(/^evt_/), data: { id: chargeId } });
      expect(h.adapter.parseCallback(delivered.headers, delivered.rawBody)).toMatchObject({ chargeId });
      // No third attempt after the acknowledgement (absence: wait several 50 ms retry delays).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.attempts).toBe(2);
    } finally {
      await receiver.stop();
    }
  });

  it('gives up after three attempts, keeping the same event id', async () => {
    const seen: string[] = [];
    const receiver = await startCallbackReceiver(() => 503);
    try {
      await asyncCharge(receiver);
      await eventually(() => logs.includes('callback given up'), { what: 'give-up log' });
      expect(receiver.attempts).toBe(3);
      seen.push(...logs.filter((m) => m === 'callback attempt'));
      expect(seen).toHaveLength(3);
    } finally {
      await receiver.stop();
    }
  });

  it('survives an unreachable callback URL; polling still shows the outcome', async () => {
    const chargeId = await asyncCharge('http://127.0.0.1:1/callbacks/sandbox/pi_nowhere');
    await eventually(() => logs.includes('callback given up'), { what: 'give-up log' });
    expect(logs.filter((m) => m === 'callback attempt failed')).toHaveLength(3);
    expect(await h.adapter.chargeStatus(chargeId)).toEqual({ status: 'succeeded', chargeId, networkTransactionId: expect.stringMatching(/^ntx_[0-9a-f]{24}$/) });
  });

  it('close() stops pending completions and retries', async () => {
    const receiver = await startCallbackReceiver(() => 500);
    try {
      await asyncCharge(receiver);
      await eventually(() => receiver.attempts >= 1, { what: 'first attempt' });
      h.sandbox.close();
      const attempts = receiver.attempts;
      // Absence can only be checked by waiting: several retry delays (50 ms each) pass without an attempt.
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(receiver.attempts).toBe(attempts);
      expect(attempts).toBeLessThan(3);
    } finally {
      await receiver.stop();
    }
  });
});
