import type { Client } from '@temporalio/client';
import type { AppDeps, AuthContext } from '../../api/deps';
import { addCustomerCredit, drawCustomerCredit } from '../../api/credit-notes/balance';
import { createCreditNote } from '../../api/credit-notes/service';
import { notAnswered } from '../../api/http/workflow-calls';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { api, apiDeps, createMerchant, eventually, getStack, temporalClient, withMethod, withMitClaim, type Merchant } from './harness';

// Credit notes on the real stack: against a paid invoice, refunded to the card through the refund workflow
// or credited to the customer's balance, drawing with the invoice intent's refunds on one balance; the
// balance is used first by the customer's next invoice. An idempotency key names one credit note.

let m: Merchant;
let db: Mongo;
let temporal: Client;
beforeAll(async () => {
  m = await withMitClaim(await createMerchant());
  db = await connectMongo(getStack().mongoUri);
  temporal = await temporalClient();
});
afterAll(async () => {
  await db?.close();
  await temporal?.connection.close();
});

const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const post = (path: string, body: unknown) => api.post(`/v202607${path}`, body, m.secretKey);
const get = (path: string) => api.get(`/v202607${path}`, m.secretKey);

let seq = 0;
/** A customer on a clock with a saved card, subscribed to a monthly 10.00 EUR plan: its first invoice paid. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the invoice as the API answers it
async function paidInvoice(start = '2026-02-01T00:00:00Z'): Promise<{ clock: string; customer: string; sub: string; invoice: any }> {
  const clock = (await post('/test-clocks', { frozen_time: at(start) })).body.test_clock;
  const c = await post('/customers', { reference: `cn-${Date.now()}-${++seq}`, test_clock: clock });
  const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: c.body.customer, setup_future_usage: 'off_session' }, m.secretKey);
  const paid = await api.post(`/v202607/payment-intents/${intent.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
  const plan = await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month' });
  const sub = await post('/subscriptions', { customer: c.body.customer, items: [{ plan: plan.body.plan }], default_payment_method: paid.body.payment_method_uuid });
  expect(sub.body.status).toBe('active');
  const invoice = (await get(`/invoices/${sub.body.latest_invoice}`)).body;
  expect(invoice.status).toBe('paid');
  return { clock, customer: c.body.customer, sub: sub.body.subscription, invoice };
}

test('a credit note to the balance is spent from the invoice intent, and the next invoice uses the credit first', async () => {
  const { clock, customer, sub, invoice } = await paidInvoice();
  const cn = await post('/credit-notes', { invoice: invoice.invoice, amount: 300, reason: 'order_change' });
  expect(cn.status).toBe(201);
  expect(cn.body).toMatchObject({ credit_note: expect.stringMatching(/^cn_eu_/), object: 'credit_note', invoice: invoice.invoice, amount: 300, refund: null, credit_to_balance: 300, status: 'issued' });
  // The customer lives on a test clock: the note is stamped with the clock's time, as its invoice is.
  expect(cn.body.created).toBe(at('2026-02-01T00:00:00Z'));
  expect((await get(`/credit-notes/${cn.body.credit_note}`)).body.created).toBe(at('2026-02-01T00:00:00Z'));
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([{ currency: 'EUR', credit: 300 }]);
  // One balance with refunds: 1000 paid, 300 credited, so 700 is left to refund.
  const tooMuch = await post('/refunds', { payment_intent: invoice.payment_intent, amount: 701, currency: 'EUR' });
  expect(tooMuch.body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
  const refund = await post('/refunds', { payment_intent: invoice.payment_intent, amount: 700, currency: 'EUR' });
  expect(refund.status).toBe(201);
  // No refund asked for (a credit to the balance): the message says what limit the note passed, in its own terms.
  expect((await post('/credit-notes', { invoice: invoice.invoice, amount: 1 })).body.error).toMatchObject({
    code: 'credit_note_amount_too_large',
    param: 'amount',
    message: `Credit note amount 1 exceeds the 0 left to credit on invoice ${invoice.invoice}: the 1000 it paid, less its earlier credit notes and the refunds of its payment`,
  });

  expect((await post(`/test-clocks/${clock}/advance`, { frozen_time: at('2026-03-01T00:00:01Z') })).status).toBe(200);
  await eventually(async () => ((await get(`/test-clocks/${clock}`)).body.status === 'ready' ? true : undefined), 60_000, 'the clock');
  const renewal = (await get(`/invoices?subscription=${sub}`)).body.data[0];
  expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', total: 1000, applied_balance: 300, amount_due: 700, amount_paid: 700, status: 'paid' });
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([{ currency: 'EUR', credit: 0 }]);
}, 120_000);

test('a credit note with refund: true returns the money through a refund of the invoice intent', async () => {
  const { invoice } = await paidInvoice();
  const line = invoice.lines[0].line;
  const body = { invoice: invoice.invoice, lines: [{ invoice_line: line, amount: 400 }], refund: true, idempotency_key: `cn-${Date.now()}` };
  const cn = await post('/credit-notes', body);
  expect(cn.status).toBe(201);
  expect(cn.body).toMatchObject({ amount: 400, lines: [{ invoice_line: line, amount: 400 }], refund: expect.stringMatching(/^re_eu_/), credit_to_balance: 0 });
  const refund = await eventually(async () => {
    const r = await get(`/refunds/${cn.body.refund}`);
    return r.body.status === 'success' ? r.body : undefined;
  }, 30_000, 'the refund to succeed');
  expect(refund).toMatchObject({ payment_intent: invoice.payment_intent, amount: 400 });
  expect((await get(`/credit-notes/${cn.body.credit_note}`)).body).toMatchObject({ refund: cn.body.refund, refund_status: 'success' });
  // The same idempotency key answers the same credit note, and refunds nothing more.
  const again = await post('/credit-notes', body);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ credit_note: cn.body.credit_note, refund: cn.body.refund });
  expect((await get(`/refunds?payment_intent=${invoice.payment_intent}`)).body.data).toEqual([expect.objectContaining({ refund: cn.body.refund, amount: 400 })]);
  const listed = await get(`/credit-notes?invoice=${invoice.invoice}`);
  expect(listed.body.data.map((c: { credit_note: string }) => c.credit_note)).toEqual([cn.body.credit_note]);
  expect((await post('/credit-notes', { invoice: invoice.invoice, lines: [{ invoice_line: line, amount: 1001 }] })).body.error.code).toBe('credit_note_amount_too_large');
}, 120_000);

test("a deleted customer's invoice can be credited only back to the card: its balance can no longer be spent", async () => {
  const { customer, invoice } = await paidInvoice();
  expect((await api.del(`/v202607/customers/${customer}`, m.secretKey)).status).toBe(200);
  const toBalance = await post('/credit-notes', { invoice: invoice.invoice, amount: 300 });
  expect([toBalance.status, toBalance.body.error?.code, toBalance.body.error?.param]).toEqual([400, 'customer_deleted', 'refund']);
  // Nothing was drawn from the payment: the whole of it can still go back to the card.
  const refunded = await post('/credit-notes', { invoice: invoice.invoice, amount: invoice.amount_paid, refund: true });
  expect([refunded.status, refunded.body.amount, refunded.body.credit_to_balance]).toEqual([201, invoice.amount_paid, 0]);
}, 120_000);

test('a credit note whose refund the gateway refused says so (refund_status canceled), and its amount can be credited again', async () => {
  // Before, such a note read like any issued one, and the notes of the invoice added up to more than it was paid.
  const { invoice } = await paidInvoice();
  const refused = await post('/credit-notes', { invoice: invoice.invoice, amount: 498, refund: true }); // the sandbox rejects ...98
  expect(refused.status).toBe(201);
  await eventually(async () => ((await get(`/refunds/${refused.body.refund}`)).body.status === 'canceled' ? true : undefined), 30_000, 'the refund refused');
  expect((await get(`/credit-notes/${refused.body.credit_note}`)).body).toMatchObject({ status: 'issued', refund_status: 'canceled' });
  const listed = (await get(`/credit-notes?invoice=${invoice.invoice}`)).body.data;
  expect(listed.map((n: { refund_status: string | null }) => n.refund_status)).toEqual(['canceled']);
  const again = await post('/credit-notes', { invoice: invoice.invoice, amount: invoice.amount_paid });
  expect([again.status, again.body.credit_to_balance, again.body.refund_status]).toEqual([201, invoice.amount_paid, null]);
}, 120_000);

test('credit notes by line are held to what is left of each line, across notes (a refused refund gives its line back)', async () => {
  // Before, each note was checked against the whole line: three notes of 1000 on one line of 1000 were all taken.
  const clock = (await post('/test-clocks', { frozen_time: at('2026-02-01T00:00:00Z') })).body.test_clock;
  const c = await post('/customers', { reference: `cn-lines-${Date.now()}-${++seq}`, test_clock: clock });
  const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer: c.body.customer, setup_future_usage: 'off_session' }, m.secretKey);
  const card = (await api.post(`/v202607/payment-intents/${intent.body.payment_intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey)).body.payment_method_uuid;
  const [tea, cups] = [(await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month' })).body.plan, (await post('/plans', { amount: 500, currency: 'EUR', interval: 'month' })).body.plan];
  const sub = await post('/subscriptions', { customer: c.body.customer, items: [{ plan: tea }, { plan: cups }], default_payment_method: card });
  const invoice = (await get(`/invoices/${sub.body.latest_invoice}`)).body;
  const teaLine = invoice.lines.find((l: { amount: number }) => l.amount === 1000).line as string;
  const note = (amount: number, refund = false) => post('/credit-notes', { invoice: invoice.invoice, lines: [{ invoice_line: teaLine, amount }], refund });
  expect((await note(800)).status).toBe(201);
  const over = await note(300); // 700 of the payment is left, but only 200 of the line
  expect([over.status, over.body.error?.code, over.body.error?.param]).toEqual([400, 'credit_note_amount_too_large', 'lines[0][amount]']);
  expect(over.body.error.message).toContain('at most 200 is left');
  const refused = await note(198, true); // the sandbox rejects refunds ending ...98: this note returns nothing
  expect(refused.status).toBe(201);
  await eventually(async () => ((await get(`/refunds/${refused.body.refund}`)).body.status === 'canceled' ? true : undefined), 30_000, 'the refund refused');
  expect((await note(200)).status).toBe(201);
  expect((await note(1)).body.error?.code).toBe('credit_note_amount_too_large');
}, 120_000);

test('billing lists refuse a filter id of the wrong shape, as every other list does, rather than answer an empty page', async () => {
  for (const [path, param] of [
    ['/credit-notes?invoice=junk', 'invoice'],
    ['/credit-notes?customer=in_eu_0123456789abcdef', 'customer'],
    ['/invoices?customer=junk', 'customer'],
    ['/invoices?subscription=cus_eu_0123456789abcdef', 'subscription'],
    ['/subscriptions?customer=junk', 'customer'],
  ] as const) {
    const r = await get(path);
    expect([path, r.status, r.body.error?.code, r.body.error?.param]).toEqual([path, 400, 'parameter_invalid', param]);
  }
  expect((await get('/invoices?customer=cus_eu_0123456789abcdef')).body.data).toEqual([]);
});

test('refusals: an invoice not paid, another tenant', async () => {
  const { customer, invoice } = await paidInvoice();
  const other = await createMerchant();
  const theirs = await api.post('/v202607/credit-notes', { invoice: invoice.invoice, amount: 100 }, other.secretKey);
  expect([theirs.status, theirs.body.error]).toEqual([400, expect.objectContaining({ code: 'resource_missing', param: 'invoice' })]);
  // An open invoice (its first charge declined: the subscription is incomplete) is not credited.
  const intent = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', customer, setup_future_usage: 'off_session' }, m.secretKey);
  const card = await api.post(`/v202607/payment-intents/${intent.body.payment_intent}/attempts`, { token: 'tok_mit_declines', save_payment_method: true }, m.publishableKey);
  const plan = await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month' });
  const sub = await post('/subscriptions', { customer, items: [{ plan: plan.body.plan }], default_payment_method: card.body.payment_method_uuid });
  expect(sub.body.status).toBe('incomplete');
  const open = await post('/credit-notes', { invoice: sub.body.latest_invoice, amount: 100 });
  expect([open.status, open.body.error]).toEqual([400, expect.objectContaining({ code: 'invoice_not_paid', param: 'invoice' })]);
  const none = await post('/credit-notes', { invoice: invoice.invoice });
  expect(none.body.error).toMatchObject({ code: 'parameter_missing', param: 'amount' });
}, 120_000);

test("a refund's idempotency_key of the credit notes' own shape (`credit_note:<cn_ id>`) is refused on a refund, and a merchant's key on both draws afresh", async () => {
  const { customer, invoice } = await paidInvoice();
  const k = `cn-key-${Date.now()}`;
  // The exact shape of the service's own keys is refused on a refund; before, such a refund's id was answered for
  // the credit note's admission, and 1000 was credited with 100 held. Only that shape: `credit_note:<k>` is a key.
  const shaped = await post('/refunds', { payment_intent: invoice.payment_intent, amount: 100, currency: 'EUR', idempotency_key: `credit_note:cn_eu_${Date.now()}` });
  expect([shaped.status, shaped.body.error?.param]).toEqual([400, 'idempotency_key']);
  // The merchant's own key k on a refund, then on a credit note: two things, each drawing on the balance.
  expect((await post('/refunds', { payment_intent: invoice.payment_intent, amount: 100, currency: 'EUR', idempotency_key: k })).status).toBe(201);
  const tooMuch = await post('/credit-notes', { invoice: invoice.invoice, amount: 1000, idempotency_key: k });
  expect([tooMuch.status, tooMuch.body.error]).toEqual([400, expect.objectContaining({ code: 'credit_note_amount_too_large', param: 'amount' })]);
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([]);
  // A refused request gives its key back: the same key for what is left makes a credit note of its own.
  const cn = await post('/credit-notes', { invoice: invoice.invoice, amount: 900, idempotency_key: k });
  expect([cn.status, cn.body]).toEqual([201, expect.objectContaining({ credit_note: expect.stringMatching(/^cn_eu_/), amount: 900, credit_to_balance: 900 })]);
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([{ currency: 'EUR', credit: 900 }]);
  const more = await post('/refunds', { payment_intent: invoice.payment_intent, amount: 1, currency: 'EUR' });
  expect(more.body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
}, 120_000);

/** The API's deps, but an Update the intent's workflow applies is answered as not in time: a 503 after the deadline. */
function answerLost(deps: AppDeps): AppDeps {
  const workflow = deps.temporal.workflow;
  const getHandle = (id: string) => {
    const handle = workflow.getHandle(id);
    return Object.assign(Object.create(handle) as typeof handle, {
      executeUpdate: async (...args: Parameters<typeof handle.executeUpdate>) => {
        await handle.executeUpdate(...args);
        throw notAnswered();
      },
    });
  };
  const lossy = Object.assign(Object.create(workflow) as typeof workflow, { getHandle });
  return { ...deps, temporal: Object.assign(Object.create(deps.temporal) as Client, { workflow: lossy }) };
}

