import { Worker } from '@temporalio/worker';
import { getWorkflowBundle } from './env';
import { readHistory, recordedFiles, workflowTypes } from './recorded-histories';

// Histories recorded from earlier code replay against the current code without non-determinism: the
// workflows running in production when a new worker is deployed keep working.

const recorded = recordedFiles();

test('there are recorded histories of every workflow type the worker runs', () => {
  // The types are read from the bundle's entry, so a new workflow without a history fails here.
  const types = workflowTypes();
  expect(types.length).toBeGreaterThan(10);
  const covered = new Set(recorded.map((file) => readHistory(file).events![0]!.workflowExecutionStartedEventAttributes!.workflowType!.name!));
  expect(types.filter((t) => !covered.has(t))).toEqual([]);
});

test.each(recorded)('%s replays against the current code', async (file) => {
  await Worker.runReplayHistory({ workflowBundle: getWorkflowBundle() }, readHistory(file), file);
});
