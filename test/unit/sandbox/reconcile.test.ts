import { GATEWAY_UNAVAILABLE } from '../../../gateways/sandbox-adapter';
import { eventually, key, RETURN_URL } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

// What a caller that lost an answer can ask the gateway, over real HTTP: a charge or refund by our
// idempotency key, and the cancel of a refund (also of one the gateway has not seen yet). And the drills
// that lose answers on purpose.

const { h, receiver } = useSandbox();

const charge = (token: string, idempotencyKey = key(token), adapter = h.adapter) =>
  adapter.charge({ idempotencyKey, token, amount: 1000, currency: 'EUR', callbackUrl: receiver.url('pi_eu_reconcile'), returnUrl: RETURN_URL, reference: 'pi_eu_reconcile' });

test('a charge is found by its idempotency key; a key the gateway never saw is null, not an error', async () => {
  const k = key('found');
  const made = await charge('tok_success', k);
  expect(await h.adapter.findCharge(k)).toEqual(made);
  expect(await h.adapter.findCharge(key('never-sent'))).toBeNull();
});

test('tok_capture_no_answer: the call times out (retryable), yet the gateway captured it once and says so by key', async () => {
  const k = key('no-answer');
  const short = h.adapterWith(300);
  await expect(charge('tok_capture_no_answer', k, short)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE, nonRetryable: false });
  await expect(charge('tok_capture_no_answer', k, short)).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE });
  expect(await h.adapter.findCharge(k)).toMatchObject({ status: 'succeeded' });
  const effects = await (await fetch(`${h.baseUrl}/v1/effects?idempotency_key=${k}`)).json();
  expect(effects.count).toBe(1);
});

test('tok_late_arrival: nothing by key until the request "arrives"; then captured, announced by a callback carrying the key', async () => {
  const k = key('late');
  await expect(charge('tok_late_arrival', k, h.adapterWith(200))).rejects.toMatchObject({ type: GATEWAY_UNAVAILABLE });
  expect(await h.adapter.findCharge(k)).toBeNull();
  const callback = await eventually(() => receiver.received.find((c) => c.body.data.idempotency_key === k), { what: 'late capture callback' });
  expect(h.adapter.parseCallback(callback.headers, callback.rawBody)).toMatchObject({ kind: 'charge', idempotencyKey: k, outcome: { status: 'succeeded' } });
  expect(await h.adapter.findCharge(k)).toMatchObject({ status: 'succeeded' });
});

describe('refund cancel by idempotency key', () => {
  const paid = async () => {
    const c = await charge('tok_success');
    if (c.status !== 'succeeded') throw new Error('not paid');
    return c.chargeId;
  };
  const refund = (chargeId: string, idempotencyKey: string, amount = 199) =>
    h.adapter.refund({ idempotencyKey, chargeId, amount, currency: 'EUR', callbackUrl: receiver.url('re_eu_reconcile'), reference: 're_eu_reconcile' });

  test('a pending refund is canceled and never executes; its amount is refundable again', async () => {
    const chargeId = await paid();
    const k = key('re-pending');
    expect(await refund(chargeId, k, 1000 - 1)).toMatchObject({ status: 'pending' }); // ...99 stays pending
    expect(await h.adapter.cancelRefund(k)).toMatchObject({ status: 'canceled' });
    expect(await h.adapter.findRefund(k)).toMatchObject({ status: 'canceled' });
    expect(await refund(chargeId, key('re-again'), 1000)).toMatchObject({ status: 'pending' });
  });

  test('an executed refund answers the cancel with its final state', async () => {
    const chargeId = await paid();
    const k = key('re-done');
    const made = await refund(chargeId, k, 300);
    await eventually(async () => ((await h.adapter.findRefund(k))?.status === 'succeeded' ? true : undefined), { what: 'refund executed' });
    expect(await h.adapter.cancelRefund(k)).toEqual({ status: 'succeeded', refundId: (made as { refundId: string }).refundId });
  });

  test('a key the gateway has not seen is voided: a request with it that arrives later changes nothing', async () => {
    const chargeId = await paid();
    const k = key('re-unseen');
    expect(await h.adapter.findRefund(k)).toBeNull();
    expect(await h.adapter.cancelRefund(k)).toMatchObject({ status: 'canceled' });
    expect(await refund(chargeId, k, 300)).toMatchObject({ status: 'canceled' });
    expect(await refund(chargeId, key('re-other'), 1000)).toMatchObject({ status: 'pending' }); // nothing was held
  });
});