test('a credit note admitted but never answered loses nothing: the intent issued and credited it; its key answers it, and with another amount or destination is refused', async () => {
  const { customer, invoice } = await paidInvoice();
  const body = { invoice: invoice.invoice, amount: 300, idempotency_key: `cn-lost-${Date.now()}` };
  const auth: AuthContext = { tenantId: m.tenant, region: 'eu', keyKind: 'secret', claims: [] };
  await expect(createCreditNote(answerLost(apiDeps(db, temporal)), auth, body)).rejects.toMatchObject({ code: 'service_unavailable' });
  // The intent issued the note it admitted, and credited it, before it answered: the lost answer lost nothing.
  const [issued] = (await get(`/credit-notes?invoice=${invoice.invoice}`)).body.data;
  expect(issued).toMatchObject({ amount: 300, refund: null, credit_to_balance: 300, status: 'issued' });
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([{ currency: 'EUR', credit: 300 }]);
  // Before: each was answered with the first admission's id, and its own amount credited with 300 held.
  for (const other of [{ ...body, amount: 1000 }, { ...body, refund: true }]) {
    const r = await post('/credit-notes', other);
    expect([r.status, r.body.error]).toEqual([400, expect.objectContaining({ code: 'idempotency_key_in_use', param: 'idempotency_key' })]);
  }
  const again = await post('/credit-notes', body);
  expect([again.status, again.body]).toEqual([200, expect.objectContaining({ credit_note: issued.credit_note, amount: 300, refund: null, credit_to_balance: 300 })]);
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([{ currency: 'EUR', credit: 300 }]);
  // Held once: 700 is left to refund.
  expect((await post('/refunds', { payment_intent: invoice.payment_intent, amount: 701, currency: 'EUR' })).body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
  // Once issued, the key still answers only this note.
  expect((await post('/credit-notes', { ...body, amount: 299 })).body.error.code).toBe('idempotency_key_in_use');
  expect((await post('/credit-notes', body)).body).toMatchObject({ credit_note: again.body.credit_note, amount: 300 });
}, 120_000);

test('credit notes whose requests died once their amounts were admitted are issued by the intent: the credit lands, the refund is named', async () => {
  const { customer, invoice } = await paidInvoice();
  const auth: AuthContext = { tenantId: m.tenant, region: 'eu', keyKind: 'secret', claims: [] };
  // The API process stops right after each admission: it never issues its note, nor credits the balance.
  const stops = withMethod(db, 'creditNotes', 'updateOne', () => async () => {
    throw new Error('the API process stopped here');
  });
  for (const body of [{ invoice: invoice.invoice, amount: 250 }, { invoice: invoice.invoice, amount: 150, refund: true }])
    await expect(createCreditNote(apiDeps(stops, temporal), auth, body)).rejects.toThrow('stopped here');
  // Before, neither was ever issued (no key to finish them with) and the 250 never reached the balance.
  const notes = (await get(`/credit-notes?invoice=${invoice.invoice}`)).body.data;
  expect(notes).toHaveLength(2);
  expect(notes).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ amount: 250, refund: null, credit_to_balance: 250, status: 'issued' }),
      expect.objectContaining({ amount: 150, refund: expect.stringMatching(/^re_eu_/), credit_to_balance: 0, status: 'issued' }),
    ]),
  );
  expect((await get(`/customers/${customer}/credit-balance`)).body.balances).toEqual([{ currency: 'EUR', credit: 250 }]);
  // Each held once: 1000 - 250 - 150 leaves 600 to refund.
  expect((await post('/refunds', { payment_intent: invoice.payment_intent, amount: 601, currency: 'EUR' })).body.error.code).toBe('REFUND_RQST_AMT_GREATER_THAN_TX_AMT');
  expect((await post('/refunds', { payment_intent: invoice.payment_intent, amount: 600, currency: 'EUR' })).status).toBe(201);
}, 120_000);

