import { admin, api, createMerchant, eventually, mongo, type Merchant } from './harness';

// Issue 18 on the real stack: the payment-method listing shows exactly what the hosted page and the
// embedded form offer (one resolver decides), and an intent is paid through the checkout as it stands
// when the customer pays: unpinned, the tenant's live connectors of that moment; pinned, its pin's.

async function addConnector(m: Merchant, payment_methods: string[], live = true): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/connectors`, { gateway: 'sandbox', live, payment_methods });
  expect(r.status).toBe(201);
  return r.body.connector;
}

async function addForm(m: Merchant, body: { connectors: string[]; payment_methods?: string[]; default?: boolean }): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/payment-forms`, body);
  expect(r.status).toBe(201);
  return r.body.payment_form;
}

async function addOrchestrator(m: Merchant, connectors: string[], isDefault: boolean): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/orchestrators`, { connectors, default: isDefault });
  expect(r.status).toBe(201);
  return r.body.orchestrator;
}

/** GET /v202607/payment-methods[/{pf}] as `{payment_form, methods}`. */
async function listing(m: Merchant, form?: string): Promise<{ payment_form: string | null; methods: string[] }> {
  const r = await api.get(`/v202607/payment-methods${form ? `/${form}` : ''}`, m.secretKey);
  expect(r.status).toBe(200);
  return { payment_form: r.body.payment_form, methods: r.body.payment_methods.map((p: { name: string }) => p.name) };
}

/**
 * What a checkout page offers: the methods of its list (each logo names one), or the card form alone when
 * the list is left out (a card and nothing else); and the connector its card form pays through.
 */
function offered(html: string): { methods: string[]; connector: string | null } {
  const config = JSON.parse(/<script type="application\/json" id="checkout-config">(.*?)<\/script>/s.exec(html)![1]!) as { connector: string | null; tokenUrl: string | null };
  const listed = [...html.matchAll(/<img src="\/assets\/payment-methods\/([a-z_]+)\.svg"[^>]*class="method-logo">/g)].map((x) => x[1]!);
  return { methods: html.includes('class="method-list"') ? listed : config.tokenUrl ? ['card'] : [], connector: config.connector };
}

/** The hosted page and the embedded form of an intent, which must offer the same. */
async function pagesOf(m: Merchant, intent: { payment_intent: string; url: string }) {
  const hosted = offered(await (await fetch(intent.url)).text());
  const embed = offered(await (await fetch(`${new URL(intent.url).origin}/pay/${intent.payment_intent}/embed?key=${encodeURIComponent(m.publishableKey)}`)).text());
  expect(embed).toEqual(hosted);
  return hosted;
}

async function createIntent(m: Merchant, pin: Record<string, string> = {}) {
  const r = await api.post('/v202608/payment-intents', { amount: 1500, currency: 'EUR', ...pin }, m.secretKey);
  expect(r.status).toBe(201);
  return r.body as { payment_intent: string; url: string };
}

/** Pays through the attempts endpoint (the publishable key), naming a connector or not. */
const pay = (m: Merchant, intent: string, connector?: string) =>
  api.post(`/v202607/payment-intents/${intent}/attempts`, { token: 'tok_success', ...(connector ? { connector } : {}) }, m.publishableKey);

const retrieve = async (m: Merchant, intent: string) => (await api.get(`/v202608/payment-intents/${intent}`, m.secretKey)).body;

/** Switches a connector off (or on) in the database: the admin API has no endpoint for it. */
async function setLive(connector: string, live: boolean): Promise<void> {
  const client = await mongo();
  try {
    await client.db().collection('connectors').updateOne({ _id: connector as never }, { $set: { live } });
  } finally {
    await client.close();
  }
}

describe('the listing equals what the hosted page and the embedded form offer', () => {
  test('no form: the live connectors’ methods, payment_form null', async () => {
    const m = await createMerchant();
    await addConnector(m, ['apple_pay', 'google_pay']);
    await addConnector(m, ['sepa_debit'], false);
    const intent = await createIntent(m);
    expect(await listing(m)).toEqual({ payment_form: null, methods: ['card', 'apple_pay', 'google_pay'] });
    expect((await pagesOf(m, intent)).methods).toEqual(['card', 'apple_pay', 'google_pay']);
  });

  test('a default form with live connectors: its connectors’ methods narrowed to its list, under its pf_', async () => {
    const m = await createMerchant();
    const wallets = await addConnector(m, ['apple_pay', 'google_pay', 'sepa_debit']);
    await addConnector(m, ['mobile_money']); // live, but not the form's
    const pf = await addForm(m, { connectors: [m.connector, wallets], payment_methods: ['google_pay', 'card'], default: true });
    const intent = await createIntent(m);
    expect(await listing(m)).toEqual({ payment_form: pf, methods: ['card', 'google_pay'] });
    expect((await pagesOf(m, intent)).methods).toEqual(['card', 'google_pay']);
    expect(await listing(m, pf)).toEqual(await listing(m));
  });

  test('a default form with no live connector is not named: listing and page fall back to every live connector', async () => {
    const m = await createMerchant();
    const testOnly = await addConnector(m, ['mobile_money'], false);
    await addConnector(m, ['sepa_debit']);
    const pf = await addForm(m, { connectors: [testOnly], payment_methods: ['mobile_money'], default: true });
    const intent = await createIntent(m);
    expect(await listing(m)).toEqual({ payment_form: null, methods: ['card', 'sepa_debit'] });
    expect(await pagesOf(m, intent)).toEqual({ methods: ['card', 'sepa_debit'], connector: m.connector });
    // The form itself, asked by name, has nothing a customer could pay with.
    expect(await listing(m, pf)).toEqual({ payment_form: pf, methods: [] });
  });

  test('a default orchestrator routes unpinned intents: its connectors’ methods, payment_form null, whatever the default form says', async () => {
    const m = await createMerchant();
    const wallets = await addConnector(m, ['apple_pay']);
    await addConnector(m, ['google_pay']); // live, not the orchestrator's
    await addForm(m, { connectors: [m.connector], payment_methods: ['card'], default: true });
    await addOrchestrator(m, [wallets, m.connector], true);
    const intent = await createIntent(m);
    expect(await listing(m)).toEqual({ payment_form: null, methods: ['card', 'apple_pay'] });
    expect(await pagesOf(m, intent)).toEqual({ methods: ['card', 'apple_pay'], connector: m.connector });
  });

  test('an intent pinned to a form is offered what /payment-methods/{pf} lists', async () => {
    const m = await createMerchant();
    const wallets = await addConnector(m, ['apple_pay', 'sepa_debit']);
    await addForm(m, { connectors: [m.connector], default: true });
    const pf = await addForm(m, { connectors: [wallets, m.connector], payment_methods: ['sepa_debit', 'card'] });
    const intent = await createIntent(m, { payment_form: pf });
    expect(await listing(m, pf)).toEqual({ payment_form: pf, methods: ['card', 'sepa_debit'] });
    expect(await pagesOf(m, intent)).toEqual({ methods: ['card', 'sepa_debit'], connector: m.connector });
    expect(await listing(m)).toEqual({ payment_form: expect.stringMatching(/^pf_/), methods: ['card'] });
  });
});

test('the admin API refuses a form with a method none of its connectors takes, naming it', async () => {
  const m = await createMerchant();
  const wallets = await addConnector(m, ['apple_pay'], false);
  const r = await admin.post(`/admin/tenants/${m.tenant}/payment-forms`, { connectors: [m.connector, wallets], payment_methods: ['apple_pay', 'card', 'sepa_debit'] });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'payment_method_unsupported', param: 'payment_methods[2]', message: 'No connector of this form takes sepa_debit' });
  // A test connector's method counts: whether it is live changes over time.
  await addForm(m, { connectors: [m.connector, wallets], payment_methods: ['apple_pay', 'card'] });
});

describe('connectors added or switched off after an intent was created', () => {
  test('an unpinned intent is paid through a connector added after it was created', async () => {
    const m = await createMerchant();
    const intent = await createIntent(m);
    const later = await addConnector(m, ['card', 'google_pay']);
    expect((await pagesOf(m, intent)).methods).toEqual(['card', 'google_pay']);
    const r = await pay(m, intent.payment_intent, later);
    expect(r.body).toMatchObject({ status: 'success' });
    expect(await retrieve(m, intent.payment_intent)).toMatchObject({ status: 'success', connector: later });
  });

  test('an unpinned intent is not paid through a connector switched off after it was created', async () => {
    const m = await createMerchant();
    const first = m.connector;
    const second = await addConnector(m, ['card', 'apple_pay']);
    const intent = await createIntent(m);
    expect(await pagesOf(m, intent)).toEqual({ methods: ['card', 'apple_pay'], connector: first });
    await setLive(first, false);
    // Other API processes see the change within the checkout-config cache's few seconds.
    await eventually(async () => ((await pagesOf(m, intent)).connector === second ? true : undefined), 15_000, 'the page to drop the connector');
    expect(await listing(m)).toEqual({ payment_form: null, methods: ['card', 'apple_pay'] });
    const refused = await pay(m, intent.payment_intent, first);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'connector_not_allowed', param: 'connector' });
    // Without a connector named, the checkout's first live one pays.
    expect((await pay(m, intent.payment_intent)).body).toMatchObject({ status: 'success' });
    expect(await retrieve(m, intent.payment_intent)).toMatchObject({ status: 'success', connector: second });
  });

  test('a pinned intent keeps its pin: a connector added later is not offered nor accepted', async () => {
    const m = await createMerchant();
    const intent = await createIntent(m, { connector: m.connector });
    const later = await addConnector(m, ['card', 'google_pay']);
    expect(await pagesOf(m, intent)).toEqual({ methods: ['card'], connector: m.connector });
    const refused = await pay(m, intent.payment_intent, later);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'connector_not_allowed', param: 'connector' });
    expect((await pay(m, intent.payment_intent)).body).toMatchObject({ status: 'success' });
    expect(await retrieve(m, intent.payment_intent)).toMatchObject({ status: 'success', connector: m.connector });
  });

  test('a pinned orchestrator drops a connector switched off since, and fails over along the rest', async () => {
    const m = await createMerchant();
    const second = await addConnector(m, ['card']);
    const orc = await addOrchestrator(m, [m.connector, second], false);
    const intent = await createIntent(m, { orchestrator: orc });
    await addConnector(m, ['card']); // not the orchestrator's: never used
    await setLive(m.connector, false);
    await eventually(async () => ((await pagesOf(m, intent)).connector === second ? true : undefined), 15_000, 'the page to drop the connector');
    expect((await pay(m, intent.payment_intent, m.connector)).body.error).toMatchObject({ code: 'connector_not_allowed' });
    expect((await pay(m, intent.payment_intent)).body).toMatchObject({ status: 'success' });
    expect(await retrieve(m, intent.payment_intent)).toMatchObject({ status: 'success', connector: second });
  });
});
