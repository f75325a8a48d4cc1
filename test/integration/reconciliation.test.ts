import type { Client } from '@temporalio/client';
import type { MongoClient } from 'mongodb';
import { createReconciliationActivities } from '../../activities/reconciliation';
import { sandboxSettlementReport, type SettlementReportSource } from '../../gateways/sandbox-settlement';
import type { GatewayRow } from '../../domain/reconciliation';
import { createLogger } from '../../platform/logger';
import { connectMongo } from '../../platform/mongo';
import { admin, api, call, createPayoutMerchant, eventually, getStack, mongo, pay, temporalClient, type Merchant } from './harness';

// Reconciliation end to end on the real stack: real captures, refunds and payouts through the API and the
// sandbox, mismatches planted in the sandbox's settlement report (its test hooks), a run started through the
// admin API, and what it opened: one discrepancy and one tenant event per mismatch, nothing for the rows
// that match, nothing more on a re-run. Then the Schedule the worker made at start, triggered.
// Other test files share the stack, so every assertion is about this file's own objects.

let m: Merchant;
let db: MongoClient;
let temporal: Client;
const sandbox = (method: string, path: string, body?: unknown) => call(method, path, { baseUrl: getStack().sandboxUrl, ...(body !== undefined ? { body } : {}) });
const plant = async (gatewayId: string, change: Record<string, unknown>) => {
  const r = await sandbox('POST', `/v1/admin/settlement-report/entries/${gatewayId}`, change);
  expect(r.status).toBe(200);
};
const phantom = async (body: Record<string, unknown>) => {
  const r = await sandbox('POST', '/v1/admin/settlement-report/phantoms', body);
  expect(r.status).toBe(201);
  return r.body.id as string;
};

beforeAll(async () => {
  m = await createPayoutMerchant();
  db = await mongo();
  temporal = await temporalClient();
});
afterAll(async () => {
  await db?.close();
  await temporal?.connection.close();
});

