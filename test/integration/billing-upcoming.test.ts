import { createMerchant, eventually, withMitClaim, type Merchant } from './harness';
import { at, clockBilling } from './billing-clock';

// The next invoice as the preview (`POST /v202607/invoices/create-preview`) and the billing portal state it, held
// against the invoice the subscription's workflow then really makes, on test clocks: canceled at the period's
// end (a final invoice of the pending prorations alone, or none), the customer's credit balance applied, and
// collection paused (no invoice until the renewal after `resumes_at`). The portal's cancel step says what the
// period's end will still charge.

let m: Merchant;
beforeAll(async () => {
  m = await withMitClaim(await createMerchant('Upcoming shop'));
});

const { post, get, nextSeq, clockAt, customerWithCard, advance, invoicesOf } = clockBilling(() => m, 'upcoming');

async function plan(amount: number, nickname: string): Promise<string> {
  const p = await post('/plans', { amount, currency: 'EUR', interval: 'month', nickname: `${nickname} ${nextSeq()}` });
  expect(p.status).toBe(201);
  return p.body.plan;
}


const figures = (i: Record<string, unknown>) => ({
  lines: (i.lines as { amount: number; proration: boolean }[]).map((l) => [l.amount, l.proration]),
  subtotal: i.subtotal,
  tax: i.tax,
  total: i.total,
  applied_balance: i.applied_balance,
  amount_due: i.amount_due,
  period_start: i.period_start,
});

test("canceled at the period's end: the preview is the final invoice of the prorations alone, credit applied, and the portal's cancel step says it will be charged", async () => {
  const clock = await clockAt('2026-04-01T00:00:00Z');
  const { customer, pm } = await customerWithCard(clock);
  const vat = (await post('/tax-rates', { percentage: 20, inclusive: false, display_name: 'VAT' })).body.tax_rate;
  const basic = await plan(1000, 'Basic');
  const pro = await plan(2500, 'Pro');
  const sub = (await post('/subscriptions', { customer, items: [{ plan: basic }], default_payment_method: pm, default_tax_rates: [vat] })).body;
  const item = sub.items[0].item;

  // Nothing pending: canceled at the period's end, it makes no further invoice.
  const session = (await post('/billing-portal/sessions', { customer })).body;
  const cancelPage = `${session.url}/subscriptions/${sub.subscription}/cancel`;
  expect(await (await fetch(cancelPage)).text()).toContain('You will not be charged again.');
  await post(`/subscriptions/${sub.subscription}`, { cancel_at_period_end: true });
  const none = await post('/invoices/create-preview', { subscription: sub.subscription });
  expect([none.status, none.body.error?.code]).toEqual([404, 'invoice_upcoming_none']);
  await post(`/subscriptions/${sub.subscription}`, { cancel_at_period_end: false });

  // Half the period used, then a switch to Pro kept for the next invoice: +(25.00 − 10.00) × 15/30 = 7.50, 9.00 with VAT.
  await advance(clock, '2026-04-16T00:00:00Z');
  expect((await post(`/subscriptions/${sub.subscription}`, { items: [{ item, plan: pro }], proration_behavior: 'create_prorations' })).status).toBe(200);
  const renewal = (await post('/invoices/create-preview', { subscription: sub.subscription })).body;
  expect(renewal).toMatchObject({ total: 3900, amount_due: 3900 });
  // The overview's price is what a period of Pro costs the customer: 25.00 and its VAT.
  expect(await (await fetch(session.url)).text()).toContain('30.00 EUR every month');

  // The cancel step says what the period's end will still charge, in every language.
  const pages = await Promise.all(['en', 'fr', 'ar'].map(async (lg) => (await fetch(`${cancelPage}?lg=${lg}`)).text()));
  expect(pages[0]).toContain('On 1 May 2026 you will be charged 9.00 EUR for the changes made to it this period, and then not again.');
  expect(pages[0]).not.toContain('You will not be charged again.');
  expect(pages[1]).toContain('vous serez débité de 9.00 EUR');
  expect(pages[2]).toContain('\u20689.00 EUR\u2069');

  // 5.00 of credit on the customer's balance (a credit note of the first invoice), used first by the next invoice.
  const [first] = await invoicesOf(sub.subscription);
  expect((await post('/credit-notes', { invoice: first.invoice, amount: 500 })).status).toBe(201);
  await eventually(async () => ((await get(`/customers/${customer}/credit-balance`)).body.balances[0]?.credit === 500 ? true : undefined), 30_000, 'the credit on the balance');
  expect((await post(`/subscriptions/${sub.subscription}`, { cancel_at_period_end: true })).body.cancel_at_period_end).toBe(true);
  const preview = (await post('/invoices/create-preview', { subscription: sub.subscription })).body;
  expect(figures(preview)).toEqual({ lines: [[-500, true], [1250, true]], subtotal: 750, tax: 150, total: 900, applied_balance: 500, amount_due: 400, period_start: at('2026-04-01T00:00:00Z') });
  expect(preview.next_payment_attempt).toBe(at('2026-05-01T00:00:00Z'));

  await advance(clock, '2026-05-01T00:00:01Z');
  const invoices = await invoicesOf(sub.subscription);
  expect(invoices).toHaveLength(2);
  expect(figures(invoices[1])).toEqual(figures(preview));
  expect(invoices[1]).toMatchObject({ status: 'paid', amount_paid: 400 });
  expect((await get(`/subscriptions/${sub.subscription}`)).body.status).toBe('canceled');
}, 180_000);

test('collection paused: no invoice until the renewal at or after resumes_at, as the preview says; with no resume date, none', async () => {
  const clock = await clockAt('2026-04-01T00:00:00Z');
  const { customer, pm } = await customerWithCard(clock);
  const sub = (await post('/subscriptions', { customer, items: [{ plan: await plan(1000, 'Box') }], default_payment_method: pm })).body;
  expect((await post(`/subscriptions/${sub.subscription}`, { pause_collection: { behavior: 'void' } })).body.status).toBe('paused');
  const none = await post('/invoices/create-preview', { subscription: sub.subscription });
  expect([none.status, none.body.error?.code]).toEqual([404, 'invoice_upcoming_none']);

  // Resumes on 15 May: the 1 May renewal invoices nothing, the 1 June one is the next invoice.
  await post(`/subscriptions/${sub.subscription}`, { pause_collection: { behavior: 'void', resumes_at: at('2026-05-15T00:00:00Z') } });
  const preview = (await post('/invoices/create-preview', { subscription: sub.subscription })).body;
  expect(preview).toMatchObject({ period_start: at('2026-06-01T00:00:00Z'), period_end: at('2026-07-01T00:00:00Z'), next_payment_attempt: at('2026-06-01T00:00:00Z'), total: 1000 });
  await advance(clock, '2026-05-01T00:00:01Z');
  expect(await invoicesOf(sub.subscription)).toHaveLength(1);
  await advance(clock, '2026-06-01T00:00:01Z');
  const invoices = await invoicesOf(sub.subscription);
  expect(invoices).toHaveLength(2);
  expect(figures(invoices[1])).toEqual(figures(preview));
}, 180_000);
