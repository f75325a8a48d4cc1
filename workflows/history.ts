import { workflowInfo } from '@temporalio/workflow';
import { HISTORY_EVENT_BOUND } from '../domain/polling';

/** Time to continue as new: the run passed our history bound, or Temporal suggests it. Every workflow asks this. */
export function historyIsLong(): boolean {
  return workflowInfo().historyLength > HISTORY_EVENT_BOUND || workflowInfo().continueAsNewSuggested;
}
