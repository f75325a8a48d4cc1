import { GATEWAY_UNAVAILABLE } from '../../../gateways/sandbox-adapter';
import type { ChargeRequest } from '../../../gateways/types';
import { DEV_CALLBACK_SECRET, loadSandboxConfig } from '../../../sandbox/config';
import { type ErrorJson, type Harness, key, RETURN_URL, startSandbox } from './sandbox-harness';

function chargeRequest(): ChargeRequest {
  return {
    idempotencyKey: key('drill'),
    token: 'tok_success',
    amount: 1000,
    currency: 'EUR',
    callbackUrl: 'http://127.0.0.1:1/callbacks/sandbox/pi_drill',
    returnUrl: RETURN_URL,
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = Date.now();
  const result = await fn();
  return { ms: Date.now() - started, result };
}

describe('drill settings', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startSandbox();
  });
  afterEach(async () => {
    await h.stop();
  });

  it('reads and validates settings', async () => {
    expect((await h.http('GET', '/healthz')).json).toEqual({ ok: true });
    expect((await h.http('GET', '/v1/admin/settings')).json).toEqual({ latency_ms: 0, failure_rate: 0 });
    for (const bad of [{ failure_rate: 1.5 }, { latency_ms: -1 }, { latency_ms: 1.5 }, { failure_rate: '0.5' }, { speed: 1 }]) {
      const res = await h.http<ErrorJson>('POST', '/v1/admin/settings', bad);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.json.error.param).toBe(Object.keys(bad)[0]);
    }
    expect((await h.http('GET', '/v1/admin/settings')).json).toEqual({ latency_ms: 0, failure_rate: 0 });
  });

  it('adds latency to gateway calls, enough to trip a short adapter timeout', async () => {
    const set = await h.http('POST', '/v1/admin/settings', { latency_ms: 300 });
    expect(set.json).toEqual({ latency_ms: 300, failure_rate: 0 });

    const slow = await timed(() => h.adapter.charge(chargeRequest()));
    expect(slow.result.status).toBe('succeeded');
    expect(slow.ms).toBeGreaterThanOrEqual(290);

    await expect(h.adapterWith(100).charge(chargeRequest())).rejects.toMatchObject({
      type: GATEWAY_UNAVAILABLE,
      nonRetryable: false,
    });

    // Admin routes are not slowed down.
    expect((await timed(() => h.http('GET', '/v1/effects'))).ms).toBeLessThan(250);

    await h.http('POST', '/v1/admin/settings', { latency_ms: 0 });
    expect((await timed(() => h.adapter.charge(chargeRequest()))).ms).toBeLessThan(250);
  });

  it('fails gateway calls with 503 at the failure rate, before any effect is recorded', async () => {
    await h.http('POST', '/v1/admin/settings', { failure_rate: 1 });
    const req = chargeRequest();
    const raw = await h.http<ErrorJson>('POST', '/v1/charges', {
      idempotency_key: req.idempotencyKey,
      token: req.token,
      amount: req.amount,
      currency: req.currency,
      callback_url: req.callbackUrl,
      return_url: req.returnUrl,
    });
    expect(raw.status).toBe(503);
    expect(raw.json.error.code).toBe('sandbox_unavailable');
    await expect(h.adapter.charge(req)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
    expect((await h.http('POST', '/v1/tokens', { number: '4242424242424242', exp_month: 1, exp_year: 2099, cvc: '123' })).status).toBe(503);

    const effects = await h.effects(req.idempotencyKey);
    expect(effects.count).toBe(0);
    expect(effects.total).toBe(0);

    await h.http('POST', '/v1/admin/settings', { failure_rate: 0 });
    await expect(h.adapter.charge(req)).resolves.toMatchObject({ status: 'succeeded' });
    expect((await h.effects(req.idempotencyKey)).count).toBe(1);
  });
});

describe('settings from options (env at start)', () => {
  it('starts with the given latency and failure rate, using the injected randomness', async () => {
    const draws = [0.1, 0.9]; // below then above a 0.5 rate
    const h = await startSandbox({ latencyMs: 50, failureRate: 0.5, random: () => draws.shift() ?? 0.9 });
    try {
      expect((await h.http('GET', '/v1/admin/settings')).json).toEqual({ latency_ms: 50, failure_rate: 0.5 });
      const req = chargeRequest();
      await expect(h.adapter.charge(req)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE });
      const retried = await timed(() => h.adapter.charge(req));
      expect(retried.result.status).toBe('succeeded');
      expect(retried.ms).toBeGreaterThanOrEqual(45);
      expect((await h.effects(req.idempotencyKey)).count).toBe(1);
    } finally {
      await h.stop();
    }
  });
});

describe('sandbox environment', () => {
  it('has defaults for development', () => {
    expect(loadSandboxConfig({ NODE_ENV: 'development' })).toEqual({
      port: 4010,
      host: '127.0.0.1',
      callbackSecret: DEV_CALLBACK_SECRET,
      publicUrl: 'http://localhost:4010',
      latencyMs: 0,
      failureRate: 0,
      logLevel: 'info',
    });
    expect(loadSandboxConfig({ NODE_ENV: 'development', SANDBOX_PORT: '4100', SANDBOX_LATENCY_MS: '', SANDBOX_FAILURE_RATE: '0.25' })).toMatchObject({
      port: 4100,
      publicUrl: 'http://localhost:4100',
      latencyMs: 0,
      failureRate: 0.25,
    });
  });

  it.each([
    [{ SANDBOX_PORT: 'abc' }, 'SANDBOX_PORT'],
    [{ SANDBOX_PORT: '70000' }, 'SANDBOX_PORT'],
    [{ SANDBOX_FAILURE_RATE: '2' }, 'SANDBOX_FAILURE_RATE'],
    [{ SANDBOX_LATENCY_MS: '-5' }, 'SANDBOX_LATENCY_MS'],
    [{ SANDBOX_PUBLIC_URL: 'not a url' }, 'SANDBOX_PUBLIC_URL'],
    [{ NODE_ENV: 'production' }, 'SANDBOX_CALLBACK_SECRET'],
  ])('rejects %j naming %s', (env, variable) => {
    expect(() => loadSandboxConfig(env)).toThrow(variable);
  });

  it('takes the callback secret from the environment in production', () => {
    expect(loadSandboxConfig({ NODE_ENV: 'production', SANDBOX_CALLBACK_SECRET: 'a-long-production-secret' }).callbackSecret).toBe(
      'a-long-production-secret',
    );
  });
});
