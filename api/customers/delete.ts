import { DomainError, notFound } from '../../domain/errors';
import { customerData } from '../../data/customers';
import { paymentMethodData } from '../../data/payment-methods';
import { subscriptionData } from '../../data/subscriptions';
import { isEndedSubscription } from '../../domain/billing/snapshots';
import { cancelSubscription } from '../subscriptions/service';
import type { AppDeps, AuthContext } from '../deps';

/**
 * DELETE /v202607/customers/{id}. Deleting detaches the record (its reference is freed; intents and refunds
 * made before keep their id), detaches its cards and cancels now each of its subscriptions not yet ended, as
 * Stripe's does. The record is marked first, then its subscriptions listed: a create racing it reads the customer
 * again once its workflow started, and cancels its own if it sees the mark (api/subscriptions/service.ts,
 * customerGone), so no subscription started for it stays live; every step is safe
 * to repeat, so a DELETE repeated after one that failed part-way (or of a customer deleted before this was
 * so) finishes the job and answers the same.
 */
export async function deleteCustomer(deps: AppDeps, auth: AuthContext, id: string): Promise<void> {
  const customers = customerData(deps.mongo);
  const customer = await customers.findAny(auth.tenantId, id);
  if (!customer) throw notFound('customer', id, 'customer');
  // An update sent at the same time through another API process can write the customer back undeleted (FerretDB
  // writes a guarded update as a whole document): it is read again after each pass, and the delete done again.
  for (let live = !customer.deleted_at, tries = 0; ; tries++) {
    if (live) await customers.remove(auth.tenantId, id);
    await paymentMethodData(deps.mongo).detachAllOf(auth.tenantId, id, new Date());
    await cancelSubscriptionsOf(deps, auth, id);
    const now = await customers.findAny(auth.tenantId, id);
    live = !!now && !now.deleted_at;
    if (!live) return;
    // Still live after every try: not answered as deleted. The delete is safe to send again.
    if (tries === STILL_LIVE_TRIES) throw new DomainError('unavailable', 'service_unavailable', 'The customer kept being written while it was deleted: send the delete again', undefined, 1);
  }
}

/** Deletes re-done when the customer reads live again after its delete. */
const STILL_LIVE_TRIES = 3;

/** Each of the customer's subscriptions not yet ended, canceled through the cancel endpoint's own path. */
async function cancelSubscriptionsOf(deps: AppDeps, auth: AuthContext, customer: string): Promise<void> {
  const open: string[] = [];
  for (let after: string | undefined; ; ) {
    const page = await subscriptionData(deps.mongo).list(auth.tenantId, { customer }, { limit: 100, starting_after: after });
    open.push(...page.data.filter((s) => !isEndedSubscription(s.status)).map((s) => s._id));
    if (!page.has_more) break;
    after = page.data[page.data.length - 1]!._id;
  }
  // One that fails does not stop the others; the first failure is the answer, and a retry does the rest.
  let failed: unknown = null;
  for (const id of open) {
    try {
      await cancelSubscription(deps, auth, id);
    } catch (err) {
      // It ended on its own meanwhile (expired, or canceled by dunning): nothing to stop.
      if (err instanceof DomainError && err.code === 'subscription_ended') continue;
      failed ??= err;
    }
  }
  if (failed) throw failed;
}
