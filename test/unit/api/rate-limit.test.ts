import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { z } from 'zod';
import { createApp } from '../../../api/app';
import type { AppDeps } from '../../../api/deps';
import { createApiMetrics } from '../../../api/http/metrics';
import { bucketsFor, msUntilToken, RateLimiter, rateLimitRules, refill, type LimitKind } from '../../../api/http/rate-limit';
import { route, type RouteDef } from '../../../api/http/route';
import { loadConfig } from '../../../platform/config';
import { createLogger } from '../../../platform/logger';
import { generateKey } from '../../../platform/keys';
import type { ApiKeyRecord } from '../../../platform/records';

// Token buckets per key, in virtual time: counts, never durations.

const DEFAULTS = rateLimitRules(loadConfig({ NODE_ENV: 'development' }));

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('one bucket', () => {
  const rule = { perSec: 2, burst: 3 };

  test('a new bucket is full; it refills at perSec up to burst', () => {
    expect(refill(undefined, rule, 0)).toEqual({ tokens: 3, at: 0 });
    expect(refill({ tokens: 0, at: 0 }, rule, 250).tokens).toBeCloseTo(0.5);
    expect(refill({ tokens: 0, at: 0 }, rule, 60_000).tokens).toBe(3);
    expect(refill({ tokens: 1, at: 1000 }, rule, 500)).toEqual({ tokens: 1, at: 1000 }); // a clock stepped back
  });

  test('the wait for the next token', () => {
    expect(msUntilToken({ tokens: 1, at: 0 }, rule)).toBe(0);
    expect(msUntilToken({ tokens: 0, at: 0 }, rule)).toBe(500);
    expect(msUntilToken({ tokens: 0.75, at: 0 }, rule)).toBe(125);
    expect(msUntilToken({ tokens: 0, at: 0 }, { perSec: 0.001, burst: 1 })).toBe(1_000_000);
  });
});

describe('RateLimiter', () => {
  const rules: Record<LimitKind, { perSec: number; burst: number }> = {
    secret: { perSec: 1, burst: 3 },
    publishable: { perSec: 1, burst: 5 },
    attempts: { perSec: 0.5, burst: 2 },
    client_secret: { perSec: 0, burst: 1 },
  };

  test('burst requests pass, the next is refused with the wait for one token, and one passes after that wait', () => {
    const c = clock();
    const limiter = new RateLimiter(rules, c.now);
    const key = [{ kind: 'secret' as const, id: 'a' }];
    expect([1, 2, 3, 4].map(() => limiter.take(key).ok)).toEqual([true, true, true, false]);
    expect(limiter.take(key)).toEqual({ ok: false, kind: 'secret', retryAfterMs: 1000 });
    c.advance(999);
    expect(limiter.take(key).ok).toBe(false);
    c.advance(1);
    expect(limiter.take(key).ok).toBe(true);
    expect(limiter.take(key).ok).toBe(false);
  });

  test('another key is untouched by the first one being exhausted', () => {
    const limiter = new RateLimiter(rules, clock().now);
    for (let i = 0; i < 50; i += 1) limiter.take([{ kind: 'secret', id: 'a' }]);
    expect([1, 2, 3].map(() => limiter.take([{ kind: 'secret', id: 'b' }]).ok)).toEqual([true, true, true]);
  });

  test('all buckets or none: a card submission refused by the attempts bucket spends nothing from the key', () => {
    const limiter = new RateLimiter(rules, clock().now);
    const card = [
      { kind: 'publishable' as const, id: 'pk' },
      { kind: 'attempts' as const, id: 'pk' },
    ];
    expect([1, 2, 3, 4].map(() => limiter.take(card))).toEqual([{ ok: true }, { ok: true }, { ok: false, kind: 'attempts', retryAfterMs: 2000 }, { ok: false, kind: 'attempts', retryAfterMs: 2000 }]);
    // the publishable bucket gave 2 of its 5: three more for other requests, then refused
    const other = [{ kind: 'publishable' as const, id: 'pk' }];
    expect([1, 2, 3, 4].map(() => limiter.take(other).ok)).toEqual([true, true, true, false]);
  });

  test('perSec 0 turns a limit off', () => {
    const limiter = new RateLimiter(rules, clock().now);
    for (let i = 0; i < 100; i += 1) expect(limiter.take([{ kind: 'client_secret', id: 'x' }]).ok).toBe(true);
    expect(limiter.size).toBe(0);
  });

  test('memory is bounded: past maxKeys the least recently used bucket is forgotten', () => {
    const limiter = new RateLimiter(rules, clock().now, 3);
    for (const id of ['a', 'b', 'c']) limiter.take([{ kind: 'secret', id }]);
    limiter.take([{ kind: 'secret', id: 'a' }]); // a is now the most recent
    limiter.take([{ kind: 'secret', id: 'd' }]); // b goes
    expect(limiter.size).toBe(3);
    // a kept its spending (2 of 3 taken), b starts afresh
    expect([1, 2].map(() => limiter.take([{ kind: 'secret', id: 'a' }]).ok)).toEqual([true, false]);
    expect([1, 2, 3].map(() => limiter.take([{ kind: 'secret', id: 'b' }]).ok)).toEqual([true, true, true]);
  });
});

