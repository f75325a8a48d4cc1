import { MockActivityEnvironment } from '@temporalio/testing';
import { createGatewayActivities } from '../../activities/gateway-calls';
import { createGatewayRegistry } from '../../gateways/registry';
import { agreementIdFor, agreementScope } from '../../data/agreements';
import { connectMongo } from '../../platform/mongo';
import { signatureHeader } from '../../sandbox/callbacks';
import { admin, api, call, createMerchant, eventually, getStack, markCustomerDeletedOnly, mongo, temporalClient, type Merchant } from './harness';

// Saved cards charged with the customer absent (POST /cards/mit) on the real stack: the card saved by a
// customer-present payment, the claim, tenant and customer scope, the charge-once rule, 3DS recovery,
// declines, detached cards and agreements with the network transaction id the sandbox checks.

let m: Merchant;
let mitKey: string;

async function mitKeyOf(tenant: string): Promise<string> {
  const issued = await admin.post(`/admin/tenants/${tenant}/api-keys`, { claims: ['cards.mit'] });
  expect(issued.status).toBe(201);
  return issued.body.secret_key as string;
}

beforeAll(async () => {
  m = await createMerchant();
  mitKey = await mitKeyOf(m.tenant);
});

let seq = 0;
/** A customer-present payment that saves the card paid with `token`: the card and its customer. */
async function saveCard(token = 'tok_success', merchant = m): Promise<{ pm: string; customer: string; intent: string }> {
  const created = await api.post(
    '/v202608/payment-intents',
    { amount: 1500, currency: 'EUR', customer: { reference: `saver-${Date.now()}-${++seq}` }, setup_future_usage: 'off_session' },
    merchant.secretKey,
  );
  expect(created.status).toBe(201);
  const paid = await api.post(`/v202607/payment-intents/${created.body.payment_intent}/attempts`, { token, save_payment_method: true }, merchant.publishableKey);
  expect(paid.body).toMatchObject({ status: 'success', payment_method_uuid: expect.stringMatching(/^pm_eu_/) });
  return { pm: paid.body.payment_method_uuid, customer: created.body.customer, intent: created.body.payment_intent };
}

/** A pending intent for the customer, to be charged off-session. */
async function intentFor(customer: string | null, amount = 2500, merchant = m): Promise<string> {
  const r = await api.post('/v202607/payment-intents', { amount, currency: 'EUR', ...(customer ? { customer } : {}) }, merchant.secretKey);
  expect(r.status).toBe(201);
  return r.body.payment_intent;
}

const mit = (body: Record<string, unknown>, key = mitKey) => api.post('/cards/mit', body, key);
const charge = (intent: string, pm: string, agreementId = `agr-${Date.now()}-${++seq}`, type = 'RECURRING', key = mitKey) =>
  mit({ payment_intent_secret: intent, payment_method_uuid: pm, agreement_id: agreementId, agreement_type: type }, key);

/** Completes or fails a sandbox 3DS challenge as the cardholder's browser would submit it. */
const challenge = (url: string, action: 'complete' | 'fail') => fetch(url, { method: 'POST', body: new URLSearchParams({ action }), redirect: 'manual' });

const retrieve = (id: string) => api.get(`/v202608/payment-intents/${id}`, m.secretKey);
const sandbox = async (path: string) => (await fetch(`${getStack().sandboxUrl}${path}`)).json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** Charges the gateway made for an intent's attempt `n` (0 or 1: the key makes it once at most). */
const chargesOfAttempt = async (intent: string, n: number) =>
  (await sandbox(`/v1/effects?kind=charge&idempotency_key=${encodeURIComponent(`${intent}:attempt:${n}`)}`)).count as number;

