// Saved cards in the sandbox: a customer-present charge with `setup_future_usage: off_session` issues a
// reusable token (pmt_...); merchant-initiated charges take it and follow the saved card's off-session
// behaviour; charges under an agreement must carry the network transaction id of its first charge.

import { type ChargeJson, type ErrorJson, eventually, key, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver, submitChallenge } = useSandbox();

const NTX = /^ntx_[0-9a-f]{24}$/;
const PMT = /^pmt_[0-9a-f]{24}$/;
const nextYear = new Date().getUTCFullYear() + 1;

/** A raw charge body on the wire, as the adapter would send it. */
function body(token: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const reference = `pi_eu_${key('ref')}`;
  return {
    idempotency_key: key('ch'),
    token,
    amount: 1999,
    currency: 'EUR',
    callback_url: receiver.url(reference),
    return_url: RETURN_URL,
    reference,
    ...extra,
  };
}

async function charge(token: string, extra: Record<string, unknown> = {}) {
  const res = await h.http<ChargeJson>('POST', '/v1/charges', body(token, extra));
  if (res.status !== 201) throw new Error(`charge answered ${res.status}: ${res.text}`);
  return res.json;
}

/** Saves a card customer-present and answers its reusable token. */
async function save(token: string): Promise<string> {
  const json = await charge(token, { setup_future_usage: 'off_session' });
  if (json.status !== 'succeeded' || !json.payment_method_token) throw new Error(`not saved: ${JSON.stringify(json)}`);
  return json.payment_method_token;
}

const mit = (pmt: string, extra: Record<string, unknown> = {}) => charge(pmt, { merchant_initiated: true, ...extra });

async function mintToken(number: string): Promise<string> {
  const res = await h.http<{ id: string }>('POST', '/v1/tokens', { number, exp_month: 7, exp_year: nextYear, cvc: '123' });
  expect(res.status).toBe(201);
  return res.json.id;
}

function callbackFor(chargeId: string) {
  return eventually(() => receiver.received.find((c) => c.body.data.id === chargeId), { what: `callback of ${chargeId}` });
}

describe('charge JSON', () => {
  it('shows the card, no token and no network transaction id for a plain charge', async () => {
    const json = await charge('tok_success');
    expect(json).toMatchObject({
      status: 'succeeded',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 },
      setup_future_usage: false,
      payment_method_token: null,
      network_transaction_id: expect.stringMatching(NTX),
      merchant_initiated: false,
      agreement: null,
    });
  });

  it('fixed tokens carry the last4 of their test card; unknown tokens have no card', async () => {
    expect((await charge('tok_decline')).card).toEqual({ brand: 'visa', last4: '0002', exp_month: 12, exp_year: 2034 });
    expect((await charge('tok_sca_on_mit')).card).toMatchObject({ last4: '3184' });
    expect((await charge('tok_mit_declines')).card).toMatchObject({ last4: '0341' });
    expect((await charge('tok_no_token')).card).toMatchObject({ last4: '4242' });
    const unknown = await charge('tok_nobody_minted');
    expect(unknown).toMatchObject({ status: 'declined', failure_code: 'invalid_token', card: null, network_transaction_id: null });
  });

  it('has no network transaction id before it succeeds', async () => {
    const challenged = await charge('tok_3ds');
    expect(challenged).toMatchObject({ status: 'requires_action', network_transaction_id: null });
    const declined = await charge('tok_decline');
    expect(declined).toMatchObject({ status: 'declined', network_transaction_id: null });
  });
});

