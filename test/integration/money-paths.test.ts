import { createHmac } from 'node:crypto';
import { DEV_CALLBACK_SECRET } from '../../sandbox/config';
import { api, call, createMerchant, eventually, getStack, pay, temporalClient, type Merchant } from './harness';

// Money paths on the real stack under faults and hostile input: the gateway sandbox's lost-answer drills,
// a forged but validly signed callback, refunds racing their SLA at a slow gateway, property-name keys,
// and a refund after the payment's workflow has closed.

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

const sandbox = async (path: string) => (await fetch(`${getStack().sandboxUrl}${path}`)).json() as Promise<any>;
const createIntent = async (amount = 2500) => (await api.post('/v202607/payment-intents', { amount, currency: 'EUR' }, m.secretKey)).body.payment_intent as string;
const intent = (id: string) => api.get(`/v202607/payment-intents/${id}`, m.secretKey);
const intentStatus = (id: string, status: string, timeoutMs = 30_000) =>
  eventually(async () => ((await intent(id)).body.status === status ? true : undefined), timeoutMs, `${id} ${status}`);
/** The gateway's captured charges of an intent, from the sandbox's own ledger. */
async function capturedCharges(id: string, attempts: number): Promise<string[]> {
  const captured: string[] = [];
  for (let n = 1; n <= attempts; n++) {
    const res = await fetch(`${getStack().sandboxUrl}/v1/charges?idempotency_key=${encodeURIComponent(`${id}:attempt:${n}`)}`);
    if (res.status !== 200) continue;
    const charge = await res.json();
    if (charge.status !== 'succeeded') continue;
    const refunds = await sandbox(`/v1/effects?kind=refund&idempotency_key=${encodeURIComponent(`${id}:void:${n}`)}`);
    if (!refunds.effects.some((e: { status: string }) => e.status === 'succeeded' || e.status === 'pending')) captured.push(charge.id);
  }
  return captured;
}

test('a charge captured at the gateway whose answer never arrives: the retry is refused, the capture is found, one capture stays', async () => {
  const id = await createIntent();
  const first = await pay(id, m.publishableKey, 'tok_capture_no_answer');
  // No answer is not a decline: the workflow asked the gateway by the attempt's key and found the capture.
  expect(first.status).toBe(200);
  expect(['success', 'pending']).toContain(first.body.status);
  const retry = await pay(id, m.publishableKey, 'tok_success');
  expect(retry.status).toBe(409);
  expect(['attempt_in_progress', 'payment_intent_unexpected_state']).toContain(retry.body.error.code);
  await intentStatus(id, 'success');
  expect(await capturedCharges(id, 2)).toHaveLength(1);
  const effects = await sandbox(`/v1/effects?kind=charge&idempotency_key=${encodeURIComponent(`${id}:attempt:1`)}`);
  expect(effects.count).toBe(1); // the charge call was retried under the same key: still one charge
}, 60_000);

test('a charge that reaches the gateway late: not found, the customer pays with another card, the late capture is refunded', async () => {
  const id = await createIntent();
  const first = await pay(id, m.publishableKey, 'tok_late_arrival');
  expect(first.body).toMatchObject({ status: 'failed', failure_code: 'processing_error' });
  expect((await pay(id, m.publishableKey, 'tok_success')).body.status).toBe('success');
  // The first request reaches the gateway after all and is captured; the workflow gives it back.
  const voided = await eventually(async () => {
    const r = await sandbox(`/v1/effects?kind=refund&idempotency_key=${encodeURIComponent(`${id}:void:1`)}`);
    return r.count === 1 ? r.effects[0] : undefined;
  }, 40_000, 'the late capture refunded');
  expect(['pending', 'succeeded']).toContain(voided.status);
  expect(await capturedCharges(id, 2)).toHaveLength(1);
  expect((await intent(id)).body.status).toBe('success');
}, 90_000);

