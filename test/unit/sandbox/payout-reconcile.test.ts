// The sandbox's payouts as the payout workflow leans on them, over raw HTTP: each magic account applied once
// per idempotency key under a burst of identical retries, the lookup by key, cancel by key (also of a key
// the gateway has not seen yet), the drill that loses the answer, and mobile money with its provider.

import { type ErrorJson, eventually, key, type PayoutJson, startSandbox } from './sandbox-harness';
import { useSandbox } from './use-sandbox';
import { PAYOUT_ACCOUNTS } from '../../../sandbox/payouts';

const { h, receiver } = useSandbox();

/** The sandbox's magic accounts, and one with no magic. */
const ACCOUNT = { ...PAYOUT_ACCOUNTS, ordinary: '0123456789' } as const;

type PayoutBody = Record<string, unknown> & { idempotency_key: string; reference: string };

function payoutBody(destination: Record<string, unknown>, overrides: Record<string, unknown> = {}): PayoutBody {
  const reference = `5b7e0c1a-${key('ref')}`;
  return {
    idempotency_key: key('po'),
    amount: 150_000,
    currency: 'NGN',
    ...destination,
    narration: 'Weekly settlement',
    callback_url: receiver.url(reference),
    reference,
    ...overrides,
  };
}

const bank = (account: string, overrides: Record<string, unknown> = {}) =>
  payoutBody({ bank_account_number: account }, overrides);

const post = (body: PayoutBody, on = h) => on.http<PayoutJson>('POST', '/v1/payouts', body);
const byKey = (k: string, on = h) => on.http<PayoutJson>('GET', `/v1/payouts?idempotency_key=${encodeURIComponent(k)}`);
const cancel = (k: string, on = h) => on.http<PayoutJson>('POST', '/v1/payouts/cancel', { idempotency_key: k });
const callbacksFor = (payoutId: string) => receiver.received.filter((c) => c.body.data.id === payoutId);

/** A 000444444449 payout made now completes (and calls back) after every one of them made earlier. */
async function laterPayoutsHadTheirChance(on = h): Promise<void> {
  const barrier = await post(bank(ACCOUNT.completesLater), on);
  await eventually(() => callbacksFor(barrier.json.id).length > 0, { what: 'the barrier payout callback' });
}