describe('saving a card (setup_future_usage: off_session)', () => {
  it('a succeeded charge issues a reusable token, shown by every view of the charge', async () => {
    const req = body('tok_success', { setup_future_usage: 'off_session' });
    const created = await h.http<ChargeJson>('POST', '/v1/charges', req);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      status: 'succeeded',
      setup_future_usage: true,
      payment_method_token: expect.stringMatching(PMT),
      network_transaction_id: expect.stringMatching(NTX),
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 },
    });
    const byId = await h.http<ChargeJson>('GET', `/v1/charges/${created.json.id}`);
    const byKey = await h.http<ChargeJson>('GET', `/v1/charges?idempotency_key=${req.idempotency_key as string}`);
    const replay = await h.http<ChargeJson>('POST', '/v1/charges', req);
    for (const view of [byId, byKey, replay]) expect(view.json).toEqual(created.json);
    expect(replay.status).toBe(200);
  });

  it('a minted card keeps its real details on the token and the charge', async () => {
    const tok = await mintToken('5555 5555 5555 4444');
    const json = await charge(tok, { setup_future_usage: 'off_session' });
    expect(json.card).toEqual({ brand: 'mastercard', last4: '4444', exp_month: 7, exp_year: nextYear });
    const later = await mit(json.payment_method_token!);
    expect(later).toMatchObject({ status: 'succeeded', card: json.card, payment_method_token: null, setup_future_usage: false });
  });

  it('tok_no_token succeeds but issues no reusable token', async () => {
    const json = await charge('tok_no_token', { setup_future_usage: 'off_session' });
    expect(json).toMatchObject({
      status: 'succeeded',
      setup_future_usage: true,
      payment_method_token: null,
      network_transaction_id: expect.stringMatching(NTX),
      card: { last4: '4242' },
    });
  });

  it('a declined charge saves nothing', async () => {
    const json = await charge('tok_decline', { setup_future_usage: 'off_session' });
    expect(json).toMatchObject({ status: 'declined', payment_method_token: null });
  });

  it('a 3DS charge issues its token once authenticated, in the callback and the status', async () => {
    const json = await charge('tok_3ds', { setup_future_usage: 'off_session' });
    expect(json).toMatchObject({ status: 'requires_action', payment_method_token: null });
    expect((await submitChallenge(json.challenge_url!, 'complete')).status).toBe(303);
    const callback = await callbackFor(json.id);
    const data = callback.body.data as ChargeJson;
    expect(data).toMatchObject({ status: 'succeeded', payment_method_token: expect.stringMatching(PMT), network_transaction_id: expect.stringMatching(NTX) });
    expect((await h.http<ChargeJson>('GET', `/v1/charges/${json.id}`)).json.payment_method_token).toBe(data.payment_method_token);
  });

  it('an async charge issues its token when it completes', async () => {
    const json = await charge('tok_async', { setup_future_usage: 'off_session' });
    expect(json).toMatchObject({ status: 'pending', payment_method_token: null, network_transaction_id: null });
    const data = (await callbackFor(json.id)).body.data as ChargeJson;
    expect(data).toMatchObject({ status: 'succeeded', payment_method_token: expect.stringMatching(PMT) });
  });

  it('is not allowed on a merchant-initiated charge', async () => {
    const res = await h.http<ErrorJson>('POST', '/v1/charges', body('tok_success', { setup_future_usage: 'off_session', merchant_initiated: true }));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'setup_future_usage' });
    const bad = await h.http<ErrorJson>('POST', '/v1/charges', body('tok_success', { setup_future_usage: 'on_session' }));
    expect(bad.status).toBe(400);
  });
});

