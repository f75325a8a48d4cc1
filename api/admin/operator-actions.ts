import { notPendingMessage } from '../../domain/payment-intent';
import { DomainError, conflict, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import { paymentIntentData } from '../../data/payment-intents';
import { refundData } from '../../data/refunds';
import { payoutData } from '../../data/payouts';
import { forceCancelUpdate, recheckAttemptUpdate, type OperatorActionInput } from '../../workflows/payment-intent/messages';
import { retryRefundStepUpdate } from '../../workflows/refund/messages';
import { confirmPayoutUpdate, retryPayoutStepUpdate } from '../../workflows/payout/messages';
import { freshStart, runUpdate } from '../http/workflow-calls';
import { reopenOperation } from '../refunds/service';
import type { UpdateDefinition } from '@temporalio/client';
import type { OperatorUpdateInput } from '../../platform/ops-records';
import type { AppDeps } from '../deps';
import type { OperatorHandler, OperatorRequest } from './operator-handler';

// The operator actions on payments, refunds and payouts: each an Update of the workflow that owns the
// target, with the operator's stamp and the audit row's id (the dispatcher, operations.ts, writes the row).

const stampOf = (req: OperatorRequest) => ({
  operator: req.operator,
  reason: req.reason,
  actionId: req.actionId,
  ...(req.evidence ? { evidence: req.evidence } : {}),
});

async function tenantOr404(what: string, req: OperatorRequest, tenantOf: (id: string) => Promise<string | null>): Promise<string> {
  const tenantId = await tenantOf(req.target);
  if (!tenantId) throw notFound(what, req.target, 'target');
  req.tenantFound?.(tenantId);
  return tenantId;
}

/**
 * A pending intent is canceled; a paid one is refunded of all that is left. A paid intent whose workflow has
 * closed (its refund window ended) is reopened from MongoDB with the same Update (Update-with-Start), so the
 * workflow computes what is left and the operator's stamp is in its history either way.
 */
export const forceCancelIntent: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  const tenantId = await tenantOr404('payment intent', req, intentOwner(deps).tenantOf);
  const intent = (await paymentIntentData(deps.mongo).find(tenantId, req.target))!;
  const args: [OperatorActionInput] = [{ ...stampOf(req), refundSlaSeconds: DEFAULT_REFUND_SLA_SECONDS }];
  const result = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(req.target).executeUpdate(forceCancelUpdate, { args }),
    async () => {
      // Read again: the workflow closed since the first read (a merchant's cancel at the same moment), and the
      // refusal names how the intent ended, not the `pending` read before.
      const now = (await paymentIntentData(deps.mongo).find(tenantId, req.target)) ?? intent;
      if (now.status !== 'success') throw conflict('payment_intent_unexpected_state', notPendingMessage(now.status));
      const start = await reopenOperation(deps, now);
      return runUpdate(
        deps,
        () => deps.temporal.workflow.executeUpdateWithStart(forceCancelUpdate, { args, startWorkflowOperation: freshStart(start) }),
        () => conflict('payment_intent_unexpected_state', 'The payment intent could not be reopened; retry'),
      );
    },
  );
  return { tenantId, result: { ...result } };
};

/**
 * An operator Update of the workflow that owns `req.target`; `closed` says what a closed (or never started)
 * workflow means here, given the tenant.
 */
async function updateOwner<R extends object>(
  deps: AppDeps,
  req: OperatorRequest,
  owner: { what: string; tenantOf: (id: string) => Promise<string | null> },
  update: UpdateDefinition<R, [OperatorUpdateInput]>,
  closed: (tenantId: string) => DomainError | Promise<never>,
): ReturnType<OperatorHandler> {
  const tenantId = await tenantOr404(owner.what, req, owner.tenantOf);
  const answer: object = await runUpdate(deps, () => deps.temporal.workflow.getHandle(req.target).executeUpdate(update, { args: [stampOf(req)] }), () => closed(tenantId));
  return { tenantId, result: { ...answer } };
}

/**
 * A payout whose workflow will not take the Update: final, or, its record still at version 0, never started (its
 * create answered an error and was not sent again), which the stranded-records sweep takes back.
 */
const payoutRefusal = (deps: AppDeps, req: OperatorRequest, nothingTo: string) => async (tenantId: string): Promise<never> => {
  const payout = await payoutData(deps.mongo).find(tenantId, req.target);
  if (payout && payout.version === 0)
    throw conflict('payout_not_started', `This payout's workflow never started (its create answered an error): nothing to ${nothingTo}; the stranded-records sweep takes it back`);
  throw conflict('payout_final', `This payout is final: nothing to ${nothingTo}`);
};

const intentOwner = (deps: AppDeps) => ({ what: 'payment intent', tenantOf: paymentIntentData(deps.mongo).tenantOf });
const payoutOwner = (deps: AppDeps) => ({ what: 'payout', tenantOf: payoutData(deps.mongo).tenantOf });

export const recheckAttempt: OperatorHandler = (deps, req) =>
  updateOwner(deps, req, intentOwner(deps), recheckAttemptUpdate, () => conflict('nothing_to_recheck', 'This payment intent has ended: no attempt is waiting on the gateway'));

export const retryRefund: OperatorHandler = (deps, req) =>
  updateOwner(deps, req, { what: 'refund', tenantOf: refundData(deps.mongo).tenantOf }, retryRefundStepUpdate, () =>
    conflict('refund_settled', 'This refund is settled: nothing to retry'),
  );

export const retryPayout: OperatorHandler = (deps, req) =>
  updateOwner(deps, req, payoutOwner(deps), retryPayoutStepUpdate, payoutRefusal(deps, req, 'retry'));

export const confirmPayout: OperatorHandler = async (deps, req) => {
  if (!req.evidence) throw new DomainError('invalid_request', 'parameter_missing', 'Marking a payout confirmed needs evidence', 'evidence');
  return updateOwner(deps, req, payoutOwner(deps), confirmPayoutUpdate, payoutRefusal(deps, req, 'confirm'));
};
