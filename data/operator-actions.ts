import type { Mongo } from '../platform/mongo';
import { newId } from '../platform/ids';
import type { AuditedActionName, OperatorActionName, OperatorActionRecord, OperatorStamp } from '../platform/ops-records';

/**
 * The audit trail of operator actions. A row is written before the owning workflow is asked (so an action
 * whose process dies mid-way still shows as `requested`) and finished with the workflow's answer.
 */
export function operatorActionData(mongo: Mongo) {
  const c = mongo.c.operatorActions;
  return {
    begin: async (a: { action: OperatorActionName; target: string; tenantId: string | null; region: string } & OperatorStamp): Promise<string> => {
      const record: OperatorActionRecord = {
        _id: newId('opa', a.region),
        action: a.action,
        target: a.target,
        tenant_id: a.tenantId,
        operator: a.operator,
        reason: a.reason,
        evidence: a.evidence ?? null,
        requested_at: new Date(),
        outcome: 'requested',
        code: null,
        message: null,
        finished_at: null,
      };
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
    made: async (a: { action: Exclude<AuditedActionName, OperatorActionName>; target: string; tenantId: string; region: string; message: string } & OperatorStamp): Promise<void> => {
      const now = new Date();
      const record: OperatorActionRecord = {
        _id: newId('opa', a.region),
        action: a.action,
        target: a.target,
        tenant_id: a.tenantId,
        operator: a.operator,
        reason: a.reason,
        evidence: null,
        requested_at: now,
        outcome: 'done',
        code: null,
        message: a.message,
        finished_at: now,
      };
      await c.insertOne(record);
    },
    /** The actions taken on one target, newest first (at most 200). */
    ofTarget: (target: string) => c.find({ target }).sort({ requested_at: -1, _id: -1 }).limit(200).toArray(),
  };
}
