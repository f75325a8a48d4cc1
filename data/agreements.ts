import { createHash } from 'node:crypto';
import type { Mongo } from '../platform/mongo';
import { isDuplicateKeyError } from '../platform/mongo';
import type { AgreementRecord } from '../platform/records';

/** The unique scope of an agreement: one per tenant, card and merchant `agreement_id`. */
export const agreementScope = (tenantId: string, paymentMethod: string, agreementId: string) => `${tenantId}:${paymentMethod}:${agreementId}`;

/**
 * The agreement's id (`agr_<region>_...`), derived from its scope: every charge under it names the same
 * agreement before its record exists (the record is made when its first charge is claimed or succeeds).
 */
export function agreementIdFor(region: string, scope: string): string {
  return `agr_${region}_${createHash('sha256').update(scope).digest('hex').slice(0, 24)}`;
}

export type AgreementClaim = NonNullable<AgreementRecord['claim']>;

/**
 * Agreements (`agr_...`) of merchant-initiated charges, scoped by tenant. A record holds the type and the network
 * transaction id of the agreement's first successful charge. Before that it may be a claim (no id yet): POST
 * /cards/mit claims the agreement for its first charge so that concurrent charges wait for the id (the unique
 * `scope` makes one claim win).
 */
export function agreementData(mongo: Mongo) {
  const c = mongo.c.agreements;
  const byScope = (tenantId: string, paymentMethod: string, agreementId: string) =>
    c.findOne({ scope: agreementScope(tenantId, paymentMethod, agreementId), tenant_id: tenantId });
  /** Only a claim still without an id, held by `token` (undefined: one held by nobody). */
  const unrecordedClaim = (scope: string, token: string | undefined) => ({ scope, network_transaction_id: null, 'claim.token': token === undefined ? { $exists: false } : token });
  return {
    byScope,
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** Claims the agreement's first charge: false when the agreement has a record (a claim or an id) already. */
    claim: async (record: AgreementRecord & { claim: AgreementClaim }): Promise<boolean> => {
      try {
        await c.insertOne(record);
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /**
     * Takes over a claim whose first charge will give no id (it failed, or its request is long over): only while it
     * is still that same claim without an id, so of two requests taking it over one wins on MongoDB, which applies a
     * conditional update as one step. FerretDB 1.24.2 (dev, tests, the cluster stack) checks the filter and writes
     * in two steps, so two takeovers at the same instant can both win there: the lost-update gap docs/reliability.md
     * measures. The new claimant's type stands.
     */
    takeOver: async (stale: AgreementRecord, claim: AgreementClaim, type: AgreementRecord['agreement_type']): Promise<boolean> => {
      const r = await c.updateOne(unrecordedClaim(stale.scope, stale.claim?.token), { $set: { claim, agreement_type: type, first_transaction: null } });
      return r.modifiedCount === 1;
    },
    /** The claimed first charge awaits its outcome (3DS, asynchronous): its transaction says later how it ended. */
    noteClaimTransaction: async (scope: string, token: string, transaction: string): Promise<void> => {
      await c.updateOne(unrecordedClaim(scope, token), { $set: { first_transaction: transaction } });
    },
    /** The claimed first charge gave no id (declined, refused, or paid without one): the next charge is a first one. */
    release: async (scope: string, token: string): Promise<void> => {
      await c.deleteOne(unrecordedClaim(scope, token));
    },
    /**
     * The first successful charge under an agreement: inserts the record, or, when the agreement has one
     * already (a claim, or a concurrent charge's record), sets its network transaction id if it has none (the
     * first one stands) with that charge's type, and ends the claim.
     */
    recordFirstCharge: async (record: AgreementRecord): Promise<void> => {
      try {
        await c.insertOne(record);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        await c.updateOne(
          { scope: record.scope, network_transaction_id: null },
          {
            $set: { network_transaction_id: record.network_transaction_id, first_transaction: record.first_transaction, agreement_type: record.agreement_type },
            $unset: { claim: '' },
          },
        );
      }
    },
  };
}
