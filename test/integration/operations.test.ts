import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { RUNBOOK_QUERIES } from '../../platform/runbook-queries';
import { forceCancelIntent } from '../../api/admin/operator-actions';
import { connectMongo } from '../../platform/mongo';
import { admin, api, apiDeps, createMerchant, eventually, getStack, pay, temporalClient, withMethod, type Merchant } from './harness';

// Operators on the real stack: the runbook's queries run against Temporal's visibility store, each operator
// action is an Update of the owning workflow through the admin API, audited, and the CLI drives the same API.

let m: Merchant;
beforeAll(async () => {
  m = await createMerchant();
});

const operator = 'samira@ops.example.com';
const act = (action: string, body: Record<string, unknown>) => admin.post(`/admin/operations/${action}`, { operator, reason: 'INC-2291', ...body });
const auditOf = async (target: string) => (await admin.get(`/admin/operations?target=${encodeURIComponent(target)}`)).body.data as any[];

async function paidIntent(amount = 5000) {
  const pi = await api.post('/v202607/payment-intents', { amount, currency: 'EUR' }, m.secretKey);
  expect((await pay(pi.body.payment_intent, m.publishableKey)).body.status).toBe('success');
  return pi.body.payment_intent as string;
}

test('every runbook query is valid on the real server', async () => {
  for (const q of RUNBOOK_QUERIES) {
    const r = await admin.get(`/admin/runbook/${q.name}`);
    expect({ name: q.name, status: r.status }).toEqual({ name: q.name, status: 200 });
    expect(r.body).toMatchObject({ name: q.name, data: expect.any(Array), has_more: expect.any(Boolean) });
  }
  const unknown = await admin.get('/admin/runbook/stuck-payouts');
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe('resource_missing');
});

test('a pending intent shows among those past their deadline once its deadline is behind the query time', async () => {
  const pi = await api.post('/v202607/payment-intents', { amount: 1500, currency: 'EUR', timeout: 600 }, m.secretKey);
  expect(pi.status).toBe(201);
  const id = pi.body.payment_intent as string;
  const later = new Date(Date.now() + 11 * 60_000).toISOString();
  const found = await eventually(async () => {
    const r = await admin.get(`/admin/runbook/intents-past-deadline?at=${encodeURIComponent(later)}`);
    return r.body.data.some((w: any) => w.workflow_id === id) ? r.body : undefined;
  }, 20_000, 'the intent in the query');
  expect(found.query).toContain('ExpiresAt <');
  // Now it is not past its deadline, so it is not listed.
  expect((await admin.get('/admin/runbook/intents-past-deadline')).body.data.some((w: any) => w.workflow_id === id)).toBe(false);
});

test('force-cancel of a pending intent cancels it, and the audit trail says who and why', async () => {
  const pi = await api.post('/v202607/payment-intents', { amount: 900, currency: 'EUR' }, m.secretKey);
  const id = pi.body.payment_intent as string;
  const r = await act('force_cancel_intent', { target: id });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ action: 'force_cancel_intent', target: id, outcome: 'done', result: { outcome: 'canceled', status: 'canceled' } });
  expect((await api.get(`/v202607/payment-intents/${id}`, m.secretKey)).body.status).toBe('canceled');
  const audit = await auditOf(id);
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ id: r.body.action_id, action: 'force_cancel_intent', tenant: m.tenant, operator, reason: 'INC-2291', outcome: 'done', code: null });
  // Once canceled (its workflow ended), another force-cancel is refused, and audited as refused.
  const again = await act('force_cancel_intent', { target: id });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('payment_intent_unexpected_state');
  // The refused row names the tenant too (it was null: only done rows carried it).
  expect((await auditOf(id))[0]).toMatchObject({ outcome: 'refused', code: 'payment_intent_unexpected_state', tenant: m.tenant });
});

test("a force-cancel that lost to the merchant's cancel at the same moment names how the intent ended, not the pending it read first", async () => {
  const id = (await api.post('/v202607/payment-intents', { amount: 900, currency: 'EUR' }, m.secretKey)).body.payment_intent as string;
  const db = await connectMongo(getStack().mongoUri);
  const temporal = await temporalClient();
  try {
    // The action reads the pending intent; the merchant's cancel ends it before the action's Update arrives.
    let canceled = false;
    const racing = withMethod(db, 'paymentIntents', 'findOne', (real) => async (...args: unknown[]) => {
      const found = await (real as unknown as { findOne(...a: unknown[]): Promise<unknown> }).findOne(...args);
      if (!canceled && (args[0] as { tenant_id?: string }).tenant_id) {
        canceled = true;
        expect((await api.post(`/v202607/payment-intents/${id}/cancel`, {}, m.secretKey)).status).toBe(200);
      }
      return found;
    });
    const refused = forceCancelIntent(apiDeps(racing, temporal), { target: id, actionId: `opa_eu_race${Date.now()}`, operator, reason: 'race' });
    await expect(refused).rejects.toMatchObject({ code: 'payment_intent_unexpected_state', message: expect.stringMatching(/canceled/) });
    expect(canceled).toBe(true);
  } finally {
    await db.close();
    await temporal.connection.close();
  }
});