describe('which buckets a token spends from', () => {
  const sk = generateKey('secret', 'eu', 'p'.repeat(16)).key;
  const pk = generateKey('publishable', 'eu', 'p'.repeat(16)).key;
  const pics = `pics_${'ab'.repeat(32)}`;

  test.each([
    ['a secret key', sk, false, ['secret']],
    ['a secret key on the attempts route', sk, true, ['secret']],
    ['a publishable key', pk, false, ['publishable']],
    ['a publishable key on the attempts route', pk, true, ['publishable', 'attempts']],
    ['a client secret', pics, true, ['client_secret']],
    ['something that is no key (authentication refuses it without I/O)', 'hello', false, []],
  ])('%s', (_name, token, cardEntry, kinds) => {
    const buckets = bucketsFor(token as string, cardEntry as boolean);
    expect(buckets.map((b) => b.kind)).toEqual(kinds);
    for (const b of buckets) expect(b.id).not.toContain((token as string).slice(5, 20)); // the secret is not kept
  });

  test('two keys never share a bucket, one key always has the same', () => {
    const other = generateKey('secret', 'eu', 'p'.repeat(16)).key;
    expect(bucketsFor(sk, false)[0]!.id).toBe(bucketsFor(sk, false)[0]!.id);
    expect(bucketsFor(sk, false)[0]!.id).not.toBe(bucketsFor(other, false)[0]!.id);
  });
});

describe('accepted requests per second per key, with the default limits', () => {
  // One key of each kind offered 1000 requests per second for 10 virtual seconds; a second secret key
  // offered 10 per second at the same time shows one key's flood does not slow another.
  const SECONDS = 10;
  const kinds: { name: string; buckets: { kind: LimitKind; id: string }[]; rule: LimitKind }[] = [
    { name: 'secret key', buckets: [{ kind: 'secret', id: 'sk' }], rule: 'secret' },
    { name: 'publishable key', buckets: [{ kind: 'publishable', id: 'pk' }], rule: 'publishable' },
    {
      name: 'publishable key, payment attempts',
      buckets: [
        { kind: 'publishable', id: 'pk2' },
        { kind: 'attempts', id: 'pk2' },
      ],
      rule: 'attempts',
    },
    { name: 'client secret, payment attempts', buckets: [{ kind: 'client_secret', id: 'pics' }], rule: 'client_secret' },
  ];

  test.each(kinds)('$name', ({ name, buckets, rule }) => {
    const c = clock();
    const limiter = new RateLimiter(DEFAULTS, c.now);
    const perSecond: number[] = [];
    let quiet = 0;
    for (let s = 0; s < SECONDS; s += 1) {
      let accepted = 0;
      for (let ms = 0; ms < 1000; ms += 1) {
        if (limiter.take(buckets).ok) accepted += 1;
        if (ms % 100 === 0 && limiter.take([{ kind: 'secret', id: 'quiet-tenant' }]).ok) quiet += 1;
        c.advance(1);
      }
      perSecond.push(accepted);
    }
    const { perSec, burst } = DEFAULTS[rule];
    process.stdout.write(
      `[rate-limit] ${name}: offered 1000/s for ${SECONDS} s, accepted ${perSecond.reduce((a, b) => a + b)} ` +
        `(per second: ${perSecond.join(', ')}; limit ${perSec}/s, burst ${burst}); quiet tenant 10/s: ${quiet}/${SECONDS * 10} accepted\n`,
    );
    // the first second gives the burst and what refilled meanwhile; every later second exactly the rate
    expect(perSecond[0]).toBeGreaterThanOrEqual(burst);
    expect(perSecond[0]).toBeLessThanOrEqual(burst + perSec);
    for (const n of perSecond.slice(1)) expect(n).toBe(perSec);
    expect(quiet).toBe(SECONDS * 10);
  });

  test('the defaults are stricter for publishable keys than secret keys, and stricter still for card submissions', () => {
    expect(DEFAULTS.publishable.perSec).toBeLessThan(DEFAULTS.secret.perSec);
    expect(DEFAULTS.attempts.perSec).toBeLessThan(DEFAULTS.publishable.perSec);
    expect(DEFAULTS.client_secret.perSec).toBeLessThan(DEFAULTS.attempts.perSec);
  });
});

