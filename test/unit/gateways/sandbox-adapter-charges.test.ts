// The sandbox adapter's charge calls: what it sends for saved cards, merchant-initiated charges and
// agreements; how it maps the charge JSON's card, reusable token and network transaction id; and how it plays
// a broken connector (down: connection refused; timeout: never answered) for failover drills.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import {
  GATEWAY_UNAVAILABLE,
  GATEWAY_UNREACHABLE,
  SandboxGateway,
  type SandboxGatewayOptions,
} from '../../../gateways/sandbox-adapter';
import { eventually, key, SECRET } from '../sandbox/sandbox-harness';
import { useSandbox } from '../sandbox/use-sandbox';
import { signatureHeader } from '../../../sandbox/callbacks';

const { h, receiver, chargeRequest } = useSandbox();

const NTX = expect.stringMatching(/^ntx_[0-9a-f]{24}$/);
const PMT = expect.stringMatching(/^pmt_[0-9a-f]{24}$/);

const adapter = (opts: Partial<SandboxGatewayOptions> = {}) =>
  new SandboxGateway({ baseUrl: h.baseUrl, callbackSecret: SECRET, timeoutMs: 5000, ...opts });

/** A fake gateway that records requests and answers every one with `answer` (200, JSON). */
async function startFake(answer: () => unknown) {
  const requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: unknown }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer()));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const chargeJson = (fields: Record<string, unknown>) => ({ object: 'charge', id: 'ch_1', status: 'succeeded', ...fields });

describe('what charge() sends', () => {
  it('sends setup_future_usage, merchant_initiated and the agreement only when asked', async () => {
    const fake = await startFake(() => chargeJson({}));
    try {
      const a = new SandboxGateway({ baseUrl: fake.baseUrl, callbackSecret: SECRET });
      await a.charge(chargeRequest('tok_success', { savePaymentMethod: true }));
      await a.charge(
        chargeRequest('pmt_1', {
          merchantInitiated: true,
          agreement: { reference: 'agr_1', type: 'INSTALLMENT', networkTransactionId: 'ntx_first' },
        }),
      );
      await a.charge(chargeRequest('pmt_1', { merchantInitiated: true, agreement: { reference: 'agr_2', type: 'RECURRING' } }));
      await a.charge(chargeRequest('tok_success', { savePaymentMethod: false }));

      const bodies = fake.requests.map((r) => r.body as Record<string, unknown>);
      expect(bodies[0]).toMatchObject({ token: 'tok_success', setup_future_usage: 'off_session' });
      expect(bodies[0]).not.toHaveProperty('merchant_initiated');
      expect(bodies[0]).not.toHaveProperty('agreement');
      expect(bodies[1]).toMatchObject({
        token: 'pmt_1',
        merchant_initiated: true,
        agreement: { reference: 'agr_1', type: 'INSTALLMENT', network_transaction_id: 'ntx_first' },
      });
      expect(bodies[1]).not.toHaveProperty('setup_future_usage');
      expect(bodies[2]!.agreement).toEqual({ reference: 'agr_2', type: 'RECURRING' });
      for (const k of ['setup_future_usage', 'merchant_initiated', 'agreement']) expect(bodies[3]).not.toHaveProperty(k);
      for (const r of fake.requests) expect(r.headers['sandbox-behavior']).toBeUndefined();
    } finally {
      await fake.stop();
    }
  });

  it("behavior 'timeout' adds Sandbox-Behavior: timeout to every request", async () => {
    const fake = await startFake(() => chargeJson({}));
    try {
      const a = new SandboxGateway({ baseUrl: fake.baseUrl, callbackSecret: SECRET, behavior: 'timeout' });
      await a.charge(chargeRequest('tok_success'));
      await a.chargeStatus('ch_1');
      await a.findCharge('k');
      expect(fake.requests).toHaveLength(3);
      for (const r of fake.requests) expect(r.headers['sandbox-behavior']).toBe('timeout');
    } finally {
      await fake.stop();
    }
  });
});

