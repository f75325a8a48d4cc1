import { GATEWAY_REQUEST_REJECTED } from '../../../gateways/sandbox-adapter';
import type { RefundRequest } from '../../../gateways/types';
import { eventually, key, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver } = useSandbox();

async function paidCharge(amount = 10_000, token = 'tok_success'): Promise<string> {
  const outcome = await h.adapter.charge({
    idempotencyKey: key('charge'),
    token,
    amount,
    currency: 'EUR',
    callbackUrl: receiver.url('pi_for_refund'),
    returnUrl: RETURN_URL,
  });
  if (!('chargeId' in outcome) || !outcome.chargeId) throw new Error('no charge id');
  return outcome.chargeId;
}

function refundRequest(chargeId: string, amount: number, overrides: Partial<RefundRequest> = {}): RefundRequest {
  const reference = `re_eu_${key('ref')}`;
  return {
    idempotencyKey: key('refund'),
    chargeId,
    amount,
    currency: 'EUR',
    callbackUrl: receiver.url(reference),
    reference,
    ...overrides,
  };
}

const callbackFor = (refundId: string) => receiver.received.find((c) => c.body.data.id === refundId);

describe('refunds', () => {
  it('an ordinary refund is pending, then succeeds with a signed callback; polling shows it too', async () => {
    const chargeId = await paidCharge();
    const req = refundRequest(chargeId, 2500);
    const outcome = await h.adapter.refund(req);
    expect(outcome).toEqual({ status: 'pending', refundId: expect.stringMatching(/^rf_[0-9a-f]{24}$/) });
    if (outcome.status !== 'pending') throw new Error('unreachable');

    const polled = await eventually(async () => {
      const s = await h.adapter.refundStatus(outcome.refundId);
      return s.status === 'succeeded' ? s : undefined;
    }, { what: 'refund success by polling' });
    expect(polled).toEqual({ status: 'succeeded', refundId: outcome.refundId });

    const callback = await eventually(() => callbackFor(outcome.refundId), { what: 'refund callback' });
    expect(h.adapter.parseCallback(callback.headers, callback.rawBody)).toEqual({
      kind: 'refund',
      reference: req.reference,
      refundId: outcome.refundId,
      outcome: { status: 'succeeded', refundId: outcome.refundId },
    });
  });

  it('an amount ending in 99 stays pending forever, with no callback', async () => {
    const chargeId = await paidCharge();
    const stuck = await h.adapter.refund(refundRequest(chargeId, 1099));
    const normal = await h.adapter.refund(refundRequest(chargeId, 1000));
    if (stuck.status !== 'pending' || normal.status !== 'pending') throw new Error('expected two pending refunds');

    // Once the refund created after it has completed and called back, the stuck one had its chance too.
    await eventually(() => callbackFor(normal.refundId), { what: 'the ordinary refund callback' });
    expect(await h.adapter.refundStatus(stuck.refundId)).toEqual({ status: 'pending', refundId: stuck.refundId });
    expect(callbackFor(stuck.refundId)).toBeUndefined();
  });

  it('an amount ending in 98 is rejected by the gateway, as data', async () => {
    const chargeId = await paidCharge();
    const outcome = await h.adapter.refund(refundRequest(chargeId, 598));
    expect(outcome).toEqual({
      status: 'rejected',
      refundId: expect.stringMatching(/^rf_/),
      failureCode: 'refund_rejected',
      failureMessage: expect.any(String),
    });
    if (outcome.status !== 'rejected') throw new Error('unreachable');
    expect(await h.adapter.refundStatus(outcome.refundId!)).toMatchObject({ status: 'rejected' });
  });

  it('rejects refunds beyond the refundable amount, of unpaid charges and in another currency', async () => {
    const chargeId = await paidCharge(5000);
    await expect(h.adapter.refund(refundRequest(chargeId, 3000))).resolves.toMatchObject({ status: 'pending' });
    await expect(h.adapter.refund(refundRequest(chargeId, 2001))).resolves.toMatchObject({
      status: 'rejected',
      failureCode: 'amount_too_large',
    });
    // A rejected refund does not hold any amount: the rest is still refundable.
    await expect(h.adapter.refund(refundRequest(chargeId, 2000))).resolves.toMatchObject({ status: 'pending' });

    const declined = await paidCharge(5000, 'tok_decline');
    await expect(h.adapter.refund(refundRequest(declined, 100))).resolves.toMatchObject({
      status: 'rejected',
      failureCode: 'charge_not_refundable',
    });
    await expect(h.adapter.refund(refundRequest(await paidCharge(), 100, { currency: 'USD' }))).resolves.toMatchObject({
      status: 'rejected',
      failureCode: 'currency_mismatch',
    });
  });

  it('a refund of an unknown charge is a 404, thrown as non-retryable', async () => {
    await expect(h.adapter.refund(refundRequest('ch_missing', 100))).rejects.toMatchObject({
      type: GATEWAY_REQUEST_REJECTED,
      nonRetryable: true,
    });
    await expect(h.adapter.refundStatus('rf_missing')).rejects.toMatchObject({ type: GATEWAY_REQUEST_REJECTED });
  });

  it('polling still tells the truth when the callback URL is unreachable', async () => {
    const chargeId = await paidCharge();
    const outcome = await h.adapter.refund(refundRequest(chargeId, 700, { callbackUrl: 'http://127.0.0.1:1/callbacks/sandbox/re_x' }));
    if (outcome.status !== 'pending') throw new Error('unreachable');
    await eventually(async () => (await h.adapter.refundStatus(outcome.refundId)).status === 'succeeded', {
      what: 'refund success by polling',
    });
    expect((await h.http('GET', '/healthz')).status).toBe(200);
  });
});
