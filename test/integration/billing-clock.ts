import { api, eventually, type Merchant } from './harness';

// What the billing tests on test clocks share: a clock, a customer on it with a card saved by a customer-present
// payment, advancing the clock until its renewals have run, and a subscription's invoices oldest first.

export const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The helpers for the merchant `merchant()` answers (set in a beforeAll), customers' references starting `ref`. */
export function clockBilling(merchant: () => Merchant, ref: string) {
  const post = (path: string, body: unknown) => api.post(`/v202607${path}`, body, merchant().secretKey);
  const get = (path: string) => api.get(`/v202607${path}`, merchant().secretKey);
  let seq = 0;
  const nextSeq = () => ++seq;

  async function clockAt(time: string): Promise<string> {
    const c = await post('/test-clocks', { frozen_time: at(time) });
    expect(c.status).toBe(201);
    return c.body.test_clock;
  }

  /** A customer on `clock` with a card saved by a customer-present payment made with `token`. */
  async function customerWithCard(clock: string, token = 'tok_success'): Promise<{ customer: string; pm: string }> {
    const m = merchant();
    const c = await post('/customers', { reference: `${ref}-${Date.now()}-${nextSeq()}`, test_clock: clock });
    expect(c.status).toBe(201);
    const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: c.body.customer, setup_future_usage: 'off_session' }, m.secretKey);
    expect(intent.status).toBe(201);
    const paid = await api.post(`/v202607/payment-intents/${intent.body.payment_intent}/attempts`, { token, save_payment_method: true }, m.publishableKey);
    expect(paid.body.status).toBe('success');
    return { customer: c.body.customer, pm: paid.body.payment_method_uuid };
  }

  async function advance(clock: string, time: string): Promise<void> {
    const r = await post(`/test-clocks/${clock}/advance`, { frozen_time: at(time) });
    expect(r.status).toBe(200);
    if (r.body.status !== 'ready') await eventually(async () => ((await get(`/test-clocks/${clock}`)).body.status === 'ready' ? true : undefined), 120_000, 'the clock to be ready');
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- invoices as the API answers them
  async function invoicesOf(sub: string): Promise<any[]> {
    const r = await get(`/invoices?subscription=${sub}&limit=100`);
    expect(r.status).toBe(200);
    return [...r.body.data].reverse(); // oldest first
  }

  return { post, get, nextSeq, clockAt, customerWithCard, advance, invoicesOf };
}
