import type { Mongo } from '../platform/mongo';
import { newId } from '../platform/ids';
import type { AuditedActionName, OperatorActionName, OperatorActionRecord, OperatorStamp } from '../platform/ops-records';

type RowInput = { action: AuditedActionName; target: string; tenantId: string | null; region: string } & OperatorStamp;

/** A new audit row: `requested` until its workflow answers, or done at once with what was changed. */
function row(a: RowInput, done: { message: string } | null): OperatorActionRecord {
  const now = new Date();
  return {
    _id: newId('opa', a.region),
    action: a.action,
    target: a.target,
    tenant_id: a.tenantId,
    operator: a.operator,
    reason: a.reason,
    evidence: a.evidence ?? null,
    requested_at: now,
    outcome: done ? 'done' : 'requested',
    code: null,
    message: done?.message ?? null,
    finished_at: done ? now : null,
  };
}

/**
 * The audit trail of operator actions. A row is written before the owning workflow is asked (so an action
 * whose process dies mid-way still shows as `requested`) and finished with the workflow's answer.
 */
export function operatorActionData(mongo: Mongo) {
  const c = mongo.c.operatorActions;
  return {
    begin: async (a: RowInput & { action: OperatorActionName }): Promise<string> => {
      const record = row(a, null);
      await c.insertOne(record);
      return record._id;
    },
    finish: (
      id: string,
      outcome: Exclude<OperatorActionRecord['outcome'], 'requested'>,
      detail: { tenantId?: string | null; code?: string; message?: string } = {},
    ) =>
      c.updateOne(
        { _id: id },
        {
          $set: {
            outcome,
            code: detail.code ?? null,
            message: detail.message ?? null,
            finished_at: new Date(),
            ...(detail.tenantId !== undefined ? { tenant_id: detail.tenantId } : {}),
          },
        },
      ),
    /** An admin change made at once (no workflow to ask): its row is written done, with what was changed. */
    made: async (a: RowInput & { action: Exclude<AuditedActionName, OperatorActionName>; tenantId: string; message: string }): Promise<void> => {
      await c.insertOne(row(a, { message: a.message }));
    },
    /** The actions taken on one target, newest first (at most 200). */
    ofTarget: (target: string) => c.find({ target }).sort({ requested_at: -1, _id: -1 }).limit(200).toArray(),
  };
}