async function paidIntent(amount: number): Promise<{ id: string; charge: string }> {
  const pi = await api.post('/v202607/payment-intents', { amount, currency: 'EUR' }, m.secretKey);
  expect((await pay(pi.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  const record = await eventually(async () => {
    const r = await db.db().collection('payment_intents').findOne({ _id: pi.body.payment_intent } as never);
    return r?.gateway_charge_id ? r : undefined;
  }, 15_000, 'the capture recorded');
  return { id: pi.body.payment_intent, charge: record.gateway_charge_id as string };
}

async function settledRefund(paymentIntent: string, amount: number): Promise<{ id: string; gatewayId: string }> {
  const r = await api.post('/v202607/refunds', { payment_intent: paymentIntent, amount, currency: 'EUR' }, m.secretKey);
  expect(r.status).toBe(201);
  await eventually(async () => ((await api.get(`/v202607/refunds/${r.body.refund}`, m.secretKey)).body.status === 'success' ? true : undefined), 20_000, 'refund success');
  const record = await db.db().collection('refunds').findOne({ _id: r.body.refund } as never);
  return { id: r.body.refund, gatewayId: record!.gateway_transaction_id as string };
}

async function paidOut(amount: number): Promise<{ id: string; gatewayId: string }> {
  const r = await api.post('/payouts', { amount, currency: 'NGN', gateway: 'sandbox', bank_account_number: '0123456789', bank_account_name: 'Ada Obi', bank_code: '058' }, m.secretKey);
  expect(r.status).toBe(201);
  expect(r.body.status).toBe('success');
  return { id: r.body.payout_uuid, gatewayId: r.body.gateway_payout_id };
}

async function finishedRun(run: string) {
  return eventually(async () => {
    const r = await admin.get(`/admin/reconciliation/runs/${encodeURIComponent(run)}`);
    return r.status === 200 && r.body.status !== 'running' ? r.body : undefined;
  }, 60_000, `run ${run} finished`);
}

const listed = async (query: string) => {
  const r = await admin.get(`/admin/reconciliation/discrepancies?limit=100&${query}`);
  expect(r.status).toBe(200);
  return r.body.data as any[];
};

test('each planted mismatch opens one discrepancy and one event; matching rows open none; a re-run opens nothing more', async () => {
  const from = new Date(Date.now() - 60_000).toISOString();

  // Captures: one matches; one left out of the report, one settled for less, one reported declined.
  const [capOk, capMissing, capAmount, capStatus] = [await paidIntent(3000), await paidIntent(1100), await paidIntent(1200), await paidIntent(1300)];
  // Refunds (of the matching capture): the same four cases.
  const [refOk, refMissing, refAmount, refStatus] = [await settledRefund(capOk.id, 100), await settledRefund(capOk.id, 110), await settledRefund(capOk.id, 120), await settledRefund(capOk.id, 130)];
  // Payouts: the same four cases.
  const [poOk, poMissing, poAmount, poStatus] = [await paidOut(5000), await paidOut(5100), await paidOut(5200), await paidOut(5300)];

  await plant(capMissing.charge, { omit: true });
  await plant(capAmount.charge, { amount: 1150 });
  await plant(capStatus.charge, { status: 'declined' });
  await plant(refMissing.gatewayId, { omit: true });
  await plant(refAmount.gatewayId, { amount: 999 });
  await plant(refStatus.gatewayId, { status: 'rejected' });
  await plant(poMissing.gatewayId, { omit: true });
  await plant(poAmount.gatewayId, { amount: 1 });
  await plant(poStatus.gatewayId, { status: 'failed' });
  // Money the gateway moved that we never asked for: a second capture on a paid intent, a refund and a
  // payout naming ours, and one naming nothing of ours at all.
  const capPhantom = await phantom({ object: 'capture', amount: 3000, currency: 'EUR', reference: capOk.id });
  const refPhantom = await phantom({ object: 'refund', amount: 50, currency: 'EUR', reference: refOk.id, charge_id: capOk.charge });
  const poPhantom = await phantom({ object: 'payout', amount: 700, currency: 'NGN', reference: poOk.id });
  const orphan = await phantom({ object: 'payout', amount: 42, currency: 'NGN', reference: 'someone-else' });
  const to = new Date(Date.now() + 60_000).toISOString();

  const started = await admin.post('/admin/reconciliation/runs', { from, to, operator: 'reconciliation-test', reason: 'planted mismatches' });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ run: expect.stringMatching(/^rec_eu_/), status: 'running', trigger: 'manual', operator: 'reconciliation-test' });
  const run = await finishedRun(started.body.run);
  expect(run.status).toBe('discrepancies');
  expect(run.objects.map((o: any) => o.object)).toEqual(['capture', 'refund', 'payout']);

  const mine = await listed(`tenant=${m.tenant}&run=${run.run}`);
  const found = mine.map((d) => `${d.object_type} ${d.kind} ${d.our_id ?? d.gateway_id}`).sort();
  expect(found).toEqual(
    [
      `capture missing_at_gateway ${capMissing.id}`,
      `capture amount_mismatch ${capAmount.id}`,
      `capture status_mismatch ${capStatus.id}`,
      `capture missing_in_ledger ${capPhantom}`,
      `refund missing_at_gateway ${refMissing.id}`,
      `refund amount_mismatch ${refAmount.id}`,
      `refund status_mismatch ${refStatus.id}`,
      `refund missing_in_ledger ${refPhantom}`,
      `payout missing_at_gateway ${poMissing.id}`,
      `payout amount_mismatch ${poAmount.id}`,
      `payout status_mismatch ${poStatus.id}`,
      `payout missing_in_ledger ${poPhantom}`,
    ].sort(),
  );
  // Both sides are on the record, as each side has them.
  const amount = mine.find((d) => d.our_id === capAmount.id)!;
  expect(amount).toMatchObject({ ours: { amount: 1200, currency: 'EUR', status: 'success' }, gateway_side: { amount: 1150, status: 'succeeded' }, gateway_id: capAmount.charge, status: 'open', tenant: m.tenant, run_id: run.run });
  expect(mine.find((d) => d.our_id === refStatus.id)).toMatchObject({ ours: { status: 'success' }, gateway_side: { status: 'rejected' } });
  expect(mine.find((d) => d.our_id === poMissing.id)).toMatchObject({ gateway_side: null, ours: { amount: 5100, currency: 'NGN' } });
  expect(mine.find((d) => d.gateway_id === capPhantom)).toMatchObject({ ours: null, our_id: null, reference: capOk.id, gateway_side: { amount: 3000 } });
  // Nothing for the rows that match.
  const ok = new Set([capOk.id, refOk.id, poOk.id]);
  expect((await listed(`run=${run.run}`)).filter((d) => ok.has(d.our_id))).toEqual([]);
  // The entry nobody of ours names: a discrepancy without a tenant (so no tenant event).
  const orphanFound = (await listed(`run=${run.run}&kind=missing_in_ledger`)).filter((d) => d.gateway_id === orphan);
  expect(orphanFound).toEqual([expect.objectContaining({ tenant: null, event: null, object_type: 'payout' })]);

  // One event per discrepancy, in the tenant's events.
  const events = await api.get('/v202607/events?type=discrepancy.opened&limit=100', m.secretKey);
  expect(events.status).toBe(200);
  const eventIds = (events.body.data as any[]).map((e) => e.data.id).sort();
  expect(eventIds).toEqual(mine.map((d) => d.id).sort());
  expect(mine.every((d) => typeof d.event === 'string')).toBe(true);

  // A re-run of the same window opens nothing for these objects.
  const again = await admin.post('/admin/reconciliation/runs', { from, to });
  const rerun = await finishedRun(again.body.run);
  expect(rerun.already_open).toBeGreaterThanOrEqual(13);
  expect(await listed(`tenant=${m.tenant}&run=${rerun.run}`)).toEqual([]);
  expect(await listed(`tenant=${m.tenant}`)).toHaveLength(12);
  const eventsAfter = await api.get('/v202607/events?type=discrepancy.opened&limit=100', m.secretKey);
  expect(eventsAfter.body.data).toHaveLength(12);

  // An operator resolves one, once.
  const resolved = await admin.post(`/admin/reconciliation/discrepancies/${amount.id}/resolve`, { operator: 'amina@ops.example', reason: 'gateway corrected its report' });
  expect(resolved.status).toBe(200);
  expect(resolved.body).toMatchObject({ status: 'resolved', resolution: { operator: 'amina@ops.example', reason: 'gateway corrected its report' } });
  const twice = await admin.post(`/admin/reconciliation/discrepancies/${amount.id}/resolve`, { operator: 'someone', reason: 'again' });
  expect(twice.status).toBe(409);
  expect(twice.body.error.code).toBe('discrepancy_already_resolved');
  expect((await listed(`tenant=${m.tenant}&status=open`)).map((d) => d.id)).not.toContain(amount.id);
  expect((await admin.get(`/admin/reconciliation/discrepancies/${amount.id}`)).body.status).toBe('resolved');
});

test('a refund made at the gateway on one of our charges, naming nothing of ours, is the tenant of that charge\'s discrepancy (with its event)', async () => {
  const from = new Date(Date.now() - 60_000).toISOString();
  const cap = await paidIntent(2400);
  const direct = await phantom({ object: 'refund', amount: 345, currency: 'EUR', reference: `made-at-the-gateway-${Date.now()}`, charge_id: cap.charge });
  const started = await admin.post('/admin/reconciliation/runs', { from, to: new Date(Date.now() + 60_000).toISOString(), reason: 'a refund nobody asked us for' });
  const run = await finishedRun(started.body.run);
  const found = (await listed(`run=${run.run}&kind=missing_in_ledger`)).filter((d) => d.gateway_id === direct);
  expect(found).toEqual([expect.objectContaining({ object_type: 'refund', tenant: m.tenant, event: expect.any(String), gateway_side: expect.objectContaining({ amount: 345 }) })]);
});

test('a second transfer the gateway made under one payout\'s (or refund\'s) idempotency key is money our ledger does not hold: missing_in_ledger', async () => {
  const from = new Date(Date.now() - 60_000).toISOString();
  const po = await paidOut(6100);
  const cap = await paidIntent(2100);
  const ref = await settledRefund(cap.id, 210);
  // The gateway's report lists each of ours and, under the same key, a second entry (its lookup lagged, so the
  // request was sent again and executed again). Before, the second overwrote the first in the matching, and
  // nothing was opened.
  const poTwice = await phantom({ object: 'payout', amount: 6100, currency: 'NGN', reference: po.id, idempotency_key: po.id });
  const refTwice = await phantom({ object: 'refund', amount: 210, currency: 'EUR', reference: ref.id, idempotency_key: ref.id, charge_id: cap.charge });
  const to = new Date(Date.now() + 60_000).toISOString();
  const run = await finishedRun((await admin.post('/admin/reconciliation/runs', { from, to, operator: 'reconciliation-test', reason: 'a key paid twice' })).body.run);
  const mine = await listed(`tenant=${m.tenant}&run=${run.run}`);
  const about = (ids: string[]) => mine.filter((d) => ids.includes(d.our_id) || ids.includes(d.gateway_id)).map((d) => `${d.object_type} ${d.kind} ${d.our_id ?? d.gateway_id}`);
  expect(about([po.id, po.gatewayId, poTwice]).sort()).toEqual([`payout missing_in_ledger ${poTwice}`]);
  expect(about([ref.id, ref.gatewayId, refTwice]).sort()).toEqual([`refund missing_in_ledger ${refTwice}`]);
  expect(mine.find((d) => d.gateway_id === poTwice)).toMatchObject({ tenant: m.tenant, reference: po.id, gateway_side: { amount: 6100, currency: 'NGN' } });

  // A third execution lands in a later window, whose report holds neither our payout's row nor its first entry:
  // beside the gateway id our payout recorded, it is the same finding (before, it was paired with our row).
  const laterFrom = new Date(Date.now() + 1_000).toISOString();
  await new Promise((r) => setTimeout(r, 1_500));
  const poLater = await phantom({ object: 'payout', amount: 6100, currency: 'NGN', reference: po.id, idempotency_key: po.id });
  const later = await finishedRun((await admin.post('/admin/reconciliation/runs', { from: laterFrom, to: new Date(Date.now() + 60_000).toISOString(), operator: 'reconciliation-test', reason: 'a key paid again later' })).body.run);
  const laterFound = (await listed(`tenant=${m.tenant}&run=${later.run}`)).filter((d) => [po.id, po.gatewayId, poTwice, poLater].includes(d.our_id ?? d.gateway_id));
  expect(laterFound.map((d) => `${d.object_type} ${d.kind} ${d.gateway_id}`)).toEqual([`payout missing_in_ledger ${poLater}`]);
});

test('a void refund (of a capture its intent did not own) that has not settled at the gateway is a discrepancy; a settled one is not', async () => {
  const own = await createPayoutMerchant();
  const from = new Date(Date.now() - 60_000).toISOString();
  // The first attempt's charge reaches the gateway late, after the customer paid with another card: the intent
  // refunds that capture by its void key. The sandbox leaves a refund of an amount ending in 99 pending for good.
  const voided = async (amount: number, settles: boolean) => {
    const id = (await api.post('/v202607/payment-intents', { amount, currency: 'EUR' }, own.secretKey)).body.payment_intent as string;
    expect((await pay(id, own.publishableKey, 'tok_late_arrival')).body.status).toBe('failed');
    expect((await pay(id, own.publishableKey, 'tok_success')).body.status).toBe('success');
    await eventually(async () => {
      const r = await sandbox('GET', `/v1/effects?kind=refund&idempotency_key=${encodeURIComponent(`${id}:void:1`)}`);
      return r.body.count === 1 && r.body.effects[0].status === (settles ? 'succeeded' : 'pending') ? true : undefined;
    }, 40_000, `the void refund of ${id}`);
    return id;
  };
  const [stuck, settled] = await Promise.all([voided(2599, false), voided(2500, true)]);
  const started = await admin.post('/admin/reconciliation/runs', { from, to: new Date(Date.now() + 60_000).toISOString() });
  const run = await finishedRun(started.body.run);
  const found = await listed(`tenant=${own.tenant}&run=${run.run}`);
  expect(found).toEqual([
    expect.objectContaining({ object_type: 'refund', kind: 'status_mismatch', our_id: `${stuck}:void:1`, ours: expect.objectContaining({ amount: 2599, status: 'success' }), gateway_side: expect.objectContaining({ amount: 2599, status: 'pending' }) }),
  ]);
  expect(found.some((d) => String(d.our_id).startsWith(settled))).toBe(false);
}, 120_000);

test('an attempt of a run retried after it opened discrepancies (its result lost with the worker) still counts them as opened', async () => {
  const from = new Date(Date.now() - 60_000).toISOString();
  const paid = await paidOut(4321);
  await plant(paid.gatewayId, { amount: 4000 });
  const workerDb = await connectMongo(getStack().mongoUri);
  try {
    const activities = createReconciliationActivities({
      mongo: workerDb,
      logger: createLogger({ name: 'reconciliation-test', level: 'silent' }),
      settlementReports: [sandboxSettlementReport({ baseUrl: getStack().sandboxUrl })],
    });
    const input = { runId: `rec_eu_${paid.id.replace(/-/g, '').slice(0, 16)}`, region: 'eu', from, to: new Date(Date.now() + 1_000).toISOString(), object: 'payout' as const, graceSeconds: 0 };
    const first = await activities.reconcileObject(input);
    expect(first.opened.amount_mismatch).toBeGreaterThanOrEqual(1);
    // Temporal runs the activity again for the same run: what it opened the first time is still this run's finding.
    const retried = await activities.reconcileObject(input);
    expect(retried.opened).toEqual(first.opened);
    expect(retried.alreadyOpen).toBe(first.alreadyOpen);
    expect(retried.sample.map((d) => d.id).sort()).toEqual(first.sample.map((d) => d.id).sort());
  } finally {
    await workerDb.close();
  }
});

test('a window that cannot be reconciled is refused, and an unknown run is a 404', async () => {
  const reversed = await admin.post('/admin/reconciliation/runs', { from: '2026-11-23T00:00:00Z', to: '2026-11-22T00:00:00Z' });
  expect(reversed.status).toBe(400);
  expect(reversed.body.error).toMatchObject({ code: 'parameter_invalid', param: 'from' });
  expect((await admin.get('/admin/reconciliation/runs/rec_eu_doesnotexist000')).status).toBe(404);
});

test('the worker made the daily Schedule at start, and triggering it runs a reconciliation of the previous day', async () => {
  const schedule = temporal.schedule.getHandle('reconciliation-daily');
  const described = await schedule.describe();
  // RECONCILIATION_SCHEDULE's default, `0 2 * * *`: every day at 02:00 UTC.
  expect(described.spec.calendars).toEqual([
    expect.objectContaining({ hour: [{ start: 2, end: 2, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }], dayOfMonth: [{ start: 1, end: 31, step: 1 }] }),
  ]);
  expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'reconciliationWorkflow' });
  const before = described.info.recentActions.length;

  await schedule.trigger();
  const action = await eventually(async () => {
    const d = await schedule.describe();
    return d.info.recentActions.length > before ? d.info.recentActions.at(-1) : undefined;
  }, 20_000, 'the triggered action');
  const workflowId = action!.action.workflow.workflowId;
  expect(workflowId).toMatch(/^reconciliation-daily-/);
  const run = await finishedRun(workflowId);
  const dayStart = Date.UTC(new Date(action!.scheduledAt).getUTCFullYear(), new Date(action!.scheduledAt).getUTCMonth(), new Date(action!.scheduledAt).getUTCDate());
  expect(run).toMatchObject({ trigger: 'schedule', window: { from: new Date(dayStart - 86_400_000).toISOString(), to: new Date(dayStart).toISOString() } });
  expect(['clean', 'discrepancies']).toContain(run.status);
  expect(run.objects).toHaveLength(3);
});

