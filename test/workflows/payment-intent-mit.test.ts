import { WorkflowUpdateStage } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { ChargeOutcome } from '../../gateways/types';
import { attemptUpdate, cancelUpdate, chargeOutcomeSignal, intentStateQuery, mitChargeUpdate, PAYMENT_INTENT_WORKFLOW, type MitChargeInput } from '../../workflows/payment-intent/messages';
import { gate, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures, olderPart } from './payment-intent-fixtures';

// Merchant-initiated charges and orchestrator failover in the payment-intent workflow, in virtual time:
// the workflow owns the charge (once per call, across a worker that dies mid-charge), and an attempt
// fails over only when the connector certainly made no charge.

const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input, withWorker } = intentFixtures(testEnv);

const mitCall: MitChargeInput = {
  paymentMethod: 'pm_eu_card1',
  connector: 'con_eu_test',
  agreement: { id: 'agr_eu_abc', agreementId: 'sub-1', type: 'RECURRING', networkTransactionId: null },
};

/** With RECORD_HISTORIES=1, keeps the run's history for test/workflows/replay-recorded-histories. */
/** Keeps a run's history (RECORD_HISTORIES=1) for test/workflows/replay-recorded-histories. */
async function keep(name: string, workflowId: string) {
  keepHistory(`payment-intent-${name}`, await testEnv().client.workflow.getHandle(workflowId).fetchHistory());
}

/** A gateway that applies one charge per idempotency key, as real gateways do. */
function idempotentGateway(outcome: (n: number) => ChargeOutcome) {
  const byKey = new Map<string, ChargeOutcome>();
  return {
    byKey,
    charge: async (req: { idempotencyKey: string }) => {
      if (!byKey.has(req.idempotencyKey)) byKey.set(req.idempotencyKey, outcome(byKey.size + 1));
      return byKey.get(req.idempotencyKey)!;
    },
  };
}

test('a worker that dies while the charge is on the wire: the next one charges nothing twice and the call answers ok; a repeat answers the same', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'unused' }));
  const gw = idempotentGateway((n) => ({ status: 'succeeded', chargeId: `ch_${n}`, networkTransactionId: `ntx_${n}` }));
  const agreements: unknown[] = [];
  const common = { ...activities, recordAgreementCharge: async (a: unknown) => void agreements.push(a) };
  const taskQueue = `mit-restart-${Date.now()}`;
  const inp = await input(1800);
  let died = false;
  // The first worker: the gateway takes the charge, and the process dies before the answer is recorded.
  const first = await Worker.create({
    connection: testEnv().nativeConnection,
    taskQueue,
    workflowBundle: getWorkflowBundle(),
    maxCachedWorkflows: 0, // a dead worker's sticky queue would hold the next workflow task until its timeout
    activities: {
      ...common,
      charge: async (req: { idempotencyKey: string }) => {
        await gw.charge(req);
        died = true;
        throw ApplicationFailure.retryable('worker process died', 'WorkerLost');
      },
    },
  });
  const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
  const answered = handle.executeUpdate(mitChargeUpdate, { args: [mitCall] });
  await first.runUntil(waitFor(async () => died));

  const second = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), maxCachedWorkflows: 0, activities: { ...common, charge: gw.charge } });
  await second.runUntil(async () => {
    const result = await answered;
    expect(result).toEqual({ code: 'ok', transaction_uuid: expect.stringMatching(/^ti_eu_/) });
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] })).toEqual(result);
    await keep('mit-paid-after-worker-restart', inp.id);
    await handle.terminate('test done');
  });
  expect([...gw.byKey.keys()]).toEqual([`${inp.id}:attempt:1`]);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
  const last = rec.patches.at(-1)!;
  expect(last).toMatchObject({ status: 'success', payment_method: 'pm_eu_card1', transactions: [expect.objectContaining({ status: 'succeeded', agreement: 'agr_eu_abc' })] });
  // The agreement's first charge gives it the network reference later charges send.
  expect(agreements).toEqual([expect.objectContaining({ agreement: expect.objectContaining({ id: 'agr_eu_abc' }), networkTransactionId: 'ntx_1' })]);
});

