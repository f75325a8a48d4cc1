import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { CheckoutIntentRecord } from '../platform/records';
import { idempotencyScope } from './idempotency';

/**
 * Checkout intents, every read scoped by tenant. The API inserts them (the unique idempotency scope is the
 * create's guard); their one change, `completed`, comes from the payment intent that wins the claim.
 */
export function checkoutIntentData(mongo: Mongo) {
  const c = mongo.c.checkoutIntents;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    /** Throws the driver's duplicate-key error when another create holds the same idempotency scope. */
    insert: async (record: CheckoutIntentRecord) => void (await c.insertOne(record)),
  };
}

/**
 * The one claim of a checkout intent's success, made by a payment intent's workflow (through an activity)
 * after its capture and before it calls itself paid. The claim is an insert under the checkout intent's id:
 * the unique `_id` admits one payment intent, on MongoDB and FerretDB alike. A retried claim by the winner
 * wins again. Answers whether `paymentIntent` holds the claim.
 */
export async function claimCheckoutIntent(mongo: Mongo, claim: { checkoutIntent: string; tenantId: string; paymentIntent: string }): Promise<boolean> {
  const { checkoutIntentClaims, checkoutIntents } = mongo.c;
  try {
    await checkoutIntentClaims.insertOne({ _id: claim.checkoutIntent, tenant_id: claim.tenantId, payment_intent: claim.paymentIntent, created_at: new Date() });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  const holder = await checkoutIntentClaims.findOne({ _id: claim.checkoutIntent });
  if (holder?.payment_intent !== claim.paymentIntent) return false;
  // The read model follows the claim (only the winner writes it, so the write is never contended).
  await checkoutIntents.updateOne(
    { _id: claim.checkoutIntent, tenant_id: claim.tenantId },
    { $set: { status: 'completed', payment_intent: claim.paymentIntent, updated_at: new Date() } },
  );
  return true;
}
