import { ApplicationFailure } from '@temporalio/common';
import { GATEWAY_REQUEST_REJECTED, GATEWAY_UNAVAILABLE, GATEWAY_UNREACHABLE } from '../../../gateways/sandbox-adapter';
import { type ChargeJson, type ErrorJson, eventually, key, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver, chargeRequest } = useSandbox();

describe('charges by magic token', () => {
  it('tok_success succeeds at once', async () => {
    const outcome = await h.adapter.charge(chargeRequest('tok_success'));
    expect(outcome).toEqual({
      status: 'succeeded',
      chargeId: expect.stringMatching(/^ch_[0-9a-f]{24}$/),
      networkTransactionId: expect.stringMatching(/^ntx_[0-9a-f]{24}$/),
    });
    if (outcome.status !== 'succeeded') throw new Error('unreachable');
    expect(await h.adapter.chargeStatus(outcome.chargeId)).toEqual(outcome);
  });

  it('tok_decline is declined with card_declined, as data', async () => {
    const outcome = await h.adapter.charge(chargeRequest('tok_decline'));
    expect(outcome).toEqual({
      status: 'declined',
      chargeId: expect.stringMatching(/^ch_/),
      failureCode: 'card_declined',
      failureMessage: expect.any(String),
    });
  });

  it('tok_insufficient_funds is declined with insufficient_funds', async () => {
    const outcome = await h.adapter.charge(chargeRequest('tok_insufficient_funds'));
    expect(outcome).toMatchObject({ status: 'declined', failureCode: 'insufficient_funds' });
  });

  it('an unknown token is declined with invalid_token', async () => {
    const outcome = await h.adapter.charge(chargeRequest('tok_never_minted'));
    expect(outcome).toMatchObject({ status: 'declined', failureCode: 'invalid_token' });
  });

  it('tok_async is pending, then the sandbox calls back with success and the status shows it', async () => {
    const req = chargeRequest('tok_async');
    const outcome = await h.adapter.charge(req);
    expect(outcome).toEqual({ status: 'pending', chargeId: expect.stringMatching(/^ch_/) });
    if (outcome.status !== 'pending') throw new Error('unreachable');

    const callback = await eventually(() => receiver.received.find((c) => c.body.data.id === outcome.chargeId), {
      what: 'async charge callback',
    });
    expect(callback.path).toBe(new URL(req.callbackUrl).pathname);
    expect(h.adapter.parseCallback(callback.headers, callback.rawBody)).toEqual({
      kind: 'charge',
      reference: req.reference,
      chargeId: outcome.chargeId,
      idempotencyKey: req.idempotencyKey,
      outcome: { status: 'succeeded', chargeId: outcome.chargeId, networkTransactionId: expect.stringMatching(/^ntx_[0-9a-f]{24}$/) },
    });
    const parsed = h.adapter.parseCallback(callback.headers, callback.rawBody);
    expect(await h.adapter.chargeStatus(outcome.chargeId)).toEqual(parsed?.outcome);
  });

  it('tok_timeout is never answered: the adapter times out with a retryable failure, the charge is recorded once', async () => {
    const req = chargeRequest('tok_timeout');
    const adapter = h.adapterWith(200);
    const started = Date.now();
    const err = await adapter.charge(req).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
    expect((err as Error).message).toMatch(/timed out after 200 ms/);

    // The retry Temporal would make: same key, same silence, still one effect.
    await expect(adapter.charge(req)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE });
    const effects = await h.effects(req.idempotencyKey);
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ kind: 'charge', status: 'pending', replays: 1 });
    // The sandbox still serves other requests while never answering that one.
    await expect(h.adapter.charge(chargeRequest('tok_success'))).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('merchant-initiated charges and the echoed reference are recorded', async () => {
    const saved = await h.adapter.charge(chargeRequest('tok_success', { savePaymentMethod: true }));
    if (saved.status !== 'succeeded' || !saved.card?.reusableToken) throw new Error('no reusable token');
    const req = chargeRequest(saved.card.reusableToken, { merchantInitiated: true });
    const outcome = await h.adapter.charge(req);
    if (outcome.status !== 'succeeded') throw new Error(`unexpected ${outcome.status}`);
    const res = await h.http<ChargeJson>('GET', `/v1/charges/${outcome.chargeId}`);
    expect(res.json).toMatchObject({
      merchant_initiated: true,
      reference: req.reference,
      amount: 2500,
      currency: 'EUR',
      idempotency_key: req.idempotencyKey,
    });
  });

  it('derives the reference from the callback URL when none is given', async () => {
    const req = chargeRequest('tok_success', { reference: undefined, callbackUrl: receiver.url('pi_eu_from_url') });
    const outcome = await h.adapter.charge(req);
    if (outcome.status !== 'succeeded') throw new Error(`unexpected ${outcome.status}`);
    const res = await h.http<ChargeJson>('GET', `/v1/charges/${outcome.chargeId}`);
    expect(res.json.reference).toBe('pi_eu_from_url');
  });
});

describe('charge errors', () => {
  it('answers 400 naming the parameter for bad input, which the adapter throws as non-retryable', async () => {
    const res = await h.http<ErrorJson>('POST', '/v1/charges', {
      idempotency_key: key('bad'),
      token: 'tok_success',
      amount: 12.5,
      currency: 'EUR',
      callback_url: receiver.url('x'),
      return_url: RETURN_URL,
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({ code: 'parameter_invalid', message: expect.stringContaining('amount'), param: 'amount' });

    await expect(h.adapter.charge(chargeRequest('tok_success', { amount: -1 }))).rejects.toMatchObject({
      type: GATEWAY_REQUEST_REJECTED,
      nonRetryable: true,
    });
    await expect(h.adapter.charge(chargeRequest('tok_success', { callbackUrl: 'ftp://nope' }))).rejects.toMatchObject({
      type: GATEWAY_REQUEST_REJECTED,
    });
  });

  it('rejects unknown parameters and malformed JSON with the error shape', async () => {
    const unknown = await h.http<ErrorJson>('POST', '/v1/charges', { amount: 1, surprise: true });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_unknown', param: 'surprise' });

    const malformed = await h.http<ErrorJson>('POST', '/v1/charges', '{"amount":');
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toMatchObject({ code: 'invalid_body', param: null });
  });

  it('answers 404 for an unknown charge id; the adapter throws non-retryable', async () => {
    const res = await h.http<ErrorJson>('GET', '/v1/charges/ch_missing');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('resource_missing');
    await expect(h.adapter.chargeStatus('ch_missing')).rejects.toMatchObject({
      type: GATEWAY_REQUEST_REJECTED,
      nonRetryable: true,
    });
  });

  it('throws a retryable GatewayUnreachable when the connection is refused', async () => {
    const { SandboxGateway } = await import('../../../gateways/sandbox-adapter');
    const closed = new SandboxGateway({ baseUrl: 'http://127.0.0.1:2', callbackSecret: 'x', timeoutMs: 2000 });
    await expect(closed.chargeStatus('ch_1')).rejects.toMatchObject({ type: GATEWAY_UNREACHABLE, nonRetryable: false });
  });
});