describe('how charge JSON maps to the outcome', () => {
  let answer: Record<string, unknown>;
  let fake: Awaited<ReturnType<typeof startFake>>;
  let a: SandboxGateway;
  beforeAll(async () => {
    fake = await startFake(() => answer);
    a = new SandboxGateway({ baseUrl: fake.baseUrl, callbackSecret: SECRET });
  });
  afterAll(() => fake.stop());

  const card = { brand: 'visa', last4: '3184', exp_month: 12, exp_year: 2034 };
  const expectedCard = { brand: 'visa', last4: '3184', expMonth: 12, expYear: 2034 };

  it.each([
    [
      'a saving charge: card with its reusable token',
      { setup_future_usage: true, card, payment_method_token: 'pmt_a', network_transaction_id: 'ntx_a' },
      { status: 'succeeded', chargeId: 'ch_1', networkTransactionId: 'ntx_a', card: { ...expectedCard, reusableToken: 'pmt_a' } },
    ],
    [
      'a saving charge of a card that allows no token: reusableToken null',
      { setup_future_usage: true, card, payment_method_token: null, network_transaction_id: 'ntx_b' },
      { status: 'succeeded', chargeId: 'ch_1', networkTransactionId: 'ntx_b', card: { ...expectedCard, reusableToken: null } },
    ],
    [
      'a token without the setup flag still counts as saving',
      { card, payment_method_token: 'pmt_c' },
      { status: 'succeeded', chargeId: 'ch_1', card: { ...expectedCard, reusableToken: 'pmt_c' } },
    ],
    [
      'a charge that did not ask to save: no card',
      { setup_future_usage: false, card, payment_method_token: null, network_transaction_id: 'ntx_d' },
      { status: 'succeeded', chargeId: 'ch_1', networkTransactionId: 'ntx_d' },
    ],
    ['an older sandbox without the new fields', {}, { status: 'succeeded', chargeId: 'ch_1' }],
    [
      'a saving charge with no card known: no card',
      { setup_future_usage: true, card: null, payment_method_token: null, network_transaction_id: null },
      { status: 'succeeded', chargeId: 'ch_1' },
    ],
  ])('%s', async (_label, fields, expected) => {
    answer = chargeJson(fields);
    expect(await a.charge(chargeRequest('tok_x'))).toEqual(expected);
    expect(await a.chargeStatus('ch_1')).toEqual(expected);
    expect(await a.findCharge('k')).toEqual(expected);
  });

  it('non-succeeded charges carry none of it', async () => {
    answer = chargeJson({ status: 'declined', failure_code: 'insufficient_funds', failure_message: 'no', card, setup_future_usage: true, payment_method_token: null });
    expect(await a.charge(chargeRequest('tok_x'))).toEqual({ status: 'declined', chargeId: 'ch_1', failureCode: 'insufficient_funds', failureMessage: 'no' });
  });

  it('maps callbacks the same way', () => {
    const rawBody = JSON.stringify({
      event_id: 'evt_1',
      kind: 'charge',
      created_at: new Date().toISOString(),
      data: chargeJson({ reference: 'pi_eu_1', setup_future_usage: true, card, payment_method_token: 'pmt_e', network_transaction_id: 'ntx_e' }),
    });
    const headers = { 'sandbox-signature': signatureHeader(SECRET, rawBody, Math.floor(Date.now() / 1000)) };
    expect(a.parseCallback(headers, rawBody)).toEqual({
      kind: 'charge',
      reference: 'pi_eu_1',
      chargeId: 'ch_1',
      outcome: { status: 'succeeded', chargeId: 'ch_1', networkTransactionId: 'ntx_e', card: { ...expectedCard, reusableToken: 'pmt_e' } },
    });
  });
});

