import {
  ApiError,
  baseUrlFor,
  createPayorchClient,
  idempotencyKey,
  idempotencyKeyFor,
  regionOfKey,
  unwrap,
} from '../../../clients/typescript/src';

// The hand-written layer's host, key and error handling, against a fake fetch (no network).

function fakeFetch(answer: (req: Request) => Response | Promise<Response>) {
  const seen: Request[] = [];
  const fetch = async (req: Request) => {
    seen.push(req.clone());
    return answer(req);
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('base URL', () => {
  test('a base URL is used as given, without its trailing slash', () => {
    expect(baseUrlFor({ apiKey: 'sk_eu_x', baseUrl: 'http://localhost:3000/' })).toBe('http://localhost:3000');
  });
  test('with a domain, the regional host api-<region>. comes from the key', () => {
    expect(baseUrlFor({ apiKey: 'sk_us_abc', domain: 'pay.example.com' })).toBe('https://api-us.pay.example.com');
    expect(baseUrlFor({ apiKey: 'pk_eu_abc', domain: 'pay.example.com' })).toBe('https://api-eu.pay.example.com');
  });
  test('an explicit region wins over the key', () => {
    expect(baseUrlFor({ apiKey: 'sk_eu_abc', region: 'us', domain: 'pay.example.com' })).toBe('https://api-us.pay.example.com');
  });
  test('no base URL and no region: refused', () => {
    expect(() => baseUrlFor({ apiKey: 'adm_token', domain: 'pay.example.com' })).toThrow(/baseUrl/);
    expect(() => baseUrlFor({ apiKey: 'sk_eu_abc' })).toThrow(/baseUrl/);
  });
  test('regionOfKey', () => {
    expect(regionOfKey('sk_eu_0123')).toBe('eu');
    expect(regionOfKey('adm_0123')).toBeNull();
  });
});

test('calls go to the base URL with the key as bearer token and the typed path filled in', async () => {
  const f = fakeFetch(() => json(200, { payment_intent: 'pi_eu_12345678', status: 'pending' }));
  const client = createPayorchClient({ apiKey: 'sk_eu_secret', domain: 'pay.example.com', fetch: f.fetch, retry: false });
  const r = await client.GET('/v202607/payment-intents/{payment_intent}', { params: { path: { payment_intent: 'pi_eu_12345678' } } });
  expect(r.data?.status).toBe('pending');
  expect(f.seen[0].url).toBe('https://api-eu.pay.example.com/v202607/payment-intents/pi_eu_12345678');
  expect(f.seen[0].headers.get('authorization')).toBe('Bearer sk_eu_secret');
});

test('a JSON body is sent as JSON; extra headers ride along', async () => {
  const f = fakeFetch(() => json(201, { payment_intent: 'pi_eu_12345678' }));
  const client = createPayorchClient({ apiKey: 'sk_eu_secret', baseUrl: 'http://api.test', fetch: f.fetch, headers: { 'x-trace': 't1' }, retry: false });
  await client.POST('/v202607/payment-intents', { body: { amount: 2500, currency: 'EUR', idempotency_key: 'order-42' } });
  expect(f.seen[0].method).toBe('POST');
  expect(f.seen[0].headers.get('x-trace')).toBe('t1');
  expect(await f.seen[0].json()).toEqual({ amount: 2500, currency: 'EUR', idempotency_key: 'order-42' });
});

test('unwrap answers the data, or throws ApiError with the error fields', async () => {
  const f = fakeFetch(() => json(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such intent', request_id: 'req_1' } }));
  const client = createPayorchClient({ apiKey: 'sk_eu_secret', baseUrl: 'http://api.test', fetch: f.fetch });
  const err = await unwrap(client.GET('/v202607/payment-intents/{payment_intent}', { params: { path: { payment_intent: 'pi_eu_missing00' } } })).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ status: 404, code: 'resource_missing', type: 'invalid_request_error', requestId: 'req_1' });
  expect((err as Error).message).toBe('404 resource_missing: No such intent');
});

test('idempotency keys: fresh ones differ; derived ones are stable, bounded and unambiguous', () => {
  expect(idempotencyKey()).not.toBe(idempotencyKey());
  expect(idempotencyKey('order-')).toMatch(/^order-[0-9a-f-]{36}$/);
  expect(idempotencyKeyFor('order', 'ord_1', 'payment')).toBe(idempotencyKeyFor('order', 'ord_1', 'payment'));
  expect(idempotencyKeyFor('order', 'ord_1', 'payment')).toMatch(/^[0-9a-f]{64}$/);
  expect(idempotencyKeyFor('order', 'x'.repeat(1000))).toHaveLength(64);
  expect(idempotencyKeyFor('a|b', 'c')).not.toBe(idempotencyKeyFor('a', 'b|c'));
  expect(() => idempotencyKeyFor()).toThrow();
});
