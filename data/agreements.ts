import { createHash } from 'node:crypto';
import type { Mongo } from '../platform/mongo';
import { isDuplicateKeyError } from '../platform/mongo';
import type { AgreementRecord } from '../platform/records';

/** The unique scope of an agreement: one per tenant, card and merchant `agreement_id`. */
export const agreementScope = (tenantId: string, paymentMethod: string, agreementId: string) => `${tenantId}:${paymentMethod}:${agreementId}`;

/**
 * The agreement's id (`agr_<region>_...`), derived from its scope: every charge under it names the same
 * agreement before its record exists (the record is made by its first successful charge).
 */
export function agreementIdFor(region: string, scope: string): string {
  return `agr_${region}_${createHash('sha256').update(scope).digest('hex').slice(0, 24)}`;
}

/**
 * Agreements (`agr_...`) of merchant-initiated charges, scoped by tenant. A record is made by the first
 * successful charge under it and holds the type and the network transaction id of that charge.
 */
export function agreementData(mongo: Mongo) {
  const c = mongo.c.agreements;
  const byScope = (tenantId: string, paymentMethod: string, agreementId: string) =>
    c.findOne({ scope: agreementScope(tenantId, paymentMethod, agreementId), tenant_id: tenantId });
  return {
    byScope,
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /**
     * The first successful charge under an agreement: inserts the record, or, when the agreement has one
     * already, sets its network transaction id if it has none (the first one stands).
     */
    recordFirstCharge: async (record: AgreementRecord): Promise<void> => {
      try {
        await c.insertOne(record);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        await c.updateOne(
          { scope: record.scope, network_transaction_id: null },
          { $set: { network_transaction_id: record.network_transaction_id, first_transaction: record.first_transaction } },
        );
      }
    },
  };
}
