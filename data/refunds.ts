import type { Mongo } from '../platform/mongo';
import type { RefundRecord } from '../platform/records';
import { idempotencyScope } from './idempotency';
import { definedOnly, paginate, type Page, type PageQuery } from './list';

export interface RefundFilter {
  payment_intent?: string;
  status?: RefundRecord['status'];
  currency?: string;
}

/**
 * Refunds in MongoDB, every read scoped by tenant. Written by the payment's and the refund's workflows
 * (data/workflow-records.ts, versioned).
 */
export function refundData(mongo: Mongo) {
  const c = mongo.c.refunds;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    ofPaymentIntent: (tenantId: string, paymentIntent: string) => c.find({ tenant_id: tenantId, payment_intent: paymentIntent }).toArray(),
    list: (tenantId: string, filter: RefundFilter, page: PageQuery): Promise<Page<RefundRecord>> => paginate(c, { tenant_id: tenantId, ...definedOnly(filter) }, page),
  };
}
