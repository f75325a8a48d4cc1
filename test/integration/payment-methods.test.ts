import { admin, api, createMerchant, eventually, getStack, type Merchant } from './harness';

// Payment-method listing and checkout resolution on the real API and database: which form is the
// default, which connectors are live, whose form it is, and what the hosted page then offers.

async function addConnector(m: Merchant, body: { live: boolean; payment_methods: string[] }): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/connectors`, { gateway: 'sandbox', ...body });
  expect(r.status).toBe(201);
  return r.body.connector;
}

async function addForm(m: Merchant, body: { connectors: string[]; payment_methods?: string[]; default?: boolean; live?: boolean }): Promise<string> {
  const r = await admin.post(`/admin/tenants/${m.tenant}/payment-forms`, body);
  expect(r.status).toBe(201);
  return r.body.payment_form;
}

const names = (body: { payment_methods: { name: string }[] }) => body.payment_methods.map((p) => p.name);

test('without a default form, the methods of the live connectors are listed in catalogue order', async () => {
  const m = await createMerchant();
  await addConnector(m, { live: true, payment_methods: ['mobile_money', 'apple_pay'] });
  await addConnector(m, { live: false, payment_methods: ['sepa_debit'] });

  const r = await api.get('/v202607/payment-methods', m.secretKey);
  expect(r.status).toBe(200);
  expect(r.body.payment_form).toBeNull();
  expect(names(r.body)).toEqual(['card', 'apple_pay', 'mobile_money']);
  expect(r.body.payment_methods[0]).toEqual({
    name: 'card',
    title: 'Card',
    category: 'card',
    logo_url: `${getStack().apiUrl}/assets/payment-methods/card.svg`,
    favicon_url: `${getStack().apiUrl}/assets/payment-methods/card-favicon.svg`,
  });
});

test('the default form decides the listing, and both path spellings answer alike', async () => {
  const m = await createMerchant();
  // Each method of a form must be taken by one of its connectors (issue 18).
  const sepa = await addConnector(m, { live: true, payment_methods: ['sepa_debit'] });
  const pf = await addForm(m, { connectors: [m.connector, sepa], payment_methods: ['sepa_debit', 'card'], default: true });

  const byDefault = await api.get('/v202607/payment-methods', m.secretKey);
  expect(byDefault.body).toMatchObject({ payment_form: pf });
  expect(names(byDefault.body)).toEqual(['card', 'sepa_debit']);
  for (const path of ['/v202607/payment-forms', `/v202607/payment-methods/${pf}`, `/v202607/payment-forms/${pf}`]) {
    const r = await api.get(path, m.secretKey);
    expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 200, body: byDefault.body });
  }
});

test("another tenant's form is answered exactly like an unknown one", async () => {
  const owner = await createMerchant();
  const other = await createMerchant();
  const pf = await addForm(owner, { connectors: [owner.connector] });
  const foreign = await api.get(`/v202607/payment-methods/${pf}`, other.secretKey);
  const unknown = await api.get(`/v202607/payment-methods/${pf.slice(0, -4)}zzzz`, other.secretKey);
  expect(foreign.status).toBe(404);
  expect(unknown.status).toBe(404);
  expect(foreign.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_form' });
  expect(foreign.body.error.message.replace(pf, '<id>')).toBe(unknown.body.error.message.replace(`${pf.slice(0, -4)}zzzz`, '<id>'));
});

test('a logo is an SVG we serve ourselves, cacheable', async () => {
  const res = await fetch(`${getStack().apiUrl}/assets/payment-methods/sepa_debit-favicon.svg`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
  expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  expect((await fetch(`${getStack().apiUrl}/assets/payment-methods/paypal.svg`)).status).toBe(404);
});

test('a pinned intent shows only its pinned checkout; a pin of another tenant is refused like an unknown one', async () => {
  const m = await createMerchant();
  await addConnector(m, { live: true, payment_methods: ['apple_pay'] });
  const other = await createMerchant();

  const unpinned = await api.post('/v202608/payment-intents', { amount: 1000, currency: 'EUR' }, m.secretKey);
  const pinned = await api.post('/v202608/payment-intents', { amount: 1000, currency: 'EUR', connector: m.connector }, m.secretKey);
  expect([unpinned.status, pinned.status]).toEqual([201, 201]);
  await expect(fetch(unpinned.body.url).then((r) => r.text())).resolves.toContain('Apple Pay');
  const pinnedPage = await fetch(pinned.body.url).then((r) => r.text());
  expect(pinnedPage).toContain('Pay 10.00 EUR');
  expect(pinnedPage).not.toContain('Apple Pay');

  const foreign = await api.post('/v202608/payment-intents', { amount: 1000, currency: 'EUR', connector: other.connector }, m.secretKey);
  expect(foreign.status).toBe(400);
  expect(foreign.body.error).toMatchObject({ code: 'pin_invalid', message: `No live connector ${other.connector} for this merchant`, param: 'connector' });
});

test("the hosted page's status endpoint answers with the client secret only", async () => {
  const m = await createMerchant();
  const created = await api.post('/v202607/payment-intents', { amount: 700, currency: 'EUR', return_url: 'https://shop.example.com/back' }, m.secretKey);
  const url = new URL(created.body.url);
  const statusUrl = `${url.origin}${url.pathname}/status${url.search}`;
  const first = await fetch(statusUrl);
  expect(first.status).toBe(200);
  expect(first.headers.get('cache-control')).toBe('no-store');
  // `processing` for the moment the workflow's first write is on its way, then `open`.
  const settled = await eventually(async () => {
    const body = await (await fetch(statusUrl)).json();
    return body.outcome === 'processing' ? undefined : body;
  });
  expect(settled).toEqual({
    payment_intent: created.body.payment_intent,
    status: 'pending',
    outcome: 'open',
    return_url: 'https://shop.example.com/back',
    expires_at: created.body.expires_at,
  });
  expect((await fetch(`${url.origin}${url.pathname}/status`)).status).toBe(404);
});
