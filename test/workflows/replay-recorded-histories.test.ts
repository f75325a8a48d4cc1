import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { getWorkflowBundle } from './env';

// Histories recorded from earlier code replay against the current code without non-determinism: the
// workflows running in production when a new worker is deployed keep working.

const dir = path.join(__dirname, 'histories');
const recorded = readdirSync(dir).filter((f) => f.endsWith('.bin'));

test('there are recorded histories of every workflow type the worker runs', () => {
  // The types are read from the bundle's entry (workflows/index.ts), so a new workflow without a history fails here.
  const index = readFileSync(path.join(__dirname, '../../workflows/index.ts'), 'utf8');
  const types = [...index.matchAll(/^export \{ (\w+) \}/gm)].map((m) => m[1]!).sort();
  expect(types.length).toBeGreaterThan(10);
  const typeOf = (file: string) =>
    temporal.api.history.v1.History.decode(readFileSync(path.join(dir, file))).events![0]!.workflowExecutionStartedEventAttributes!.workflowType!.name!;
  const covered = new Set(recorded.map(typeOf));
  expect(types.filter((t) => !covered.has(t))).toEqual([]);
});

test.each(recorded)('%s replays against the current code', async (file) => {
  const history = temporal.api.history.v1.History.decode(readFileSync(path.join(dir, file)));
  await Worker.runReplayHistory({ workflowBundle: getWorkflowBundle() }, history, file);
});
