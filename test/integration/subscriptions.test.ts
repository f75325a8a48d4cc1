import { WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import { subscriptionCreateBody, type SubscriptionCreateBody } from '../../api/subscriptions/schemas';
import { createSubscription } from '../../api/subscriptions/service';
import { actOnInvoice } from '../../api/invoices/service';
import { tenantAuth } from '../../api/deps';
import type { SubscriptionView } from '../../domain/billing/snapshots';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { api, apiDeps, createMerchant, eventually, getStack, markCustomerDeletedOnly, startHookReceiver, temporalClient, withMethod, withMitClaim, withWinnerTakenBack, withWorkflowCall, type HookReceiver, type Merchant } from './harness';
import { at, clockBilling } from './billing-clock';

// Recurring billing on the real stack, in clock time: customers on test clocks, subscriptions whose renewals,
// charges (merchant-initiated, through each invoice's payment intent), dunning and events run when the clock
// is advanced.

let m: Merchant;
/** The tenant's first secret key, which has no claims. */
let claimless: string;
let hooks: HookReceiver;

beforeAll(async () => {
  const made = await createMerchant();
  claimless = made.secretKey;
  m = await withMitClaim(made);
  hooks = await startHookReceiver();
});
afterAll(() => hooks.close());

const iso = (s: number) => new Date(s * 1000).toISOString();
/** The sandbox gateway's effects of a kind (every charge it made, with its idempotency key and status). */
const sandboxEffects = async (kind: string): Promise<{ idempotency_key: string; status: string }[]> =>
  ((await (await fetch(`${getStack().sandboxUrl}/v1/effects?kind=${kind}`)).json()) as { effects: { idempotency_key: string; status: string }[] }).effects;
const { post, get, nextSeq, clockAt, customerWithCard, advance, invoicesOf } = clockBilling(() => m, 'sub');

async function plan(body: Record<string, unknown> = {}): Promise<string> {
  const p = await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month', nickname: `Plan ${nextSeq()}`, ...body });
  expect(p.status).toBe(201);
  return p.body.plan;
}

const webhooks = () => [{ url: hooks.url, events: ['subscription.created', 'subscription.updated', 'subscription.canceled', 'invoice.created', 'invoice.paid', 'invoice.payment_failed'] }];

describe('a monthly subscription started on 31 January', () => {
  test('is paid at once, then renews on the last day of shorter months: a year on the clock runs twelve renewals', async () => {
    const clock = await clockAt('2026-01-31T10:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, webhooks: webhooks() });
    expect(created.status).toBe(201);
    const sub = created.body;
    expect(sub).toMatchObject({ object: 'subscription', status: 'active', current_period_start: at('2026-01-31T10:00:00Z'), current_period_end: at('2026-02-28T10:00:00Z'), test_clock: clock });
    const [first] = await invoicesOf(sub.subscription);
    expect(first).toMatchObject({ status: 'paid', billing_reason: 'subscription_create', total: 1000, amount_paid: 1000, attempt_count: 1, payment_intent: expect.stringMatching(/^pi_eu_/) });
    expect(sub.latest_invoice).toBe(first.invoice);
    // The invoice's charge is a merchant-initiated charge of the saved card on its own intent.
    const intent = await api.get(`/v202608/payment-intents/${first.payment_intent}`, m.secretKey);
    expect(intent.body).toMatchObject({ status: 'success', amount: 1000, payment_method: pm });

    // A year, a month at a time (one advance goes at most two intervals of the subscription).
    const began = Date.now();
    const firsts = ['03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map((mm) => `2026-${mm}-01T00:00:00Z`);
    for (const time of [...firsts, '2027-01-01T00:00:00Z', '2027-01-31T10:00:01Z']) await advance(clock, time);
    process.stdout.write(`a year on the clock in 12 advances (12 renewals, each invoiced, charged and announced): ${Date.now() - began} ms\n`);
    const invoices = await invoicesOf(sub.subscription);
    expect(invoices).toHaveLength(13);
    expect(invoices.every((i) => i.status === 'paid' && i.amount_paid === 1000)).toBe(true);
    expect(invoices.slice(1).map((i) => iso(i.period_start).slice(0, 10))).toEqual([
      '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31',
      '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2026-12-31', '2027-01-31',
    ]);
    const now = await get(`/subscriptions/${sub.subscription}`);
    expect(now.body).toMatchObject({ status: 'active', current_period_start: at('2027-01-31T10:00:00Z'), current_period_end: at('2027-02-28T10:00:00Z'), latest_invoice: invoices[12].invoice });
    // Every invoice paid was announced to the subscription's endpoint, in the v202607 envelope.
    await eventually(async () => (hooks.of('invoice.paid').filter((d) => d.body.data.subscription === sub.subscription).length === 13 ? true : undefined), 60_000, '13 invoice.paid deliveries');
    const paid = hooks.of('invoice.paid').find((d) => d.body.data.invoice === invoices[1].invoice)!;
    expect(paid.body).toMatchObject({ id: expect.stringMatching(/^evt_eu_/), type: 'invoice.paid', created_at: expect.any(String), data: { status: 'paid', amount_paid: 1000 } });
    expect(hooks.of('subscription.created').some((d) => d.body.data.subscription === sub.subscription)).toBe(true);
  }, 240_000);
});

describe('dunning', () => {
  test('a renewal that keeps failing is retried 3 more times over 7 days, the subscription past_due, then canceled', async () => {
    const clock = await clockAt('2026-03-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, trial_period_days: 14, webhooks: webhooks() });
    expect(created.status).toBe(201);
    const id = created.body.subscription;
    expect(created.body).toMatchObject({ status: 'trialing', trial_end: at('2026-03-15T00:00:00Z'), current_period_end: at('2026-03-15T00:00:00Z') });
    expect((await invoicesOf(id))[0]).toMatchObject({ status: 'paid', total: 0, amount_paid: 0 });

    await advance(clock, '2026-03-15T00:00:01Z');
    expect((await get(`/subscriptions/${id}`)).body).toMatchObject({ status: 'past_due', current_period_start: at('2026-03-15T00:00:00Z'), current_period_end: at('2026-04-15T00:00:00Z') });
    const failing = (await invoicesOf(id))[1];
    expect(failing).toMatchObject({ status: 'open', attempt_count: 1, amount_due: 1000, next_payment_attempt: at('2026-03-16T00:00:00Z'), last_payment_error: { code: 'insufficient_funds' } });

    await advance(clock, '2026-03-20T00:00:00Z');
    expect((await get(`/invoices/${failing.invoice}`)).body).toMatchObject({ status: 'open', attempt_count: 3, next_payment_attempt: at('2026-03-22T00:00:00Z') });

    await advance(clock, '2026-03-23T00:00:00Z');
    expect((await get(`/invoices/${failing.invoice}`)).body).toMatchObject({ status: 'uncollectible', attempt_count: 4, next_payment_attempt: null });
    expect((await get(`/subscriptions/${id}`)).body).toMatchObject({ status: 'canceled', ended_at: at('2026-03-22T00:00:00Z') });
    await eventually(async () => (hooks.of('invoice.payment_failed').filter((d) => d.body.data.invoice === failing.invoice).length === 4 ? true : undefined), 30_000, '4 payment_failed events');
    // Each of the 4 attempts charged the card (a retry seconds after the last in real time, the clock's days
    // apart, is a new charge, not the same call answered with the last decline).
    const charges = (await sandboxEffects('charge')).filter((e) => e.idempotency_key.startsWith(`${failing.payment_intent}:attempt:`));
    expect(charges.map((e) => [e.idempotency_key, e.status]).sort()).toEqual([1, 2, 3, 4].map((n) => [`${failing.payment_intent}:attempt:${n}`, 'declined']));
    await eventually(async () => (hooks.of('subscription.canceled').some((d) => d.body.data.subscription === id) ? true : undefined), 30_000, 'subscription.canceled');
    // Ended: nothing more can change.
    expect((await post(`/subscriptions/${id}`, { cancel_at_period_end: true })).body.error.code).toBe('subscription_ended');
  }, 120_000);

  test('an uncollectible invoice is paid once the card works (one charge for concurrent requests; the subscription stays canceled), or voided', async () => {
    const clock = await clockAt('2026-06-01T00:00:00Z');
    const exhausted = async () => {
      const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
      const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, trial_period_days: 1, dunning: { retry_days: [1] } });
      expect(created.status).toBe(201);
      return { id: created.body.subscription as string, pm };
    };
    const a = await exhausted();
    const b = await exhausted();
    await advance(clock, '2026-06-03T00:00:01Z');
    const [ia, ib] = [(await invoicesOf(a.id))[1], (await invoicesOf(b.id))[1]];
    for (const [sub, inv] of [[a.id, ia], [b.id, ib]]) {
      expect(inv).toMatchObject({ status: 'uncollectible', attempt_count: 2 });
      expect((await get(`/subscriptions/${sub}`)).body.status).toBe('canceled');
    }
    // The customer's card works now: its saved token is a good card's (the issuer's side of "fixed their card").
    const good = await customerWithCard(clock);
    const db = await connectMongo(getStack().mongoUri);
    try {
      const token = (await db.c.savedPaymentMethods.findOne({ _id: good.pm }))!.gateway_token;
      await db.c.savedPaymentMethods.updateOne({ _id: a.pm }, { $set: { gateway_token: token } });
    } finally {
      await db.close();
    }
    // What a request reads that stalls until the pays below are done: the invoice uncollectible.
    const staleRead = await connectMongo(getStack().mongoUri);
    const stale = (await staleRead.c.invoices.findOne({ _id: ia.invoice, tenant_id: m.tenant }))!;
    // Those that came while the first was decided have its answer; any that came after it find the invoice paid.
    const answers = await Promise.all([0, 1, 2].map(() => post(`/invoices/${ia.invoice}/pay`, {})));
    const ok = answers.find((r) => r.status === 200)!.body;
    expect(ok).toMatchObject({ status: 'paid', amount_paid: 1000, amount_remaining: 0, attempt_count: 3, paid_at: at('2026-06-03T00:00:01Z') });
    for (const r of answers) expect(r.status === 200 ? r.body : [r.status, r.body.error.code]).toEqual(r.status === 200 ? ok : [409, 'invoice_not_open']);
    expect((await get(`/invoices/${ia.invoice}`)).body).toMatchObject({ status: 'paid', amount_paid: 1000, payment_intent: ok.payment_intent });
    // One charge: the invoice's new intent paid once, for its amount.
    const intent = await api.get(`/v202608/payment-intents/${ok.payment_intent}`, m.secretKey);
    expect(intent.body).toMatchObject({ status: 'success', amount: 1000 });
    expect(intent.body.payment_intent).not.toBe(ia.payment_intent);
    // Paid again: nothing left to collect. The subscription stays canceled, as Stripe's.
    expect((await post(`/invoices/${ia.invoice}/pay`, {})).body.error).toMatchObject({ code: 'invoice_not_open', message: expect.stringContaining('paid') });
    expect((await get(`/subscriptions/${a.id}`)).body.status).toBe('canceled');
    // The stalled request voids what it read after the paying run closed: refused, and the invoice stays paid (it
    // started a run that trusted its stale record, voided a paid invoice and gave its credit back).
    const temporal = await temporalClient();
    try {
      await expect(actOnInvoice(apiDeps(staleRead, temporal), tenantAuth(m.tenant, 'eu'), stale, 'void')).rejects.toMatchObject({ code: 'invoice_not_open' });
    } finally {
      await staleRead.close();
    }
    expect((await get(`/invoices/${ia.invoice}`)).body).toMatchObject({ status: 'paid', amount_paid: 1000 });

    const voided = await post(`/invoices/${ib.invoice}/void`, {});
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ status: 'void', amount_remaining: 0, voided_at: at('2026-06-03T00:00:01Z') });
    expect((await post(`/invoices/${ib.invoice}/pay`, {})).body.error.code).toBe('invoice_not_open');
  }, 120_000);

  test('a first invoice that fails leaves the subscription incomplete; 23 hours later it is incomplete_expired', async () => {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('incomplete');
    const [first] = await invoicesOf(created.body.subscription);
    expect(first).toMatchObject({ status: 'open', attempt_count: 1, next_payment_attempt: null });
    // Paying now tries again (and fails again with this card).
    const retried = await post(`/invoices/${first.invoice}/pay`, {});
    expect(retried.body).toMatchObject({ status: 'open', attempt_count: 2 });
    await advance(clock, '2026-05-02T00:00:00Z');
    expect((await get(`/subscriptions/${created.body.subscription}`)).body.status).toBe('incomplete_expired');
    expect((await get(`/invoices/${first.invoice}`)).body.status).toBe('void');
  }, 120_000);

  test('a key without the cards.mit claim cannot have a saved card charged: a create, a change of card or items and paying an invoice are 403; cancelling at the period end is not', async () => {
    const clock = await clockAt('2026-05-05T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const body = { customer, items: [{ plan: await plan() }], default_payment_method: pm };
    const refused = await api.post('/v202607/subscriptions', body, claimless);
    expect([refused.status, refused.body.error]).toEqual([403, expect.objectContaining({ type: 'permission_error', code: 'missing_claim' })]);
    expect((await get(`/subscriptions?customer=${customer}`)).body.data).toEqual([]);

    const sub = (await post('/subscriptions', body)).body;
    expect(sub.status).toBe('incomplete');
    for (const change of [{ default_payment_method: pm }, { items: [{ item: sub.items[0].item, plan: sub.items[0].plan, quantity: 5 }] }]) {
      const r = await api.post(`/v202607/subscriptions/${sub.subscription}`, change, claimless);
      expect([r.status, r.body.error?.code]).toEqual([403, 'missing_claim']);
    }
    const pay = await api.post(`/v202607/invoices/${sub.latest_invoice}/pay`, {}, claimless);
    expect([pay.status, pay.body.error?.code]).toEqual([403, 'missing_claim']);
    expect((await get(`/invoices/${sub.latest_invoice}`)).body.attempt_count).toBe(1);
    const kept = await api.post(`/v202607/subscriptions/${sub.subscription}`, { cancel_at_period_end: true }, claimless);
    expect([kept.status, kept.body.cancel_at_period_end]).toEqual([200, true]);
  }, 120_000);

  test('voiding the first invoice of an incomplete subscription expires it; a paid invoice cannot be voided', async () => {
    const clock = await clockAt('2026-05-03T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm });
    const [first] = await invoicesOf(created.body.subscription);
    // Its intent is the subscription's: canceled on its own (Stripe refuses it too), the invoice stayed open without one.
    for (const cancel of [api.post(`/v202607/payment-intents/${first.payment_intent}/cancel`, undefined, m.secretKey), api.put(`/payment-intents/${first.payment_intent}/cancel`, undefined, m.secretKey)]) {
      const r = await cancel;
      expect([r.status, r.body.error?.code]).toEqual([400, 'payment_intent_invoice_owned']);
    }
    const voided = await post(`/invoices/${first.invoice}/void`, {});
    expect(voided.body).toMatchObject({ invoice: first.invoice, status: 'void', voided_at: at('2026-05-03T00:00:00Z') });
    expect((await get(`/subscriptions/${created.body.subscription}`)).body.status).toBe('incomplete_expired');
    // Its intent is canceled with it.
    expect((await api.get(`/v202607/payment-intents/${first.payment_intent}`, m.secretKey)).body.status).toBe('canceled');
    expect((await post(`/invoices/${first.invoice}/void`, {})).body.error.code).toBe('invoice_not_open');

    const ok = await customerWithCard(clock);
    const paid = await post('/subscriptions', { customer: ok.customer, items: [{ plan: await plan() }], default_payment_method: ok.pm });
    expect([paid.status, paid.body.status]).toEqual([201, 'active']);
    for (const action of ['void', 'pay']) {
      const refused = await post(`/invoices/${paid.body.latest_invoice}/${action}`, {});
      expect([refused.status, refused.body.error.code]).toEqual([409, 'invoice_not_open']);
    }
    expect((await get(`/invoices/${paid.body.latest_invoice}`)).body).toMatchObject({ status: 'paid', attempt_count: 1 });
  }, 120_000);
});

describe('changes', () => {
  test('a plan switch mid-period is prorated to the minor unit; always_invoice charges it now', async () => {
    const clock = await clockAt('2026-04-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const basic = await plan({ amount: 3000 });
    const gold = await plan({ amount: 9000 });
    const created = await post('/subscriptions', { customer, items: [{ plan: basic }], default_payment_method: pm });
    const sub = created.body;
    await advance(clock, '2026-04-11T00:00:00Z'); // 10 of 30 days used: 20 days left
    const preview = await post('/invoices/create-preview', { subscription: sub.subscription, items: [{ item: sub.items[0].item, plan: gold }] });
    expect(preview.status).toBe(200);
    // Credit −3000 × 20/30 = −2000; charge 9000 × 20/30 = 6000; then the next period at 9000.
    expect(preview.body.lines.filter((l: { proration: boolean }) => l.proration).map((l: { amount: number }) => l.amount)).toEqual([-2000, 6000]);
    expect(preview.body.total).toBe(13_000);

    const changed = await post(`/subscriptions/${sub.subscription}`, { items: [{ item: sub.items[0].item, plan: gold }], proration_behavior: 'always_invoice' });
    expect(changed.status).toBe(200);
    expect(changed.body.items).toEqual([{ item: sub.items[0].item, plan: gold, quantity: 1 }]);
    const invoices = await invoicesOf(sub.subscription);
    expect(invoices[1]).toMatchObject({ billing_reason: 'subscription_update', status: 'paid', total: 4000, amount_paid: 4000 });

    // A quantity change with create_prorations goes on the next renewal invoice.
    await post(`/subscriptions/${sub.subscription}`, { items: [{ item: sub.items[0].item, plan: gold, quantity: 2 }] });
    await advance(clock, '2026-05-01T00:00:01Z');
    const renewal = (await invoicesOf(sub.subscription))[2];
    expect(renewal.lines.map((l: { amount: number }) => l.amount)).toEqual([18_000, -6000, 12_000]);
    expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', total: 24_000, status: 'paid' });
  }, 120_000);

  test('an item keeps its archived plan through a quantity change and its preview; an archived plan takes no new item or subscription', async () => {
    const clock = await clockAt('2026-04-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const base = await plan({ amount: 3000 });
    const addOn = await plan({ amount: 500 });
    const sub = (await post('/subscriptions', { customer, items: [{ plan: base }], default_payment_method: pm })).body;
    expect((await post(`/plans/${base}/archive`, {})).body.active).toBe(false);
    const item = sub.items[0].item;
    // Seats added to the item on the archived plan: as Stripe's, the existing item keeps its price.
    const preview = await post('/invoices/create-preview', { subscription: sub.subscription, items: [{ item, plan: base, quantity: 3 }] });
    expect(preview.status).toBe(200);
    const changed = await post(`/subscriptions/${sub.subscription}`, { items: [{ item, plan: base, quantity: 3 }, { plan: addOn }] });
    expect([changed.status, changed.body.items.map((i: { quantity: number }) => i.quantity)]).toEqual([200, [3, 1]]);
    // The archived plan on a new item, or another item switched to it, or a new subscription: refused.
    const addOnItem = changed.body.items[1].item;
    for (const items of [[{ item, plan: base, quantity: 3 }, { item: addOnItem, plan: addOn }, { plan: base }], [{ item, plan: base, quantity: 3 }, { item: addOnItem, plan: base }]]) {
      const r = await post(`/subscriptions/${sub.subscription}`, { items });
      expect([r.status, r.body.error?.code]).toEqual([400, 'plan_inactive']);
    }
    const fresh = await post('/subscriptions', { customer, items: [{ plan: base }], default_payment_method: pm });
    expect([fresh.status, fresh.body.error?.code]).toEqual([400, 'plan_inactive']);
  }, 120_000);

  test('a 50% coupon for 2 months and a 20% exclusive tax rate: taxed after the discount, the discount ends after two invoices', async () => {
    const clock = await clockAt('2026-06-15T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const coupon = await post('/coupons', { percent_off: 50, duration: 'repeating', duration_in_months: 2 });
    const tax = await post('/tax-rates', { percentage: 20, inclusive: false, display_name: 'VAT' });
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan({ amount: 1999 }) }], default_payment_method: pm, coupon: coupon.body.coupon, default_tax_rates: [tax.body.tax_rate] });
    expect(created.body.discount).toMatchObject({ coupon: coupon.body.coupon, end: at('2026-08-15T00:00:00Z') });
    await advance(clock, '2026-07-15T00:00:01Z');
    await advance(clock, '2026-08-15T00:00:01Z');
    const [one, two, three] = await invoicesOf(created.body.subscription);
    // 1999 − round(999.5) = 999; tax round(199.8) = 200.
    expect(one).toMatchObject({ subtotal: 1999, discount: 1000, tax: 200, total: 1199, amount_paid: 1199 });
    expect(two).toMatchObject({ discount: 1000, total: 1199 });
    expect(three).toMatchObject({ discount: 0, tax: 400, total: 2399 });
  }, 120_000);

  test('cancel at period end, pause and resume, cancel now', async () => {
    const clock = await clockAt('2026-07-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const s = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm })).body;
    expect((await post(`/subscriptions/${s.subscription}`, { pause_collection: { behavior: 'void' } })).body.status).toBe('paused');
    await advance(clock, '2026-08-01T00:00:01Z');
    expect(await invoicesOf(s.subscription)).toHaveLength(1); // nothing invoiced while paused
    expect((await post(`/subscriptions/${s.subscription}`, { pause_collection: null })).body.status).toBe('active');
    expect((await post(`/subscriptions/${s.subscription}`, { cancel_at_period_end: true })).body.cancel_at_period_end).toBe(true);
    await advance(clock, '2026-09-01T00:00:01Z');
    expect((await get(`/subscriptions/${s.subscription}`)).body).toMatchObject({ status: 'canceled', ended_at: at('2026-09-01T00:00:00Z') });

    const t = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm })).body;
    const canceled = await post(`/subscriptions/${t.subscription}/cancel`, {});
    expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: at('2026-09-01T00:00:01Z') });
    // Repeated: the same answer, the cancellation not dated again.
    expect((await post(`/subscriptions/${t.subscription}/cancel`, {})).body).toMatchObject({ status: 'canceled', canceled_at: canceled.body.canceled_at });
    // An ended subscription has no next invoice to preview, whether its closed workflow still answers or not.
    for (const ended of [s.subscription, t.subscription]) {
      const preview = await post('/invoices/create-preview', { subscription: ended });
      expect([preview.status, preview.body.error?.code]).toEqual([409, 'subscription_ended']);
    }
  }, 120_000);
});

