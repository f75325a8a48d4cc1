import { api, createMerchant, eventually, pay, temporalClient } from './harness';
import { intentStateQuery } from '../../workflows/payment-intent/messages';

// API -> Temporal -> worker -> gateway sandbox -> MongoDB, on the real servers.
test('a payment intent is created, paid and read back through every layer', async () => {
  const m = await createMerchant();
  const created = await api.post('/v202607/payment-intents', { amount: 2500, currency: 'eur', metadata: { order: '42' } }, m.secretKey);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: 'pending', amount: 2500, currency: 'EUR', resource_created: true });
  const id: string = created.body.payment_intent;
  expect(id).toMatch(/^pi_eu_[0-9A-Za-z]{20,}$/);

  const attempt = await pay(id, m.publishableKey);
  expect(attempt.status).toBe(200);
  expect(attempt.body).toEqual({ payment_intent: id, status: 'success' });

  const read = await eventually(async () => {
    const r = await api.get(`/v202607/payment-intents/${id}`, m.secretKey);
    return r.body.status === 'success' ? r : undefined;
  });
  expect(read.body).toMatchObject({ payment_intent: id, status: 'success', amount: 2500, currency: 'EUR' });

  const client = await temporalClient();
  const state = await client.workflow.getHandle(id).query(intentStateQuery);
  expect(state).toMatchObject({ status: 'success', amount_paid: 2500, refundable_amount_left: 2500 });
  await client.connection.close();
});
