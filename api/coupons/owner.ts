import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import {
  COUPON_REDEMPTIONS_WORKFLOW,
  couponRedemptionsWorkflowId,
  type CouponRedemptionsInput,
} from '../../workflows/coupon-redemptions/messages';
import type { AppDeps } from '../deps';
import { freshStart, withDeadline } from '../http/workflow-calls';
import { SA } from '../../workflows/search-attributes';

// A coupon's redemptions have one owner: its redemption workflow (workflows/coupon-redemptions). Every change
// of a coupon or promotion code record after its creation goes through it: a redemption, its release, the
// merchant's change of a promotion code and the coupon's deletion. The records' `times_redeemed` is what the
// owner last wrote; nobody else writes it.

/** How long one Update to a coupon's owner may take before the API answers 503. */
const OWNER_CALL_DEADLINE_MS = 10_000;

/**
 * An Update to a coupon's owner, started on first use (Update-with-Start, conflict policy USE_EXISTING). An
 * owner that closed (idle) just as the Update reached it is started again: the call is made once more.
 */
export async function onCouponOwner<R, A extends [unknown]>(deps: AppDeps, tenantId: string, couponId: string, update: UpdateDefinition<R, A>, args: A): Promise<R> {
  const input: CouponRedemptionsInput = { tenantId, couponId };
  const call = () => {
    const start = new WithStartWorkflowOperation(COUPON_REDEMPTIONS_WORKFLOW, {
      workflowId: couponRedemptionsWorkflowId(couponId),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: [{ key: SA.TenantId, value: tenantId }],
      staticSummary: `Redemptions of ${couponId} (${tenantId})`,
    });
    return withDeadline(deps.temporal, OWNER_CALL_DEADLINE_MS, () => deps.temporal.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation: freshStart(start) }));
  };
  try {
    return await call();
  } catch (err) {
    if (!ownerClosed(err)) throw err;
    return call();
  }
}

/** An Update to the owner if it runs (a release needs nothing of a closed owner); null when none runs. */
export async function onOwnerIfRunning<R, A extends [unknown]>(deps: AppDeps, couponId: string, update: UpdateDefinition<R, A>, args: A): Promise<R | null> {
  try {
    const handle = deps.temporal.workflow.getHandle(couponRedemptionsWorkflowId(couponId));
    return await withDeadline(deps.temporal, OWNER_CALL_DEADLINE_MS, () => handle.executeUpdate(update, { args }));
  } catch (err) {
    if (ownerClosed(err)) return null;
    throw err;
  }
}

/** The owner's run is gone, or completed as the Update reached it. */
function ownerClosed(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  const message = (err as Error)?.message ?? '';
  return /already completed|workflow execution already|workflow not found/i.test(message) && (err as { code?: number }).code !== 14;
}
