import { GATEWAY_REQUEST_REJECTED } from '../../../gateways/sandbox-adapter';
import type { PayoutRequest } from '../../../gateways/types';
import { type ErrorJson, eventually, key, type PayoutJson } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver } = useSandbox();

function payoutRequest(overrides: Partial<PayoutRequest> = {}): PayoutRequest {
  const reference = `3f1c2a4e-${key('payout')}`;
  return {
    idempotencyKey: key('payout'),
    amount: 150_000,
    currency: 'NGN',
    narration: 'Weekly settlement',
    callbackUrl: receiver.url(reference),
    reference,
    ...overrides,
  };
}

const callbackFor = (payoutId: string) => receiver.received.find((c) => c.body.data.id === payoutId);

describe('payouts by magic bank account', () => {
  it('000111111116 is rejected as an invalid account', async () => {
    await expect(h.adapter.payout(payoutRequest({ bankAccountNumber: '000111111116' }))).resolves.toEqual({
      status: 'rejected',
      payoutId: expect.stringMatching(/^po_[0-9a-f]{24}$/),
      failureCode: 'invalid_account',
      failureMessage: expect.any(String),
    });
  });

  it('000222222227 fails with a technical error, as data', async () => {
    await expect(h.adapter.payout(payoutRequest({ bankAccountNumber: '000222222227' }))).resolves.toEqual({
      status: 'failed',
      payoutId: expect.stringMatching(/^po_/),
      failureCode: 'processing_error',
      failureMessage: expect.any(String),
    });
  });

  it('000444444449 is accepted, completes shortly after and calls back; 000333333338 never completes', async () => {
    const never = await h.adapter.payout(payoutRequest({ bankAccountNumber: '000333333338' }));
    const laterReq = payoutRequest({ bankAccountNumber: '000444444449' });
    const later = await h.adapter.payout(laterReq);
    expect(never).toEqual({ status: 'pending', payoutId: expect.stringMatching(/^po_/) });
    expect(later).toEqual({ status: 'pending', payoutId: expect.stringMatching(/^po_/) });
    if (never.status !== 'pending' || later.status !== 'pending') throw new Error('unreachable');

    const callback = await eventually(() => callbackFor(later.payoutId), { what: 'payout callback' });
    expect(h.adapter.parseCallback(callback.headers, callback.rawBody)).toEqual({
      kind: 'payout',
      reference: laterReq.reference,
      payoutId: later.payoutId,
      outcome: { status: 'succeeded', payoutId: later.payoutId },
    });
    expect(await h.adapter.payoutStatus(later.payoutId)).toEqual({ status: 'succeeded', payoutId: later.payoutId });

    // Created before the one that has completed, and still pending: it never completes.
    expect(await h.adapter.payoutStatus(never.payoutId)).toEqual({ status: 'pending', payoutId: never.payoutId });
    expect(callbackFor(never.payoutId)).toBeUndefined();
  });

  it('any other bank account or a mobile money wallet completes at once', async () => {
    await expect(h.adapter.payout(payoutRequest({ bankAccountNumber: '0123456789' }))).resolves.toMatchObject({
      status: 'succeeded',
    });
    await expect(h.adapter.payout(payoutRequest({ mobileMoneyNumber: '+254700000001' }))).resolves.toMatchObject({
      status: 'succeeded',
    });
  });
});

describe('recipients', () => {
  it('registers a bank recipient; payouts to it follow its account behaviour', async () => {
    const registered = await h.adapter.registerRecipient({
      idempotencyKey: key('rcp'),
      recipientType: 'bank_account',
      bankAccountNumber: '000111111116',
      bankAccountName: 'Ada Lovelace',
      bankCode: '058',
      name: '',
    });
    expect(registered).toEqual({ status: 'registered', gatewayRecipientId: expect.stringMatching(/^rcp_/) });
    if (registered.status !== 'registered') throw new Error('unreachable');

    // The recipient wins over inline details, which the adapter then leaves out.
    const outcome = await h.adapter.payout(
      payoutRequest({ gatewayRecipientId: registered.gatewayRecipientId, bankAccountNumber: '9999999999' }),
    );
    expect(outcome).toMatchObject({ status: 'rejected', failureCode: 'invalid_account' });
    const stored = await h.http<PayoutJson>('GET', `/v1/payouts/${outcome.payoutId}`);
    expect(stored.json).toMatchObject({
      recipient_id: registered.gatewayRecipientId,
      bank_account_number: '000111111116',
      narration: 'Weekly settlement',
    });
  });

  it('registers a mobile money recipient and pays it at once', async () => {
    const registered = await h.adapter.registerRecipient({
      idempotencyKey: key('rcp'),
      recipientType: 'mobile_money',
      mobileMoneyNumber: '+233200000000',
      mobileMoneyProvider: 'MTN',
    });
    if (registered.status !== 'registered') throw new Error(`unexpected ${registered.status}`);
    await expect(
      h.adapter.payout(payoutRequest({ gatewayRecipientId: registered.gatewayRecipientId })),
    ).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('rejects malformed account numbers as data, and payouts to a rejected recipient', async () => {
    const rejected = await h.adapter.registerRecipient({
      idempotencyKey: key('rcp'),
      recipientType: 'bank_account',
      bankAccountNumber: 'not-a-number',
      bankCode: '058',
    });
    expect(rejected).toEqual({ status: 'rejected', failureCode: 'invalid_account_number', failureMessage: expect.any(String) });

    const res = await h.http<{ id: string }>('POST', '/v1/recipients', {
      idempotency_key: key('rcp'),
      recipient_type: 'mobile_money',
      mobile_money_number: 'abc',
    });
    expect(res.status).toBe(201);
    await expect(h.adapter.payout(payoutRequest({ gatewayRecipientId: res.json.id }))).resolves.toMatchObject({
      status: 'rejected',
      failureCode: 'recipient_not_registered',
    });
  });

  it('answers 400 for inconsistent recipients or payouts, and 404 for an unknown recipient', async () => {
    const bad = await h.http<ErrorJson>('POST', '/v1/recipients', {
      idempotency_key: key('rcp'),
      recipient_type: 'bank_account',
      mobile_money_number: '+254700000001',
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('bank_account_number');

    const twoDestinations = await h.http<ErrorJson>('POST', '/v1/payouts', {
      idempotency_key: key('po'),
      amount: 100,
      currency: 'NGN',
      bank_account_number: '0123456789',
      mobile_money_number: '+254700000001',
      callback_url: receiver.url('x'),
    });
    expect(twoDestinations.status).toBe(400);
    expect(twoDestinations.json.error).toMatchObject({ code: 'parameter_invalid', param: 'recipient_id' });

    await expect(h.adapter.payout(payoutRequest({ gatewayRecipientId: 'rcp_missing' }))).rejects.toMatchObject({
      type: GATEWAY_REQUEST_REJECTED,
    });
    expect((await h.http('GET', '/v1/recipients/rcp_missing')).status).toBe(404);
    expect((await h.http('GET', '/v1/payouts/po_missing')).status).toBe(404);
  });
});