test('the Schedule follows RECONCILIATION_SCHEDULE at each worker start: updated in place, deleted by off, made again', async () => {
  const { ensureReconciliationScheduleWith } = await import('../../worker/reconciliation-schedule');
  const { createLogger } = await import('../../platform/logger');
  const logger = createLogger({ name: 'reconciliation-test', level: 'silent' });
  const config = { RECONCILIATION_SCHEDULE: '0 2 * * *', RECONCILIATION_WINDOW_SECONDS: 86_400, RECONCILIATION_GRACE_SECONDS: 900, TEMPORAL_TASK_QUEUE: 'payments', DEFAULT_REGION: 'eu' };
  const schedule = temporal.schedule.getHandle('reconciliation-daily');
  const hours = async () => (await schedule.describe()).spec.calendars?.map((c) => c.hour);

  expect(await ensureReconciliationScheduleWith(temporal, { ...config, RECONCILIATION_SCHEDULE: '30 */6 * * *' }, logger)).toBe('updated');
  expect(await hours()).toEqual([[{ start: 0, end: 23, step: 6 }]]);
  expect(await ensureReconciliationScheduleWith(temporal, { ...config, RECONCILIATION_SCHEDULE: 'off' }, logger)).toBe('deleted');
  await expect(schedule.describe()).rejects.toThrow(/not found/i);
  expect(await ensureReconciliationScheduleWith(temporal, { ...config, RECONCILIATION_SCHEDULE: 'off' }, logger)).toBe('off');
  // Back to the default, as a worker start would make it.
  expect(await ensureReconciliationScheduleWith(temporal, { ...config, TEMPORAL_TASK_QUEUE: (getStack().env.TEMPORAL_TASK_QUEUE ?? 'payments') }, logger)).toBe('created');
  expect(await hours()).toEqual([[{ start: 2, end: 2, step: 1 }]]);
});