describe('a saved card', () => {
  test('is charged off-session for a pending intent: 200 ok with a ti_ transaction, the intent paid through its workflow', async () => {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    const r = await charge(intent, pm);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 'ok', transaction_uuid: expect.stringMatching(/^ti_eu_/) });

    const got = await retrieve(intent);
    expect(got.body).toMatchObject({ status: 'success', payment_method: pm, connector: m.connector });
    const tx = await api.get(`/v202608/transactions/${r.body.transaction_uuid}`, m.secretKey);
    expect(tx.body).toMatchObject({
      transaction: r.body.transaction_uuid,
      kind: 'merchant_initiated',
      payment_intent: intent,
      status: 'succeeded',
      amount: 2500,
      currency: 'EUR',
      payment_method: pm,
      agreement: { agreement: expect.stringMatching(/^agr_eu_/), agreement_type: 'RECURRING' },
      connector: m.connector,
    });
    // The same events as any payment, naming the card; and it refunds like any payment.
    const success = await eventually(async () => {
      const events = await api.get('/v202607/events?type=payment.success&limit=100', m.secretKey);
      return events.body.data.find((e: { data: { payment_intent: string } }) => e.data.payment_intent === intent);
    });
    expect(success.data).toMatchObject({ status: 'success', payment_method: pm });
    const refund = await api.post('/v202607/refunds', { payment_intent: intent, amount: 1000, currency: 'EUR' }, m.secretKey);
    expect(refund.status).toBe(201);
  });

  test('the payment that saved it names the card on the v202608 retrieve and in its payment.success event', async () => {
    const { pm, intent } = await saveCard();
    expect((await retrieve(intent)).body).toMatchObject({ status: 'success', payment_method: pm, setup_future_usage: 'off_session' });
    const event = await eventually(async () => {
      const events = await api.get('/v202607/events?type=payment.success&limit=100', m.secretKey);
      return events.body.data.find((e: { data: { payment_intent: string } }) => e.data.payment_intent === intent);
    });
    expect(event.data.payment_method).toBe(pm);
  });

  test("its reusable gateway token is stored on the card and nowhere in the saving intent's workflow history", async () => {
    const { pm, intent } = await saveCard();
    const db = await mongo();
    const temporal = await temporalClient();
    try {
      const card = await db.db().collection('saved_payment_methods').findOne({ _id: pm as never });
      const token = card?.gateway_token as string;
      expect(token).toEqual(expect.any(String));
      // Every payload of the history (activity results, signals, inputs) as text: the stack runs no payload codec.
      const texts: string[] = [];
      const walk = (x: unknown): void => {
        if (x instanceof Uint8Array) texts.push(Buffer.from(x).toString('utf8'));
        else if (x && typeof x === 'object') for (const v of Object.values(x)) walk(v);
      };
      walk(await temporal.workflow.getHandle(intent).fetchHistory());
      expect(texts.join('\n')).toContain(pm); // the walk reads payloads: the card's id is in them
      expect(texts.join('\n')).not.toContain(token);
      // Kept aside only until the card was saved; the gateway's callback sent again later keeps no copy either.
      expect(await db.db().collection('charge_tokens').countDocuments({ token })).toBe(0);
      const paying = await db.db().collection('payment_intents').findOne({ _id: intent as never });
      const raw = JSON.stringify({ event_id: `evt_again_${Date.now()}`, kind: 'charge', created_at: new Date().toISOString(), data: { object: 'charge', id: paying?.gateway_charge_id, status: 'succeeded', reference: intent, setup_future_usage: true, card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 }, payment_method_token: token } });
      const secret = getStack().env.SANDBOX_CALLBACK_SECRET ?? 'sandbox-dev-callback-secret';
      const again = await call('POST', '/callbacks/sandbox/' + intent, { rawBody: raw, headers: { 'content-type': 'application/json', 'sandbox-signature': signatureHeader(secret, raw, Math.floor(Date.now() / 1000)) } });
      expect(again.status).toBe(200);
      expect(await db.db().collection('charge_tokens').countDocuments({ token })).toBe(0);
      // And the card charges off-session with it.
      expect((await charge(await intentFor(card!.customer as string), pm)).body.code).toBe('ok');
    } finally {
      await db.close();
      await temporal.connection.close();
    }
  });

  test('the older integer payment_intent_secret names the intent too', async () => {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    const older = await api.get(`/payment-intents/${intent}`, m.secretKey);
    expect(typeof older.body.payment_intent_secret).toBe('number');
    const r = await charge(String(older.body.payment_intent_secret), pm);
    expect(r.body.code).toBe('ok');
    expect((await retrieve(intent)).body.status).toBe('success');
  });
});

