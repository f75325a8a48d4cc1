import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { conflict, DomainError, invalidRequest } from '../domain/errors';

/**
 * Runs a Workflow Update and turns its rejections into domain errors. A validator's ApplicationFailure
 * carries a type (`not_mutable`, `attempt_in_progress`, ...); a workflow that has already completed is
 * no longer mutable either.
 */
export async function runUpdate<T>(call: () => Promise<T>, onClosed: () => DomainError): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause;
      if (cause instanceof ApplicationFailure) throw failureToDomain(cause);
      throw conflict('update_rejected', cause?.message ?? 'The request was rejected');
    }
    if (err instanceof WorkflowNotFoundError || isCompletedError(err)) throw onClosed();
    throw err;
  }
}

function failureToDomain(f: ApplicationFailure): DomainError {
  switch (f.type) {
    case 'not_mutable':
      return conflict('payment_intent_unexpected_state', f.message);
    case 'attempt_in_progress':
      return conflict('attempt_in_progress', f.message);
    case 'connector_not_allowed':
      return invalidRequest('connector_not_allowed', f.message, 'connector');
    case 'no_connector':
      return invalidRequest('no_connector', f.message);
    case 'invalid_amount':
      return invalidRequest('parameter_invalid', f.message, 'amount');
    default:
      return conflict(f.type ?? 'update_rejected', f.message);
  }
}

function isCompletedError(err: unknown): boolean {
  const msg = (err as Error)?.message ?? '';
  return /already completed|workflow execution already|not found/i.test(msg) && (err as { code?: number }).code !== 14;
}