test('a capture the two sides stamped further apart than the margin (our success recorded 20 minutes after the gateway captured) is looked for further out, not called missing', async () => {
  const paid = await paidIntent(2750);
  const intent = (await db.db().collection('payment_intents').findOne({ _id: paid.id } as never))!;
  const ourAt = (intent.succeeded_at as Date).getTime();
  const capturedAt = new Date(ourAt - 20 * 60_000).toISOString();
  // The gateway's report, standing in for the sandbox's so the capture can carry the earlier instant.
  const rows: GatewayRow[] = [
    { object: 'capture', gatewayId: paid.charge, idempotencyKey: `${paid.id}:attempt:1`, reference: paid.id, chargeId: null, amount: 2750, currency: 'EUR', status: 'succeeded', occurredAt: capturedAt },
  ];
  const report: SettlementReportSource = {
    gateway: 'sandbox',
    page: async (w) => ({ rows: rows.filter((r) => r.occurredAt >= w.from && r.occurredAt < w.to), hasMore: false }),
  };
  const workerDb = await connectMongo(getStack().mongoUri);
  try {
    const activities = createReconciliationActivities({ mongo: workerDb, logger: createLogger({ name: 'reconciliation-test', level: 'silent' }), settlementReports: [report] });
    // A window holding our row alone (its millisecond), with the usual 15-minute margin.
    const window = { from: new Date(ourAt).toISOString(), to: new Date(ourAt + 1).toISOString() };
    const result = await activities.reconcileObject({ runId: `rec_eu_further${Date.now()}`, region: 'eu', ...window, object: 'capture', graceSeconds: 900 });
    expect(result).toMatchObject({ ledgerRows: 1, matched: 1 }); // found, not merely not flagged
    expect(result.opened).toEqual({ missing_at_gateway: 0, missing_in_ledger: 0, amount_mismatch: 0, status_mismatch: 0 });
    expect(await db.db().collection('discrepancies').countDocuments({ our_id: paid.id })).toBe(0);
  } finally {
    await workerDb.close();
  }
});