describe('merchant-initiated charges', () => {
  it('a saved ordinary card succeeds off-session', async () => {
    const pmt = await save('tok_success');
    expect(await mit(pmt)).toMatchObject({ status: 'succeeded', merchant_initiated: true, network_transaction_id: expect.stringMatching(NTX) });
  });

  it('a card that needed 3DS when saved is exempt off-session', async () => {
    const json = await charge('tok_3ds', { setup_future_usage: 'off_session' });
    await submitChallenge(json.challenge_url!, 'complete');
    const pmt = ((await callbackFor(json.id)).body.data as ChargeJson).payment_method_token!;
    expect(await mit(pmt)).toMatchObject({ status: 'succeeded', challenge_url: null });
  });

  it('tok_mit_declines saves fine and its off-session charges are declined insufficient_funds', async () => {
    const pmt = await save('tok_mit_declines');
    expect(await mit(pmt)).toMatchObject({ status: 'declined', failure_code: 'insufficient_funds', network_transaction_id: null });
  });

  it('an async saved card completes off-session by callback', async () => {
    const json = await charge('tok_async', { setup_future_usage: 'off_session' });
    const pmt = ((await callbackFor(json.id)).body.data as ChargeJson).payment_method_token!;
    const later = await mit(pmt);
    expect(later.status).toBe('pending');
    expect((await callbackFor(later.id)).body.data).toMatchObject({ status: 'succeeded', merchant_initiated: true });
  });

  it('tok_sca_on_mit: 3DS is demanded off-session; the challenge page completes it and calls back', async () => {
    const pmt = await save('tok_sca_on_mit');
    const json = await mit(pmt);
    expect(json).toMatchObject({ status: 'requires_action', challenge_url: `${new URL(json.challenge_url!).origin}/3ds/${json.id}` });

    const page = await h.http('GET', new URL(json.challenge_url!).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Complete authentication');

    const res = await submitChallenge(json.challenge_url!, 'complete');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(RETURN_URL);
    const data = (await callbackFor(json.id)).body.data as ChargeJson;
    expect(data).toMatchObject({ status: 'succeeded', merchant_initiated: true, network_transaction_id: expect.stringMatching(NTX) });
  });

  it('tok_sca_on_mit: failing the challenge declines with authentication_failed', async () => {
    const json = await mit(await save('tok_sca_on_mit'));
    await submitChallenge(json.challenge_url!, 'fail');
    expect((await callbackFor(json.id)).body.data).toMatchObject({ status: 'declined', failure_code: 'authentication_failed' });
  });

  it.each([
    ['4000 0027 6000 3184', 'requires_action', null],
    ['4000 0000 0000 0341', 'declined', 'insufficient_funds'],
  ])('hosted-page test card %s saves customer-present, then goes %s off-session', async (number, status, failureCode) => {
    const tok = await mintToken(number);
    const present = await charge(tok, { setup_future_usage: 'off_session' });
    expect(present).toMatchObject({ status: 'succeeded', payment_method_token: expect.stringMatching(PMT) });
    expect(await mit(present.payment_method_token!)).toMatchObject({ status, failure_code: failureCode });
  });

  it('a non-reusable token is declined payment_method_not_reusable; an unknown one invalid_token', async () => {
    expect(await mit('tok_success')).toMatchObject({ status: 'declined', failure_code: 'payment_method_not_reusable', card: { last4: '4242' } });
    expect(await mit(await mintToken('4242424242424242'))).toMatchObject({ failure_code: 'payment_method_not_reusable' });
    expect(await mit('pmt_000000000000000000000000')).toMatchObject({ status: 'declined', failure_code: 'invalid_token', card: null });
  });

  it('a saved card may also be charged customer-present, with its customer-present behaviour', async () => {
    const pmt = await save('tok_sca_on_mit');
    expect(await charge(pmt)).toMatchObject({ status: 'succeeded', payment_method_token: null });
    expect(await charge(pmt, { setup_future_usage: 'off_session' })).toMatchObject({ payment_method_token: pmt });
  });
});

describe('agreements', () => {
  const agreement = (reference: string, networkTransactionId?: string) => ({
    reference,
    type: 'RECURRING',
    ...(networkTransactionId ? { network_transaction_id: networkTransactionId } : {}),
  });

  it("the first charge is free; later ones must send the first charge's network transaction id", async () => {
    const pmt = await save('tok_success');
    const ref = `agr_${key('agr')}`;
    const first = await mit(pmt, { agreement: agreement(ref) });
    expect(first).toMatchObject({
      status: 'succeeded',
      network_transaction_id: expect.stringMatching(NTX),
      agreement: { reference: ref, type: 'RECURRING', network_transaction_id: null },
    });
    const ntx = first.network_transaction_id!;

    expect(await mit(pmt, { agreement: agreement(ref) })).toMatchObject({
      status: 'declined',
      failure_code: 'network_transaction_id_missing',
    });
    expect(await mit(pmt, { agreement: agreement(ref, 'ntx_not_the_first') })).toMatchObject({
      status: 'declined',
      failure_code: 'network_transaction_id_mismatch',
    });
    const second = await mit(pmt, { agreement: agreement(ref, ntx) });
    expect(second).toMatchObject({ status: 'succeeded', agreement: { network_transaction_id: ntx } });
    expect(second.network_transaction_id).not.toBe(ntx); // each charge has its own
    expect(await mit(pmt, { agreement: agreement(ref, ntx) })).toMatchObject({ status: 'succeeded' });
  });

  it('a first charge that did not succeed records nothing; one completed by 3DS does', async () => {
    const ref = `agr_${key('agr')}`;
    expect(await mit(await save('tok_mit_declines'), { agreement: agreement(ref) })).toMatchObject({ status: 'declined' });
    const challenged = await mit(await save('tok_sca_on_mit'), { agreement: agreement(ref) });
    expect(challenged.status).toBe('requires_action');
    await submitChallenge(challenged.challenge_url!, 'complete');
    const ntx = ((await callbackFor(challenged.id)).body.data as ChargeJson).network_transaction_id!;
    const pmt = await save('tok_success');
    expect(await mit(pmt, { agreement: agreement(ref) })).toMatchObject({ failure_code: 'network_transaction_id_missing' });
    expect(await mit(pmt, { agreement: agreement(ref, ntx) })).toMatchObject({ status: 'succeeded' });
  });

  it('agreements are kept apart by reference', async () => {
    const pmt = await save('tok_success');
    await mit(pmt, { agreement: agreement(`agr_${key('a')}`) });
    expect(await mit(pmt, { agreement: agreement(`agr_${key('b')}`) })).toMatchObject({ status: 'succeeded' });
  });

  it('is only allowed with merchant_initiated: true, and is a strict object', async () => {
    const present = await h.http<ErrorJson>('POST', '/v1/charges', body('tok_success', { agreement: agreement('agr_x') }));
    expect(present.status).toBe(400);
    expect(present.json.error).toMatchObject({ code: 'parameter_invalid', param: 'agreement' });

    const typo = await h.http<ErrorJson>('POST', '/v1/charges', body('pmt_x', { merchant_initiated: true, agreement: { ...agreement('agr_x'), nti: 'x' } }));
    expect(typo.status).toBe(400);
    expect(typo.json.error).toMatchObject({ code: 'parameter_unknown', param: 'agreement.nti' });

    const badType = await h.http<ErrorJson>('POST', '/v1/charges', body('pmt_x', { merchant_initiated: true, agreement: { reference: 'agr_x', type: 'MONTHLY' } }));
    expect(badType.status).toBe(400);
    expect(badType.json.error).toMatchObject({ param: 'agreement.type' });
  });
});

describe('idempotency with the new fields', () => {
  it('a replay answers the same charge and records one effect; different new fields are a conflict', async () => {
    const pmt = await save('tok_success');
    const req = body(pmt, { merchant_initiated: true, agreement: { reference: `agr_${key('idem')}`, type: 'UNSCHEDULED' } });
    const first = await h.http<ChargeJson>('POST', '/v1/charges', req);
    const again = await h.http<ChargeJson>('POST', '/v1/charges', req);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect((await h.effects(req.idempotency_key as string)).count).toBe(1);

    const changed = await h.http<ErrorJson>('POST', '/v1/charges', {
      ...req,
      agreement: { ...(req.agreement as object), network_transaction_id: 'ntx_other' },
    });
    expect(changed.status).toBe(409);
    expect(changed.json.error.code).toBe('idempotency_key_in_use');

    const setupKey = body('tok_success');
    await h.http('POST', '/v1/charges', setupKey);
    const nowSaving = await h.http<ErrorJson>('POST', '/v1/charges', { ...setupKey, setup_future_usage: 'off_session' });
    expect(nowSaving.status).toBe(409);
  });
});
