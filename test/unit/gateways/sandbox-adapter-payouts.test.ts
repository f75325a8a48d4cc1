// The sandbox adapter's payout calls against a real sandbox on loopback: what the payout workflow asks when
// an answer is lost (findPayout), when a payout overstays its window (cancelPayout), what the merchant-facing
// status endpoint shows (describePayout), and how payout callbacks are verified and parsed.

import { createHmac } from 'node:crypto';
import { GATEWAY_REQUEST_REJECTED, GATEWAY_UNAVAILABLE, SandboxGateway } from '../../../gateways/sandbox-adapter';
import type { PayoutOutcome, PayoutRequest } from '../../../gateways/types';
import { eventually, type Harness, key, RETURN_URL, SECRET, startSandbox } from '../sandbox/sandbox-harness';
import { useSandbox } from '../sandbox/use-sandbox';
import { PAYOUT_ACCOUNTS } from '../../../sandbox/payouts';

const { h, receiver } = useSandbox();

/** The sandbox's magic accounts, and one with no magic. */
const ACCOUNT = { ...PAYOUT_ACCOUNTS, ordinary: '0123456789' } as const;

function payoutRequest(overrides: Partial<PayoutRequest> = {}): PayoutRequest {
  const reference = `9d2f6b3e-${key('payout')}`; // our payout uuid
  return {
    idempotencyKey: reference,
    amount: 250_000,
    currency: 'NGN',
    narration: 'Invoice 1042',
    callbackUrl: receiver.url(reference),
    reference,
    ...overrides,
  };
}

const idOf = (o: PayoutOutcome) => {
  if (!o.payoutId) throw new Error(`no payout id in ${JSON.stringify(o)}`);
  return o.payoutId;
};
const callbacksFor = (payoutId: string) => receiver.received.filter((c) => c.body.data.id === payoutId);

/** A 000444444449 payout made now completes (and calls back) after every one made earlier on `on`. */
async function laterPayoutsHadTheirChance(on: Harness = h): Promise<void> {
  const barrier = await on.adapter.payout(payoutRequest({ bankAccountNumber: ACCOUNT.completesLater }));
  await eventually(() => callbacksFor(idOf(barrier)).length > 0, { what: 'the barrier payout callback' });
}

describe('payout', () => {
  it('sends the narration, the reference and an inline wallet with its provider', async () => {
    const req = payoutRequest({ mobileMoneyNumber: '+233240000000', mobileMoneyProvider: 'MTN' });
    const outcome = await h.adapter.payout(req);
    expect(outcome).toEqual({ status: 'succeeded', payoutId: expect.stringMatching(/^po_/) });
    expect((await h.adapter.describePayout(req.idempotencyKey))?.raw).toMatchObject({
      mobile_money_number: '+233240000000',
      mobile_money_provider: 'MTN',
      narration: 'Invoice 1042',
      reference: req.reference,
      idempotency_key: req.idempotencyKey,
    });
  });

  it('leaves the provider out when a bank account or a registered recipient is the destination', async () => {
    const toBank = payoutRequest({ bankAccountNumber: ACCOUNT.ordinary, mobileMoneyProvider: 'MTN' });
    await expect(h.adapter.payout(toBank)).resolves.toMatchObject({ status: 'succeeded' });

    const recipient = await h.adapter.registerRecipient({
      idempotencyKey: key('rcp'),
      recipientType: 'mobile_money',
      mobileMoneyNumber: '+254711000000',
      mobileMoneyProvider: 'M-Pesa',
    });
    if (recipient.status !== 'registered') throw new Error(`unexpected ${recipient.status}`);
    const toRecipient = payoutRequest({ gatewayRecipientId: recipient.gatewayRecipientId, mobileMoneyProvider: 'MTN' });
    await expect(h.adapter.payout(toRecipient)).resolves.toMatchObject({ status: 'succeeded' });
    // The recipient's own provider applies.
    expect((await h.adapter.describePayout(toRecipient.idempotencyKey))?.raw).toMatchObject({ mobile_money_provider: 'M-Pesa' });
  });

  it('20 concurrent calls with one key make one payout and agree on it', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.neverCompletes });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => h.adapter.payout(req)));
    expect(new Set(outcomes.map(idOf)).size).toBe(1);
    expect(outcomes.every((o) => o.status === 'pending')).toBe(true);
    expect((await h.effects(req.idempotencyKey)).count).toBe(1);
  });
});

