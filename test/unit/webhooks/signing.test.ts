import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../../activities/webhooks/signing';

// Our signatures are the `standardwebhooks` library's own: these pin them to the published Standard Webhooks
// vector and to an independent HMAC over the base64-decoded key, and check what a receiver's library does
// with them (one matching signature among several, tampering, replay).

const EVENT_ID = 'evt_eu_0123456789abcdef0123456789abcdef';
const BODY = '{"id":"evt_eu_0123456789abcdef0123456789abcdef","type":"payment.success"}';
const SECRET = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
const OLD_SECRET = 'whsec_' + Buffer.from('fedcba9876543210fedcba9876543210').toString('base64');

afterEach(() => jest.restoreAllMocks());

/** A receiver's clock at `seconds` (the library reads Date.now()). */
const clockAt = (seconds: number) => jest.spyOn(Date, 'now').mockReturnValue(seconds * 1000);

describe('signing', () => {
  it("gives Standard Webhooks' published vector", () => {
    expect(signatureHeaders(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('keys the HMAC with the base64-decoded secret (computed independently with node:crypto)', () => {
    const ts = 1767225600;
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${EVENT_ID}.${ts}.${BODY}`).digest('base64');
    expect(signatureHeaders([SECRET], EVENT_ID, ts, BODY)['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('lists one signature per secret, current first, space-separated', () => {
    const ts = 1767225600;
    const both = signatureHeaders([SECRET, OLD_SECRET], EVENT_ID, ts, BODY)['webhook-signature'];
    expect(both.split(' ')).toEqual([
      signatureHeaders([SECRET], EVENT_ID, ts, BODY)['webhook-signature'],
      signatureHeaders([OLD_SECRET], EVENT_ID, ts, BODY)['webhook-signature'],
    ]);
  });

  it('refuses to sign with no secret at all', () => {
    expect(() => signatureHeaders([], EVENT_ID, 1767225600, BODY)).toThrow(/at least one/);
  });

  it('is what the old UTF-8-keyed signature was not: the library rejected that one', () => {
    const ts = 1767225600;
    clockAt(ts);
    const utf8Keyed = `v1,${createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(`${EVENT_ID}.${ts}.${BODY}`).digest('base64')}`;
    const headers = { 'webhook-id': EVENT_ID, 'webhook-timestamp': String(ts), 'webhook-signature': utf8Keyed };
    expect(() => new Webhook(SECRET).verify(BODY, headers)).toThrow('No matching signature found');
    expect(new Webhook(SECRET).verify(BODY, signatureHeaders([SECRET], EVENT_ID, ts, BODY))).toEqual(JSON.parse(BODY));
  });
});

describe('verifying a delivery with the library', () => {
  const TS = 1767225600;
  const headers: Record<string, string> = { ...signatureHeaders([SECRET], EVENT_ID, TS, BODY) };
  const event = JSON.parse(BODY);
  /** The receiver's check: the event, or the library's refusal. */
  const verify = (h = headers, body = BODY, secret = SECRET) => () => new Webhook(secret).verify(body, h);
  beforeEach(() => clockAt(TS + 10));

  it('accepts the delivery as sent', () => {
    expect(verify()()).toEqual(event);
  });

  it('refuses a tampered body, and re-serialised JSON (whitespace changes the bytes)', () => {
    expect(verify(headers, BODY.replace('success', 'canceled'))).toThrow('No matching signature found');
    expect(verify(headers, JSON.stringify(event, null, 1))).toThrow('No matching signature found');
  });

  it('refuses another event id or another secret', () => {
    expect(verify({ ...headers, 'webhook-id': 'evt_eu_other' })).toThrow('No matching signature found');
    expect(verify(headers, BODY, OLD_SECRET)).toThrow('No matching signature found');
  });

  it('refuses a replay with a fresh timestamp but the old signature', () => {
    clockAt(TS + 600);
    expect(verify({ ...headers, 'webhook-timestamp': String(TS + 600) })).toThrow('No matching signature found');
  });

  it('refuses the whole request replayed more than 5 minutes later, and a timestamp from the future', () => {
    clockAt(TS + 301);
    expect(verify()).toThrow('Message timestamp too old');
    clockAt(TS + 300);
    expect(verify()()).toEqual(event);
    clockAt(TS - 301);
    expect(verify()).toThrow('Message timestamp too new');
  });

  it('accepts either secret of a rotation, and neither alone once the signature lacks it', () => {
    const rotated = { ...headers, 'webhook-signature': signatureHeaders([SECRET, OLD_SECRET], EVENT_ID, TS, BODY)['webhook-signature'] };
    expect(verify(rotated)()).toEqual(event);
    expect(verify(rotated, BODY, OLD_SECRET)()).toEqual(event);
    expect(verify(headers, BODY, OLD_SECRET)).toThrow('No matching signature found');
  });

  it('refuses missing headers, malformed timestamps and unknown versions', () => {
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(verify(unsigned)).toThrow('Missing required headers');
    expect(verify({ ...headers, 'webhook-timestamp': 'soon' })).toThrow('Invalid Signature Headers');
    expect(verify({ ...headers, 'webhook-signature': headers['webhook-signature']!.replace(/^v1,/, 'v2,') })).toThrow('No matching signature found');
    expect(verify({ ...headers, 'webhook-signature': 'v1,' })).toThrow('No matching signature found');
  });
});
