import { admin, api, call, createMerchant, getStack, mongo, type Merchant } from './harness';

// The platform every endpoint stands on: keys, tenants, regions, the one error shape, version fallback.

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

const expectError = (r: { status: number; body: any; headers: Headers }, status: number, code?: string, param?: string) => {
  expect(r.status).toBe(status);
  expect(r.body.error).toEqual(
    expect.objectContaining({ type: expect.any(String), code: code ?? expect.any(String), message: expect.any(String), request_id: expect.any(String) }),
  );
  if (param) expect(r.body.error.param).toBe(param);
  expect(r.headers.get('request-id')).toBe(r.body.error.request_id);
  expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts:|Mongo|stack/);
};

describe('authentication', () => {
  test('a missing key is 401', async () => expectError(await api.get('/v202607/payment-intents'), 401, 'invalid_api_key'));
  test('a malformed key is 401', async () => expectError(await api.get('/v202607/payment-intents', 'sk_eu_nope'), 401, 'invalid_api_key'));
  test('a well-formed but unknown key is 401', async () => {
    const forged = m.secretKey.slice(0, -4) + (m.secretKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expectError(await api.get('/v202607/payment-intents', forged), 401, 'invalid_api_key');
  });
  test('a revoked key is refused from the next request on', async () => {
    const issued = await admin.post(`/admin/tenants/${m.tenant}/api-keys`, {});
    expect(issued.status).toBe(201);
    expect((await api.get('/v202607/payment-intents', issued.body.secret_key)).status).toBe(200);
    expect((await admin.post(`/admin/tenants/${m.tenant}/api-keys/${issued.body.api_key}/revoke`, {})).status).toBe(200);
    expectError(await api.get('/v202607/payment-intents', issued.body.secret_key), 401, 'api_key_revoked');
  });
  test("a key used on another region's host is 401 with a clear message", async () => {
    // The test stack serves eu (default, on this host without a region segment) and us.
    const us = await admin.post('/admin/tenants', { name: 'US shop', region: 'us' });
    expect(us.body.secret_key).toMatch(/^sk_us_/);
    const r = await api.get('/v202607/payment-intents', us.body.secret_key);
    expectError(r, 401, 'wrong_region');
    expect(r.body.error.message).toMatch(/region 'us'/);
    // Naming the other region's host in X-Forwarded-Host changes nothing: the region is the Host's.
    const forwarded = await call('GET', '/v202607/payment-intents', { key: us.body.secret_key, headers: { 'x-forwarded-host': 'api-us.pay.example' } });
    expectError(forwarded, 401, 'wrong_region');
  });
  test('a publishable key can do nothing but submit attempts', async () => {
    expectError(await api.get('/v202607/payment-intents', m.publishableKey), 403, 'secret_key_required');
    expectError(await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR' }, m.publishableKey), 403);
  });
  test('a merchant key never reaches the admin API', async () => {
    expectError(await call('POST', '/admin/tenants', { key: m.secretKey, body: { name: 'x', region: 'eu' } }), 401);
  });
});

describe('tenant isolation', () => {
  test("another tenant's intent behaves exactly like one that does not exist", async () => {
    const other = await createMerchant();
    const pi = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR' }, other.secretKey);
    const foreign = await api.get(`/v202607/payment-intents/${pi.body.payment_intent}`, m.secretKey);
    const unknown = await api.get(`/v202607/payment-intents/pi_eu_0000000000000000000000`, m.secretKey);
    expectError(foreign, 404, 'resource_missing');
    expectError(unknown, 404, 'resource_missing');
    expect(foreign.body.error.message.replace(pi.body.payment_intent, 'X')).toBe(unknown.body.error.message.replace('pi_eu_0000000000000000000000', 'X'));
    expectError(await api.post(`/v202607/payment-intents/${pi.body.payment_intent}/cancel`, undefined, m.secretKey), 404);
    const list = await api.get('/v202607/payment-intents?limit=100', m.secretKey);
    expect(list.body.data.map((r: any) => r.payment_intent)).not.toContain(pi.body.payment_intent);
  });
});

describe('the one error shape', () => {
  test('malformed JSON is 400', async () =>
    expectError(await call('POST', '/v202607/payment-intents', { key: m.secretKey, rawBody: '{"amount": 1,', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json'));
  test("valid JSON with a '__proto__' key is refused as such (parameter_invalid), not called malformed", async () => {
    const r = await call('POST', '/v202607/payment-intents', { key: m.secretKey, rawBody: '{"amount":100,"currency":"EUR","metadata":{"__proto__":"1"}}', headers: { 'content-type': 'application/json' } });
    expectError(r, 400, 'parameter_invalid');
    expect(r.body.error.message).toMatch(/__proto__/);
  });
  test('an empty body sent with Content-Type: application/json is no body: a bodyless POST works', async () => {
    const pi = await api.post('/v202607/payment-intents', { amount: 100, currency: 'EUR' }, m.secretKey);
    const r = await call('POST', `/v202607/payment-intents/${pi.body.payment_intent}/cancel`, { key: m.secretKey, rawBody: '', headers: { 'content-type': 'application/json' } });
    expect([r.status, r.body.status]).toEqual([200, 'canceled']);
    // A JSON string literal is a body, and not an object.
    const literal = await call('POST', '/v202607/payment-intents', { key: m.secretKey, rawBody: '""', headers: { 'content-type': 'application/json' } });
    expect([literal.status, literal.body.error?.message]).toEqual([400, 'The request body must be a JSON object']);
  });
  test('a body that is not JSON is 415', async () =>
    expectError(await call('POST', '/v202607/payment-intents', { key: m.secretKey, rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } }), 415));
  test('a body over 1 MB is 413', async () => {
    const big = JSON.stringify({ amount: 1, currency: 'EUR', metadata: { a: 'x'.repeat(1_100_000) } });
    expectError(await call('POST', '/v202607/payment-intents', { key: m.secretKey, rawBody: big, headers: { 'content-type': 'application/json' } }), 413);
  });
  test('an unknown field is 400 naming it', async () =>
    expectError(await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', colour: 'red' }, m.secretKey), 400, 'parameter_unknown', 'colour'));
  test('a wrong type is 400 naming the param', async () =>
    expectError(await api.post('/v202607/payment-intents', { amount: '12', currency: 'EUR' }, m.secretKey), 400, 'parameter_invalid', 'amount'));
  test('a missing field is 400 naming the param', async () =>
    expectError(await api.post('/v202607/payment-intents', { amount: 12 }, m.secretKey), 400, 'parameter_missing', 'currency'));
  test('a nested bad value names its path', async () =>
    expectError(await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', webhooks: [{ url: 'ftp://x', events: ['payment.success'] }] }, m.secretKey), 400, 'parameter_invalid', 'webhooks[0][url]'));
  test('an unknown route is 404', async () => expectError(await api.get('/v202607/nothing-here', m.secretKey), 404, 'route_not_found'));
  test('a wrong method is 405 with Allow', async () => {
    const r = await call('PUT', '/v202607/payment-intents', { key: m.secretKey });
    expectError(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toBe('GET, HEAD, POST'); // HEAD is served wherever GET is
  });
  test('a query that tries to pollute prototypes changes nothing for the next request', async () => {
    expect((await api.get('/healthz?__proto__[_bsontype]=x&constructor[prototype][x]=1')).status).toBe(400); // unknown params
    expect((await api.get('/v202607/payment-intents?__proto__[_bsontype]=x', m.secretKey)).status).toBe(200); // the prototype key is dropped, not applied
    expect((await api.get('/v202607/payment-intents', m.secretKey)).status).toBe(200);
  });
  test('every response carries a request id', async () => {
    const r = await api.get('/healthz');
    expect(r.headers.get('request-id')).toMatch(/^req_/);
  });
});

describe('versioned routing', () => {
  test('a later version falls back to the nearest lower one that defines the endpoint', async () => {
    for (const v of ['v202608', 'v202609', 'v203012']) {
      expect((await api.get(`/${v}/customers`, m.secretKey)).status).toBe(200);
      expect((await api.get(`/${v}/payment-intents`, m.secretKey)).status).toBe(200);
    }
  });
  test('a version before an endpoint existed does not serve it', async () => {
    expectError(await api.get('/v202606/customers', m.secretKey), 404, 'route_not_found');
    expectError(await api.get('/v202502/customers', m.secretKey), 404, 'route_not_found');
  });
  test("v202502's endpoints (the unprefixed older interface) answer under /v202502 and, by fallback, where a later version does not define them", async () => {
    const created = await api.post('/v202606/payment-intents', { amount: 1500, currency: 'EUR' }, m.secretKey);
    expect(created.status).toBe(201);
    const id = created.body.payment_intent;
    const unprefixed = await api.get(`/payment-intents/${id}`, m.secretKey);
    expect(unprefixed.status).toBe(200);
    // v202606 defines only the create; its retrieve, list and cancel are v202502's.
    for (const v of ['v202502', 'v202606']) {
      const one = await api.get(`/${v}/payment-intents/${id}`, m.secretKey);
      expect({ status: one.status, body: one.body }).toEqual({ status: 200, body: unprefixed.body });
      const page = await api.get(`/${v}/payment-intents?filter.payment_intent=${id}`, m.secretKey);
      expect(page.status).toBe(200);
      expect(page.body.data.map((r: { uuid: string }) => r.uuid)).toEqual([unprefixed.body.uuid]);
    }
    // v202607 defines its own list: the cursor list, not the older one.
    expect((await api.get('/v202607/payment-intents', m.secretKey)).body).toHaveProperty('has_more');
    // v202502 had no create without a gateway: the older create answers, asking for one.
    expectError(await api.post('/v202502/payment-intents', { amount: 1500, currency: 'EUR' }, m.secretKey), 400, 'parameter_missing', 'gateway');
    expect((await call('PUT', `/v202606/payment-intents/${id}/cancel`, { key: m.secretKey, body: {} })).status).toBe(200);
  });
  test('v202608 pinning fields are refused on v202607', async () => {
    expectError(await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR', connector: m.connector }, m.secretKey), 400, 'parameter_unknown', 'connector');
  });
});

describe('admin API', () => {
  test('needs the admin token', async () => {
    expectError(await call('POST', '/admin/tenants', { body: { name: 'x', region: 'eu' } }), 401);
    expectError(await call('POST', '/admin/tenants', { key: 'wrong-token-wrong-token-wrong', body: { name: 'x', region: 'eu' } }), 401);
  });
  test('creates tenants with typed ids and keys of at least 256 bits', async () => {
    const t = await admin.post('/admin/tenants', { name: 'Acme', region: 'eu' });
    expect(t.status).toBe(201);
    expect(t.body.tenant).toMatch(/^ten_eu_/);
    expect(t.body.secret_key).toMatch(/^sk_eu_[0-9A-Za-z]{60}$/);
    expect(t.body.publishable_key).toMatch(/^pk_eu_[0-9A-Za-z]{60}$/);
  });
  test('refuses an unknown region, gateway, or a connector of another tenant', async () => {
    expectError(await admin.post('/admin/tenants', { name: 'x', region: 'mars' }), 400, 'region_invalid', 'region');
    expectError(await admin.post(`/admin/tenants/${m.tenant}/connectors`, { gateway: 'nope', live: true }), 400, 'gateway_invalid');
    const other = await createMerchant();
    expectError(await admin.post(`/admin/tenants/${m.tenant}/payment-forms`, { connectors: [other.connector] }), 400, 'connector_invalid');
    expectError(await admin.post('/admin/tenants/ten_eu_unknown000000000/connectors', { gateway: 'sandbox', live: true }), 404);
  });
  test('creates payment forms, orchestrators and keys with claims', async () => {
    expect((await admin.post(`/admin/tenants/${m.tenant}/payment-forms`, { connectors: [m.connector], default: true })).body.payment_form).toMatch(/^pf_eu_/);
    expect((await admin.post(`/admin/tenants/${m.tenant}/orchestrators`, { connectors: [m.connector] })).body.orchestrator).toMatch(/^orc_eu_/);
    const k = await admin.post(`/admin/tenants/${m.tenant}/api-keys`, { claims: ['cards.mit'] });
    expect(k.body).toMatchObject({ claims: ['cards.mit'], secret_key: expect.stringMatching(/^sk_eu_/) });
  });
  test("a tenant's creation and its first two keys are audited in operator_actions", async () => {
    const t = await admin.post('/admin/tenants', { name: 'Audited Shop', region: 'eu', operator: 'nadia@ops.example', reason: 'onboarding' });
    expect(t.status).toBe(201);
    const keyIds = (await admin.get(`/admin/tenants/${t.body.tenant}`)).body.api_keys.map((k: { api_key: string }) => k.api_key);
    expect(keyIds).toHaveLength(2);
    expect((await admin.get(`/admin/operations?target=${t.body.tenant}`)).body.data).toEqual([
      expect.objectContaining({ action: 'create_tenant', tenant: t.body.tenant, operator: 'nadia@ops.example', reason: 'onboarding', outcome: 'done', message: `tenant 'Audited Shop', keys ${keyIds.join(' and ')}` }),
    ]);
    for (const key of keyIds)
      expect((await admin.get(`/admin/operations?target=${key}`)).body.data).toEqual([
        expect.objectContaining({ action: 'issue_api_key', tenant: t.body.tenant, operator: 'nadia@ops.example', outcome: 'done', message: expect.stringMatching(/^a (secret|publishable) key, claims: none \(the tenant's first\)$/) }),
      ]);
  });
  test('who issued and who revoked a key is audited in operator_actions', async () => {
    const k = await admin.post(`/admin/tenants/${m.tenant}/api-keys`, { claims: ['cards.mit'], operator: 'nadia@ops.example', reason: 'subscriptions go live' });
    expect((await admin.post(`/admin/tenants/${m.tenant}/api-keys/${k.body.api_key}/revoke`, {})).status).toBe(200);
    const db = await mongo();
    try {
      const keys = db.db().collection('api_keys');
      const first = (await keys.findOne({ _id: k.body.api_key } as never))!.revoked_at as Date;
      // Revoked again: 200, and its first revocation time stands.
      expect((await admin.post(`/admin/tenants/${m.tenant}/api-keys/${k.body.api_key}/revoke`, {})).status).toBe(200);
      expect((await keys.findOne({ _id: k.body.api_key } as never))!.revoked_at).toEqual(first);
    } finally {
      await db.close();
    }
    const rows = (await admin.get(`/admin/operations?target=${k.body.api_key}`)).body.data;
    expect(rows.filter((r: { message: string }) => r.message === 'revoked already: nothing changed')).toHaveLength(1);
    rows.splice(rows.findIndex((r: { message: string }) => r.message === 'revoked already: nothing changed'), 1);
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(expect.arrayContaining([
      expect.objectContaining({ action: 'revoke_api_key', tenant: m.tenant, operator: 'unnamed (admin token)', outcome: 'done' }),
      expect.objectContaining({ action: 'issue_api_key', tenant: m.tenant, operator: 'nadia@ops.example', reason: 'subscriptions go live', outcome: 'done', message: 'a secret key, claims: cards.mit' }),
    ]));
  });
});

describe('operations', () => {
  test('/readyz is 200 when MongoDB, Temporal and a worker are reachable', async () => {
    const r = await api.get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body.checks).toEqual({ mongodb: true, temporal: true, worker: true });
  });
  test('/metrics serves Prometheus text', async () => {
    const r = await api.get('/metrics');
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/http_requests_total/);
  });
  test("the worker's /metrics carries our metrics and the Temporal SDK's runtime metrics", async () => {
    await api.post('/v202607/payment-intents', { amount: 1, currency: 'EUR' }, m.secretKey);
    const text = await (await fetch(getStack().workerMetricsUrl)).text();
    expect(text).toMatch(/webhook_deliveries_pending/);
    expect(text).toMatch(/temporal_workflow_task|temporal_request|temporal_num_pollers/);
  });
  test('/openapi.json is an OpenAPI 3.1 document generated from the schemas', async () => {
    const r = await api.get('/openapi.json');
    expect(r.body.openapi).toBe('3.1.0');
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/v202607/payment-intents', '/v202607/refunds', '/v202608/payment-intents']));
    expect(JSON.stringify(r.body.paths['/v202607/payment-intents'].post)).toMatch(/idempotency_key/);
  });
});
