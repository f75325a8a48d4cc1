import type { MongoClient } from 'mongodb';
import type { Client } from '@temporalio/client';
import { api, createMerchant, mongo, temporalClient, withMitClaim, type Merchant } from './harness';

// Test clocks on the real stack: each one a workflow that writes its record; customers created on a clock.

let m: Merchant;
/** The tenant's first secret key, which has no claims. */
let claimless: string;
let db: MongoClient;
let temporal: Client;
beforeAll(async () => {
  const made = await createMerchant();
  claimless = made.secretKey;
  m = await withMitClaim(made);
  db = await mongo();
  temporal = await temporalClient();
});
afterAll(async () => {
  await db?.close();
  await temporal?.connection.close();
});

const T0 = Date.UTC(2026, 7, 14, 9) / 1000; // 14 August 2026, 09:00 UTC, in Unix seconds
const MONTH = 30 * 86_400;

const errorShape = (code: string, param?: string) => ({
  error: { type: 'invalid_request_error', code, message: expect.any(String), ...(param ? { param } : {}), request_id: expect.any(String) },
});

/** A subscription record on the clock whose workflow does not exist (signalled, it counts as ended). */
const subscriptionOn = (clock: string, id: string, status: string, interval = 'month', intervalCount = 1) =>
  ({ _id: id, tenant_id: m.tenant, test_clock: clock, status, idempotency_scope: `${m.tenant}:${id}`, snapshot: { interval, intervalCount } }) as never;

async function newClock(key = m.secretKey, body: Record<string, unknown> = { frozen_time: T0 }) {
  const r = await api.post('/v202607/test-clocks', body, key);
  expect(r.status).toBe(201);
  return r.body;
}

test('create, retrieve, list', async () => {
  const before = Math.floor(Date.now() / 1000);
  const c = await newClock(m.secretKey, { frozen_time: T0, name: 'Renewal trial' });
  expect(c).toEqual({ test_clock: expect.stringMatching(/^clock_eu_[0-9A-Za-z]+$/), object: 'test_clock', frozen_time: T0, status: 'ready', name: 'Renewal trial', created: expect.any(Number) });
  expect(c.created).toBeGreaterThanOrEqual(before);
  expect((await api.get(`/v202607/test-clocks/${c.test_clock}`, m.secretKey)).body).toEqual(c);

  const other = await newClock();
  expect(other.name).toBeNull();
  const page = await api.get('/v202607/test-clocks?limit=1', m.secretKey);
  expect(page.status).toBe(200);
  expect(page.body).toEqual({ data: [other], has_more: true });
  const next = await api.get(`/v202607/test-clocks?limit=1&starting_after=${other.test_clock}`, m.secretKey);
  expect(next.body.data.map((x: { test_clock: string }) => x.test_clock)).toEqual([c.test_clock]);
});

test('a create with a bad frozen_time is a 400 and makes nothing', async () => {
  const newest = async () => (await api.get('/v202607/test-clocks?limit=1', m.secretKey)).body.data[0]?.test_clock ?? null;
  const before = await newest();
  for (const frozen_time of [1.5, -1, '1786698000']) {
    const r = await api.post('/v202607/test-clocks', { frozen_time }, m.secretKey);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(errorShape('parameter_invalid', 'frozen_time'));
  }
  expect(await newest()).toBe(before);
});

test('advance: ready at the new time; a time not after the clock is a 400', async () => {
  const c = await newClock();
  // Renewals charge saved cards: an advance needs the cards.mit claim, as a subscription's create does.
  const refused = await api.post(`/v202607/test-clocks/${c.test_clock}/advance`, { frozen_time: T0 + MONTH }, claimless);
  expect([refused.status, refused.body.error?.code]).toEqual([403, 'missing_claim']);
  const r = await api.post(`/v202607/test-clocks/${c.test_clock}/advance`, { frozen_time: T0 + MONTH }, m.secretKey);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ ...c, frozen_time: T0 + MONTH, status: 'ready' });
  expect((await api.get(`/v202607/test-clocks/${c.test_clock}`, m.secretKey)).body).toEqual({ ...c, frozen_time: T0 + MONTH, status: 'ready' });

  for (const frozen_time of [T0 + MONTH, T0]) {
    const back = await api.post(`/v202607/test-clocks/${c.test_clock}/advance`, { frozen_time }, m.secretKey);
    expect(back.status).toBe(400);
    expect(back.body).toEqual(errorShape('test_clock_time_backwards', 'frozen_time'));
  }
  expect((await api.get(`/v202607/test-clocks/${c.test_clock}`, m.secretKey)).body.frozen_time).toBe(T0 + MONTH);
});