describe('each magic account, under 20 concurrent identical requests', () => {
  it.each([
    [ACCOUNT.rejected, { status: 'rejected', failure_code: 'invalid_account' }],
    [ACCOUNT.technicalFailure, { status: 'failed', failure_code: 'processing_error' }],
    [ACCOUNT.neverCompletes, { status: 'pending', failure_code: null }],
    [ACCOUNT.completesLater, { status: 'pending', failure_code: null }],
    [ACCOUNT.ordinary, { status: 'succeeded', failure_code: null }],
  ])('%s answers %j once: one effect, one 201, 19 replays of the same payout', async (account, expected) => {
    const body = bank(account);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));

    expect(answers.map((a) => a.status).sort()).toEqual([...Array<number>(19).fill(200), 201]);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
    const first = answers.find((a) => a.status === 201)!.json;
    expect(first).toMatchObject({ ...expected, idempotency_key: body.idempotency_key, reference: body.reference, amount: 150_000 });

    const effects = await h.effects(body.idempotency_key);
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ kind: 'payout', id: first.id, replays: 19 });
  });

  it('000444444449 completes once, with one signed callback carrying the reference', async () => {
    const body = bank(ACCOUNT.completesLater);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    const payoutId = answers[0]!.json.id;
    const [callback] = await eventually(() => callbacksFor(payoutId).length > 0 && callbacksFor(payoutId), { what: 'payout callback' });
    expect(callback!.headers['sandbox-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(callback!.path).toBe(`/callbacks/sandbox/${encodeURIComponent(body.reference)}`);
    expect(callback!.body).toMatchObject({ kind: 'payout', data: { id: payoutId, status: 'succeeded', reference: body.reference } });

    await laterPayoutsHadTheirChance();
    expect(callbacksFor(payoutId)).toHaveLength(1);
    expect((await byKey(body.idempotency_key)).json.status).toBe('succeeded');
    expect((await h.effects(body.idempotency_key)).count).toBe(1);
  });

  it('000555555551 (answer lost): no request is ever answered, yet the payout was made once and is found by key', async () => {
    const body = bank(ACCOUNT.answerLost);
    const giveUp = new AbortController();
    const tries = Promise.allSettled(
      Array.from({ length: 20 }, () =>
        fetch(`${h.baseUrl}/v1/payouts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: giveUp.signal,
        }),
      ),
    );
    // Every request reached the gateway (one effect, 19 replays) and none was answered; then the caller gives up.
    const effects = await eventually(async () => {
      const e = await h.effects(body.idempotency_key);
      return e.effects[0]?.replays === 19 && e;
    }, { what: 'all 20 requests taken' });
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ kind: 'payout', status: 'succeeded' });
    giveUp.abort();
    expect((await tries).map((t) => t.status)).toEqual(Array(20).fill('rejected'));

    const found = await byKey(body.idempotency_key);
    expect(found.status).toBe(200);
    expect(found.json).toMatchObject({ id: effects.effects[0]!.id, status: 'succeeded', bank_account_number: ACCOUNT.answerLost });
    // Completed at once and said nothing: only the question by key tells.
    expect(callbacksFor(found.json.id)).toHaveLength(0);
  });
});

describe('GET /v1/payouts?idempotency_key=', () => {
  it('answers the payout in its current state; 404 for a key never seen or held by another kind', async () => {
    const body = bank(ACCOUNT.ordinary);
    const made = await post(body);
    const found = await byKey(body.idempotency_key);
    expect(found.status).toBe(200);
    expect(found.json).toEqual(made.json);

    const unseen = await h.http<ErrorJson>('GET', `/v1/payouts?idempotency_key=${key('never-sent')}`);
    expect(unseen.status).toBe(404);
    expect(unseen.json.error.code).toBe('resource_missing');

    const recipientKey = key('rcp');
    await h.http('POST', '/v1/recipients', { idempotency_key: recipientKey, recipient_type: 'bank_account', bank_account_number: '0123456789' });
    expect((await byKey(recipientKey)).status).toBe(404);
  });

  it('answers 400 without a key or with an unknown parameter', async () => {
    expect((await h.http<ErrorJson>('GET', '/v1/payouts')).json.error).toMatchObject({ code: 'parameter_invalid', param: 'idempotency_key' });
    expect((await h.http<ErrorJson>('GET', '/v1/payouts?idempotency_key=a&limit=1')).json.error).toMatchObject({ code: 'parameter_unknown', param: 'limit' });
  });
});

describe('POST /v1/payouts/cancel', () => {
  it('cancels a pending payout: it stays canceled, and a retry of its request re-executes nothing', async () => {
    const body = bank(ACCOUNT.neverCompletes);
    const made = await post(body);
    const canceled = await cancel(body.idempotency_key);
    expect(canceled.status).toBe(200);
    expect(canceled.json).toMatchObject({ id: made.json.id, status: 'canceled', amount: 150_000 });
    expect((await cancel(body.idempotency_key)).json).toEqual(canceled.json); // asking again changes nothing

    const retried = await post(body);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ id: made.json.id, status: 'canceled' });
    expect((await byKey(body.idempotency_key)).json.status).toBe('canceled');
    expect((await h.effects(body.idempotency_key)).effects).toEqual([expect.objectContaining({ status: 'canceled' })]);
  });

  it.each([
    [ACCOUNT.ordinary, { status: 'succeeded' }],
    [ACCOUNT.answerLost, { status: 'succeeded' }],
    [ACCOUNT.rejected, { status: 'rejected', failure_code: 'invalid_account' }],
    [ACCOUNT.technicalFailure, { status: 'failed', failure_code: 'processing_error' }],
  ])('a payout to %s that already ended answers the cancel with its final state %j', async (account, expected) => {
    const body = bank(account);
    if (account === ACCOUNT.answerLost) {
      const giveUp = new AbortController();
      const unanswered = fetch(`${h.baseUrl}/v1/payouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: giveUp.signal }).catch(() => undefined);
      await eventually(async () => (await h.effects(body.idempotency_key)).count === 1, { what: 'the payout taken' });
      giveUp.abort();
      await unanswered;
    } else {
      await post(body);
    }
    const answered = await cancel(body.idempotency_key);
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject(expected);
    expect((await byKey(body.idempotency_key)).json).toMatchObject(expected);
  });

  it('tombstones a key never seen: a request with it arriving later is answered canceled and moves no money', async () => {
    const late = bank(ACCOUNT.completesLater);
    expect((await byKey(late.idempotency_key)).status).toBe(404);

    const tombstone = await cancel(late.idempotency_key);
    expect(tombstone.status).toBe(200);
    expect(tombstone.json).toMatchObject({ object: 'payout', id: expect.stringMatching(/^po_/), status: 'canceled', amount: 0, idempotency_key: late.idempotency_key });

    const arrivals = await Promise.all(Array.from({ length: 20 }, () => post(late)));
    for (const arrival of arrivals) {
      expect(arrival.status).toBe(200);
      expect(arrival.headers.get('idempotent-replayed')).toBe('true');
      expect(arrival.json).toEqual(tombstone.json);
    }
    // The same request with the other magic accounts is void too (the tombstone does not care what it asks).
    expect((await post({ ...late, bank_account_number: ACCOUNT.answerLost })).json.status).toBe('canceled');

    await laterPayoutsHadTheirChance();
    expect(callbacksFor(tombstone.json.id)).toHaveLength(0);
    const effects = await h.effects(late.idempotency_key);
    expect(effects.count).toBe(1);
    expect(effects.effects[0]).toMatchObject({ kind: 'payout', id: tombstone.json.id, status: 'canceled' });
  });

  it('a cancel that wins the race with the delayed completion of 000444444449 keeps it canceled, with no callback', async () => {
    const slow = await startSandbox({ callbackDelayMs: 400 }); // so the cancel surely comes first, even on a busy machine
    try {
      const body = bank(ACCOUNT.completesLater);
      const made = await post(body, slow);
      expect((await cancel(body.idempotency_key, slow)).json).toMatchObject({ id: made.json.id, status: 'canceled' });

      await laterPayoutsHadTheirChance(slow);
      expect((await byKey(body.idempotency_key, slow)).json.status).toBe('canceled');
      expect(callbacksFor(made.json.id)).toHaveLength(0);
    } finally {
      await slow.stop();
    }
  });

  it('a cancel that loses the race answers succeeded, as the callback said', async () => {
    const body = bank(ACCOUNT.completesLater);
    const made = await post(body);
    await eventually(() => callbacksFor(made.json.id).length > 0, { what: 'completion callback' });
    expect((await cancel(body.idempotency_key)).json).toMatchObject({ id: made.json.id, status: 'succeeded' });
  });

  it('cancels sent around the completion time always agree with the final state', async () => {
    // The harness completes 000444444449 after 50 ms; cancels go out from 0 to 95 ms after the create.
    const runs = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const body = bank(ACCOUNT.completesLater);
        const made = await post(body);
        await new Promise((resolve) => setTimeout(resolve, i * 5));
        return { body, id: made.json.id, answer: (await cancel(body.idempotency_key)).json.status };
      }),
    );
    await laterPayoutsHadTheirChance();
    for (const run of runs) {
      const final = (await byKey(run.body.idempotency_key)).json.status;
      expect({ answer: run.answer, final, callbacks: callbacksFor(run.id).length }).toEqual(
        run.answer === 'canceled'
          ? { answer: 'canceled', final: 'canceled', callbacks: 0 }
          : { answer: 'succeeded', final: 'succeeded', callbacks: 1 },
      );
    }
  });

  it('refuses (409) to cancel a key that holds another kind of effect, and leaves that effect alone', async () => {
    const recipientKey = key('rcp');
    await h.http('POST', '/v1/recipients', { idempotency_key: recipientKey, recipient_type: 'bank_account', bank_account_number: '0123456789' });
    const refused = await h.http<ErrorJson>('POST', '/v1/payouts/cancel', { idempotency_key: recipientKey });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'idempotency_key_in_use', param: 'idempotency_key' });
    // A refund cancel does not tombstone a payout's key either.
    const payoutKey = bank(ACCOUNT.neverCompletes);
    await post(payoutKey);
    expect((await h.http('POST', '/v1/refunds/cancel', { idempotency_key: payoutKey.idempotency_key })).status).toBe(409);
    expect((await byKey(payoutKey.idempotency_key)).json.status).toBe('pending');
    expect((await h.effects(recipientKey)).effects).toEqual([expect.objectContaining({ kind: 'recipient' })]);
  });

  it('answers 400 without a key or with an unknown parameter', async () => {
    expect((await h.http<ErrorJson>('POST', '/v1/payouts/cancel', {})).json.error).toMatchObject({ param: 'idempotency_key' });
    expect((await h.http<ErrorJson>('POST', '/v1/payouts/cancel', { idempotency_key: 'k', reason: 'x' })).json.error).toMatchObject({ code: 'parameter_unknown', param: 'reason' });
  });
});