describe('refusals', () => {
  test('unknown plan, plans of different intervals, a card of another customer, another tenant', async () => {
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const a = await customerWithCard(clock);
    const b = await customerWithCard(clock);
    const monthly = await plan();
    const yearly = await plan({ interval: 'year' });
    const priciest = await plan({ amount: 99_999_999_999 });
    const pricey = await plan({ amount: 60_000_000_000 });
    const base = { customer: a.customer, default_payment_method: a.pm };
    const refusals = [
      [{ ...base, items: [{ plan: 'plan_eu_00000000000000000000' }] }, { code: 'resource_missing', param: 'items[0][plan]' }],
      [{ ...base, items: [{ plan: monthly }, { plan: yearly }] }, { code: 'plans_mismatch', param: 'items[1][plan]' }],
      [{ ...base, default_payment_method: b.pm, items: [{ plan: monthly }] }, { code: 'payment_method_customer_mismatch', param: 'default_payment_method' }],
      // A rate listed twice was charged twice (and previewed once).
      [{ ...base, items: [{ plan: monthly }], default_tax_rates: ['txr_eu_00000000000000000001', 'txr_eu_00000000000000000001'] }, { code: 'parameter_invalid', param: 'default_tax_rates' }],
      // Past the largest amount a payment takes: a 500 before, or a workflow that could never invoice.
      [{ ...base, items: [{ plan: priciest, quantity: 100_000 }] }, { code: 'subscription_total_too_large', param: 'items[0][quantity]' }],
      [{ ...base, items: [{ plan: pricey }, { plan: pricey }] }, { code: 'subscription_total_too_large', param: 'items' }],
    ] as const;
    for (const [body, error] of refusals) {
      const r = await post('/subscriptions', body);
      expect([r.status, r.body.error]).toEqual([400, expect.objectContaining(error)]);
    }
    // A refused create makes nothing.
    expect((await get(`/subscriptions?customer=${a.customer}`)).body.data).toEqual([]);
    const other = await createMerchant();
    const mine = await post('/subscriptions', { ...base, items: [{ plan: monthly }] });
    expect(mine.status).toBe(201);
    const foreign = await api.get(`/v202607/subscriptions/${mine.body.subscription}`, other.secretKey);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'resource_missing']);
    // The same idempotency key answers the first subscription.
    const k = { ...base, items: [{ plan: monthly }], idempotency_key: `k-${Date.now()}` };
    const [x, y] = await Promise.all([post('/subscriptions', k), post('/subscriptions', k)]);
    expect(x.body.subscription).toBe(y.body.subscription);
    expect([x.status, y.status].sort()).toEqual([200, 201]);
  }, 120_000);
});