test('the clock is a workflow operators can find; an advance lists the live subscriptions on it and writes the record', async () => {
  const c = await newClock();
  const described = await temporal.workflow.getHandle(c.test_clock).describe();
  expect(described.status.name).toBe('RUNNING');
  expect(described.typedSearchAttributes.getAll()).toEqual(expect.arrayContaining([expect.objectContaining({ value: m.tenant })]));
  expect(await described.staticSummary()).toBe(`Test clock ${c.test_clock}`);

  // Subscription records on the clock whose workflows do not exist: the live one is signalled (and, being
  // gone, counts as ended); the canceled one is not listed. Either way the advance completes.
  const [live, done] = [`sub_eu_clockLive${Date.now()}`, `sub_eu_clockDone${Date.now()}`];
  await db.db().collection('subscriptions').insertMany([subscriptionOn(c.test_clock, live, 'active'), subscriptionOn(c.test_clock, done, 'canceled')]);
  const r = await api.post(`/v202607/test-clocks/${c.test_clock}/advance`, { frozen_time: T0 + MONTH }, m.secretKey);
  expect(r.body).toMatchObject({ frozen_time: T0 + MONTH, status: 'ready' });
  const history = await temporal.workflow.getHandle(c.test_clock).fetchHistory();
  const signalled = (history.events ?? []).flatMap((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.workflowExecution?.workflowId ?? []);
  expect(signalled).toEqual([live]);
  const record = await db.db().collection('test_clocks').findOne({ _id: c.test_clock as never });
  // Two writes (advancing, then ready), each numbered above the last.
  expect(record).toMatchObject({ tenant_id: m.tenant, status: 'ready', frozen_time: new Date((T0 + MONTH) * 1000) });
  expect(record!.version).toBeGreaterThan(1);
});

test('one advance goes at most two intervals of the shortest subscription on the clock, two years without one (a 400 that moves nothing)', async () => {
  const c = await newClock();
  const advance = (frozen_time: number) => api.post(`/v202607/test-clocks/${c.test_clock}/advance`, { frozen_time }, m.secretKey);
  const twoYears = Date.UTC(2028, 7, 14, 9) / 1000;
  const tooFar = await advance(twoYears + 1);
  expect([tooFar.status, tooFar.body]).toEqual([400, errorShape('test_clock_advance_too_far', 'frozen_time')]);
  expect(tooFar.body.error.message).toContain(`at most ${twoYears}`);
  expect((await api.get(`/v202607/test-clocks/${c.test_clock}`, m.secretKey)).body).toMatchObject({ frozen_time: T0, status: 'ready' });

  // Subscription records on the clock (their workflows absent, so each counts as ended once signalled): a
  // monthly and a two-weekly one bound it to four weeks; an ended daily one bounds nothing.
  const at = Date.now();
  await db
    .db()
    .collection('subscriptions')
    .insertMany([
      subscriptionOn(c.test_clock, `sub_eu_bMonthly${at}`, 'active'),
      subscriptionOn(c.test_clock, `sub_eu_bFortnight${at}`, 'trialing', 'week', 2),
      subscriptionOn(c.test_clock, `sub_eu_bDaily${at}`, 'canceled', 'day'),
    ]);
  const fourWeeks = T0 + 28 * 86_400;
  expect((await advance(fourWeeks + 1)).body).toEqual(errorShape('test_clock_advance_too_far', 'frozen_time'));
  expect((await advance(fourWeeks)).body).toMatchObject({ frozen_time: fourWeeks, status: 'ready' });
});

test("unknown and another tenant's clocks are 404s everywhere", async () => {
  const other = await createMerchant();
  const theirs = await newClock(other.secretKey);
  for (const id of [theirs.test_clock, 'clock_eu_0000000000000000000000']) {
    expect((await api.get(`/v202607/test-clocks/${id}`, m.secretKey)).body).toEqual(errorShape('resource_missing', 'test_clock'));
    const adv = await api.post(`/v202607/test-clocks/${id}/advance`, { frozen_time: T0 + MONTH }, m.secretKey);
    expect(adv.status).toBe(404);
    expect(adv.body).toEqual(errorShape('resource_missing', 'test_clock'));
    expect((await api.del(`/v202607/test-clocks/${id}`, m.secretKey)).status).toBe(404);
  }
  const mine = await api.get('/v202607/test-clocks?limit=100', m.secretKey);
  expect(mine.body.data.map((x: { test_clock: string }) => x.test_clock)).not.toContain(theirs.test_clock);
  // Still untouched for its owner.
  expect((await api.get(`/v202607/test-clocks/${theirs.test_clock}`, other.secretKey)).body).toEqual(theirs);
});

test('delete: then every call on the clock is a 404', async () => {
  const c = await newClock();
  const r = await api.del(`/v202607/test-clocks/${c.test_clock}`, m.secretKey);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ test_clock: c.test_clock, deleted: true });
  expect((await api.get(`/v202607/test-clocks/${c.test_clock}`, m.secretKey)).status).toBe(404);
  expect((await api.post(`/v202607/test-clocks/${c.test_clock}/advance`, { frozen_time: T0 + MONTH }, m.secretKey)).status).toBe(404);
  expect((await api.del(`/v202607/test-clocks/${c.test_clock}`, m.secretKey)).status).toBe(404);
  const list = await api.get('/v202607/test-clocks?limit=100', m.secretKey);
  expect(list.body.data.map((x: { test_clock: string }) => x.test_clock)).not.toContain(c.test_clock);
});