test('force-cancel of a paid intent refunds all that is left: the refund is the merchant\'s to see', async () => {
  const id = await paidIntent(5000);
  expect((await api.post('/v202607/refunds', { payment_intent: id, amount: 1000, currency: 'EUR' }, m.secretKey)).status).toBe(201);
  const r = await act('force_cancel_intent', { target: id });
  expect(r.status).toBe(200);
  expect(r.body.result).toMatchObject({ outcome: 'refunded', status: 'success', refund: expect.stringMatching(/^re_eu_/) });
  const refund = await eventually(async () => {
    const got = await api.get(`/v202607/refunds/${r.body.result.refund}`, m.secretKey);
    return got.body.status === 'success' ? got.body : undefined;
  }, 20_000, 'the operator refund settled');
  expect(refund).toMatchObject({ payment_intent: id, amount: 4000, currency: 'EUR' });
  // Nothing is left: a second force-cancel is refused without touching the money.
  const again = await act('force_cancel_intent', { target: id });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('nothing_to_refund');
});

test('force-cancel of a paid intent whose workflow has ended reopens it from MongoDB, with the stamp in its history', async () => {
  const id = await paidIntent(3000);
  const client = await temporalClient();
  await client.workflow.getHandle(id).terminate('the refund window ended (test stand-in)');
  const r = await act('force_cancel_intent', { target: id });
  expect(r.status).toBe(200);
  expect(r.body.result).toMatchObject({ outcome: 'refunded', status: 'success', refund: expect.stringMatching(/^re_eu_/) });
  const history = await client.workflow.getHandle(id).fetchHistory();
  const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  expect(accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.name)).toContain('operatorForceCancel');
  await eventually(async () => ((await api.get(`/v202607/refunds/${r.body.result.refund}`, m.secretKey)).body.status === 'success' ? true : undefined), 20_000, 'refunded');
});

test('re-check of an intent with nothing waiting on the gateway is refused (409); unknown targets are 404', async () => {
  const pi = await api.post('/v202607/payment-intents', { amount: 700, currency: 'EUR' }, m.secretKey);
  const r = await act('recheck_attempt', { target: pi.body.payment_intent });
  expect(r.status).toBe(409);
  expect(r.body.error.code).toBe('nothing_to_recheck');
  const missing = await act('retry_payout', { target: '00000000-0000-4000-8000-000000000000' });
  expect(missing.status).toBe(404);
  expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'target' });
  const settled = await act('retry_refund', { target: 're_eu_0000000000000000000000' });
  expect(settled.status).toBe(404);
});

test('bad input: a missing reason, an unknown action, confirm_payout without evidence', async () => {
  expect((await admin.post('/admin/operations/force_cancel_intent', { target: 'pi_eu_x', operator })).body.error).toMatchObject({ code: 'parameter_missing', param: 'reason' });
  expect((await act('reboot_gateway', { target: 'pi_eu_x' })).status).toBe(400);
  const noEvidence = await act('confirm_payout', { target: '00000000-0000-4000-8000-000000000000' });
  expect(noEvidence.status).toBe(400);
  expect(noEvidence.body.error).toMatchObject({ code: 'parameter_missing', param: 'evidence' });
  expect((await api.post('/admin/operations/recheck_attempt', { target: 'pi_eu_x', operator, reason: 'x' }, m.secretKey)).status).toBe(401);
});

test('retry of a settled refund is refused once its workflow ended', async () => {
  const id = await paidIntent(2000);
  const created = await api.post('/v202607/refunds', { payment_intent: id, amount: 2000, currency: 'EUR' }, m.secretKey);
  await eventually(async () => ((await api.get(`/v202607/refunds/${created.body.refund}`, m.secretKey)).body.status === 'success' ? true : undefined));
  const r = await eventually(async () => {
    const got = await act('retry_refund', { target: created.body.refund });
    return got.status === 409 ? got : undefined;
  }, 20_000, 'the refund workflow ended');
  expect(r.body.error.code).toBe('refund_settled');
});

test('the ops CLI drives the same API: find, an action, the audit trail', async () => {
  const stack = getStack();
  const run = (args: string[]) =>
    promisify(execFile)('npx', ['tsx', path.join(__dirname, '..', '..', 'scripts', 'ops.ts'), ...args], {
      env: { ...process.env, OPS_API_URL: stack.apiUrl, ADMIN_API_TOKEN: stack.adminToken, OPS_OPERATOR: 'cli-operator' },
    });
  const pi = await api.post('/v202607/payment-intents', { amount: 1100, currency: 'EUR' }, m.secretKey);
  const id = pi.body.payment_intent as string;
  const done = await run(['force-cancel', id, '--reason', 'customer asked support to cancel']);
  expect(JSON.parse(done.stdout)).toMatchObject({ action: 'force_cancel_intent', target: id, outcome: 'done' });
  expect((await auditOf(id))[0]).toMatchObject({ operator: 'cli-operator', reason: 'customer asked support to cancel' });
  const found = await run(['find', 'checkouts-holding-stock']);
  expect(found.stdout).toContain("WorkflowType = 'checkoutWorkflow'");
  const refused = await run(['recheck', id, '--reason', 'x']).then(() => null, (e) => e);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('409');
  const noReason = await run(['force-cancel', id]).then(() => null, (e) => e);
  expect(noReason.code).toBe(2);
  const reconcile = JSON.parse((await run(['reconcile', '--reason', 'check after INC-2291'])).stdout);
  expect(reconcile).toMatchObject({ run: expect.stringMatching(/^rec_/), status: 'running' });
});
