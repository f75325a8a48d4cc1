import { cancelUpdate, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { useWorkflowTestEnv, keepHistory } from './env';
import { intentFixtures } from './payment-intent-fixtures';

// A transition's webhook deliveries (child workflows) start together, and the Update that caused them answers
// in the same workflow task as their start commands, not a task later once Temporal says they started. The
// run waits for every start before it ends: Temporal drops the start of a child whose parent has closed.

const testEnv = useWorkflowTestEnv();
const { recorders, input, withWorker } = intentFixtures(testEnv);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type HistoryEvent = any;
const kinds = (events: HistoryEvent[]) =>
  events.map((e) =>
    e.workflowTaskStartedEventAttributes
      ? 'task'
      : e.startChildWorkflowExecutionInitiatedEventAttributes
        ? 'start child'
        : e.childWorkflowExecutionStartedEventAttributes
          ? 'child started'
          : e.workflowExecutionUpdateCompletedEventAttributes
            ? 'update completed'
            : e.workflowExecutionCompletedEventAttributes
              ? 'completed'
              : null,
  );

test('a cancel with two subscribed endpoints answers in the task that starts both deliveries; the run ends after they started', async () => {
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_unused' }));
  const endpoints = ['http://127.0.0.1:1/a', 'http://127.0.0.1:1/b'].map((url) => ({ url, events: ['payment.canceled'] }));
  // A short deadline: the canceled intent's watch for late captures ends soon after, and so does the run.
  const inp = await input(60, { webhooks: endpoints });
  await withWorker(activities, async (taskQueue) => {
    const handle = await testEnv().client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    expect(await handle.executeUpdate(cancelUpdate)).toMatchObject({ payment_intent: inp.id, status: 'canceled' });
    await handle.result();
    const history = await handle.fetchHistory();
    keepHistory('payment-intent-deliveries-together-canceled', history);
    const seen = kinds(history.events ?? []).filter((k) => k !== null);
    // From the task that handled the cancel: both start commands and the Update's answer, then the starts.
    const from = seen.lastIndexOf('task', seen.indexOf('start child'));
    expect(seen.slice(from, from + 4)).toEqual(['task', 'start child', 'start child', 'update completed']);
    expect(seen.filter((k) => k === 'child started')).toHaveLength(2);
    expect(seen.lastIndexOf('child started')).toBeLessThan(seen.indexOf('completed'));
  });
  expect(rec.combined).toEqual([{ status: 'canceled', events: ['payment.canceled'] }]);
});