describe('mobile money payouts', () => {
  it('take the provider inline and show it with the narration and reference', async () => {
    const body = payoutBody({ mobile_money_number: '+233200000000', mobile_money_provider: 'MTN' });
    const made = await post(body);
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      status: 'succeeded',
      mobile_money_number: '+233200000000',
      mobile_money_provider: 'MTN',
      bank_account_number: null,
      narration: 'Weekly settlement',
      reference: body.reference,
    });
  });

  it('take the provider from a registered recipient', async () => {
    const registered = await h.http<{ id: string }>('POST', '/v1/recipients', {
      idempotency_key: key('rcp'),
      recipient_type: 'mobile_money',
      mobile_money_number: '+256770000000',
      mobile_money_provider: 'Airtel',
    });
    const made = await post(payoutBody({ recipient_id: registered.json.id }));
    expect(made.json).toMatchObject({ status: 'succeeded', recipient_id: registered.json.id, mobile_money_number: '+256770000000', mobile_money_provider: 'Airtel' });
  });

  it('refuse a provider without an inline wallet, and a key reused with another provider', async () => {
    const withBank = await h.http<ErrorJson>('POST', '/v1/payouts', bank(ACCOUNT.ordinary, { mobile_money_provider: 'MTN' }));
    expect(withBank.status).toBe(400);
    expect(withBank.json.error).toMatchObject({ code: 'parameter_invalid', param: 'mobile_money_provider' });

    const body = payoutBody({ mobile_money_number: '+233200000001', mobile_money_provider: 'MTN' });
    await post(body);
    expect((await post({ ...body, mobile_money_provider: 'Vodafone' })).status).toBe(409);
  });
});

describe('stopping with an answer-lost payout in flight', () => {
  it('close() drops the unanswered request (the client sees its connection closed) and the server then stops', async () => {
    const own = await startSandbox();
    try {
      const body = { idempotency_key: key('po-stop'), amount: 100, currency: 'NGN', bank_account_number: ACCOUNT.answerLost, callback_url: 'http://127.0.0.1:1/callbacks/sandbox/x' };
      const pending = fetch(`${own.baseUrl}/v1/payouts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (res) => `answered ${res.status}`,
        (err: Error) => `failed: ${err.message}`,
      );
      await eventually(async () => (await own.effects(body.idempotency_key)).count === 1, { what: 'the payout recorded' });
      own.sandbox.close();
      expect(await pending).toMatch(/^failed/);
    } finally {
      await own.stop();
    }
  });
});