test('a later charge under an agreement sends its network transaction id; a decline is answered again for a minute, then a call charges anew', async () => {
  const sent: unknown[] = [];
  let n = 0;
  const { activities } = recorders(async () => {
    n += 1;
    return n === 1 ? { status: 'declined', chargeId: 'ch_d', failureCode: 'insufficient_funds', failureMessage: 'no funds' } : { status: 'succeeded', chargeId: 'ch_ok' };
  });
  const inp = await input(1800);
  const call = { ...mitCall, agreement: { ...mitCall.agreement, networkTransactionId: 'ntx_first' } };
  await withWorker({ ...activities, charge: async (req: unknown) => (sent.push(req), activities.charge()) }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const declined = await handle.executeUpdate(mitChargeUpdate, { args: [call] });
    expect(declined).toEqual({ code: 'declined', transaction_uuid: expect.any(String), failure_code: 'insufficient_funds' });
    // A burst of identical calls right after the decline gets the decline, not another charge of the card.
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [call] })).toEqual(declined);
    await testEnv().sleep(61_000);
    const paid = await handle.executeUpdate(mitChargeUpdate, { args: [call] });
    expect(paid).toEqual({ code: 'ok', transaction_uuid: expect.any(String) });
    expect(paid.transaction_uuid).not.toBe(declined.transaction_uuid);
    await handle.terminate('test done');
  });
  expect(sent).toEqual([
    expect.objectContaining({ merchantInitiated: true, savedCard: 'pm_eu_card1', agreement: { reference: 'agr_eu_abc', type: 'RECURRING', networkTransactionId: 'ntx_first' } }),
    expect.objectContaining({ merchantInitiated: true, idempotencyKey: `${inp.id}:attempt:2` }),
  ]);
});

test('a charge whose connector refused the connection is not answered again: the next call, after Retry-After, charges anew', async () => {
  let n = 0;
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
  const charge = async () => {
    n += 1;
    if (n === 1) throw ApplicationFailure.nonRetryable('sandbox POST /v1/charges failed: connection refused (ECONNREFUSED)', 'GatewayUnreachable');
    return { status: 'succeeded', chargeId: 'ch_ok' };
  };
  const inp = await input(1800);
  await withWorker({ ...activities, charge }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] })).toMatchObject({ code: 'declined', failure_code: 'connector_unavailable' });
    await testEnv().sleep(5_000);
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] })).toEqual({ code: 'ok', transaction_uuid: expect.any(String) });
    await handle.terminate('test done');
  });
  expect(n).toBe(2);
});

test("a charge named by its caller (an invoice's attempt) sent again long after its decline is answered with that decline; another name charges anew", async () => {
  let n = 0;
  const { activities } = recorders(async () => {
    n += 1;
    return n === 1 ? { status: 'declined', chargeId: 'ch_d', failureCode: 'insufficient_funds', failureMessage: 'no funds' } : { status: 'succeeded', chargeId: 'ch_ok' };
  });
  const inp = await input(30 * 86_400);
  const attempt1 = { ...mitCall, chargeKey: 'billing:in_eu_1:1' };
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const declined = await handle.executeUpdate(mitChargeUpdate, { args: [attempt1] });
    expect(declined).toMatchObject({ code: 'declined', failure_code: 'insufficient_funds' });
    // The invoice's activity retried after its worker died (90 s later): the same answer, no second charge.
    await testEnv().sleep(90_000);
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [attempt1] })).toEqual(declined);
    expect(n).toBe(1);
    // The next dunning attempt is another charge.
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [{ ...mitCall, chargeKey: 'billing:in_eu_1:2' }] })).toMatchObject({ code: 'ok' });
    await handle.terminate('test done');
  });
  expect(n).toBe(2);
});

test("a capture refunded because the intent moved on still gives the agreement its network id", async () => {
  const { activities, gateway } = recorders(async () => ({ status: 'requires_action', chargeId: 'ch_sca', challengeUrl: 'http://sandbox/3ds/ch_sca' }));
  const agreements: { networkTransactionId: string }[] = [];
  const inp = await input(1800);
  await withWorker({ ...activities, recordAgreementCharge: async (a: { networkTransactionId: string }) => void agreements.push(a) }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] })).code).toBe('REQUIRES_ACTION');
    await handle.executeUpdate(cancelUpdate);
    // The cardholder completes the challenge after the cancel: the capture is refunded, its network id kept.
    gateway.set('ch_sca', { status: 'succeeded', chargeId: 'ch_sca', networkTransactionId: 'ntx_late' });
    await handle.signal(chargeOutcomeSignal, { chargeId: 'ch_sca', outcome: { status: 'succeeded', chargeId: 'ch_sca' } });
    await waitFor(async () => agreements.length === 1);
    expect((await handle.result()).status).toBe('canceled'); // nothing left to watch: the run ends
  });
  expect(agreements).toEqual([expect.objectContaining({ networkTransactionId: 'ntx_late' })]);
});

test('a 3DS demand answers REQUIRES_ACTION; a repeat while it waits answers the same transaction and URL without a second charge', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'requires_action', chargeId: 'ch_sca', challengeUrl: 'http://sandbox/3ds/ch_sca' }));
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const first = await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] });
    expect(first).toEqual({ code: 'REQUIRES_ACTION', transaction_uuid: expect.any(String), next_action: { type: 'redirect_to_url', url: 'http://sandbox/3ds/ch_sca' } });
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] })).toEqual(first);
    await handle.terminate('test done');
  });
  expect(rec.charges).toBe(1);
});

