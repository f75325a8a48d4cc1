import { GATEWAY_REQUEST_REJECTED } from '../../../gateways/sandbox-adapter';
import type { ChargeRequest } from '../../../gateways/types';
import { type ChargeJson, type EffectsJson, type ErrorJson, eventually, key, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver } = useSandbox();

function chargeRequest(token = 'tok_success'): ChargeRequest {
  return {
    idempotencyKey: key('idem'),
    token,
    amount: 1500,
    currency: 'EUR',
    callbackUrl: receiver.url('pi_idem'),
    returnUrl: RETURN_URL,
  };
}

describe('idempotency keys', () => {
  it('a repeated charge key returns the same charge and records one effect', async () => {
    const req = chargeRequest();
    const first = await h.adapter.charge(req);
    const second = await h.adapter.charge(req);
    expect(second).toEqual(first);

    const effects = await h.effects(req.idempotencyKey);
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ kind: 'charge', status: 'succeeded', replays: 1 });
  });

  it('answers 201 for the effect and 200 with Idempotent-Replayed for a repeat', async () => {
    const req = chargeRequest('tok_decline');
    const body = {
      idempotency_key: req.idempotencyKey,
      token: req.token,
      amount: req.amount,
      currency: 'eur',
      callback_url: req.callbackUrl,
      return_url: req.returnUrl,
    };
    const first = await h.http<ChargeJson>('POST', '/v1/charges', body);
    const again = await h.http<ChargeJson>('POST', '/v1/charges', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
  });

  it('concurrent requests with one key create one effect', async () => {
    const req = chargeRequest();
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => h.adapter.charge(req)));
    expect(new Set(outcomes.map((o) => ('chargeId' in o ? o.chargeId : undefined))).size).toBe(1);
    expect((await h.effects(req.idempotencyKey)).count).toBe(1);
  });

  it('a repeat returns the effect in its current state (async charge after completion)', async () => {
    const req = chargeRequest('tok_async');
    const first = await h.adapter.charge(req);
    expect(first.status).toBe('pending');
    await eventually(async () => (await h.adapter.charge(req)).status === 'succeeded', { what: 'replayed success' });
    expect((await h.effects(req.idempotencyKey)).count).toBe(1);
  });

  it('refunds, recipients and payouts are applied once per key too', async () => {
    const charge = await h.adapter.charge(chargeRequest());
    if (charge.status !== 'succeeded') throw new Error('unreachable');
    const refundReq = {
      idempotencyKey: key('rf'),
      chargeId: charge.chargeId,
      amount: 500,
      currency: 'EUR',
      callbackUrl: receiver.url('re_idem'),
    };
    const recipientReq = { idempotencyKey: key('rcp'), recipientType: 'bank_account' as const, bankAccountNumber: '0123456789', bankCode: '058' };
    const payoutReq = { idempotencyKey: key('po'), amount: 900, currency: 'NGN', bankAccountNumber: '0123456789', callbackUrl: receiver.url('po_idem') };

    for (const [label, run, idempotencyKey] of [
      ['refund', () => h.adapter.refund(refundReq), refundReq.idempotencyKey],
      ['recipient', () => h.adapter.registerRecipient(recipientReq), recipientReq.idempotencyKey],
      ['payout', () => h.adapter.payout(payoutReq), payoutReq.idempotencyKey],
    ] as const) {
      const first = await run();
      const second = await run();
      expect(second).toEqual(first);
      const effects = await h.effects(idempotencyKey);
      expect({ label, count: effects.count, kind: effects.effects[0]?.kind }).toEqual({ label, count: 1, kind: label });
    }
  });

  it('refuses a key reused with different parameters or for another kind (409, not retryable)', async () => {
    const req = chargeRequest();
    await h.adapter.charge(req);
    const res = await h.http<ErrorJson>('POST', '/v1/charges', {
      idempotency_key: req.idempotencyKey,
      token: req.token,
      amount: req.amount + 1,
      currency: req.currency,
      callback_url: req.callbackUrl,
      return_url: req.returnUrl,
    });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'idempotency_key_in_use', param: 'idempotency_key' });
    await expect(h.adapter.charge({ ...req, token: 'tok_decline' })).rejects.toMatchObject({
      type: GATEWAY_REQUEST_REJECTED,
      nonRetryable: true,
    });
    await expect(
      h.adapter.payout({ idempotencyKey: req.idempotencyKey, amount: 1, currency: 'EUR', bankAccountNumber: '0123456789', callbackUrl: req.callbackUrl }),
    ).rejects.toMatchObject({ type: GATEWAY_REQUEST_REJECTED });
    expect((await h.effects(req.idempotencyKey)).count).toBe(1);
  });

  it('counts effects in total and filters by kind', async () => {
    const before = await h.effects();
    expect(before.count).toBe(before.total);
    const req = chargeRequest();
    await h.adapter.charge(req);
    await h.adapter.charge(req);
    await h.adapter.charge(chargeRequest());
    const after = await h.effects();
    expect(after.total).toBe(before.total + 2);

    const charges = await h.http<EffectsJson>('GET', '/v1/effects?kind=charge');
    expect(charges.json.effects.every((e) => e.kind === 'charge')).toBe(true);
    expect(charges.json.count).toBe(charges.json.effects.length);
    expect(charges.json.total).toBe(after.total);

    expect((await h.effects('never-used')).count).toBe(0);
    expect((await h.http('GET', '/v1/effects?kind=nonsense')).status).toBe(400);
  });
});
