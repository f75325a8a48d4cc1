import type { PaymentIntentRecord, RefundRecord } from '../../platform/records';
import type { CarriedState } from '../../workflows/payment-intent/messages';

/** A payment's workflow reopened for a refund stays open this long after its last refund settles. */
export const REOPENED_LIFE_MS = 24 * 3600 * 1000;

/**
 * The state a successful payment's workflow carried, rebuilt from MongoDB, for when its workflow has closed
 * (its refund window ended) and a refund arrives: it is started again from this (Update-with-Start) and
 * owns the balance as before. The workflow stays open while any refund it started is unsettled, so a
 * closed workflow means every refund in the records is final: pending or succeeded ones hold their amount.
 */
export function reopenedState(
  intent: PaymentIntentRecord,
  refunds: RefundRecord[],
  now: Date,
  /** Credit notes of the intent's invoice credited to the customer's balance: spent from the same balance. */
  credits: { _id: string; amount: number }[] = [],
  /** The paid connector's gateway task queue, so the reopened run's refunds keep to that gateway's rate limit. */
  taskQueue?: string,
): CarriedState {
  if (intent.status !== 'success' || !intent.connector_used || !intent.gateway_charge_id)
    throw new Error(`payment intent ${intent._id} has no successful payment to reopen`);
  const ours = refunds.filter((r) => r.payment_intent === intent._id);
  const holding = ours.filter((r) => r.status === 'pending' || r.status === 'success');
  return {
    status: 'success',
    version: intent.version,
    paid: { amount: intent.amount_paid ?? intent.amount, currency: intent.currency, connector: intent.connector_used, chargeId: intent.gateway_charge_id, ...(taskQueue ? { taskQueue } : {}) },
    reserved: Object.fromEntries([...holding.map((r): [string, number] => [r._id, r.amount]), ...credits.map((c): [string, number] => [c._id, c.amount])]),
    refundKeys: ours.filter((r) => r.idempotency_key !== null).map((r): [string, string] => [r.idempotency_key!, r._id]),
    refundStarted: [...ours.map((r) => r._id), ...credits.map((c) => c._id)],
    refundSettled: [...ours.filter((r) => r.status !== 'pending').map((r) => r._id), ...credits.map((c) => c._id)],
    succeededAt: (intent.succeeded_at ?? intent.updated_at).toISOString(),
    canceledAt: null,
    cancellationReason: null,
    amountRefunded: ours.filter((r) => r.status === 'success').reduce((sum, r) => sum + r.amount, 0),
    closeAt: new Date(now.getTime() + REOPENED_LIFE_MS).toISOString(),
  };
}