test('a customer on a clock shows it; it cannot be changed; an unknown clock is a 400 and makes no customer', async () => {
  const c = await newClock();
  const reference = `clocked-${Date.now()}`;
  const created = await api.post('/v202607/customers', { reference, first_name: 'Layla', test_clock: c.test_clock }, m.secretKey);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ test_clock: c.test_clock, resource_created: true });
  const id = created.body.customer;
  expect((await api.get(`/v202607/customers/${id}`, m.secretKey)).body).toMatchObject({ customer: id, test_clock: c.test_clock });
  expect((await api.get(`/v202608/customers/${id}`, m.secretKey)).body).toMatchObject({ customer: id, test_clock: c.test_clock });

  // The same clock again is fine; another one, or one through the reference's upsert, is refused.
  expect((await api.post(`/v202607/customers/${id}`, { test_clock: c.test_clock, last_name: 'Haddad' }, m.secretKey)).body).toMatchObject({ last_name: 'Haddad', test_clock: c.test_clock });
  const other = await newClock();
  const changed = await api.post(`/v202607/customers/${id}`, { test_clock: other.test_clock, last_name: 'X' }, m.secretKey);
  expect(changed.status).toBe(400);
  expect(changed.body).toEqual(errorShape('parameter_invalid', 'test_clock'));
  const viaReference = await api.post('/v202607/customers', { reference, test_clock: other.test_clock }, m.secretKey);
  expect(viaReference.body).toEqual(errorShape('parameter_invalid', 'test_clock'));
  expect((await api.get(`/v202607/customers/${id}`, m.secretKey)).body).toMatchObject({ last_name: 'Haddad', test_clock: c.test_clock });

  // A customer made without a clock shows null.
  const plain = await api.post('/v202607/customers', { first_name: 'No clock' }, m.secretKey);
  expect(plain.body.test_clock).toBeNull();

  // Unknown (or another tenant's) clock: 400, and no customer made under the reference.
  const theirs = await newClock((await createMerchant()).secretKey);
  for (const test_clock of ['clock_eu_0000000000000000000000', theirs.test_clock]) {
    const ref = `unknown-clock-${Date.now()}`;
    const r = await api.post('/v202607/customers', { reference: ref, test_clock }, m.secretKey);
    expect(r.status).toBe(400);
    expect(r.body).toEqual(errorShape('resource_missing', 'test_clock'));
    expect((await api.get(`/v202607/customers?reference=${ref}`, m.secretKey)).body.data).toEqual([]);
  }
});
