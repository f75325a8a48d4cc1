import { ServiceError, WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError, type Client } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { ApplicationFailure } from '@temporalio/common';
import { conflict, DomainError, invalidRequest } from '../../domain/errors';
import { isDependencyDown } from './dependency-errors';

/*
 * How long the API waits for a workflow to answer an Update before it answers 503 (the worker or Temporal
 * is down or overloaded): WORKFLOW_UPDATE_DEADLINE_MS, 45 s by default. The longest Update is a payment attempt: a charge tried twice (15 s each) and one
 * question by its idempotency key (10 s), so 45 s by default. A request that ran out of time may still be
 * applied when the worker comes back (Temporal keeps an admitted Update): a retry then finds its effect
 * (same idempotency key, or a 409 for a state that moved on), never a second one.
 */
/** Queries answer from the worker's cache; a few seconds without an answer means it is not there. */
export const QUERY_DEADLINE_MS = 3_000;

/** The workflow did not answer in time: 503 in the error shape, with Retry-After. */
export const notAnswered = () =>
  new DomainError('unavailable', 'service_unavailable', 'The payment service did not answer in time; retry the same request (with the same idempotency key, where it takes one)');

/**
 * Runs a call to Temporal with a deadline on every gRPC request it makes. An Update in it that the server
 * refuses as unprocessed is sent again within the same deadline (retryingUntaken).
 */
export async function withDeadline<T>(temporal: Pick<Client, 'connection'>, ms: number, call: () => Promise<T>): Promise<T> {
  try {
    return await temporal.connection.withDeadline(Date.now() + ms, () => retryingUntaken(call, ms));
  } catch (err) {
    // Still not taken up when the deadline came: nothing was applied, so a retry is safe, as with no answer.
    if (isUntaken(err)) throw notAnswered();
    if (err instanceof DomainError || err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) throw err;
    // The SDK reports an Update whose deadline passed as DEADLINE_EXCEEDED or, now and then, as a cancelled
    // call (WorkflowUpdateRPCTimeoutOrCancelledError): both mean no answer in time.
    if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isDeadlineExceeded(err) || isDependencyDown(err)) throw notAnswered();
    throw err;
  }
}

/**
 * Runs a Workflow Update with a deadline and turns its rejections into domain errors. A validator's (or
 * handler's) ApplicationFailure carries a type (`not_mutable`, `attempt_in_progress`, ...); a workflow that
 * has already completed is no longer mutable either: `onClosed` says what that means here.
 */
export async function runUpdate<T>(
  deps: { temporal: Pick<Client, 'connection'>; config: { WORKFLOW_UPDATE_DEADLINE_MS: number } },
  call: () => Promise<T>,
  onClosed: () => DomainError | Promise<T>,
): Promise<T> {
  try {
    return await withDeadline(deps.temporal, deps.config.WORKFLOW_UPDATE_DEADLINE_MS, call);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause;
      if (cause instanceof ApplicationFailure) throw failureToDomain(cause);
      throw conflict('update_rejected', cause?.message ?? 'The request was rejected');
    }
    if (err instanceof WorkflowNotFoundError || isCompletedError(err)) {
      const closed = onClosed();
      if (closed instanceof DomainError) throw closed;
      return closed;
    }
    throw err;
  }
}

/**
 * Two refusals mean the workflow never saw the Update, so it is sent again, backing off, for as long as
 * `budgetMs` allows (the caller's deadline cuts it shorter); then the last refusal is the answer:
 * - `UnprocessedUpdate`: a workflow task that carried it completed without the worker taking it up. Measured
 *   by `npm run bench:unprocessed` (bench/RESULTS.md): 11-25% of Updates sent in bursts of 10 at once to a
 *   workflow whose handlers run a local activity (as the intent's record writes do), none in bursts of 5 or
 *   fewer, none without the local activity; the SDK core logs "There are unprocessed protocol messages while
 *   receiving new work" as it happens (SDK 1.24, dev server CLI 1.9.1). Also seen right after a worker restart;
 * - FAILED_PRECONDITION "Workflow Task in failed state": the server takes no Update while the workflow's task
 *   is being retried, as it is after the worker that held it was killed (its task timed out); seen as
 *   4 answers 500 in 9,227 calls of the scale-out drill.
 */
export async function retryingUntaken<T>(call: () => Promise<T>, budgetMs = UNPROCESSED_BUDGET_MS): Promise<T> {
  const giveUpAt = Date.now() + budgetMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isUntaken(err)) throw err;
      const wait = Math.min(50 * 2 ** (attempt - 1), 1_000);
      if (Date.now() + wait > giveUpAt) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
/**
 * The same start, unused: the SDK takes a WithStartWorkflowOperation once only, so an Update-with-Start that
 * may be sent again (retryingUntaken) builds its operation afresh for each send.
 */
export const freshStart = <T extends Workflow>(op: WithStartWorkflowOperation<T>): WithStartWorkflowOperation<T> =>
  new WithStartWorkflowOperation<T>(op.workflowTypeOrFunc, op.options);

const UNPROCESSED_BUDGET_MS = 20_000;

const isUnprocessed = (err: unknown) =>
  err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'UnprocessedUpdate';

/** gRPC FAILED_PRECONDITION (9) for an Update while the workflow task is failing: nothing was admitted. */
const isTaskFailing = (err: unknown) =>
  err instanceof ServiceError && (err.cause as { code?: number } | undefined)?.code === 9 && /workflow task in failed state/i.test(String((err.cause as Error).message));

/** The server did not hand the Update to the workflow: sending it again cannot apply it twice. */
const isUntaken = (err: unknown) => isUnprocessed(err) || isTaskFailing(err);

function failureToDomain(f: ApplicationFailure): DomainError {
  switch (f.type) {
    case 'not_mutable':
      return conflict('payment_intent_unexpected_state', f.message);
    case 'attempt_in_progress':
      return conflict('attempt_in_progress', f.message);
    case 'attempt_limit_reached':
      return conflict('attempt_limit_reached', f.message);
    case 'connector_not_allowed':
      return invalidRequest('connector_not_allowed', f.message, 'connector');
    case 'no_connector':
      return invalidRequest('no_connector', f.message);
    case 'invalid_amount':
      return invalidRequest('parameter_invalid', f.message, 'amount');
    case 'test_clock_time_backwards':
      return invalidRequest('test_clock_time_backwards', f.message, 'frozen_time');
    case 'test_clock_advance_too_far':
      return invalidRequest('test_clock_advance_too_far', f.message, 'frozen_time');
    default:
      return conflict(f.type ?? 'update_rejected', f.message);
  }
}

function isDeadlineExceeded(err: unknown, depth = 0): boolean {
  if (depth > 4 || !err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (e.code === 4 || /DEADLINE_EXCEEDED|deadline exceeded/i.test(String(e.message ?? ''))) return true;
  return isDeadlineExceeded(e.cause, depth + 1);
}

function isCompletedError(err: unknown): boolean {
  const msg = (err as Error)?.message ?? '';
  return /already completed|workflow execution already|not found/i.test(msg) && (err as { code?: number }).code !== 14;
}