describe('over HTTP: 429 in the error shape with Retry-After, before authentication, per key', () => {
  const pepper = 'unit-test-pepper-0123456789';
  const a = generateKey('secret', 'eu', pepper);
  const b = generateKey('secret', 'eu', pepper);
  const pk = generateKey('publishable', 'eu', pepper);
  const records = new Map<string, ApiKeyRecord>(
    [
      ['ten_a', 'secret', a],
      ['ten_b', 'secret', b],
      ['ten_a', 'publishable', pk],
    ].map(([tenant, kind, k]) => {
      const key = k as ReturnType<typeof generateKey>;
      const record: ApiKeyRecord = { _id: key.lookupId, tenant_id: tenant as string, region: 'eu', kind: kind as 'secret', hash: key.hash, claims: [], created_at: new Date(), revoked_at: null };
      return [key.lookupId, record];
    }),
  );
  let keyReads = 0;
  const routes: RouteDef[] = [
    route({
      method: 'get',
      path: '/whoami',
      versions: ['v202607'],
      auth: 'secret',
      summary: 'test',
      tags: [],
      responses: { 200: { description: 'ok' } },
      handler: async ({ auth }) => ({ status: 200, body: { tenant: auth.tenantId } }),
    }),
    route({
      method: 'post',
      path: '/payment-intents/:payment_intent/attempts',
      cardEntry: true, // what the real attempts route declares
      versions: ['v202607'],
      auth: 'none',
      summary: 'test',
      tags: [],
      params: z.object({ payment_intent: z.string() }),
      responses: { 200: { description: 'ok' } },
      handler: async () => ({ status: 200, body: { status: 'failed' } }),
    }),
  ];
  const config = loadConfig({
    NODE_ENV: 'development',
    KEY_HASH_SECRET: pepper,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_SECRET_PER_SEC: '1',
    RATE_LIMIT_SECRET_BURST: '3',
    RATE_LIMIT_ATTEMPTS_PER_SEC: '0.1',
    RATE_LIMIT_ATTEMPTS_BURST: '2',
  });
  const deps = {
    config,
    logger: createLogger({ name: 'test', level: 'silent' }),
    metrics: createApiMetrics(),
    mongo: {
      c: {
        apiKeys: {
          findOne: async (q: { _id: string }) => {
            keyReads += 1;
            return records.get(q._id) ?? null;
          },
        },
      },
    },
  } as unknown as AppDeps;
  const c = clock();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createApp(deps, routes, new RateLimiter(rateLimitRules(config), c.now)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const get = (key: string) => fetch(`${base}/v202607/whoami`, { headers: { authorization: `Bearer ${key}` } });
  const attempt = (key: string) =>
    fetch(`${base}/v202607/payment-intents/pi_x/attempts`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });

  test('three pass, the fourth is 429 rate_limited with Retry-After; the other tenant still passes', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await get(a.key)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await get(a.key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      error: { type: 'rate_limit_error', code: 'rate_limited', message: expect.stringMatching(/retry in 1 s/), request_id: expect.stringMatching(/^req_/) },
    });

    const other = await get(b.key);
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual({ tenant: 'ten_b' });

    c.advance(1000);
    expect((await get(a.key)).status).toBe(200);
    expect((await get(a.key)).status).toBe(429);
  });

  test('refused before authentication: an unknown key is looked up three times, then refused without a lookup', async () => {
    const unknown = generateKey('secret', 'eu', pepper).key;
    const before = keyReads;
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await get(unknown)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(keyReads - before).toBe(3);
  });

  test('card submissions by a publishable key: two pass, then 429 for ten seconds', async () => {
    expect([(await attempt(pk.key)).status, (await attempt(pk.key)).status]).toEqual([200, 200]);
    const refused = await attempt(pk.key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect((await refused.json()).error.code).toBe('rate_limited');
  });
});