describe('charge once', () => {
  test('the same call retried charges once and answers the same transaction_uuid, even after success', async () => {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    const first = await charge(intent, pm, 'sub-42');
    const again = await charge(intent, pm, 'sub-42');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await chargesOfAttempt(intent, 1)).toBe(1);
    expect(await chargesOfAttempt(intent, 2)).toBe(0);
  });

  test('20 identical calls at once charge once and all answer the same transaction_uuid', async () => {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    const replies = await Promise.all(Array.from({ length: 20 }, () => charge(intent, pm, 'burst')));
    // A refusal shows its body: one 409 in 20 was seen once under a loaded full run and never reproduced alone.
    expect(replies.map((r) => (r.status === 200 ? 200 : { status: r.status, body: r.body }))).toEqual(Array(20).fill(200));
    expect(new Set(replies.map((r) => r.body.transaction_uuid)).size).toBe(1);
    expect(replies.every((r) => r.body.code === 'ok')).toBe(true);
    expect(await chargesOfAttempt(intent, 1)).toBe(1);
    expect(await chargesOfAttempt(intent, 2)).toBe(0);
  });

  test('another card for an intent already paid is a 409', async () => {
    const a = await saveCard();
    const b = await saveCard();
    const intent = await intentFor(null);
    expect((await charge(intent, a.pm)).body.code).toBe('ok');
    const other = await charge(intent, b.pm);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('payment_intent_unexpected_state');
  });
});

