import { ApplicationFailure } from '@temporalio/workflow';
import type { OperatorUpdateInput } from '../platform/ops-records';

// What every workflow's operator Updates share (docs/runbook.md): the stamp they must carry, and the lines
// the workflow's summary shows of them.

/** Refuses an operator Update that does not say who acts, why, and under which audit row (the API checks it too). */
export function assertStamped(req: Partial<OperatorUpdateInput> | undefined): void {
  if (!req?.operator?.trim() || !req.reason?.trim() || !req.actionId)
    throw ApplicationFailure.nonRetryable('An operator action needs an operator, a reason and an action id', 'update_rejected');
}

/** Keeps the last five operator actions for a workflow's summary, each line bounded. */
export function noteOperatorAction(notes: string[], operator: string, what: string, reason: string): void {
  notes.push(`operator ${operator}: ${what} (${reason})`.slice(0, 300));
  if (notes.length > 5) notes.shift();
}