test("a credit draw retried after its first try emptied the balance gets what that try took: the customer's credit is not lost", async () => {
  const deps = apiDeps(db, temporal);
  const who = { tenantId: m.tenant, customer: `cus_eu_draw${Date.now()}`, currency: 'EUR' };
  expect(await addCustomerCredit(deps, { ...who, key: 'cn_eu_drawtest', amount: 500 })).toBe(500);
  await eventually(async () => ((await db.c.customerBalances.findOne({ tenant_id: who.tenantId, customer: who.customer } as never))?.credit === 500 ? true : undefined), 10_000, 'the balance written');
  const draw = { ...who, key: 'in_eu_drawtest', max: 2000 };
  expect(await drawCustomerCredit(deps, draw)).toBe(500);
  await eventually(async () => ((await db.c.customerBalances.findOne({ tenant_id: who.tenantId, customer: who.customer } as never))?.credit === 0 ? true : undefined), 10_000, 'the draw written');
  // The invoice's activity retried (the first answer lost): the record reads 0, the balance's workflow remembers 500.
  expect(await drawCustomerCredit(deps, draw)).toBe(500);
  // A new invoice finds nothing left.
  expect(await drawCustomerCredit(deps, { ...draw, key: 'in_eu_drawtest2' })).toBe(0);
});

test('a credit or draw sent again after its balance run ended (idle for an hour) applies nothing twice: the record keeps every change by key', async () => {
  const deps = apiDeps(db, temporal);
  const who = { tenantId: m.tenant, customer: `cus_eu_idle${Date.now()}`, currency: 'EUR' };
  expect(await addCustomerCredit(deps, { ...who, key: 'cn_eu_idletest', amount: 400 })).toBe(400);
  expect(await drawCustomerCredit(deps, { ...who, key: 'in_eu_idletest', max: 150 })).toBe(150);
  // The run ends as an idle one does (its writes are done before each answer); the next change starts a new run.
  const handle = temporal.workflow.getHandle(`customer-balance:${who.customer}:EUR`);
  await handle.terminate('idle close, for the test');
  expect(await addCustomerCredit(deps, { ...who, key: 'cn_eu_idletest', amount: 400 })).toBe(250);
  expect(await drawCustomerCredit(deps, { ...who, key: 'in_eu_idletest', max: 150 })).toBe(150);
  expect((await db.c.customerBalances.findOne({ tenant_id: who.tenantId, customer: who.customer } as never))?.credit).toBe(250);
});
