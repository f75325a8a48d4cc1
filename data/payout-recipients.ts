import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import { inlineRecipientScope } from './idempotency';
import type { PayoutRecipientRecord } from '../platform/records';
import { pageList, uuidsInAnyCase } from './page-list';
import type { PageListSpec, PageQuery } from '../domain/page-query';

/** What `GET /payout-recipients` filters and sorts by. */
export const RECIPIENT_LIST: PageListSpec = {
  filterable: {
    id: { type: 'integer' },
    uuid: { type: 'string', column: '_id' },
    gateway: { type: 'string' },
    recipient_type: { type: 'string' },
    gateway_recipient_id: { type: 'string' },
    bank_account_number: { type: 'string' },
    bank_account_name: { type: 'string' },
    bank_code: { type: 'string' },
    bank_name: { type: 'string' },
    mobile_money_number: { type: 'string' },
    mobile_money_provider: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    phone: { type: 'string' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
  },
  sortable: { id: 'id', created_at: 'created_at' },
  defaultSort: ['created_at', 'DESC'],
};

/** Payout recipients in MongoDB, every read scoped by tenant. */
export function payoutRecipientData(mongo: Mongo) {
  const c = mongo.c.payoutRecipients;
  return {
    find: (tenantId: string, uuid: string) => c.findOne({ _id: uuid, tenant_id: tenantId }),
    some: (tenantId: string, uuids: string[]) => c.find({ _id: { $in: uuids }, tenant_id: tenantId }).toArray(),
    byScope: (scope: string) => c.findOne({ idempotency_scope: scope }),
    /** Throws a duplicate-key error when the idempotency scope is taken (the create's guard). */
    insert: async (record: PayoutRecipientRecord) => void (await c.insertOne(record)),
    /** Whether the record was there to take the gateway's id (its inserter may have taken it back meanwhile). */
    registered: async (tenantId: string, uuid: string, gatewayRecipientId: string): Promise<boolean> =>
      (await c.updateOne({ _id: uuid, tenant_id: tenantId }, { $set: { gateway_recipient_id: gatewayRecipientId, updated_at: new Date() } })).matchedCount === 1,
    /** Takes back a recipient the gateway refused or did not answer about, while it is unregistered. */
    removeUnregistered: async (tenantId: string, uuid: string): Promise<void> => void (await c.deleteOne({ _id: uuid, tenant_id: tenantId, gateway_recipient_id: null })),
    list: (tenantId: string, q: PageQuery, path: string) => pageList(c, { tenant_id: tenantId }, uuidsInAnyCase(q, ['uuid']), path, RECIPIENT_LIST),
  };
}

/**
 * Inline recipients a payout registered before their scope moved under `payout:` (stored as
 * `<tenant>:payout:<payout key>`, which a POST /payout-recipients key `payout:<payout key>` could name) get the
 * scope of now. Idempotent; the API runs it before it listens. Answers how many moved.
 */
export async function ensureInlineRecipientScopes(mongo: Mongo): Promise<number> {
  const c = mongo.c.payoutRecipients;
  const old = await c.find({ idempotency_key: null, idempotency_scope: { $regex: '^[^:]+:payout:' } }, { projection: { _id: 1, tenant_id: 1, idempotency_scope: 1 } }).toArray();
  let moved = 0;
  for (const r of old) {
    const prefix = `${r.tenant_id}:payout:`;
    if (!r.idempotency_scope.startsWith(prefix)) continue;
    try {
      const u = await c.updateOne({ _id: r._id, idempotency_scope: r.idempotency_scope }, { $set: { idempotency_scope: inlineRecipientScope(r.tenant_id, r.idempotency_scope.slice(prefix.length)) } });
      moved += u.modifiedCount;
    } catch (err) {
      // A payout with that key made since registered its recipient under the scope of now: this one stays as it is.
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
  return moved;
}
