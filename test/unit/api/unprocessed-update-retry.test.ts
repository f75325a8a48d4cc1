import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { retryingUnprocessed, runUpdate } from '../../../api/http/workflow-calls';
import { DomainError } from '../../../domain/errors';

// An Update the server rejected as UnprocessedUpdate applied nothing, so the API (and the billing activity's
// invoice charges) send it again; any other refusal is the workflow's answer and passes through at once.

const rejected = (type: string) => new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ type, message: type }));

/** What the server answers an Update while the workflow's task is being retried (its worker was killed). */
const taskFailing = () =>
  new ServiceError('Workflow Update failed', {
    cause: Object.assign(new Error('9 FAILED_PRECONDITION: Unable to perform workflow execution update due to Workflow Task in failed state.'), { code: 9 }),
  });

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

test('when the time allowed runs out the last UnprocessedUpdate refusal is the answer', async () => {
  const u = failingTimes(1_000, 'UnprocessedUpdate');
  const started = Date.now();
  await expect(retryingUnprocessed(u.call, 400)).rejects.toMatchObject({ cause: { type: 'UnprocessedUpdate' } });
  // 50, 100, 200 ms waits fit in 400 ms; the next (400 ms) would not.
  expect(u.calls()).toBe(4);
  expect(Date.now() - started).toBeLessThan(400);
});

test("the workflow's own refusal is never sent again", async () => {
  const u = failingTimes(1, 'not_mutable');
  await expect(retryingUnprocessed(u.call)).rejects.toMatchObject({ cause: { type: 'not_mutable' } });
  expect(u.calls()).toBe(1);
});

test('an Update never taken up within the deadline answers 503 (retry), not a conflict', async () => {
  const u = failingTimes(1_000, 'UnprocessedUpdate');
  const deps = { temporal: { connection: { withDeadline: <T>(_at: number, fn: () => Promise<T>) => fn() } }, config: { WORKFLOW_UPDATE_DEADLINE_MS: 300 } };
  await expect(runUpdate(deps as never, u.call, () => new DomainError('conflict', 'closed', 'closed'))).rejects.toMatchObject({
    kind: 'unavailable',
    code: 'service_unavailable',
  });
});

test('an Update refused while the workflow task is failing (its worker was killed) is sent again until taken', async () => {
  let calls = 0;
  const call = async () => {
    if (++calls <= 3) throw taskFailing();
    return 'applied';
  };
  await expect(retryingUnprocessed(call)).resolves.toBe('applied');
  expect(calls).toBe(4);
});

test('another FAILED_PRECONDITION is not retried', async () => {
  let calls = 0;
  const other = new ServiceError('Workflow Update failed', { cause: Object.assign(new Error('9 FAILED_PRECONDITION: something else'), { code: 9 }) });
  const call = async () => {
    calls++;
    throw other;
  };
  await expect(retryingUnprocessed(call)).rejects.toBe(other);
  expect(calls).toBe(1);
});

test('a workflow task failing past the deadline answers 503, not 500', async () => {
  const deps = { temporal: { connection: { withDeadline: <T>(_at: number, fn: () => Promise<T>) => fn() } }, config: { WORKFLOW_UPDATE_DEADLINE_MS: 300 } };
  const call = async (): Promise<string> => {
    throw taskFailing();
  };
  await expect(runUpdate(deps as never, call, () => new DomainError('conflict', 'closed', 'closed'))).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
});