describe('saved cards against the sandbox', () => {
  it('savePaymentMethod gives the card and a reusable token; a plain charge gives no card', async () => {
    const saved = await h.adapter.charge(chargeRequest('tok_success', { savePaymentMethod: true }));
    expect(saved).toEqual({
      status: 'succeeded',
      chargeId: expect.stringMatching(/^ch_/),
      networkTransactionId: NTX,
      card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034, reusableToken: PMT },
    });
    expect(await h.adapter.charge(chargeRequest('tok_success'))).toEqual({
      status: 'succeeded',
      chargeId: expect.stringMatching(/^ch_/),
      networkTransactionId: NTX,
    });
  });

  it('tok_no_token: the card without a reusable token', async () => {
    const outcome = await h.adapter.charge(chargeRequest('tok_no_token', { savePaymentMethod: true }));
    expect(outcome).toMatchObject({ status: 'succeeded', card: { last4: '4242', reusableToken: null } });
  });

  it('a 3DS saving charge shows the token in the callback outcome once authenticated', async () => {
    const req = chargeRequest('tok_3ds', { savePaymentMethod: true });
    const challenged = await h.adapter.charge(req);
    if (challenged.status !== 'requires_action') throw new Error(`unexpected ${challenged.status}`);
    await fetch(`${h.baseUrl}${new URL(challenged.challengeUrl).pathname}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=complete',
    });
    const callback = await eventually(() => receiver.received.find((c) => c.body.data.id === challenged.chargeId));
    const parsed = h.adapter.parseCallback(callback.headers, callback.rawBody);
    expect(parsed?.outcome).toMatchObject({ status: 'succeeded', networkTransactionId: NTX, card: { last4: '3220', reusableToken: PMT } });
    expect(await h.adapter.chargeStatus(challenged.chargeId)).toEqual(parsed?.outcome);
  });

  it('merchant-initiated charges under an agreement: the first free, then with its network transaction id', async () => {
    const saved = await h.adapter.charge(chargeRequest('tok_success', { savePaymentMethod: true }));
    if (saved.status !== 'succeeded' || !saved.card?.reusableToken) throw new Error('not saved');
    const token = saved.card.reusableToken;
    const agreement = { reference: `agr_${key('agr')}`, type: 'RECURRING' as const };

    const first = await h.adapter.charge(chargeRequest(token, { merchantInitiated: true, agreement }));
    expect(first).toEqual({ status: 'succeeded', chargeId: expect.stringMatching(/^ch_/), networkTransactionId: NTX });
    if (first.status !== 'succeeded') throw new Error('unreachable');

    const without = await h.adapter.charge(chargeRequest(token, { merchantInitiated: true, agreement }));
    expect(without).toMatchObject({ status: 'declined', failureCode: 'network_transaction_id_missing' });
    const withIt = await h.adapter.charge(
      chargeRequest(token, { merchantInitiated: true, agreement: { ...agreement, networkTransactionId: first.networkTransactionId } }),
    );
    expect(withIt).toMatchObject({ status: 'succeeded' });
  });

  it('merchant-initiated outcomes follow the saved card', async () => {
    const save = async (token: string) => {
      const o = await h.adapter.charge(chargeRequest(token, { savePaymentMethod: true }));
      if (o.status !== 'succeeded' || !o.card?.reusableToken) throw new Error(`not saved: ${JSON.stringify(o)}`);
      return o.card.reusableToken;
    };
    const mit = async (token: string) => h.adapter.charge(chargeRequest(token, { merchantInitiated: true }));
    expect(await mit(await save('tok_sca_on_mit'))).toMatchObject({ status: 'requires_action', challengeUrl: expect.stringContaining('/3ds/ch_') });
    expect(await mit(await save('tok_mit_declines'))).toMatchObject({ status: 'declined', failureCode: 'insufficient_funds' });
    expect(await mit('tok_success')).toMatchObject({ status: 'declined', failureCode: 'payment_method_not_reusable' });
    // A merchant-initiated charge did not ask to save: no card in its outcome.
    expect(await mit(await save('tok_success'))).toEqual({ status: 'succeeded', chargeId: expect.any(String), networkTransactionId: NTX });
  });
});

describe('broken connectors', () => {
  it("behavior 'down': every call fails fast with a retryable GatewayUnreachable naming the call", async () => {
    const down = adapter({ behavior: 'down' });
    const started = Date.now();
    const err = await down.charge(chargeRequest('tok_success')).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: GATEWAY_UNREACHABLE, nonRetryable: false });
    expect((err as Error).message).toContain('sandbox POST /v1/charges');
    expect((err as Error).message).toContain('ECONNREFUSED');
    await expect(down.findCharge('k')).rejects.toMatchObject({ type: GATEWAY_UNREACHABLE });
    await expect(down.refundStatus('rf_1')).rejects.toMatchObject({ type: GATEWAY_UNREACHABLE });
  });

  it("behavior 'down' goes to downUrl", async () => {
    const fake = await startFake(() => chargeJson({}));
    try {
      const down = adapter({ behavior: 'down', downUrl: fake.baseUrl });
      await down.chargeStatus('ch_1');
      expect(fake.requests.map((r) => r.url)).toEqual(['/v1/charges/ch_1']);
    } finally {
      await fake.stop();
    }
  });

  it("behavior 'timeout': the charge times out (GatewayUnavailable) and nothing is found by its key", async () => {
    const slow = adapter({ behavior: 'timeout', timeoutMs: 200 });
    const req = chargeRequest('tok_success');
    const err = await slow.charge(req).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
    expect((err as Error).message).toMatch(/timed out after 200 ms/);
    expect(await slow.findCharge(req.idempotencyKey)).toBeNull();
    expect(await h.adapter.findCharge(req.idempotencyKey)).toBeNull();
  });

  it('other connection failures keep their GatewayUnavailable type', async () => {
    // Port 1 is one fetch refuses to dial ("bad port"): a failure, but no refused connection.
    const odd = new SandboxGateway({ baseUrl: 'http://127.0.0.1:1', callbackSecret: SECRET });
    await expect(odd.chargeStatus('ch_1')).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
  });
});
