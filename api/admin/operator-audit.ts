import { DomainError } from '../../domain/errors';
import { parseId } from '../../platform/ids';
import type { OperatorActionName } from '../../platform/ops-records';
import { operatorActionData } from '../../data/operator-actions';
import type { AppDeps } from '../deps';
import type { OperatorHandler, OperatorOutcome } from './operator-handler';

/**
 * Runs one operator action between its two audit writes in `operator_actions`: `requested` before its handler
 * asks the workflow, then `done`, `refused` (with the code), `unanswered` (a 503: the workflow may still act) or
 * `failed`. The operator actions of POST /admin/operations and the admin routes that act the same way (an
 * endpoint's enable) go through here.
 */
export async function audited(
  deps: AppDeps,
  action: OperatorActionName,
  req: { target: string; operator: string; reason: string; evidence?: string | undefined; replay_missed?: boolean | undefined },
  handler: OperatorHandler,
) {
  const audit = operatorActionData(deps.mongo);
  const region = parseId(req.target)?.region ?? deps.config.REGIONS[0]!;
  const stamp = { operator: req.operator, reason: req.reason, ...(req.evidence ? { evidence: req.evidence } : {}) };
  const actionId = await audit.begin({ action, target: req.target, tenantId: null, region, ...stamp });
  let done: OperatorOutcome;
  let tenantId: string | null = null;
  try {
    const options = req.replay_missed !== undefined ? { replayMissed: req.replay_missed } : {};
    done = await handler(deps, { target: req.target, actionId, ...stamp, ...options, tenantFound: (t) => (tenantId = t) });
  } catch (err) {
    // A 503 is no answer, not a refusal: the workflow may still act on the Update it was sent.
    if (err instanceof DomainError && err.kind === 'unavailable') await audit.finish(actionId, 'unanswered', { tenantId, code: err.code, message: err.message });
    else if (err instanceof DomainError) await audit.finish(actionId, 'refused', { tenantId, code: err.code, message: err.message });
    else await audit.finish(actionId, 'failed', { tenantId, message: String(err).slice(0, 500) });
    throw err;
  }
  // The action took effect: its audit row says so, and the answer says so even when that write does not land
  // (a retry would be another action: a second redelivery). The row then stays `requested`, logged here.
  await audit.finish(actionId, 'done', { tenantId: done.tenantId }).catch((err: unknown) =>
    deps.logger.error({ err: String(err), action_id: actionId, action }, 'an operator action took effect but its audit row could not be marked done'),
  );
  return { action_id: actionId, action, target: req.target, outcome: 'done' as const, result: done.result };
}