describe('refused charges', () => {
  test('a key without the cards.mit claim is 403 in the error shape', async () => {
    const { pm, customer } = await saveCard();
    const r = await charge(await intentFor(customer), pm, 'a', 'RECURRING', m.secretKey);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'missing_claim' });
  });

  test("another tenant's card or intent is a 404 naming the parameter", async () => {
    const other = await createMerchant();
    const otherKey = await mitKeyOf(other.tenant);
    const theirs = await saveCard('tok_success', other);
    const mine = await saveCard();
    const foreignCard = await charge(await intentFor(null), theirs.pm);
    expect(foreignCard.status).toBe(404);
    expect(foreignCard.body.error.param).toBe('payment_method_uuid');
    const foreignIntent = await charge(await intentFor(null, 100, other), mine.pm);
    expect(foreignIntent.status).toBe(404);
    expect(foreignIntent.body.error.param).toBe('payment_intent_secret');
    // and their own key charges their own card
    expect((await charge(await intentFor(theirs.customer, 100, other), theirs.pm, 'x', 'UNSCHEDULED', otherKey)).body.code).toBe('ok');
  });

  test("a card of another customer than the intent's is a 400", async () => {
    const a = await saveCard();
    const b = await saveCard();
    const r = await charge(await intentFor(b.customer), a.pm);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'payment_method_customer_mismatch', param: 'payment_method_uuid' });
  });

  test('a card the gateway issued no reusable token for is NO_GATEWAY_TOKENS', async () => {
    const { pm, customer } = await saveCard('tok_no_token');
    const intent = await intentFor(customer);
    const r = await charge(intent, pm);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'NO_GATEWAY_TOKENS', param: 'payment_method_uuid' });
    expect((await retrieve(intent)).body.status).toBe('pending');
  });

  /**
   * A card charged once, then gone (`goAway`): a new charge is refused as detached (of an intent of `nextFor`:
   * the customer, or none once deleted), while the charge it made before answers the same again.
   */
  async function refusedOnceGone(goAway: (customer: string, pm: string) => Promise<{ status: number }>, nextFor: (customer: string) => string | null) {
    const { pm, customer } = await saveCard();
    const paidBefore = await intentFor(customer);
    const first = await charge(paidBefore, pm, 'before-gone');
    expect((await goAway(customer, pm)).status).toBe(200);
    const r = await charge(await intentFor(nextFor(customer)), pm);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'payment_method_detached', param: 'payment_method_uuid' });
    expect((await charge(paidBefore, pm, 'before-gone')).body).toEqual(first.body);
  }

  test('a detached card cannot be charged, but the charge it already made answers the same', async () => {
    await refusedOnceGone((customer, pm) => api.del(`/v202608/customers/${customer}/payment-methods/${pm}`, m.secretKey), (customer) => customer);
  });

  test("a deleted customer's card is refused as a detached one; the charge it already made answers the same", async () => {
    await refusedOnceGone((customer) => api.del(`/v202607/customers/${customer}`, m.secretKey), () => null);
  });

  test('a card detached while its charge waited for the worker is not charged: the charge step refuses it on its first try, and only then', async () => {
    const { pm, customer } = await saveCard();
    expect((await api.del(`/v202608/customers/${customer}/payment-methods/${pm}`, m.secretKey)).status).toBe(200);
    const db = await connectMongo(getStack().mongoUri);
    try {
      const gateways = createGatewayRegistry({ sandboxUrl: getStack().sandboxUrl, sandboxCallbackSecret: 'unused', timeoutMs: 5000 });
      const activities = createGatewayActivities({ mongo: db, gateways, callbackBaseUrl: 'http://127.0.0.1:9' });
      const key = `detached-in-flight-${Date.now()}`;
      const req = { tenantId: m.tenant, connectorId: m.connector, token: '', amount: 1000, currency: 'EUR', idempotencyKey: key, returnUrl: 'https://shop.example/back', reference: 'pi_eu_detachedinflight', savedCard: pm, merchantInitiated: true };
      await expect(new MockActivityEnvironment({ attempt: 1 }).run(activities.charge, req)).rejects.toMatchObject({ type: 'payment_method_detached', nonRetryable: true });
      const charged = async () => (await sandbox(`/v1/effects?kind=charge&idempotency_key=${encodeURIComponent(key)}`)).count as number;
      expect(await charged()).toBe(0);
      // A retry: its first try may have reached the gateway, so it goes through with the same key.
      expect(((await new MockActivityEnvironment({ attempt: 2 }).run(activities.charge, req)) as { status: string }).status).toBe('succeeded');
      expect(await charged()).toBe(1);
    } finally {
      await db.close();
    }
  });

  test('a card of a customer deleted before its cards were detached with it is refused too', async () => {
    const { pm, customer } = await saveCard();
    // Deleted as a DELETE did before it detached the cards: the customer marked, its card left attached.
    await markCustomerDeletedOnly(m.tenant, customer);
    const r = await charge(await intentFor(null), pm);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'payment_method_detached', param: 'payment_method_uuid' });
  });

  test('an intent that is not pending is a 409', async () => {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    expect((await api.post(`/v202607/payment-intents/${intent}/cancel`, {}, m.secretKey)).status).toBe(200);
    const r = await charge(intent, pm);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('payment_intent_unexpected_state');
  });

  test('an intent whose checkout intent another intent has paid is a 409 checkout_intent_completed, and the card is not charged', async () => {
    const { pm } = await saveCard();
    const co = await api.post('/checkout-intents', { amount: 3000, currency: 'EUR' }, m.secretKey);
    expect(co.status).toBe(201);
    const [a, b] = await Promise.all([1, 2].map(async () => (await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co.body.checkout_intent }, m.secretKey)).body.payment_intent as string));
    expect((await charge(a!, pm)).body.code).toBe('ok');
    const r = await charge(b!, pm);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('checkout_intent_completed');
    const bPi = (await api.get(`/payment-intents/${b}`, m.secretKey)).body.initial_data.payment_intent_id as string;
    expect(await chargesOfAttempt(bPi, 1)).toBe(0);
  });

  test('two intents of one checkout intent charged at once: one is paid, the other a 409 checkout_intent_completed, never a decline of a pending intent', async () => {
    // Before, the loser whose card was captured (then refunded) answered 402 "the payment intent stays pending" (explorer, 3 of 3).
    const { pm } = await saveCard();
    for (let round = 0; round < 3; round++) {
      const co = await api.post('/checkout-intents', { amount: 3000, currency: 'EUR' }, m.secretKey);
      const [a, b] = await Promise.all([1, 2].map(async () => (await api.post('/payment-intents', { gateway: 'sandbox', checkout_intent: co.body.checkout_intent }, m.secretKey)).body.payment_intent as string));
      const answers = await Promise.all([charge(a!, pm), charge(b!, pm)]);
      const outcome = answers.map((r) => (r.status === 200 ? r.body.code : `${r.status} ${r.body.error?.code}`)).sort();
      expect({ round, outcome }).toEqual({ round, outcome: ['409 checkout_intent_completed', 'ok'] });
    }
  });

  test('a malformed body is a 400 naming the parameter', async () => {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    const r = await mit({ payment_intent_secret: intent, payment_method_uuid: pm, agreement_id: 'a', agreement_type: 'MONTHLY' });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('agreement_type');
  });

  test('a decline is a 402 card_declined with the decline_code; the intent stays pending; a repeat within a minute answers the same decline', async () => {
    const { pm, customer } = await saveCard('tok_mit_declines');
    const intent = await intentFor(customer);
    const r = await charge(intent, pm, 'dunning');
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', transaction_uuid: expect.stringMatching(/^ti_/) });
    expect((await retrieve(intent)).body.status).toBe('pending');
    const tx = await api.get(`/v202608/transactions/${r.body.error.transaction_uuid}`, m.secretKey);
    expect(tx.body).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
    // A burst of identical calls is not a burst of charges: within a minute the decline is answered again
    // (the workflow test shows a call after it charges anew, for dunning).
    const retry = await charge(intent, pm, 'dunning');
    expect(retry.status).toBe(402);
    expect(retry.body.error.transaction_uuid).toBe(r.body.error.transaction_uuid);
    expect(await chargesOfAttempt(intent, 2)).toBe(0);
  });
});