describe('an invoice past the largest amount a payment can take (99,999,999,999)', () => {
  const MAX = 99_999_999_999;

  test('a create whose invoice comes to more with its exclusive tax is a 400, with a trial too; at exactly the largest, or with inclusive tax, it is made and paid', async () => {
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const exclusive = (await post('/tax-rates', { percentage: 10, inclusive: false, display_name: 'VAT' })).body.tax_rate as string;
    const inclusive = (await post('/tax-rates', { percentage: 10, inclusive: true, display_name: 'VAT incl.' })).body.tax_rate as string;
    // 90,909,090,909 + round(9,090,909,090.9) = 100,000,000,000: one past the largest.
    const over = await plan({ amount: 90_909_090_909 });
    for (const extra of [{}, { trial_period_days: 7 }]) {
      const r = await post('/subscriptions', { customer, items: [{ plan: over }], default_payment_method: pm, default_tax_rates: [exclusive], ...extra });
      expect([r.status, r.body.error]).toEqual([400, expect.objectContaining({ code: 'subscription_total_too_large', param: 'items', message: expect.stringContaining('exclusive tax') })]);
    }
    expect((await get(`/subscriptions?customer=${customer}`)).body.data).toEqual([]);

    // 90,909,090,908 + round(9,090,909,090.8): exactly the largest.
    const largest = await post('/subscriptions', { customer, items: [{ plan: await plan({ amount: 90_909_090_908 }) }], default_payment_method: pm, default_tax_rates: [exclusive] });
    expect([largest.status, largest.body.status]).toEqual([201, 'active']);
    expect((await get(`/invoices/${largest.body.latest_invoice}`)).body).toMatchObject({ status: 'paid', tax: 9_090_909_091, total: MAX, amount_paid: MAX });
    // Inclusive tax is inside the price: it adds nothing to the total.
    const inside = await post('/subscriptions', { customer, items: [{ plan: await plan({ amount: MAX }) }], default_payment_method: pm, default_tax_rates: [inclusive] });
    expect([inside.status, inside.body.status]).toEqual([201, 'active']);
    expect((await get(`/invoices/${inside.body.latest_invoice}`)).body).toMatchObject({ status: 'paid', subtotal: MAX, total: MAX, amount_paid: MAX });
  }, 120_000);

  test('a change whose next invoice comes to more with the prorations pending is a 400 and changes nothing; invoiced now, or within the largest, it is made', async () => {
    // A 31-day period, changed an hour in: 2,674,800 of 2,678,400 s remain.
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const forty = (await post('/subscriptions', { customer, items: [{ plan: await plan({ amount: 40_000_000_000 }) }], default_payment_method: pm })).body;
    const thirty = (await post('/subscriptions', { customer, items: [{ plan: await plan({ amount: 30_000_000_000 }) }], default_payment_method: pm })).body;
    expect([forty.status, thirty.status]).toEqual(['active', 'active']);
    await advance(clock, '2026-01-01T01:00:00Z');

    // Two seats: 80,000,000,000 a period, but the next invoice adds −39,946,236,559 + 79,892,473,118 of prorations.
    const item = forty.items[0].item;
    const twoSeats = [{ item, plan: forty.items[0].plan, quantity: 2 }];
    const refused = await post(`/subscriptions/${forty.subscription}`, { items: twoSeats });
    expect([refused.status, refused.body.error]).toEqual([400, expect.objectContaining({ code: 'subscription_total_too_large', param: 'items', message: expect.stringContaining('119946236559') })]);
    expect((await get(`/subscriptions/${forty.subscription}`)).body.items).toEqual([{ item, plan: forty.items[0].plan, quantity: 1 }]);
    expect((await post('/invoices/create-preview', { subscription: forty.subscription })).body.total).toBe(40_000_000_000);
    // Invoiced now instead, the prorations are an invoice of their own, and the next one is the two seats alone.
    const now = await post(`/subscriptions/${forty.subscription}`, { items: twoSeats, proration_behavior: 'always_invoice' });
    expect(now.status).toBe(200);
    expect((await get(`/invoices/${now.body.latest_invoice}`)).body).toMatchObject({ billing_reason: 'subscription_update', status: 'paid', total: 39_946_236_559 });

    // Prorations already pending count too: two seats of 30e9 leave 29,959,677,420 pending (89,959,677,420 next),
    // and a third seat without prorations would make it 119,959,677,420.
    const seats = (quantity: number) => [{ item: thirty.items[0].item, plan: thirty.items[0].plan, quantity }];
    expect((await post(`/subscriptions/${thirty.subscription}`, { items: seats(2) })).status).toBe(200);
    const third = await post(`/subscriptions/${thirty.subscription}`, { items: seats(3), proration_behavior: 'none' });
    expect([third.status, third.body.error]).toEqual([400, expect.objectContaining({ code: 'subscription_total_too_large', message: expect.stringContaining('prorations pending') })]);
    // The renewals come to what the checks counted.
    await advance(clock, '2026-02-01T00:00:01Z');
    expect((await invoicesOf(thirty.subscription))[1]).toMatchObject({ billing_reason: 'subscription_cycle', status: 'paid', total: 89_959_677_420 });
    expect((await invoicesOf(forty.subscription))[2]).toMatchObject({ billing_reason: 'subscription_cycle', status: 'paid', total: 80_000_000_000 });
  }, 120_000);
});

