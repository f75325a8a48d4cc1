import type { Mongo } from '../platform/mongo';
import type { PayoutPatch, PayoutRecord } from '../platform/records';
import { baseStatusOf } from '../domain/payouts';
import { idempotencyScope } from './idempotency';
import { currenciesInAnyCase, pageList, uuidsInAnyCase } from './page-list';
import { saveVersioned, versionZeroRecords } from './versioned-writes';
import type { PageListSpec, PageQuery } from '../domain/page-query';

/** What `GET /payouts` filters and sorts by: public name -> stored field and type. */
export const PAYOUT_LIST: PageListSpec = {
  filterable: {
    id: { type: 'integer' },
    uuid: { type: 'string', column: '_id' },
    status: { type: 'string' },
    sub_status: { type: 'string' },
    amount: { type: 'integer' },
    currency: { type: 'string' },
    gateway: { type: 'string' },
    recipient_uuid: { type: 'string' },
    gateway_payout_id: { type: 'string' },
    narration: { type: 'string' },
    webhook_urls: { type: 'string[]' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
  },
  sortable: { id: 'id', created_at: 'created_at', amount: 'amount' },
  defaultSort: ['created_at', 'DESC'],
};

/** Payouts in MongoDB, every read scoped by tenant. Inserted by the API, then written by their workflow. */
export function payoutData(mongo: Mongo) {
  const c = mongo.c.payouts;
  return {
    find: (tenantId: string, uuid: string) => c.findOne({ _id: uuid, tenant_id: tenantId }),
    /** The tenant of a payout, for operators (admin API), who name objects without a tenant. */
    tenantOf: async (uuid: string) => (await c.findOne({ _id: uuid }, { projection: { tenant_id: 1 } }))?.tenant_id ?? null,
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    /** Throws a duplicate-key error when the idempotency scope is taken (the create's guard). */
    insert: async (record: PayoutRecord) => void (await c.insertOne(record)),
    list: (tenantId: string, q: PageQuery, path: string) => pageList(c, { tenant_id: tenantId }, uuidsInAnyCase(currenciesInAnyCase(q, ['currency']), ['uuid', 'recipient_uuid']), path, PAYOUT_LIST),
    /** Records at version 0: the stranded-records sweep's page, take-back and put-back (a payout's create keeps its record). */
    ...versionZeroRecords(c),
    /** The workflow's write: applied only over an older version, so a late or repeated write never wins. */
    applyPatch: (p: PayoutPatch): Promise<'applied' | 'stale'> =>
      saveVersioned(c, p.id, p.version, {
        status: baseStatusOf(p.sub_status),
        sub_status: p.sub_status,
        gateway_payout_id: p.gateway_payout_id,
        failure_reason: p.failure_reason,
        late_outcome: p.late_outcome ? { status: p.late_outcome.status, at: new Date(p.late_outcome.at) } : null,
        updated_at: new Date(p.updated_at),
        ...(p.operator_confirmation ? { operator_confirmation: p.operator_confirmation } : {}),
      }),
  };
}