describe('3DS recovery', () => {
  test('REQUIRES_ACTION carries the 3DS URL; a repeat answers the same; completing it pays the intent', async () => {
    const { pm, customer } = await saveCard('tok_sca_on_mit');
    const intent = await intentFor(customer);
    const r = await charge(intent, pm, 'sca');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ code: 'REQUIRES_ACTION', transaction_uuid: expect.stringMatching(/^ti_/), next_action: { type: 'redirect_to_url', url: expect.stringContaining('/3ds/') } });
    expect((await charge(intent, pm, 'sca')).body).toEqual(r.body);
    expect((await retrieve(intent)).body.status).toBe('pending');
    expect((await challenge(r.body.next_action.url, 'complete')).status).toBe(303);
    await eventually(async () => ((await retrieve(intent)).body.status === 'success' ? true : undefined), 20_000, 'the intent paid after 3DS');
    expect((await charge(intent, pm, 'sca')).body).toEqual({ code: 'ok', transaction_uuid: r.body.transaction_uuid });
  });

  test('failing the challenge leaves the intent pending and the transaction failed', async () => {
    const { pm, customer } = await saveCard('tok_sca_on_mit');
    const intent = await intentFor(customer);
    const r = await charge(intent, pm, 'sca-fail');
    expect(r.body.code).toBe('REQUIRES_ACTION');
    await challenge(r.body.next_action.url, 'fail');
    const tx = await eventually(async () => {
      const t = await api.get(`/v202608/transactions/${r.body.transaction_uuid}`, m.secretKey);
      return t.body.status === 'failed' ? t.body : undefined;
    }, 20_000);
    expect(tx.failure_code).toBe('authentication_failed');
    expect((await retrieve(intent)).body.status).toBe('pending');
  });
});

