import { type ChargeJson, eventually, key, PUBLIC_URL, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver, submitChallenge: submit } = useSandbox();

async function challengedCharge() {
  const reference = `pi_eu_${key('3ds')}`;
  const outcome = await h.adapter.charge({
    idempotencyKey: key('3ds'),
    token: 'tok_3ds',
    amount: 4999,
    currency: 'EUR',
    callbackUrl: receiver.url(reference),
    returnUrl: RETURN_URL,
    reference,
  });
  if (outcome.status !== 'requires_action') throw new Error(`expected requires_action, got ${outcome.status}`);
  return { ...outcome, reference };
}

/** The challenge URL is on the sandbox's public URL; tests reach the same path on the listening address. */
function pathOf(challengeUrl: string): string {
  return new URL(challengeUrl).pathname;
}

describe('3DS challenge', () => {
  it('returns a challenge URL on the sandbox public URL, serving a page with both buttons', async () => {
    const charge = await challengedCharge();
    expect(charge.challengeUrl).toBe(`${PUBLIC_URL}/3ds/${charge.chargeId}`);

    const page = await h.http('GET', pathOf(charge.challengeUrl));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('€49.99');
    expect(page.text).toMatch(/<form method="post" action="\/3ds\/ch_[0-9a-f]+"/);
    expect(page.text).toContain('<button type="submit" name="action" value="complete"');
    expect(page.text).toContain('Complete authentication');
    expect(page.text).toContain('<button type="submit" name="action" value="fail"');
    expect(page.text).toContain('Fail authentication');
    expect(await h.adapter.chargeStatus(charge.chargeId)).toEqual({
      status: 'requires_action',
      chargeId: charge.chargeId,
      challengeUrl: charge.challengeUrl,
    });
  });

  it('"Complete authentication" succeeds the charge, calls back signed and redirects 303 to return_url', async () => {
    const charge = await challengedCharge();
    const res = await submit(charge.challengeUrl, 'complete');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(RETURN_URL);

    // The first callback attempt is made before the redirect.
    const callback = receiver.received.find((c) => c.body.data.id === charge.chargeId);
    expect(callback).toBeDefined();
    expect(callback!.headers['sandbox-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(h.adapter.parseCallback(callback!.headers, callback!.rawBody)).toEqual({
      kind: 'charge',
      reference: charge.reference,
      chargeId: charge.chargeId,
      idempotencyKey: expect.any(String),
      outcome: { status: 'succeeded', chargeId: charge.chargeId, networkTransactionId: expect.stringMatching(/^ntx_[0-9a-f]{24}$/) },
    });
    const parsed = h.adapter.parseCallback(callback!.headers, callback!.rawBody);
    expect(await h.adapter.chargeStatus(charge.chargeId)).toEqual(parsed?.outcome);
  });

  it('"Fail authentication" declines with authentication_failed, calls back and redirects', async () => {
    const charge = await challengedCharge();
    const res = await submit(charge.challengeUrl, 'fail');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(RETURN_URL);

    const callback = await eventually(() => receiver.received.find((c) => c.body.data.id === charge.chargeId));
    expect(h.adapter.parseCallback(callback.headers, callback.rawBody)).toEqual({
      kind: 'charge',
      reference: charge.reference,
      chargeId: charge.chargeId,
      idempotencyKey: expect.any(String),
      outcome: {
        status: 'declined',
        chargeId: charge.chargeId,
        failureCode: 'authentication_failed',
        failureMessage: expect.any(String),
      },
    });
    const status = await h.http<ChargeJson>('GET', `/v1/charges/${charge.chargeId}`);
    expect(status.json).toMatchObject({ status: 'declined', failure_code: 'authentication_failed', challenge_url: null });
  });

  it('a second submit changes nothing and sends no second callback', async () => {
    const charge = await challengedCharge();
    expect((await submit(charge.challengeUrl, 'complete')).status).toBe(303);
    const again = await submit(charge.challengeUrl, 'fail');
    expect(again.status).toBe(303);
    expect(await h.adapter.chargeStatus(charge.chargeId)).toMatchObject({ status: 'succeeded' });
    expect(receiver.received.filter((c) => c.body.data.id === charge.chargeId)).toHaveLength(1);

    const page = await h.http('GET', pathOf(charge.challengeUrl));
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Complete authentication');
    expect(page.text).toContain(RETURN_URL);
  });

  it('rejects a bad action and unknown or non-3DS charges', async () => {
    const charge = await challengedCharge();
    const bad = await submit(charge.challengeUrl, 'maybe');
    expect(bad.status).toBe(400);
    expect(await h.adapter.chargeStatus(charge.chargeId)).toMatchObject({ status: 'requires_action' });

    expect((await h.http('GET', '/3ds/ch_unknown')).status).toBe(404);
    expect((await submit(`${PUBLIC_URL}/3ds/ch_unknown`, 'complete')).status).toBe(404);
    const plain = await h.adapter.charge({
      idempotencyKey: key('plain'),
      token: 'tok_success',
      amount: 100,
      currency: 'EUR',
      callbackUrl: receiver.url('pi_plain'),
      returnUrl: RETURN_URL,
    });
    if (plain.status !== 'succeeded') throw new Error('unreachable');
    expect((await h.http('GET', `/3ds/${plain.chargeId}`)).status).toBe(404);
  });

  it('escapes what it renders', async () => {
    const { escapeHtml, formatAmount } = await import('../../../sandbox/three-ds-page');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(formatAmount(1234, 'JPY')).toBe('¥1,234');
    expect(formatAmount(1234, 'EUR')).toBe('€12.34');
  });
});
