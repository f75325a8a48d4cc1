import { sign, signatureHeaders, signWithKey, verify } from '../../../activities/webhooks/signing';

const EVENT_ID = 'evt_eu_0123456789abcdef0123456789abcdef';
const BODY = '{"id":"evt_eu_0123456789abcdef0123456789abcdef","type":"payment.success"}';
const SECRET = 'whsec-test-ünïcode';
const TS = 1767225600;

describe('webhook signatures', () => {
  it('match a vector computed independently (openssl dgst -sha256 -hmac over "<id>.<timestamp>.<body>")', () => {
    // printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64
    expect(sign(SECRET, EVENT_ID, TS, BODY)).toBe('v1,tRTFrFoOpGOJzg5gUslW17Wcixz1hnAkZo8FS/2jupU=');
  });

  it("use Standard Webhooks' construction: their published vector, with their base64-decoded key", () => {
    const key = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
    expect(signWithKey(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('key on the raw UTF-8 bytes of the secret string', () => {
    expect(sign(SECRET, EVENT_ID, TS, BODY)).toBe(signWithKey(Buffer.from(SECRET, 'utf8'), EVENT_ID, TS, BODY));
  });

  it('come as the three headers, the id being the event id', () => {
    expect(signatureHeaders(SECRET, EVENT_ID, TS, BODY)).toEqual({
      'webhook-id': EVENT_ID,
      'webhook-timestamp': String(TS),
      'webhook-signature': sign(SECRET, EVENT_ID, TS, BODY),
    });
  });
});

describe('verifying a delivery', () => {
  const headers = signatureHeaders(SECRET, EVENT_ID, TS, BODY);
  const base = {
    secret: SECRET,
    id: headers['webhook-id'],
    timestamp: headers['webhook-timestamp'],
    signature: headers['webhook-signature'],
    body: BODY,
    nowSeconds: TS + 10,
  };

  it('accepts the delivery as sent', () => {
    expect(verify(base)).toEqual({ ok: true });
  });

  it('refuses a tampered body', () => {
    expect(verify({ ...base, body: BODY.replace('success', 'canceled') })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses re-serialised JSON (whitespace changes the bytes)', () => {
    expect(verify({ ...base, body: JSON.stringify(JSON.parse(BODY), null, 1) })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses another event id or another secret', () => {
    expect(verify({ ...base, id: 'evt_eu_other' })).toEqual({ ok: false, reason: 'invalid_signature' });
    expect(verify({ ...base, secret: 'not-the-secret' })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses a replay with a fresh timestamp but the old signature', () => {
    expect(verify({ ...base, timestamp: String(TS + 600), nowSeconds: TS + 600 })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses a replay of the whole request more than 5 minutes later, and a timestamp from the future', () => {
    expect(verify({ ...base, nowSeconds: TS + 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify({ ...base, nowSeconds: TS + 300 })).toEqual({ ok: true });
    expect(verify({ ...base, nowSeconds: TS - 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('accepts one valid signature among several (key rotation)', () => {
    const other = sign('old-secret', EVENT_ID, TS, BODY);
    expect(verify({ ...base, signature: `${other} ${base.signature}` })).toEqual({ ok: true });
    expect(verify({ ...base, signature: other })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses missing headers, malformed timestamps and unknown versions', () => {
    expect(verify({ ...base, signature: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verify({ ...base, timestamp: '17672256OO' })).toEqual({ ok: false, reason: 'invalid_timestamp' });
    expect(verify({ ...base, signature: base.signature.replace(/^v1,/, 'v2,') })).toEqual({ ok: false, reason: 'invalid_signature' });
    expect(verify({ ...base, signature: 'v1,' })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('signs the timestamp as sent: a zero-padded copy of it does not verify', () => {
    expect(verify({ ...base, timestamp: `0${base.timestamp}` })).toEqual({ ok: false, reason: 'invalid_signature' });
  });
});
