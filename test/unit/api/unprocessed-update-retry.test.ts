import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { retryingUnprocessed } from '../../../api/http/workflow-calls';

// An Update the server rejected as UnprocessedUpdate applied nothing, so the API (and the billing activity's
// invoice charges) send it again; any other refusal is the workflow's answer and passes through at once.

const rejected = (type: string) => new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ type, message: type }));

function failingTimes(n: number, type: string) {
  let calls = 0;
  const call = async () => {
    calls++;
    if (calls <= n) throw rejected(type);
    return 'applied';
  };
  return { call, calls: () => calls };
}

test('an UnprocessedUpdate is sent again until the worker takes it', async () => {
  const u = failingTimes(2, 'UnprocessedUpdate');
  await expect(retryingUnprocessed(u.call)).resolves.toBe('applied');
  expect(u.calls()).toBe(3);
});

test('after five UnprocessedUpdate refusals the last one is the answer', async () => {
  const u = failingTimes(10, 'UnprocessedUpdate');
  await expect(retryingUnprocessed(u.call)).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
  expect(u.calls()).toBe(5);
});

test("the workflow's own refusal is never sent again", async () => {
  const u = failingTimes(1, 'not_mutable');
  await expect(retryingUnprocessed(u.call)).rejects.toMatchObject({ cause: { type: 'not_mutable' } });
  expect(u.calls()).toBe(1);
});