describe('findPayout', () => {
  it('finds each kind of outcome by our key; a key the gateway never saw is null, not an error', async () => {
    for (const account of [ACCOUNT.ordinary, ACCOUNT.rejected, ACCOUNT.technicalFailure, ACCOUNT.neverCompletes]) {
      const req = payoutRequest({ bankAccountNumber: account });
      const made = await h.adapter.payout(req);
      expect({ account, found: await h.adapter.findPayout(req.idempotencyKey) }).toEqual({ account, found: made });
    }
    await expect(h.adapter.findPayout(key('never-sent'))).resolves.toBeNull();
  });

  it('000555555551: every try times out (retryable), yet the payout was made once and is found by key', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.answerLost });
    const impatient = h.adapterWith(300);
    await expect(impatient.payout(req)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
    await expect(impatient.payout(req)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });

    const found = await h.adapter.findPayout(req.idempotencyKey);
    expect(found).toEqual({ status: 'succeeded', payoutId: expect.stringMatching(/^po_/) });
    const effects = await h.effects(req.idempotencyKey);
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ id: idOf(found!), status: 'succeeded' });
  });

  it('times out like any other call when the gateway is slow', async () => {
    const slow = await startSandbox({ latencyMs: 400 });
    try {
      await expect(slow.adapterWith(100).findPayout(key('k'))).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
      await expect(slow.adapterWith(100).cancelPayout(key('k'))).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE });
      await expect(slow.adapterWith(100).describePayout(key('k'))).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE });
    } finally {
      await slow.stop();
    }
  });
});

describe('cancelPayout', () => {
  it('cancels a pending payout: no money moves, and a retry of the payout call answers canceled', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.neverCompletes });
    const made = await h.adapter.payout(req);
    expect(await h.adapter.cancelPayout(req.idempotencyKey)).toEqual({ status: 'canceled', payoutId: idOf(made) });
    expect(await h.adapter.findPayout(req.idempotencyKey)).toEqual({ status: 'canceled', payoutId: idOf(made) });
    expect(await h.adapter.payoutStatus(idOf(made))).toEqual({ status: 'canceled', payoutId: idOf(made) });
    expect(await h.adapter.payout(req)).toEqual({ status: 'canceled', payoutId: idOf(made) });
  });

  it('answers a payout that already ended with its final state', async () => {
    const done = payoutRequest({ bankAccountNumber: ACCOUNT.ordinary });
    const made = await h.adapter.payout(done);
    expect(await h.adapter.cancelPayout(done.idempotencyKey)).toEqual({ status: 'succeeded', payoutId: idOf(made) });

    const rejected = payoutRequest({ bankAccountNumber: ACCOUNT.rejected });
    await h.adapter.payout(rejected);
    expect(await h.adapter.cancelPayout(rejected.idempotencyKey)).toMatchObject({ status: 'rejected', failureCode: 'invalid_account' });

    const failed = payoutRequest({ bankAccountNumber: ACCOUNT.technicalFailure });
    await h.adapter.payout(failed);
    expect(await h.adapter.cancelPayout(failed.idempotencyKey)).toMatchObject({ status: 'failed', failureCode: 'processing_error' });
  });

  it('voids a key the gateway never saw: the payout call arriving later is answered canceled and moves no money', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.ordinary });
    const canceled = await h.adapter.cancelPayout(req.idempotencyKey);
    expect(canceled).toEqual({ status: 'canceled', payoutId: expect.stringMatching(/^po_/) });

    expect(await h.adapter.payout(req)).toEqual(canceled);
    expect(await h.adapter.findPayout(req.idempotencyKey)).toEqual(canceled);
    const effects = await h.effects(req.idempotencyKey);
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ status: 'canceled' });
    expect((await h.adapter.describePayout(req.idempotencyKey))?.raw).toMatchObject({ amount: 0 });
  });

  it('wins the race with a delayed completion when it comes first: the payout never completes nor calls back', async () => {
    const slow = await startSandbox({ callbackDelayMs: 400 });
    try {
      const req = payoutRequest({ bankAccountNumber: ACCOUNT.completesLater });
      const made = await slow.adapter.payout(req);
      expect(made.status).toBe('pending');
      expect(await slow.adapter.cancelPayout(req.idempotencyKey)).toEqual({ status: 'canceled', payoutId: idOf(made) });

      await laterPayoutsHadTheirChance(slow);
      expect(await slow.adapter.findPayout(req.idempotencyKey)).toEqual({ status: 'canceled', payoutId: idOf(made) });
      expect(callbacksFor(idOf(made))).toHaveLength(0);
    } finally {
      await slow.stop();
    }
  });

  it('loses it when the payout completed first, and says so', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.completesLater });
    const made = await h.adapter.payout(req);
    await eventually(() => callbacksFor(idOf(made)).length > 0, { what: 'completion callback' });
    expect(await h.adapter.cancelPayout(req.idempotencyKey)).toEqual({ status: 'succeeded', payoutId: idOf(made) });
  });

  it('refuses, as non-retryable, a key that holds another kind of effect', async () => {
    const chargeKey = key('charge');
    await h.adapter.charge({ idempotencyKey: chargeKey, token: 'tok_success', amount: 100, currency: 'EUR', callbackUrl: receiver.url('pi_x'), returnUrl: RETURN_URL });
    await expect(h.adapter.cancelPayout(chargeKey)).rejects.toMatchObject({ type: GATEWAY_REQUEST_REJECTED, nonRetryable: true });
    await expect(h.adapter.findPayout(chargeKey)).resolves.toBeNull();
    await expect(h.adapter.findCharge(chargeKey)).resolves.toMatchObject({ status: 'succeeded' });
  });
});