test('rows with a side pending at their window\'s run are compared again by a later run once both sides are final', async () => {
  const from = new Date(Date.now() - 60_000).toISOString();
  const paid = await paidIntent(5000);
  // Two refunds settled on both sides whose report entries first say pending.
  const [settlesAlike, settlesApart] = [await settledRefund(paid.id, 150), await settledRefund(paid.id, 160)];
  await plant(settlesAlike.gatewayId, { status: 'pending' });
  await plant(settlesApart.gatewayId, { status: 'pending' });
  // Two refunds pending on both sides: the sandbox leaves a refund of an amount ending in 99 pending, and our
  // side gives up at its 60 s SLA (the workflow cancels it at the gateway), so both sides end failed unless the
  // gateway's report says otherwise.
  const pendingRefund = async (amount: number) => {
    const r = await api.post('/v202607/refunds', { payment_intent: paid.id, amount, currency: 'EUR', refund_sla_timeout: 60 }, m.secretKey);
    expect(r.status).toBe(201);
    // Our record has no gateway id while pending: the sandbox names the refund it made under our id.
    const effect = await eventually(async () => {
      const e = await sandbox('GET', `/v1/effects?kind=refund&idempotency_key=${encodeURIComponent(r.body.refund)}`);
      return e.body.count === 1 && e.body.effects[0].status === 'pending' ? e.body.effects[0] : undefined;
    }, 15_000, 'the refund taken by the gateway, pending');
    return { id: r.body.refund as string, gatewayId: effect.id as string };
  };
  const [goesOut, staysBack] = [await pendingRefund(199), await pendingRefund(299)];
  const ids = [settlesAlike.id, settlesApart.id, goesOut.id, staysBack.id];

  const first = await finishedRun((await admin.post('/admin/reconciliation/runs', { from, to: new Date(Date.now() + 60_000).toISOString() })).body.run);
  const rechecks = db.db().collection('reconciliation_rechecks');
  // All four undecided at this run, kept for a later look; nothing opened for the two pending on both sides.
  expect((await rechecks.find({ our_id: { $in: ids } } as never).toArray()).map((r) => r.our_id).sort()).toEqual([...ids].sort());
  const opened = await listed(`tenant=${m.tenant}&run=${first.run}`);
  expect(opened.filter((d) => [goesOut.id, staysBack.id].includes(d.our_id))).toEqual([]);
  const whilePending = (id: string) => opened.find((d) => d.our_id === id);
  for (const id of [settlesAlike.id, settlesApart.id]) {
    expect(whilePending(id)).toMatchObject({ kind: 'status_mismatch', status: 'open', ours: { status: 'success' }, gateway_side: { status: 'pending' } });
  }
  expect(first.objects.find((o: any) => o.object === 'refund').awaiting_recheck).toBeGreaterThanOrEqual(4);
  // An operator takes one as still settling, and resolves it.
  expect((await admin.post(`/admin/reconciliation/discrepancies/${whilePending(settlesApart.id).id}/resolve`, { operator: 'amina@ops.example', reason: 'still settling' })).status).toBe(200);

  // Our side ends the two pending at their SLA; then the report says one of them went out after all, and the
  // two settled ones end as succeeded (as we have them) and failed (the refund never went out).
  for (const r of [goesOut, staysBack]) {
    await eventually(async () => ((await api.get(`/v202607/refunds/${r.id}`, m.secretKey)).body.status !== 'pending' ? true : undefined), 120_000, `refund ${r.id} final`);
  }
  await plant(goesOut.gatewayId, { status: 'succeeded' });
  await plant(settlesAlike.gatewayId, { status: 'succeeded' });
  await plant(settlesApart.gatewayId, { status: 'failed' });

  // A later run, over a window that holds none of them, reads them again.
  const later = await finishedRun((await admin.post('/admin/reconciliation/runs', { from: new Date(Date.now() - 1_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() })).body.run);
  const found = (await listed(`tenant=${m.tenant}&run=${later.run}`)).filter((d) => ids.includes(d.our_id));
  expect(found.map((d) => `${d.kind} ${d.our_id} ${d.ours.status}/${d.gateway_side.status}`).sort()).toEqual(
    [`status_mismatch ${goesOut.id} canceled/succeeded`, `status_mismatch ${settlesApart.id} success/failed`].sort(),
  );
  // The one opened against a pending side that settled alike is resolved by reconciliation; the one an operator resolved stays theirs.
  expect((await admin.get(`/admin/reconciliation/discrepancies/${whilePending(settlesAlike.id).id}`)).body).toMatchObject({ status: 'resolved', resolution: { operator: 'reconciliation', reason: expect.stringContaining(later.run) } });
  expect((await admin.get(`/admin/reconciliation/discrepancies/${whilePending(settlesApart.id).id}`)).body).toMatchObject({ status: 'resolved', resolution: { operator: 'amina@ops.example' } });
  expect(later.objects.find((o: any) => o.object === 'refund').rechecked).toBeGreaterThanOrEqual(4);
  // An attempt of that run retried (its result lost with the worker) compares them again: what it opened still counts as opened.
  const workerDb = await connectMongo(getStack().mongoUri);
  try {
    const activities = createReconciliationActivities({ mongo: workerDb, logger: createLogger({ name: 'reconciliation-test', level: 'silent' }), settlementReports: [sandboxSettlementReport({ baseUrl: getStack().sandboxUrl })] });
    const retried = await activities.reconcileObject({ runId: later.run, region: 'eu', from: later.window.from, to: later.window.to, object: 'refund', graceSeconds: 900 });
    // The same two discrepancies, counted as this run's (not already open); the four rows compared again.
    expect(retried.sample.map((x) => x.id)).toEqual(expect.arrayContaining(found.map((d) => d.id)));
    expect(retried.opened.status_mismatch).toBeGreaterThanOrEqual(2);
    expect(retried.rechecked).toBeGreaterThanOrEqual(4);
  } finally {
    await workerDb.close();
  }
  // Compared for good: marked with the run, dropped by the next one.
  expect((await rechecks.find({ our_id: { $in: ids } } as never).toArray()).map((r) => r.done_by)).toEqual([later.run, later.run, later.run, later.run]);
  await finishedRun((await admin.post('/admin/reconciliation/runs', { from: new Date(Date.now() - 1_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() })).body.run);
  expect(await rechecks.countDocuments({ our_id: { $in: ids } } as never)).toBe(0);
  // An operator re-runs the first window: its main pass pairs the four again, both sides final. The mismatch the
  // later run opened once both had settled is the one it finds (before, goesOut's was opened a second time).
  const rerun = await finishedRun((await admin.post('/admin/reconciliation/runs', { from: first.window.from, to: first.window.to, operator: 'amina@ops.example', reason: 're-run' })).body.run);
  expect((await listed(`tenant=${m.tenant}&run=${rerun.run}`)).filter((d) => ids.includes(d.our_id))).toEqual([]);
  expect((await listed(`tenant=${m.tenant}&status=open`)).filter((d) => d.our_id === goesOut.id)).toHaveLength(1);
}, 300_000);
