import type { AppDeps } from '../deps';
import type { OperatorStamp } from '../../platform/ops-records';

// The contract of one operator action (api/admin/operations.ts dispatches POST /admin/operations/{action}):
// it asks the workflow that owns the target through an Update carrying the stamp, and answers what the
// workflow said. Refusals are DomainErrors (domain/errors.ts); `audited` (operator-audit.ts) writes the audit row around it.

export interface OperatorRequest extends OperatorStamp {
  /** The id acted on: `pi_...`, `re_...`, a payout's uuid, a delivery's workflow id. */
  target: string;
  /** The audit row's id (`opa_...`), passed to the workflow: the same action retried acts once. */
  actionId: string;
  /** `enable_webhook_endpoint` only: send again what the endpoint parked while it was disabled (default true). */
  replayMissed?: boolean;
  /** Told the target's tenant once the handler has found it, so a refusal's audit row names it too. */
  tenantFound?: (tenantId: string) => void;
}

export interface OperatorOutcome {
  /** The target's tenant, for the audit row (null when the target names none). */
  tenantId: string | null;
  /** What the workflow answered, returned to the operator as is. */
  result: Record<string, unknown>;
}

export type OperatorHandler = (deps: AppDeps, req: OperatorRequest) => Promise<OperatorOutcome>;
