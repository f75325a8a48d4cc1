import { DomainError, conflict, invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS } from '../../domain/refund';
import { paymentIntentData } from '../../data/payment-intents';
import { refundData } from '../../data/refunds';
import { payoutData } from '../../data/payouts';
import { forceCancelUpdate, recheckAttemptUpdate } from '../../workflows/payment-intent/messages';
import { retryRefundStepUpdate } from '../../workflows/refund/messages';
import { confirmPayoutUpdate, retryPayoutStepUpdate } from '../../workflows/payout/messages';
import { runUpdate } from '../http/workflow-calls';
import { admitOnIntent } from '../refunds/service';
import { workflowInput } from '../payment-intents/service';
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

async function tenantOr404(what: string, target: string, tenantOf: (id: string) => Promise<string | null>): Promise<string> {
  const tenantId = await tenantOf(target);
  if (!tenantId) throw notFound(what, target, 'target');
  return tenantId;
}

/** A pending intent is canceled; a paid one is refunded of all that is left (reopened from MongoDB when its workflow has closed). */
export const forceCancelIntent: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  const tenantId = await tenantOr404('payment intent', req.target, paymentIntentData(deps.mongo).tenantOf);
  const intent = (await paymentIntentData(deps.mongo).find(tenantId, req.target))!;
  const result = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(req.target).executeUpdate(forceCancelUpdate, { args: [{ ...stampOf(req), refundSlaSeconds: DEFAULT_REFUND_SLA_SECONDS }] }),
    async () => {
      // The workflow has closed: canceled intents have nothing to cancel; a paid one whose refund window
      // ended is refunded through the refund path, which reopens it from its stored balance.
      if (intent.status !== 'success') throw conflict('payment_intent_unexpected_state', `This payment intent is ${intent.status}`);
      const left = intent.amount - (intent.amount_refunded ?? 0);
      if (left <= 0) throw conflict('nothing_to_refund', 'This payment intent has nothing left to refund');
      const admission = await admitOnIntent(deps, intent, [
        { amount: left, currency: intent.currency, idempotencyKey: `operator:${req.actionId}`, webhooks: workflowInput(intent, deps).webhooks, slaSeconds: DEFAULT_REFUND_SLA_SECONDS },
      ]);
      if (!admission.ok) throw invalidRequest(admission.code, admission.message, 'target');
      return { outcome: 'refunded', status: 'success' as const, refund: admission.refund };
    },
  );
  return { tenantId, result: { ...result } };
};

export const recheckAttempt: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  const tenantId = await tenantOr404('payment intent', req.target, paymentIntentData(deps.mongo).tenantOf);
  const result = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(req.target).executeUpdate(recheckAttemptUpdate, { args: [stampOf(req)] }),
    () => conflict('nothing_to_recheck', 'This payment intent has ended: no attempt is waiting on the gateway'),
  );
  return { tenantId, result: { ...result } };
};

export const retryRefund: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  const tenantId = await tenantOr404('refund', req.target, refundData(deps.mongo).tenantOf);
  const result = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(req.target).executeUpdate(retryRefundStepUpdate, { args: [stampOf(req)] }),
    () => conflict('refund_settled', 'This refund is settled: nothing to retry'),
  );
  return { tenantId, result: { ...result } };
};

export const retryPayout: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  const tenantId = await tenantOr404('payout', req.target, payoutData(deps.mongo).tenantOf);
  const result = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(req.target).executeUpdate(retryPayoutStepUpdate, { args: [stampOf(req)] }),
    () => conflict('payout_final', 'This payout is final: nothing to retry'),
  );
  return { tenantId, result: { ...result } };
};

export const confirmPayout: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  if (!req.evidence) throw new DomainError('invalid_request', 'parameter_missing', 'Marking a payout confirmed needs evidence', 'evidence');
  const tenantId = await tenantOr404('payout', req.target, payoutData(deps.mongo).tenantOf);
  const result = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(req.target).executeUpdate(confirmPayoutUpdate, { args: [stampOf(req)] }),
    () => conflict('payout_final', 'This payout is final: nothing to confirm'),
  );
  return { tenantId, result: { ...result } };
};
