import type { Mongo } from '../platform/mongo';
import { insertOnce, insertOrHolder, oneSaveAtATime, saveVersioned } from './versioned-writes';
import type { EventRecord, PaymentIntentRecord, RefundRecord, SavedPaymentMethodRecord } from '../platform/records';

// What workflows write to MongoDB, through their activities (activities/store.ts): their own records, the
// events they emit, the payment methods they save. Every write is idempotent (a retried activity changes
// nothing twice) and a workflow's own record is written with a version (a late write never overwrites a
// newer state). Those records are keyed by id alone: the ids are ours, unique across tenants, and a
// workflow's patch does not carry its tenant. Reads for the API stay in each collection's module.

/** What a payment intent's workflow writes of its record (data/payment-intents.ts has the rest). */
export type PaymentIntentProgress = Partial<Pick<PaymentIntentRecord, 'sub_status' | 'step_number' | 'last_reason' | 'payment_method' | 'transactions'>> &
  Required<
  Pick<
    PaymentIntentRecord,
    | 'status'
    | 'succeeded_at'
    | 'canceled_at'
    | 'cancellation_reason'
    | 'amount_paid'
    | 'amount_refunded'
    | 'connector_used'
    | 'gateway_charge_id'
    | 'last_failure_code'
    | 'updated_at'
  >
>;

/** What a refund's workflow writes of its record after creating it (runs of older code: no sub_status). */
export type RefundProgress = Pick<RefundRecord, 'status' | 'gateway_transaction_id' | 'failure_code' | 'late_outcome' | 'updated_at'> &
  Partial<Pick<RefundRecord, 'sub_status'>>;

/** A late capture the intent's workflow refunded (or failed to), kept on the intent for operators. */
export interface VoidedCharge {
  charge_id: string;
  attempt: number;
  at: Date;
  outcome: 'refunded' | 'failed';
  error: string | null;
}

export function workflowRecordData(mongo: Mongo) {
  const { paymentIntents, refunds, events, savedPaymentMethods } = mongo.c;
  return {
    savePaymentIntent: (id: string, version: number, progress: PaymentIntentProgress) => saveVersioned(paymentIntents, id, version, progress),
    addVoidedCharge: (id: string, voided: VoidedCharge) =>
      // One at a time with the record's saves in this process: FerretDB rewrites the whole document per update, so a
      // save of the intent in flight beside this one could land after it and drop the field (seen in the suite).
      // `voided_charges` is for operators only: the record's type does not declare it.
      oneSaveAtATime(paymentIntents.collectionName, id, async () => void (await paymentIntents.updateOne({ _id: id }, { $addToSet: { voided_charges: voided } } as never))),
    /**
     * Inserts a refund's record. A retried insert finds its own record and changes nothing; when another
     * refund holds the same idempotency scope, answers that refund's id (else null).
     */
    insertRefund: (record: RefundRecord): Promise<string | null> => insertOrHolder(refunds, record),
    saveRefund: (id: string, version: number, progress: RefundProgress) => saveVersioned(refunds, id, version, progress),
    insertEvent: (record: EventRecord) => insertOnce(events, record),
    insertSavedPaymentMethod: (record: SavedPaymentMethodRecord) => insertOnce(savedPaymentMethods, record),
  };
}