describe('describePayout', () => {
  it("answers the parsed outcome with the gateway's raw object, or null for an unknown key", async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.rejected });
    const made = await h.adapter.payout(req);
    const described = await h.adapter.describePayout(req.idempotencyKey);
    expect(described).toEqual({
      outcome: made,
      raw: expect.objectContaining({
        object: 'payout',
        id: idOf(made),
        status: 'rejected',
        failure_code: 'invalid_account',
        failure_message: expect.any(String),
        amount: 250_000,
        currency: 'NGN',
        bank_account_number: ACCOUNT.rejected,
        narration: 'Invoice 1042',
        reference: req.reference,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      }),
    });
    await expect(h.adapter.describePayout(key('never-sent'))).resolves.toBeNull();
  });
});

describe('parseCallback for payouts', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const sign = (body: string, secret = SECRET, t = now()) =>
    `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const payoutCallback = (data: Record<string, unknown>) =>
    JSON.stringify({
      event_id: 'evt_1',
      kind: 'payout',
      created_at: new Date().toISOString(),
      data: { object: 'payout', id: 'po_1', reference: '9d2f6b3e-uuid', callback_url: 'http://api.test/callbacks/sandbox/9d2f6b3e-uuid', ...data },
    });

  it('parses the callback the sandbox sends when a delayed payout completes', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.completesLater });
    const made = await h.adapter.payout(req);
    const [callback] = await eventually(() => callbacksFor(idOf(made)).length > 0 && callbacksFor(idOf(made)), { what: 'payout callback' });
    expect(h.adapter.parseCallback(callback!.headers, callback!.rawBody)).toEqual({
      kind: 'payout',
      reference: req.reference,
      payoutId: idOf(made),
      outcome: { status: 'succeeded', payoutId: idOf(made) },
    });
  });

  it.each<[string, Record<string, unknown>, PayoutOutcome]>([
    ['canceled', { status: 'canceled' }, { status: 'canceled', payoutId: 'po_1' }],
    ['pending', { status: 'pending' }, { status: 'pending', payoutId: 'po_1' }],
    [
      'rejected',
      { status: 'rejected', failure_code: 'invalid_account', failure_message: 'No such account.' },
      { status: 'rejected', payoutId: 'po_1', failureCode: 'invalid_account', failureMessage: 'No such account.' },
    ],
    [
      'failed',
      { status: 'failed', failure_code: null, failure_message: null },
      { status: 'failed', payoutId: 'po_1', failureCode: 'processing_error', failureMessage: 'processing_error' },
    ],
  ])('parses a signed %s payout callback', (_label, data, outcome) => {
    const body = payoutCallback(data);
    expect(h.adapter.parseCallback({ 'Sandbox-Signature': sign(body) }, body)).toEqual({
      kind: 'payout',
      reference: '9d2f6b3e-uuid',
      payoutId: 'po_1',
      outcome,
    });
  });

  it('routes by the callback URL when the reference is missing', () => {
    const body = payoutCallback({ status: 'succeeded', reference: null });
    expect(h.adapter.parseCallback({ 'sandbox-signature': sign(body) }, body)).toMatchObject({ kind: 'payout', reference: '9d2f6b3e-uuid' });
  });

  it('returns null for a bad signature, a tampered body, a stale timestamp or an unknown status', () => {
    const body = payoutCallback({ status: 'canceled' });
    expect(h.adapter.parseCallback({ 'sandbox-signature': sign(body, 'not-the-secret') }, body)).toBeNull();
    expect(h.adapter.parseCallback({ 'sandbox-signature': sign(body) }, body.replace('"canceled"', '"succeeded"'))).toBeNull();
    expect(h.adapter.parseCallback({ 'sandbox-signature': sign(body, SECRET, now() - 3600) }, body)).toBeNull();
    expect(h.adapter.parseCallback({}, body)).toBeNull();
    const weird = payoutCallback({ status: 'reversed' });
    expect(h.adapter.parseCallback({ 'sandbox-signature': sign(weird) }, weird)).toBeNull();
  });

  it('an adapter with another secret refuses callbacks the sandbox signed', async () => {
    const req = payoutRequest({ bankAccountNumber: ACCOUNT.completesLater });
    const made = await h.adapter.payout(req);
    const [callback] = await eventually(() => callbacksFor(idOf(made)).length > 0 && callbacksFor(idOf(made)), { what: 'payout callback' });
    const stranger = new SandboxGateway({ baseUrl: h.baseUrl, callbackSecret: 'another-secret' });
    expect(stranger.parseCallback(callback!.headers, callback!.rawBody)).toBeNull();
  });
});