describe('a same-key create whose concurrent winner took its record back', () => {
  test('answers 503 and leaves nothing; sent again, it makes the subscription', async () => {
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const key = `taken-back-${Date.now()}`;
    const body = subscriptionCreateBody.parse({ customer, items: [{ plan: await plan() }], default_payment_method: pm, idempotency_key: key });
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The other request with the key (the same id) inserts first; ours meets its record, which it then takes back.
      const race = withWinnerTakenBack(db, 'subscriptions');
      const auth = tenantAuth(m.tenant, 'eu');
      await expect(createSubscription(apiDeps(race.db, temporal), auth, body)).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
      expect(race.collided()).toBe(true);
      expect((await get(`/subscriptions?customer=${customer}`)).body.data).toEqual([]);
      const again = await post('/subscriptions', body);
      expect([again.status, again.body.status, again.body.customer]).toEqual([201, 'active', customer]);
      expect((await post('/subscriptions', body)).body.subscription).toBe(again.body.subscription);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }, 120_000);
});

describe('an idempotency_key used again', () => {
  test('with another customer, items, coupon, promotion code, card, tax rate or trial is a 400 idempotency_key_in_use; with the same ones, the subscription it made', async () => {
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const a = await customerWithCard(clock);
    const b = await customerWithCard(clock);
    const [p1, p2] = [await plan(), await plan({ amount: 2000 })];
    const coupon = (await post('/coupons', { percent_off: 10, duration: 'once' })).body.coupon as string;
    const promo = (await post('/promotion-codes', { coupon, code: `IDEM${nextSeq()}${Date.now()}` })).body.promotion_code as string;
    const tax = (await post('/tax-rates', { percentage: 20, inclusive: false, display_name: 'VAT' })).body.tax_rate as string;
    const first = { customer: a.customer, items: [{ plan: p1 }], default_payment_method: a.pm, idempotency_key: `idem-${Date.now()}` };
    const made = await post('/subscriptions', first);
    expect(made.status).toBe(201);

    const others = [
      { ...first, customer: b.customer, default_payment_method: b.pm },
      { ...first, items: [{ plan: p2 }] },
      { ...first, items: [{ plan: p1, quantity: 2 }] },
      { ...first, items: [{ plan: p1 }, { plan: p2 }] },
      { ...first, coupon },
      { ...first, promotion_code: promo },
      { ...first, default_payment_method: b.pm },
      { ...first, default_tax_rates: [tax] },
      { ...first, trial_period_days: 7 },
    ];
    for (const body of others) {
      const r = await post('/subscriptions', body);
      expect([r.status, r.body.error]).toEqual([400, expect.objectContaining({ code: 'idempotency_key_in_use', param: 'idempotency_key' })]);
    }
    // The same request (metadata and webhooks may differ) answers the subscription it made.
    const again = await post('/subscriptions', { ...first, items: [{ plan: p1, quantity: 1 }], metadata: { retry: 'yes' } });
    expect([again.status, again.body.subscription]).toEqual([200, made.body.subscription]);
    // Nothing was made or redeemed for the refused ones.
    expect((await get(`/subscriptions?customer=${b.customer}`)).body.data).toEqual([]);
    expect((await get(`/subscriptions?customer=${a.customer}`)).body.data.map((x: { subscription: string }) => x.subscription)).toEqual([made.body.subscription]);
    expect((await get(`/coupons/${coupon}`)).body.times_redeemed).toBe(0);
  }, 120_000);

  test('by concurrent creates with other plans: one is made, the same plan answers it, another plan is a 400', async () => {
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const plans = [await plan(), await plan({ amount: 2000 })];
    const key = `idem-race-${Date.now()}`;
    const asked = [0, 1, 0, 1, 0, 1].map((n) => plans[n]!);
    const answers = await Promise.all(asked.map((p) => post('/subscriptions', { customer, items: [{ plan: p }], default_payment_method: pm, idempotency_key: key })));
    const made = answers.filter((r) => r.status === 201);
    expect(made).toHaveLength(1);
    const winner = made[0]!.body;
    answers.forEach((r, n) => {
      if (r === made[0]) return;
      if (asked[n] === winner.items[0].plan) expect([r.status, r.body.subscription]).toEqual([200, winner.subscription]);
      else expect([r.status, r.body.error?.code]).toEqual([400, 'idempotency_key_in_use']);
    });
    expect((await get(`/subscriptions?customer=${customer}`)).body.data).toHaveLength(1);
  }, 120_000);

  test('by a concurrent create that inserted first with another coupon: a 400, and the coupon this one counted is given back', async () => {
    const clock = await clockAt('2026-01-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const p = await plan();
    const coupon = (await post('/coupons', { percent_off: 10, duration: 'once', max_redemptions: 5 })).body.coupon as string;
    const key = `idem-coupon-${Date.now()}`;
    const body = subscriptionCreateBody.parse({ customer, items: [{ plan: p }], default_payment_method: pm, coupon, idempotency_key: key });
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The interleaving, made exact: ours has counted its coupon (for the id the key names) when the other
      // request, without a coupon, makes the subscription; ours then meets its record.
      let theirs: { status: number; body: { subscription: string } } | null = null;
      const racing = withMethod(db, 'subscriptions', 'insertOne', (real) => async (doc: Parameters<typeof real.insertOne>[0]) => {
        theirs ??= await post('/subscriptions', { customer, items: [{ plan: p }], default_payment_method: pm, idempotency_key: key });
        return real.insertOne(doc);
      });
      await expect(createSubscription(apiDeps(racing, temporal), tenantAuth(m.tenant, 'eu'), body)).rejects.toMatchObject({ code: 'idempotency_key_in_use', param: 'idempotency_key' });
      expect(theirs!.status).toBe(201);
      expect((await get(`/subscriptions/${theirs!.body.subscription}`)).body.discount).toBeNull();
      await eventually(async () => ((await get(`/coupons/${coupon}`)).body.times_redeemed === 0 ? true : undefined), 15_000, 'the redemption given back');
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }, 120_000);
});

describe('deleting the customer', () => {
  test('cancels its subscriptions now: nothing renews or is charged after', async () => {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const live = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm })).body;
    const ended = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm })).body;
    expect((await post(`/subscriptions/${ended.subscription}/cancel`, {})).body.status).toBe('canceled');

    const r = await api.del(`/v202607/customers/${customer}`, m.secretKey);
    expect([r.status, r.body]).toEqual([200, { customer, deleted: true }]);
    expect((await get(`/subscriptions/${live.subscription}`)).body).toMatchObject({ status: 'canceled', canceled_at: at('2026-05-01T00:00:00Z') });
    await advance(clock, '2026-06-01T00:00:01Z');
    expect(await invoicesOf(live.subscription)).toHaveLength(1); // the first one, paid at create
  }, 120_000);

  /**
   * A create for `customer` whose `hook` runs a DELETE of that customer (`del`, to its answer) at an exact point of
   * the create: the interleaving the race leaves to chance, made exact.
   */
  async function createRacingDelete(customer: string, body: SubscriptionCreateBody, hook: (db: Mongo, del: () => Promise<void>) => Mongo) {
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      let deleted: number | null = null;
      const del = async () => {
        deleted ??= (await api.del(`/v202607/customers/${customer}`, m.secretKey)).status;
      };
      const made = await createSubscription(apiDeps(hook(db, del), temporal), tenantAuth(m.tenant, 'eu'), body).catch((err: unknown) => err);
      expect(deleted).toBe(200);
      return made;
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }

  test('deleted while a subscription is being created, after the create read it and before its record was inserted: a 400, and nothing of it stays', async () => {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const body = subscriptionCreateBody.parse({ customer, items: [{ plan: await plan() }], default_payment_method: pm });
    // The DELETE lists the customer's subscriptions before this one's record is there.
    const made = await createRacingDelete(customer, body, (db, del) =>
      withMethod(db, 'subscriptions', 'insertOne', (real) => async (doc: Parameters<typeof real.insertOne>[0]) => {
        await del();
        return real.insertOne(doc);
      }),
    );
    expect(made).toMatchObject({ kind: 'invalid_request', code: 'resource_missing', param: 'customer' });
    expect((await get(`/subscriptions?customer=${customer}`)).body.data).toEqual([]);
  }, 120_000);

  test('deleted while a subscription is being created, its record listed before its workflow started: the create cancels it, and is a 400', async () => {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const body = subscriptionCreateBody.parse({ customer, items: [{ plan: await plan() }], default_payment_method: pm });
    // The DELETE runs as the create's read of the customer right before the start is answered (still there): its
    // cancel finds the record but no workflow to stop, so it leaves it to the create.
    let reads = 0;
    const made = await createRacingDelete(customer, body, (db, del) =>
      withMethod(db, 'customers', 'findOne', (real) => async (...args: Parameters<typeof real.findOne>) => {
        const found = await real.findOne(...args);
        if (++reads === 2) await del();
        return found;
      }),
    );
    expect(made).toMatchObject({ kind: 'invalid_request', code: 'resource_missing', param: 'customer' });
    expect((await get(`/subscriptions?customer=${customer}`)).body.data.map((x: { status: string }) => x.status)).toEqual(['canceled']);
  }, 120_000);

  /** A customer on a clock at 1 May with an active monthly subscription, then marked deleted only. */
  async function subscribedThenMarkedDeleted() {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const s = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm })).body;
    await markCustomerDeletedOnly(m.tenant, customer);
    return { clock, customer, s };
  }

  test('a DELETE repeated after one that died part-way cancels them, and answers the same', async () => {
    const { customer, s } = await subscribedThenMarkedDeleted();
    expect((await get(`/subscriptions/${s.subscription}`)).body.status).toBe('active');

    for (let i = 0; i < 2; i++) {
      const r = await api.del(`/v202607/customers/${customer}`, m.secretKey);
      expect([r.status, r.body]).toEqual([200, { customer, deleted: true }]);
    }
    expect((await get(`/subscriptions/${s.subscription}`)).body.status).toBe('canceled');
  }, 120_000);

  test("a renewal never charges a deleted customer's card, even one deleted without its subscriptions", async () => {
    const { clock, s } = await subscribedThenMarkedDeleted();

    await advance(clock, '2026-06-01T00:00:01Z');
    const renewal = (await invoicesOf(s.subscription))[1];
    expect(renewal).toMatchObject({ status: 'open', amount_paid: 0, last_payment_error: { code: 'payment_method_detached' } });
    expect((await get(`/subscriptions/${s.subscription}`)).body.status).toBe('past_due');
  }, 120_000);
});

