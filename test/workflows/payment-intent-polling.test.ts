import { attemptUpdate, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures } from './payment-intent-fixtures';

// A test server of its own: stepping its clock by hand (env.sleep) is reliable only on a fresh server.
const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input, withWorker } = intentFixtures(testEnv);

test('an async charge whose callback is lost is found by polling the gateway', async () => {
  const { rec, activities } = recorders(
    async () => ({ status: 'pending', chargeId: 'ch_lost' }),
    async () => ({ status: 'succeeded', chargeId: 'ch_lost' }),
  );
  const inp = await input(1800);
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect((await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_async' }] })).status).toBe('pending');
    await testEnv().sleep('61 seconds');
    await waitFor(async () => rec.events.length === 1);
    await handle.terminate('test done');
  });
  expect(rec.polls).toBeGreaterThanOrEqual(1);
  expect(rec.events.map((e) => e.type)).toEqual(['payment.success']);
});