test('a forged but validly signed "succeeded" callback for an open 3DS charge leaves the intent pending', async () => {
  const id = await createIntent();
  const challenged = await pay(id, m.publishableKey, 'tok_3ds');
  expect(challenged.body.status).toBe('requires_action');
  const chargeId = new URL(challenged.body.next_action.url).pathname.split('/').pop()!;
  const body = JSON.stringify({ kind: 'charge', data: { object: 'charge', id: chargeId, status: 'succeeded', reference: id } });
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac('sha256', DEV_CALLBACK_SECRET).update(`${t}.${body}`).digest('hex')}`;
  const posted = await call('POST', `/callbacks/sandbox/${id}`, { rawBody: body, headers: { 'content-type': 'application/json', 'sandbox-signature': signature } });
  expect(posted.status).toBe(200);
  // The workflow asks the gateway, which still has the charge waiting for 3DS: nothing changes.
  const client = await temporalClient();
  await eventually(async () => {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const events = history.events ?? [];
    const signaledAt = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
    const askedAfter = events.slice(signaledAt + 1).some((e) => e.activityTaskCompletedEventAttributes && events.some((s) => s.eventId?.toString() === e.activityTaskCompletedEventAttributes!.scheduledEventId?.toString() && s.activityTaskScheduledEventAttributes?.activityType?.name === 'chargeStatus'));
    return signaledAt >= 0 && askedAfter ? true : undefined;
  }, 15_000, 'the workflow asked the gateway');
  expect((await intent(id)).body.status).toBe('pending');
  await client.connection.close();
});

test('refunds racing a slow gateway and a 1 s SLA, retried at once: the gateway never executes more than was captured', async () => {
  const figures: string[] = [];
  await Promise.all(
    Array.from({ length: 5 }, async (_, i) => {
      const id = await createIntent(1000);
      expect((await pay(id, m.publishableKey)).body.status).toBe('success');
      // ...97: the sandbox takes the refund at once, executes it a second later and answers after three.
      const first = await api.post('/v202607/refunds', { payment_intent: id, amount: 997, currency: 'EUR', refund_sla_timeout: 1 }, m.secretKey);
      expect(first.status).toBe(201);
      const ids = [first.body.refund as string];
      // The merchant retries as soon as the first reads canceled, until the balance admits it or is spent.
      await eventually(async () => ((await api.get(`/v202607/refunds/${ids[0]}`, m.secretKey)).body.status !== 'pending' ? true : undefined), 20_000);
      const retried = await eventually(async () => {
        const r = await api.post('/v202607/refunds', { payment_intent: id, amount: 997, currency: 'EUR', idempotency_key: `retry-${id}` }, m.secretKey);
        if (r.status === 201) return r;
        const firstNow = (await api.get(`/v202607/refunds/${ids[0]}`, m.secretKey)).body.status;
        return firstNow === 'success' && r.body.error?.code === 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT' ? r : undefined;
      }, 30_000, 'a retry admitted, or the first refund standing as success');
      if (retried.status === 201) ids.push(retried.body.refund);
      // Let every refund reach its final state at the gateway, then add up what it executed.
      const executed = await eventually(async () => {
        let sum = 0;
        for (const re of ids) {
          const g = await sandbox(`/v1/refunds?idempotency_key=${re}`);
          if (g.status === 'pending') return undefined;
          if (g.status === 'succeeded') sum += g.amount;
        }
        return sum;
      }, 30_000, 'refunds final at the gateway');
      expect(executed).toBeLessThanOrEqual(1000);
      figures.push(`run ${i + 1}: ${ids.length} refund(s), executed ${executed} of 1000 captured`);
    }),
  );
  process.stdout.write(`[money-paths] refund SLA race: ${figures.join('; ')}\n`);
}, 120_000);

test('refund idempotency keys that are property names work like any other key', async () => {
  const id = await createIntent(1000);
  expect((await pay(id, m.publishableKey)).body.status).toBe('success');
  for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const first = await api.post('/v202607/refunds', { payment_intent: id, amount: 100, currency: 'EUR', idempotency_key: `${key}` }, m.secretKey);
    expect(first.status).toBe(201);
    const again = await api.post('/v202607/refunds', { payment_intent: id, amount: 100, currency: 'EUR', idempotency_key: `${key}` }, m.secretKey);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ refund: first.body.refund, resource_created: false });
  }
}, 30_000);

test('a refund after the payment workflow has closed reopens it from the stored balance', async () => {
  const id = await createIntent(1000);
  expect((await pay(id, m.publishableKey)).body.status).toBe('success');
  const early = await api.post('/v202607/refunds', { payment_intent: id, amount: 300, currency: 'EUR' }, m.secretKey);
  await eventually(async () => ((await api.get(`/v202607/refunds/${early.body.refund}`, m.secretKey)).body.status === 'success' ? true : undefined));
  // The refund window ends (stood in for by closing the workflow): the balance lives on in MongoDB.
  const client = await temporalClient();
  await client.workflow.getHandle(id).terminate('refund window over (test)');
  const late = await api.post('/v202607/refunds', { payment_intent: id, amount: 700, currency: 'EUR' }, m.secretKey);
  expect(late.status).toBe(201);
  expect(late.body.refundable_amount_left).toBe(0);
  const over = await api.post('/v202607/refunds', { payment_intent: id, amount: 1, currency: 'EUR' }, m.secretKey);
  expect(over.status).toBe(400);
  expect(over.body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
  await client.workflow.getHandle(id).terminate('test done').catch(() => undefined);
  await client.connection.close();
}, 60_000);