describe('deleting the test clock', () => {
  test('cancels its subscriptions now (their time never moves again); its customers stay, and cannot subscribe anew', async () => {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const s = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, webhooks: webhooks() })).body;
    expect(s.status).toBe('active');

    const r = await api.del(`/v202607/test-clocks/${clock}`, m.secretKey);
    expect([r.status, r.body]).toEqual([200, { test_clock: clock, deleted: true }]);
    const canceled = await eventually(async () => {
      const got = (await get(`/subscriptions/${s.subscription}`)).body;
      return got.status === 'canceled' ? got : undefined;
    }, 30_000, 'the subscription canceled');
    // Canceled at the clock's time, as a cancel now on it would be; announced like one.
    expect(canceled).toMatchObject({ canceled_at: at('2026-05-01T00:00:00Z'), ended_at: at('2026-05-01T00:00:00Z') });
    await eventually(async () => (hooks.of('subscription.canceled').some((d) => d.body.data.subscription === s.subscription) ? true : undefined), 30_000, 'subscription.canceled delivered');
    expect(await invoicesOf(s.subscription)).toHaveLength(1);
    // The customer stays; a new subscription on the deleted clock is refused.
    expect((await get(`/customers/${customer}`)).status).toBe(200);
    const again = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'resource_missing', param: 'customer' });
  }, 120_000);

  test('answers once its subscriptions are canceled and their open invoices void: a read right after sees them so', async () => {
    const clock = await clockAt('2026-07-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const s = (await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, trial_period_days: 1 })).body;
    await advance(clock, '2026-07-02T00:00:01Z');
    expect((await get(`/subscriptions/${s.subscription}`)).body.status).toBe('past_due');
    const open = (await invoicesOf(s.subscription))[1];
    expect(open.status).toBe('open');

    const r = await api.del(`/v202607/test-clocks/${clock}`, m.secretKey);
    expect([r.status, r.body]).toEqual([200, { test_clock: clock, deleted: true }]);
    expect((await get(`/subscriptions/${s.subscription}`)).body).toMatchObject({ status: 'canceled', ended_at: at('2026-07-02T00:00:01Z') });
    expect((await get(`/invoices/${open.invoice}`)).body).toMatchObject({ status: 'void', voided_at: at('2026-07-02T00:00:01Z') });
  }, 120_000);

  test('a subscription made while its clock is deleted (after the create read the clock) is canceled too', async () => {
    const clock = await clockAt('2026-05-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    const body = subscriptionCreateBody.parse({ customer, items: [{ plan: await plan() }], default_payment_method: pm });
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The interleaving, made exact: the clock is deleted right after the create found it ready, before the
      // subscription exists for the clock to list.
      let deleted = false;
      const racing = withMethod(db, 'testClocks', 'findOne', (real) => async (...args: Parameters<typeof real.findOne>) => {
        const found = await real.findOne(...args);
        if (!deleted) {
          deleted = true;
          expect((await api.del(`/v202607/test-clocks/${clock}`, m.secretKey)).status).toBe(200);
        }
        return found;
      });
      const auth = tenantAuth(m.tenant, 'eu');
      const made = await createSubscription(apiDeps(racing, temporal), auth, body);
      expect(deleted).toBe(true);
      expect(made.status).toBe(201);
      await eventually(async () => ((await get(`/subscriptions/${made.body.subscription}`)).body.status === 'canceled' ? true : undefined), 30_000, 'the subscription canceled');
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }, 120_000);
});

