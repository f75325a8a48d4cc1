import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { Mongo } from '../../platform/mongo';
import type { CustomerBalanceRecord } from '../../platform/billing-records';
import { customerBalanceData } from '../../data/credit-notes';
import { addCreditUpdate, balanceWorkflowId, CUSTOMER_BALANCE_WORKFLOW, drawCreditUpdate, type CustomerBalanceInput } from '../../workflows/customer-balance/messages';
import { SA } from '../../workflows/search-attributes';
import { retryingUntaken } from '../http/workflow-calls';

// A customer's credit balance is changed only by its workflow (workflows/customer-balance), started from the
// record's figures when no run is open. Credit notes add to it; each invoice takes from it first.

interface BalanceDeps {
  mongo: Mongo;
  temporal: Client;
  config: { TEMPORAL_TASK_QUEUE: string };
}

/** The balance workflow's start, from the record's figures, for an update-with-start. */
function balanceStart(deps: BalanceDeps, who: { tenantId: string; customer: string; currency: string }, record: CustomerBalanceRecord | null) {
  const input: CustomerBalanceInput = { ...who, creditOnRecord: record?.credit ?? 0, versionOnRecord: record?.version ?? 0 };
  return new WithStartWorkflowOperation(CUSTOMER_BALANCE_WORKFLOW, {
    workflowId: balanceWorkflowId(who.customer, who.currency),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: SA.TenantId, value: who.tenantId },
      { key: SA.CustomerId, value: who.customer },
      { key: SA.Currency, value: who.currency },
    ],
    staticSummary: `Credit balance of ${who.customer} in ${who.currency} (${who.tenantId})`,
  });
}

export async function addCustomerCredit(deps: BalanceDeps, req: { tenantId: string; customer: string; currency: string; key: string; amount: number }): Promise<number> {
  const { key, amount, ...who } = req;
  const record = await customerBalanceData(deps.mongo).find(who.tenantId, who.customer, who.currency);
  const r = await retryingUntaken(() => deps.temporal.workflow.executeUpdateWithStart(addCreditUpdate, { args: [{ key, amount }], startWorkflowOperation: balanceStart(deps, who, record) }));
  return r.credit;
}

/**
 * Takes up to `max` for invoice `key`; a customer who never had a balance answers 0 without starting anything.
 * One whose record reads 0 is still asked: a retried draw whose first try emptied the balance (its answer lost
 * with a worker, or past its timeout) must get what that try took, which the balance's workflow remembers by key.
 */
export async function drawCustomerCredit(deps: BalanceDeps, req: { tenantId: string; customer: string; currency: string; key: string; max: number }): Promise<number> {
  const { key, max, ...who } = req;
  if (max <= 0) return 0;
  const record = await customerBalanceData(deps.mongo).find(who.tenantId, who.customer, who.currency);
  if (!record) return 0;
  const r = await retryingUntaken(() => deps.temporal.workflow.executeUpdateWithStart(drawCreditUpdate, { args: [{ key, max }], startWorkflowOperation: balanceStart(deps, who, record) }));
  return r.drawn;
}