test('the same call repeated while its capture claims the checkout intent joins the charge: answered its success, not 409', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_claimed' }));
  const claim = gate<boolean>();
  let claiming = false;
  const acts = {
    ...activities,
    recordAgreementCharge: async () => undefined,
    claimCheckoutIntent: async () => {
      claiming = true;
      return claim.p;
    },
  };
  const inp = await input(1800, { older: olderPart('co-mit') });
  await withWorker(acts, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    const first = handle.executeUpdate(mitChargeUpdate, { args: [mitCall] });
    await waitFor(async () => claiming);
    // Accepted while the claim runs (before, the validator refused it: 409 attempt_in_progress), answered once it is done.
    const repeat = await handle.startUpdate(mitChargeUpdate, { args: [mitCall], waitForStage: WorkflowUpdateStage.ACCEPTED });
    claim.open(true);
    const [a, b] = await Promise.all([first, repeat.result()]);
    expect(a).toMatchObject({ code: 'ok', transaction_uuid: expect.any(String) });
    expect(b).toEqual(a);
    await handle.terminate('test done');
  });
  expect(rec.charges).toBe(1);
});

test('a card the charge step finds detached (after the API checked it) fails the charge as payment_method_detached; the intent stays pending', async () => {
  const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'unused' }));
  const inp = await input(1800);
  const detached = async () => {
    throw ApplicationFailure.nonRetryable('saved card pm_eu_card1 was detached before it was charged', 'payment_method_detached');
  };
  await withWorker({ ...activities, charge: detached }, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect(await handle.executeUpdate(mitChargeUpdate, { args: [mitCall] })).toMatchObject({ code: 'declined', failure_code: 'payment_method_detached' });
    expect((await handle.query(intentStateQuery)).status).toBe('pending');
    await handle.terminate('test done');
  });
});

describe('failover', () => {
  const unreachable = () => ApplicationFailure.nonRetryable('sandbox POST /v1/charges failed: connection refused (ECONNREFUSED)', 'GatewayUnreachable');
  const noAnswer = () => ApplicationFailure.retryable('sandbox POST /v1/charges timed out after 4000 ms', 'GatewayUnavailable');

  test('an unreachable connector and one that lost the answer and has no such charge hand the attempt on; the third takes it', async () => {
    const tried: string[] = [];
    const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
    const charge = async (req: { connectorId: string }) => {
      tried.push(req.connectorId);
      if (req.connectorId === 'con_eu_down') throw unreachable();
      if (req.connectorId === 'con_eu_slow') throw noAnswer();
      return { status: 'succeeded', chargeId: 'ch_ok' };
    };
    const inp = await input(1800, { connectors: ['con_eu_down', 'con_eu_slow', 'con_eu_ok'], failover: true });
    await withWorker({ ...activities, charge }, async (taskQueue) => {
      const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('success');
      await keep('failover-paid-on-third-connector', inp.id);
      await handle.terminate('test done');
    });
    // The refused connection is not retried; the lost answer is (the key makes it safe), then asked about.
    expect(tried).toEqual(['con_eu_down', 'con_eu_slow', 'con_eu_slow', 'con_eu_ok']);
    expect(rec.lookups).toEqual([`${inp.id}:attempt:2`]);
    expect(rec.events.map((e) => e.type)).toEqual(['payment.attempt_failed', 'payment.attempt_failed', 'payment.success']);
    expect(rec.patches.at(-1)).toMatchObject({ status: 'success', connector_used: 'con_eu_ok' });
  });

  test('a lost answer the gateway cannot confirm either way never fails over: the attempt stays unknown', async () => {
    const tried: string[] = [];
    const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
    const inp = await input(1800, { connectors: ['con_eu_slow', 'con_eu_ok'], failover: true });
    await withWorker(
      {
        ...activities,
        charge: async (req: { connectorId: string }) => {
          tried.push(req.connectorId);
          throw noAnswer();
        },
        findCharge: async () => {
          throw noAnswer();
        },
      },
      async (taskQueue) => {
        const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
        expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).status).toBe('pending');
        await handle.terminate('test done');
      },
    );
    expect(new Set(tried)).toEqual(new Set(['con_eu_slow']));
  });

  test('without an orchestrator a refused connection fails the attempt and nothing else is tried', async () => {
    const tried: string[] = [];
    const { activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_ok' }));
    const inp = await input(1800, { connectors: ['con_eu_down', 'con_eu_ok'] });
    await withWorker(
      {
        ...activities,
        charge: async (req: { connectorId: string }) => {
          tried.push(req.connectorId);
          throw unreachable();
        },
      },
      async (taskQueue) => {
        const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
        expect(await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] })).toMatchObject({ status: 'failed', failure_code: 'connector_unavailable' });
        await handle.terminate('test done');
      },
    );
    expect(tried).toEqual(['con_eu_down']);
  });
});
