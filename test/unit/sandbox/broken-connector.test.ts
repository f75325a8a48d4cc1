// The broken-connector drill: `Sandbox-Behavior: timeout` on a charge request is never answered and records
// nothing, so a caller that asks by its idempotency key learns the charge was never made.

import { key, RETURN_URL, type ErrorJson, type ChargeJson } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h } = useSandbox({ receiver: false });

function body(token = 'tok_success') {
  return {
    idempotency_key: key('broken'),
    token,
    amount: 1200,
    currency: 'EUR',
    callback_url: 'https://api.example.test/callbacks/sandbox/pi_broken',
    return_url: RETURN_URL,
  };
}

/** Posts a charge with the header; answers how the request ended within `waitMs`. */
async function postWithHeader(value: string, payload: unknown, waitMs = 300) {
  try {
    const res = await fetch(`${h.baseUrl}/v1/charges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Sandbox-Behavior': value },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(waitMs),
    });
    return { answered: true as const, status: res.status, json: (await res.json()) as unknown };
  } catch (err) {
    return { answered: false as const, error: (err as Error).name };
  }
}

describe('Sandbox-Behavior: timeout', () => {
  it('never answers a charge and records nothing: a query by key answers 404', async () => {
    const payload = body();
    const result = await postWithHeader('timeout', payload);
    // Our own AbortSignal.timeout ended the wait: the sandbox never answered.
    expect(result).toEqual({ answered: false, error: 'TimeoutError' });

    const byKey = await h.http<ErrorJson>('GET', `/v1/charges?idempotency_key=${payload.idempotency_key}`);
    expect(byKey.status).toBe(404);
    expect(byKey.json.error.code).toBe('resource_missing');
    expect((await h.effects(payload.idempotency_key)).count).toBe(0);

    // The same request without the header is a new, ordinary charge under that key.
    const made = await h.http<ChargeJson>('POST', '/v1/charges', payload);
    expect(made.status).toBe(201);
    expect(made.json.status).toBe('succeeded');
  });

  it('wins over the token (even a lost-answer drill records nothing) and is case-insensitive', async () => {
    const payload = body('tok_capture_no_answer');
    expect(await postWithHeader('Timeout', payload)).toMatchObject({ answered: false });
    expect((await h.effects(payload.idempotency_key)).count).toBe(0);
  });

  it('is ignored by other routes', async () => {
    const made = await h.http<ChargeJson>('POST', '/v1/charges', body());
    const byId = await h.http<ChargeJson>('GET', `/v1/charges/${made.json.id}`, undefined, { 'Sandbox-Behavior': 'timeout' });
    expect(byId.status).toBe(200);
    const byKey = await h.http<ChargeJson>('GET', `/v1/charges?idempotency_key=${made.json.idempotency_key}`, undefined, {
      'Sandbox-Behavior': 'timeout',
    });
    expect(byKey.json.id).toBe(made.json.id);
    const refund = await h.http(
      'POST',
      '/v1/refunds',
      { idempotency_key: key('rf'), charge_id: made.json.id, amount: 100, currency: 'EUR', callback_url: 'https://api.example.test/cb' },
      { 'Sandbox-Behavior': 'timeout' },
    );
    expect(refund.status).toBe(201);
  });

  it('an unknown behavior is a 400 naming the header', async () => {
    const payload = body();
    const result = await postWithHeader('down', payload, 2000);
    expect(result).toMatchObject({
      answered: true,
      status: 400,
      json: { error: { code: 'header_invalid', param: 'Sandbox-Behavior' } },
    });
    expect((await h.effects(payload.idempotency_key)).count).toBe(0);
  });
});
