import type { Mongo } from '../platform/mongo';
import type { CheckoutSessionRecord, PortalSessionRecord } from '../platform/billing-records';
import { idempotencyScope } from './idempotency';

// Checkout sessions (`cs_...`) and billing-portal sessions (`bps_...`), every API read scoped by tenant. The
// hosted pages are reached by the session's id alone (128 random bits: the id is the capability, as an
// intent's client secret is for its page), so they read by id (`findForPage`).
//
// A checkout session is written by the API only: its insert (the idempotency guard: unique
// `idempotency_scope`), then its intent, then its completion. Each later write sets the same values whoever
// makes it (the intent of its idempotency key, the subscription of key `cs:<id>`), so two requests that
// complete it at once write the same thing; FerretDB may lose one of two concurrent writes of a document,
// and a lost completion is written again by the next read that finds the intent paid.

export function checkoutSessionData(mongo: Mongo) {
  const c = mongo.c.checkoutSessions;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** For the hosted page, reached by the session's id. */
    findForPage: (id: string) => c.findOne({ _id: id }),
    byIdempotencyKey: (tenantId: string, key: string) => c.findOne({ idempotency_scope: idempotencyScope(tenantId, key, '') }),
    /** Throws the driver's duplicate-key error when another create holds the same idempotency scope. */
    insert: async (record: CheckoutSessionRecord) => void (await c.insertOne(record)),
    /** Takes back a session whose intent could not be made (nothing else refers to it yet). */
    takeBack: async (id: string) => void (await c.deleteOne({ _id: id, payment_intent: null })),
    setPaymentIntent: async (id: string, paymentIntent: string) => void (await c.updateOne({ _id: id }, { $set: { payment_intent: paymentIntent } })),
    /** Completed: the subscription it started (and the card check's refund, if any). */
    complete: async (id: string, subscription: string, refund: string | null, at: Date) =>
      // Once: a second completion at the same time (the worker, the page) must not write over the first's refund.
      void (await c.updateOne({ _id: id, status: { $ne: 'complete' } }, { $set: { status: 'complete', subscription, refund, completed_at: at, completion_error: null } })),
    /** Paid, but the subscription was refused: the payment is refunded and the session can no longer complete. */
    fail: async (id: string, error: { code: string; message: string }, refund: string | null) =>
      void (await c.updateOne({ _id: id, status: 'open' }, { $set: { status: 'expired', completion_error: error, refund } })),
  };
}

export function portalSessionData(mongo: Mongo) {
  const c = mongo.c.portalSessions;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    /** For the portal's pages, reached by the session's id. */
    findForPage: (id: string) => c.findOne({ _id: id }),
    insert: async (record: PortalSessionRecord) => void (await c.insertOne(record)),
  };
}