describe('a create repeated while the first is still making the subscription', () => {
  /** A customer on a fresh clock with a card, and a create of a monthly plan for it with its own idempotency_key. */
  async function aCreate() {
    const clock = await clockAt('2026-08-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock);
    return subscriptionCreateBody.parse({ customer, items: [{ plan: await plan() }], default_payment_method: pm, idempotency_key: `sub-repeat-${nextSeq()}-${Date.now()}` });
  }

  /** The first invoice's charges at the gateway: one for a subscription made once, however many creates. */
  const chargesOf = async (sub: { latest_invoice: string | null }) => {
    const invoice = (await get(`/invoices/${sub.latest_invoice}`)).body;
    return (await sandboxEffects('charge')).filter((e) => e.idempotency_key.startsWith(`${invoice.payment_intent}:`));
  };

  /**
   * The first create (made here, on `temporal`) with its workflow's start held until `meanwhile` has run: the
   * window between its record's insert and its start, when a repeat finds the record and no workflow yet.
   */
  async function firstHeldBeforeItsStart(body: SubscriptionCreateBody, meanwhile: () => Promise<unknown>) {
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      let held = false;
      const holding = withWorkflowCall(temporal, 'executeUpdateWithStart', (real) => (async (...args: Parameters<typeof real>) => {
        held = true;
        await meanwhile();
        return real(...args);
      }) as typeof real);
      const first = await createSubscription(apiDeps(db, holding), tenantAuth(m.tenant, 'eu'), body);
      expect(held).toBe(true);
      return first;
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }

  /** `temporal` whose handles' calls go through `wrap` (executeUpdate, describe): how a test watches or stands in for the workflow's answers. */
  function withHandleCalls(temporal: Client, wrap: (method: 'executeUpdate' | 'describe', real: () => Promise<unknown>) => Promise<unknown>): Client {
    const handles = (h: ReturnType<Client['workflow']['getHandle']>) =>
      new Proxy(h, {
        get: (t, p) => {
          if (p !== 'executeUpdate' && p !== 'describe') return Reflect.get(t, p, t);
          const real = (Reflect.get(t, p, t) as (...a: unknown[]) => Promise<unknown>).bind(t);
          return (...args: unknown[]) => wrap(p, () => real(...args));
        },
      });
    const workflow = new Proxy(temporal.workflow, {
      get: (w, p) => {
        if (p === 'getHandle') return (...args: Parameters<Client['workflow']['getHandle']>) => handles(w.getHandle(...args));
        const v = Reflect.get(w, p, w);
        return typeof v === 'function' ? v.bind(w) : v;
      },
    });
    return new Proxy(temporal, { get: (c, p) => (p === 'workflow' ? workflow : Reflect.get(c, p, c)) });
  }

  test('a burst of identical creates answers each the subscription as the first settled it (active, its first invoice named), or a 409 to retry: one subscription, one charge', async () => {
    for (let round = 0; round < 3; round++) {
      const body = await aCreate();
      const answers = await Promise.all(Array.from({ length: 8 }, () => post('/subscriptions', body)));
      const made = answers.filter((a) => a.status !== 409);
      expect(made.map((a) => a.status).sort((x, y) => y - x)).toEqual([201, ...Array<number>(made.length - 1).fill(200)]);
      const first = made.find((a) => a.status === 201)!.body;
      expect(first).toMatchObject({ status: 'active', latest_invoice: expect.stringMatching(/^in_eu_/) });
      for (const a of made) expect(a.body).toMatchObject({ subscription: first.subscription, status: 'active', latest_invoice: first.latest_invoice });
      for (const a of answers.filter((x) => x.status === 409)) {
        expect(a.body.error).toMatchObject({ code: 'idempotency_request_in_progress', param: 'idempotency_key' });
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect((await get(`/subscriptions?customer=${body.customer}`)).body.data).toHaveLength(1);
      expect(await chargesOf(first)).toHaveLength(1);
    }
  }, 180_000);

  test('a repeat that finds the record before the first started its workflow waits, and answers the subscription as the first does', async () => {
    const body = await aCreate();
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The repeat is let on until it has looked for the workflow and found none (or answered without it).
      let lookedInVain!: () => void;
      const looked = new Promise<void>((resolve) => (lookedInVain = resolve));
      const watched = withHandleCalls(temporal, (_, real) =>
        real().catch((err: unknown) => {
          if (err instanceof WorkflowNotFoundError) lookedInVain();
          throw err;
        }),
      );
      let repeat!: Promise<{ status: number; body: SubscriptionView }>;
      const first = await firstHeldBeforeItsStart(body, async () => {
        repeat = createSubscription(apiDeps(db, watched), tenantAuth(m.tenant, 'eu'), body);
        await Promise.race([looked, repeat]);
      });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ status: 'active', latest_invoice: expect.stringMatching(/^in_eu_/) });
      const again = await repeat;
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await chargesOf(first.body)).toHaveLength(1);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }, 120_000);

  test('a repeat whose wait for the first runs out is a 409 with Retry-After, never the half-made subscription; sent again after the first, it answers that subscription', async () => {
    const body = await aCreate();
    const db = await connectMongo(getStack().mongoUri);
    const temporal = await temporalClient();
    try {
      // The workflow never answers this repeat in time, as when the first's charge outlasts the wait.
      const late = withHandleCalls(temporal, async () => {
        throw new WorkflowUpdateRPCTimeoutOrCancelledError('Timeout or cancellation waiting for update');
      });
      let repeated: unknown;
      const first = await firstHeldBeforeItsStart(body, async () => {
        repeated = await createSubscription(apiDeps(db, late), tenantAuth(m.tenant, 'eu'), body).catch((err: unknown) => err);
      });
      expect(repeated).toMatchObject({ kind: 'conflict', code: 'idempotency_request_in_progress', param: 'idempotency_key', retryAfterSeconds: 2 });
      expect(first.body).toMatchObject({ status: 'active', latest_invoice: expect.stringMatching(/^in_eu_/) });
      // Sent again (sequentially, on the real API): the subscription as it stands.
      const again = await post('/subscriptions', body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  }, 120_000);
});
