// The sandbox's settlement report over HTTP: captures (succeeded charges only), refunds and payouts of a
// window in time order, paged; and the test hooks that plant mismatches in it without touching the records
// (a status query by key still answers the truth).

import { sandboxSettlementReport } from '../../../gateways/sandbox-settlement';
import { key, RETURN_URL, type ChargeJson, type ErrorJson } from './sandbox-harness';
import { useSandbox } from './use-sandbox';

const { h, receiver } = useSandbox({ per: 'test' });

const charge = (token: string, amount = 2500) =>
  h.http<ChargeJson>('POST', '/v1/charges', { idempotency_key: key('c'), token, amount, currency: 'EUR', callback_url: receiver.url('ref'), return_url: RETURN_URL, reference: 'pi_eu_reference000001' });

const window = () => ({ from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });

test('lists captures, refunds and payouts of the window, not declines, and pages in time order', async () => {
  const a = (await charge('tok_success', 1000)).json;
  await charge('tok_decline');
  const b = (await charge('tok_success', 2000)).json;
  const refund = await h.http<{ id: string }>('POST', '/v1/refunds', { idempotency_key: key('r'), charge_id: a.id, amount: 300, currency: 'EUR', callback_url: receiver.url('ref'), reference: 're_eu_reference000001' });
  const payout = await h.http<{ id: string }>('POST', '/v1/payouts', { idempotency_key: key('p'), amount: 5000, currency: 'ngn', bank_account_number: '0123456789', callback_url: receiver.url('ref') });

  const source = sandboxSettlementReport({ baseUrl: h.baseUrl });
  const first = await source.page(window(), undefined, 2);
  expect(first.hasMore).toBe(true);
  const second = await source.page(window(), first.rows.at(-1)!.gatewayId, 2);
  expect(second.hasMore).toBe(false);
  const rows = [...first.rows, ...second.rows];
  // Every entry once, in time order (entries of one millisecond by id).
  expect(rows.map((r) => `${r.object} ${r.gatewayId}`).sort()).toEqual([`capture ${a.id}`, `capture ${b.id}`, `payout ${payout.json.id}`, `refund ${refund.json.id}`].sort());
  expect(rows.map((r) => Date.parse(r.occurredAt))).toEqual(rows.map((r) => Date.parse(r.occurredAt)).sort((x, y) => x - y));
  const byId = new Map(rows.map((r) => [r.gatewayId, r]));
  expect(byId.get(a.id)).toMatchObject({ amount: 1000, currency: 'EUR', status: 'succeeded', reference: 'pi_eu_reference000001' });
  expect(byId.get(refund.json.id)).toMatchObject({ amount: 300, chargeId: a.id, reference: 're_eu_reference000001' });
  expect(byId.get(payout.json.id)).toMatchObject({ amount: 5000, currency: 'NGN', status: 'succeeded' });

  // Outside the window: nothing.
  expect((await source.page({ from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' }, undefined, 10)).rows).toEqual([]);
});

test('planted mismatches change the report only; phantoms appear; clearing restores it', async () => {
  const a = (await charge('tok_success', 1000)).json;
  const b = (await charge('tok_success', 2000)).json;
  const c = (await charge('tok_success', 3000)).json;
  expect((await h.http('POST', `/v1/admin/settlement-report/entries/${a.id}`, { omit: true })).status).toBe(200);
  expect((await h.http('POST', `/v1/admin/settlement-report/entries/${b.id}`, { amount: 1999 })).status).toBe(200);
  expect((await h.http('POST', `/v1/admin/settlement-report/entries/${c.id}`, { status: 'declined' })).status).toBe(200);
  const ghost = await h.http<{ id: string; object: string }>('POST', '/v1/admin/settlement-report/phantoms', { object: 'refund', amount: 50, currency: 'eur', reference: 're_eu_ghost' });
  expect(ghost.status).toBe(201);
  expect(ghost.json).toMatchObject({ object: 'refund', id: expect.stringMatching(/^rf_/), currency: 'EUR', status: 'succeeded' });

  const source = sandboxSettlementReport({ baseUrl: h.baseUrl });
  const rows = (await source.page(window(), undefined, 100)).rows;
  expect(rows.map((r) => r.gatewayId).sort()).toEqual([b.id, c.id, ghost.json.id].sort());
  expect(rows.find((r) => r.gatewayId === b.id)!.amount).toBe(1999);
  expect(rows.find((r) => r.gatewayId === c.id)!.status).toBe('declined');
  // The gateway's own API still tells the truth.
  expect((await h.http<ChargeJson>('GET', `/v1/charges/${c.id}`)).json.status).toBe('succeeded');

  // Only real captures, refunds and payouts can be adjusted; a decline or an unknown id is a 404.
  const declined = (await charge('tok_decline')).json;
  const refused = await h.http<ErrorJson>('POST', `/v1/admin/settlement-report/entries/${declined.id}`, { omit: true });
  expect(refused.status).toBe(404);
  expect((await h.http<ErrorJson>('POST', `/v1/admin/settlement-report/entries/${b.id}`, {})).json.error.code).toBe('parameter_invalid');

  expect((await h.http<{ cleared: number }>('DELETE', '/v1/admin/settlement-report/adjustments')).json.cleared).toBe(4);
  expect((await source.page(window(), undefined, 100)).rows.map((r) => r.gatewayId).sort()).toEqual([a.id, b.id, c.id].sort());
});
