import { connectMongo } from '../../platform/mongo';
import { createMerchant, getStack, withMitClaim, type Merchant } from './harness';
import { clockBilling } from './billing-clock';

// POST /v202607/invoices/{id}/pay promises one new charge however many requests: pays of one invoice that come
// while one is being decided are answered with its outcome, on the real stack, counted at the sandbox gateway. A
// declining card is the case that matters: a success leaves nothing to pay, but a decline leaves the invoice as
// payable as before, so each waiting request used to charge the card again.

let m: Merchant;

beforeAll(async () => {
  m = await withMitClaim(await createMerchant());
});

const { post, get, nextSeq, clockAt, customerWithCard, advance, invoicesOf } = clockBilling(() => m, 'paybursts');

async function plan(): Promise<string> {
  const p = await post('/plans', { amount: 1000, currency: 'EUR', interval: 'month', nickname: `Burst plan ${nextSeq()}` });
  expect(p.status).toBe(201);
  return p.body.plan;
}

/** The charges the sandbox made for an invoice: those of every intent the invoice was charged through. */
async function chargesOfInvoice(invoice: string): Promise<string[]> {
  const db = await connectMongo(getStack().mongoUri);
  let intents: string[];
  try {
    intents = (await db.c.paymentIntents.find({ 'metadata.invoice': invoice }).toArray()).map((i) => i._id);
  } finally {
    await db.close();
  }
  const effects = ((await (await fetch(`${getStack().sandboxUrl}/v1/effects?kind=charge`)).json()) as { effects: { idempotency_key: string }[] }).effects;
  return effects.map((e) => e.idempotency_key).filter((key) => intents.some((pi) => key.startsWith(`${pi}:attempt:`)));
}

const burst = (invoice: string, n = 8) => Promise.all(Array.from({ length: n }, () => post(`/invoices/${invoice}/pay`, {})));

/**
 * How many charges a burst made, from its answers: each charge's answer is shared by every pay that joined it, so
 * the answers fall into as many groups as charges. The requests leave together, but a loaded machine can deliver
 * one after the first charge was answered, and that one is a retry, charged anew: at most two groups are allowed.
 * Before the join, each of the eight was a charge of its own.
 */
function joinedCharges(bodies: { attempt_count: number }[]): number {
  const groups = new Map<number, unknown[]>();
  for (const b of bodies) groups.set(b.attempt_count, [...(groups.get(b.attempt_count) ?? []), b]);
  for (const same of groups.values()) for (const b of same) expect(b).toEqual(same[0]);
  expect(groups.size).toBeLessThanOrEqual(2);
  return groups.size;
}

describe('a burst of pays of an invoice whose card declines', () => {
  test('an uncollectible invoice: eight requests at once make one charge and answer the same; a pay after that is charged anew', async () => {
    const clock = await clockAt('2026-07-01T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm, trial_period_days: 1, dunning: { retry_days: [1] } });
    expect(created.status).toBe(201);
    await advance(clock, '2026-07-03T00:00:01Z');
    const inv = (await invoicesOf(created.body.subscription))[1];
    expect(inv).toMatchObject({ status: 'uncollectible', attempt_count: 2 });
    expect(await chargesOfInvoice(inv.invoice)).toHaveLength(2);

    const answers = await burst(inv.invoice);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const made = joinedCharges(answers.map((r) => r.body));
    expect(answers[0]!.body).toMatchObject({ status: 'uncollectible', last_payment_error: { code: 'insufficient_funds' } });
    expect(await chargesOfInvoice(inv.invoice)).toHaveLength(2 + made);
    expect((await get(`/subscriptions/${created.body.subscription}`)).body.status).toBe('canceled');

    // Answered: asking again is a retry, one more charge.
    const again = await post(`/invoices/${inv.invoice}/pay`, {});
    expect([again.status, again.body.attempt_count]).toEqual([200, 3 + made]);
    expect(await chargesOfInvoice(inv.invoice)).toHaveLength(3 + made);
  }, 120_000);

  test("an incomplete subscription's open first invoice: eight requests at once make one charge and answer the same", async () => {
    const clock = await clockAt('2026-07-05T00:00:00Z');
    const { customer, pm } = await customerWithCard(clock, 'tok_mit_declines');
    const created = await post('/subscriptions', { customer, items: [{ plan: await plan() }], default_payment_method: pm });
    expect([created.status, created.body.status]).toEqual([201, 'incomplete']);
    const [first] = await invoicesOf(created.body.subscription);
    expect(first).toMatchObject({ status: 'open', attempt_count: 1 });

    const answers = await burst(first.invoice);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const made = joinedCharges(answers.map((r) => r.body));
    expect(answers[0]!.body).toMatchObject({ status: 'open' });
    expect(await chargesOfInvoice(first.invoice)).toHaveLength(1 + made);
    expect((await get(`/subscriptions/${created.body.subscription}`)).body.status).toBe('incomplete');
  }, 120_000);
});