describe('agreements', () => {
  test('later charges under an agreement send the network transaction id of its first charge', async () => {
    const { pm, customer } = await saveCard();
    const first = await intentFor(customer, 1000);
    const second = await intentFor(customer, 1100);
    expect((await charge(first, pm, 'plan-7', 'INSTALLMENT')).body.code).toBe('ok');
    // The sandbox declines a second charge of an agreement without the first one's network id.
    expect((await charge(second, pm, 'plan-7', 'INSTALLMENT')).body.code).toBe('ok');
    const byKey = async (intent: string) => sandbox(`/v1/charges?idempotency_key=${encodeURIComponent(`${intent}:attempt:1`)}`);
    const [c1, c2] = [await byKey(first), await byKey(second)];
    expect(c1.agreement).toMatchObject({ type: 'INSTALLMENT', network_transaction_id: null });
    expect(c2.agreement).toMatchObject({ reference: c1.agreement.reference, network_transaction_id: c1.network_transaction_id });
  });

  test('an agreement keeps its type, on a repeat of the charge that made it too', async () => {
    const { pm, customer } = await saveCard();
    const first = await intentFor(customer);
    expect((await charge(first, pm, 'plan-8', 'RECURRING')).body.code).toBe('ok');
    const r = await charge(await intentFor(customer), pm, 'plan-8', 'UNSCHEDULED');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'agreement_type_mismatch', param: 'agreement_type' });
    const repeated = await charge(first, pm, 'plan-8', 'INSTALLMENT');
    expect(repeated.status).toBe(400);
    expect(repeated.body.error).toMatchObject({ code: 'agreement_type_mismatch', param: 'agreement_type' });
  });

  test('first charges sent at once under a new agreement all succeed, each charged once: one goes first, the others send its id', async () => {
    const { pm, customer } = await saveCard();
    const intents = await Promise.all([1200, 1300, 1400].map((amount) => intentFor(customer, amount)));
    const agreementId = `plan-at-once-${Date.now()}`;
    const replies = await Promise.all(intents.map((intent) => charge(intent, pm, agreementId, 'INSTALLMENT')));
    expect(replies.map((r) => [r.status, r.body.code])).toEqual(intents.map(() => [200, 'ok']));
    for (const intent of intents) {
      expect(await chargesOfAttempt(intent, 1)).toBe(1);
      expect(await chargesOfAttempt(intent, 2)).toBe(0);
    }
    // Exactly one went out without a network transaction id; the others carry its id.
    const sent = await Promise.all(intents.map((intent) => sandbox(`/v1/charges?idempotency_key=${encodeURIComponent(`${intent}:attempt:1`)}`)));
    const first = sent.filter((c) => c.agreement.network_transaction_id === null);
    expect(first).toHaveLength(1);
    for (const c of sent.filter((x) => x !== first[0])) expect(c.agreement).toMatchObject({ reference: first[0].agreement.reference, network_transaction_id: first[0].network_transaction_id });
  });

  test('two first charges at once under a new agreement with different types: one is paid, the other is a 400 agreement_type_mismatch, never sent', async () => {
    const { pm, customer } = await saveCard();
    const [a, b] = await Promise.all([1500, 1600].map((amount) => intentFor(customer, amount)));
    const agreementId = `plan-types-${Date.now()}`;
    const [ra, rb] = await Promise.all([charge(a, pm, agreementId, 'RECURRING'), charge(b, pm, agreementId, 'INSTALLMENT')]);
    const replies = [ra, rb].map((r) => [r.status, r.body.code ?? r.body.error?.code]);
    expect(replies).toEqual(expect.arrayContaining([[200, 'ok'], [400, 'agreement_type_mismatch']]));
    const refused = ra.status === 400 ? a : b;
    expect(await chargesOfAttempt(refused, 1)).toBe(0);
    expect((await retrieve(refused)).body.status).toBe('pending');
  });

  test('a declined first charge leaves the agreement without an id: charges sent at once with it are declined by the issuer, each once, none for a missing id', async () => {
    const { pm, customer } = await saveCard('tok_mit_declines');
    const intents = await Promise.all([1700, 1800, 1900].map((amount) => intentFor(customer, amount)));
    const agreementId = `plan-declined-${Date.now()}`;
    const replies = await Promise.all(intents.map((intent) => charge(intent, pm, agreementId, 'UNSCHEDULED')));
    expect(replies.map((r) => [r.status, r.body.error.code, r.body.error.decline_code])).toEqual(intents.map(() => [402, 'card_declined', 'insufficient_funds']));
    for (const intent of intents) expect(await chargesOfAttempt(intent, 1)).toBe(1);
  });

  test('a first charge awaiting 3DS holds the agreement: a charge under it meanwhile is a 409 with Retry-After, not sent; once the challenge fails, the next charge is a first one', async () => {
    const { pm, customer } = await saveCard('tok_sca_on_mit');
    const [first, second] = [await intentFor(customer, 2100), await intentFor(customer, 2200)];
    const agreementId = `plan-3ds-${Date.now()}`;
    const r = await charge(first, pm, agreementId, 'RECURRING');
    expect(r.body.code).toBe('REQUIRES_ACTION');
    const waited = await charge(second, pm, agreementId, 'RECURRING');
    expect(waited.status).toBe(409);
    expect(waited.headers.get('retry-after')).toBe('2');
    expect(waited.body.error).toMatchObject({ code: 'agreement_first_charge_in_progress', param: 'agreement_id' });
    expect(await chargesOfAttempt(second, 1)).toBe(0);
    // Another type while the first charge is under way is refused at once.
    expect((await charge(second, pm, agreementId, 'INSTALLMENT')).body.error.code).toBe('agreement_type_mismatch');

    await challenge(r.body.next_action.url, 'fail');
    await eventually(async () => ((await api.get(`/v202608/transactions/${r.body.transaction_uuid}`, m.secretKey)).body.status === 'failed' ? true : undefined), 20_000);
    const next = await charge(second, pm, agreementId, 'INSTALLMENT');
    expect(next.body.code).toBe('REQUIRES_ACTION');
    const sent = await sandbox(`/v1/charges?idempotency_key=${encodeURIComponent(`${second}:attempt:1`)}`);
    expect(sent.agreement).toMatchObject({ type: 'INSTALLMENT', network_transaction_id: null });
  }, 30_000);

  /**
   * An agreement claimed by an earlier request that no longer runs (intent `pi_eu_gone`), as the record stands:
   * claimed `age` ago, its first charge named or not; then a charge under it, which must take it over and pay.
   */
  async function chargeOverPlantedClaim(age: number, firstTransaction: string | null) {
    const { pm, customer } = await saveCard();
    const intent = await intentFor(customer);
    const agreementId = `plan-planted-${Date.now()}`;
    const db = await connectMongo(getStack().mongoUri);
    try {
      const scope = agreementScope(m.tenant, pm, agreementId);
      const at = new Date(Date.now() - age);
      await db.c.agreements.insertOne({
        _id: agreementIdFor('eu', scope),
        tenant_id: m.tenant,
        scope,
        payment_method: pm,
        agreement_id: agreementId,
        agreement_type: 'UNSCHEDULED',
        network_transaction_id: null,
        first_transaction: firstTransaction,
        created_at: at,
        claim: { token: 'planted', payment_intent: 'pi_eu_gone', at },
      });
      const r = await charge(intent, pm, agreementId, 'RECURRING');
      expect([r.status, r.body.code]).toEqual([200, 'ok']);
      expect(await db.c.agreements.findOne({ scope })).toMatchObject({ agreement_type: 'RECURRING', network_transaction_id: expect.stringMatching(/^ntx_/) });
    } finally {
      await db.close();
    }
  }

  test('a claim whose first charge answered but gave no id (not deciding any more: paid with none, or its intent gone) is taken over at once, not waited on for good', async () => {
    await chargeOverPlantedClaim(2_000, 'ti_eu_answeredwithoutid');
  });

  test('a claim left by a request that died before charging is taken over once stale', async () => {
    await chargeOverPlantedClaim(10 * 60_000, null);
  });
});

describe('saving', () => {
  test('save_payment_method without a customer is a 400 naming it', async () => {
    const intent = await intentFor(null);
    const r = await api.post(`/v202607/payment-intents/${intent}/attempts`, { token: 'tok_success', save_payment_method: true }, m.publishableKey);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('save_payment_method');
    expect((await retrieve(intent)).body.status).toBe('pending');
  });

  test('setup_future_usage without a customer is a 400', async () => {
    const r = await api.post('/v202608/payment-intents', { amount: 100, currency: 'EUR', setup_future_usage: 'off_session' }, m.secretKey);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('customer');
  });
});
