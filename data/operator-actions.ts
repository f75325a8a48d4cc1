import type { Mongo } from '../platform/mongo';
import { newId } from '../platform/ids';
import type { AuditedActionName, OperatorActionRecord, OperatorStamp } from '../platform/ops-records';

/** `message`: what is being done, kept from the start (a row left `requested` still says it). */
type RowInput = { action: AuditedActionName; target: string; tenantId: string | null; region: string; message?: string } & OperatorStamp;

/** A new audit row, `requested` until it is finished. */
function row(a: RowInput): OperatorActionRecord {
  return {
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
    message: a.message ?? null,
    finished_at: null,
  };
}

/**
 * The audit trail of operator actions and audited admin changes. A row is written before the owning workflow is
 * asked, or the change made (so one whose process dies mid-way still shows as `requested`), and finished after.
 */
export function operatorActionData(mongo: Mongo) {
  const c = mongo.c.operatorActions;
  return {
    begin: async (a: RowInput): Promise<string> => {
      const record = row(a);
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
    /** The actions taken on one target, newest first (at most 200). */
    ofTarget: (target: string) => c.find({ target }).sort({ requested_at: -1, _id: -1 }).limit(200).toArray(),
  };
}
