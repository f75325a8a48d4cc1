import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { retryingUntaken, runUpdate } from '../../../api/http/workflow-calls';
import { DomainError } from '../../../domain/errors';

// Two refusals mean the server never handed the Update to the workflow: UnprocessedUpdate, and
// FAILED_PRECONDITION "Workflow Task in failed state" (a killed worker's task being retried). The API (and the
// billing activity's invoice charges) send such an Update again within the deadline, and answer 503 when it is
// still refused; any other refusal is the workflow's answer and passes through at once.

const rejected = (type: string) => () => new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ type, message: type }));

const preconditionFailed = (message: string) => () => new ServiceError('Workflow Update failed', { cause: Object.assign(new Error(`9 FAILED_PRECONDITION: ${message}`), { code: 9 }) });
const taskFailing = preconditionFailed('Unable to perform workflow execution update due to Workflow Task in failed state.');

/** An Update call refused `n` times with `refusal`, then applied. */
function failingTimes(n: number, refusal: () => Error) {
  let calls = 0;
  const call = async () => {
    calls++;
    if (calls <= n) throw refusal();
    return 'applied';
  };
  return { call, calls: () => calls };
}

/** A connection whose deadline the test does not need: the Update deadline is the config's. */
const deps = (deadlineMs: number) => ({ temporal: { connection: { withDeadline: <T>(_at: number, fn: () => Promise<T>) => fn() } }, config: { WORKFLOW_UPDATE_DEADLINE_MS: deadlineMs } });
const closed = () => new DomainError('conflict', 'closed', 'closed');

test('an UnprocessedUpdate is sent again until the worker takes it', async () => {
  const u = failingTimes(2, rejected('UnprocessedUpdate'));
  await expect(retryingUntaken(u.call)).resolves.toBe('applied');
  expect(u.calls()).toBe(3);
});

test('an Update refused while the workflow task is failing (its worker was killed) is sent again until taken', async () => {
  const u = failingTimes(3, taskFailing);
  await expect(retryingUntaken(u.call)).resolves.toBe('applied');
  expect(u.calls()).toBe(4);
});

test('when the time allowed runs out the last refusal is the answer', async () => {
  jest.useFakeTimers();
  try {
    const u = failingTimes(1_000, rejected('UnprocessedUpdate'));
    const outcome = retryingUntaken(u.call, 400).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(await outcome).toMatchObject({ cause: { type: 'UnprocessedUpdate' } });
    // Waits of 50, 100 and 200 ms fit in 400 ms; the next (400 ms) would not.
    expect(u.calls()).toBe(4);
  } finally {
    jest.useRealTimers();
  }
});

test("the workflow's own refusal, and any other FAILED_PRECONDITION, are never sent again", async () => {
  const own = failingTimes(1, rejected('not_mutable'));
  await expect(retryingUntaken(own.call)).rejects.toMatchObject({ cause: { type: 'not_mutable' } });
  expect(own.calls()).toBe(1);
  const other = failingTimes(1, preconditionFailed('something else'));
  await expect(retryingUntaken(other.call)).rejects.toBeInstanceOf(ServiceError);
  expect(other.calls()).toBe(1);
});

test.each([
  ['UnprocessedUpdate', rejected('UnprocessedUpdate')],
  ['a failing workflow task', taskFailing],
])('an Update still refused as %s at the deadline answers 503 (retry), neither a conflict nor a 500', async (_what, refusal) => {
  const u = failingTimes(1_000, refusal);
  await expect(runUpdate(deps(300) as never, u.call, closed)).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
  expect(u.calls()).toBeGreaterThan(1);
});
