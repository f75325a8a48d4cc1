import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Mongo } from '../platform/mongo';
import type { ReturnStatus } from '../domain/returns';
import type { AddressSnapshot, CheckoutRecord, CommerceTotals, RefundRecord } from '../platform/records';
import { cartData } from '../data/carts';
import { productStockData } from '../data/product-stock';
import { checkoutData, orderData, returnData } from '../data/checkouts';
import { idempotencyScope } from '../data/idempotency';
import { refundData } from '../data/refunds';

// MongoDB writes of the commerce workflows (product stock, checkouts, orders, returns): idempotent and
// versioned like every workflow write. Inputs are what the workflows hold; they become records here.

/** What the checkout workflow knows of a checkout, for its order. */
interface CheckoutFacts {
  id: string;
  tenantId: string;
  cartId: string;
  userId: string;
  currency: string;
  lines: { productId: string; quantity: number; unitPrice: number; title: { en: string; ar: string } }[];
  totals: CommerceTotals;
  taxRateBasisPoints: number;
  shippingAddress: AddressSnapshot;
}

/** What the return workflow starts from. */
interface ReturnFacts {
  id: string;
  tenantId: string;
  orderId: string;
  checkoutId: string;
  userId: string;
  productId: string;
  quantity: number;
  amount: number;
  currency: string;
  reasonCode: string;
  address: AddressSnapshot;
  idempotencyKey: string;
  createdAt: string;
}

/** A received return's refund, started by the API's own code (api/returns/refund-port.ts). */
export interface ReturnRefundPort {
  start(temporal: Client, req: { tenantId: string; region: string; returnId: string }): Promise<{ refund: string | null } | { refusal: string; refusalMessage?: string }>;
}

export function createCommerceActivities({ mongo, returnRefunds }: { mongo: Mongo; returnRefunds?: ReturnRefundPort }) {
  const carts = cartData(mongo);
  const checkouts = checkoutData(mongo);
  const orders = orderData(mongo);
  const returns = returnData(mongo);
  return {
    async saveProductStock(p: { tenantId: string; productId: string; stock: number; price?: number; version: number }): Promise<void> {
      await productStockData(mongo).save(p.tenantId, p.productId, p.stock, p.version, p.price);
    },

    async saveCheckout(p: { id: string; version: number; status: CheckoutRecord['status']; paymentIntent: string | null; orderId: string | null }): Promise<void> {
      await checkouts.save(p.id, p.version, { status: p.status, payment_intent: p.paymentIntent, order_id: p.orderId });
    },

    async createOrder(o: { checkout: CheckoutFacts; orderId: string; paymentIntent: string; createdAt: string }): Promise<void> {
      const c = o.checkout;
      await orders.insertOnce({
        _id: o.orderId,
        tenant_id: c.tenantId,
        checkout_id: c.id,
        cart_id: c.cartId,
        user_id: c.userId,
        payment_intent: o.paymentIntent,
        currency: c.currency,
        lines: c.lines.map((l) => ({ product_id: l.productId, quantity: l.quantity, unit_price: l.unitPrice, title: l.title })),
        totals: c.totals,
        tax_rate_basis_points: c.taxRateBasisPoints,
        shipping_address: c.shippingAddress,
        status: 'paid',
        created_at: new Date(o.createdAt),
      });
    },

    async markCartConverted(c: { tenantId: string; cartId: string }): Promise<void> {
      await carts.markConverted(c.tenantId, c.cartId);
    },

    /** The return's record, before its workflow starts; another return holding the idempotency key is a conflict. */
    async createReturnRecord(r: ReturnFacts): Promise<void> {
      const at = new Date(r.createdAt);
      const holder = await returns.insert({
        _id: r.id,
        tenant_id: r.tenantId,
        order_id: r.orderId,
        checkout_id: r.checkoutId,
        user_id: r.userId,
        idempotency_key: r.idempotencyKey,
        idempotency_scope: idempotencyScope(r.tenantId, r.idempotencyKey, r.id),
        product_id: r.productId,
        quantity: r.quantity,
        reason_code: r.reasonCode,
        address: r.address,
        amount: r.amount,
        currency: r.currency,
        status: 'requested',
        refund: null,
        created_at: at,
        updated_at: at,
        version: 1,
      });
      if (holder !== null) throw ApplicationFailure.nonRetryable(`idempotencyKey '${r.idempotencyKey}' is already used by return ${holder}`, 'idempotency_key_in_use');
    },

    async saveReturn(p: { id: string; version: number; status: ReturnStatus; refund: string | null }): Promise<void> {
      await returns.save(p.id, p.version, { status: p.status, refund: p.refund });
    },

    /** A received return's refund, when the merchant's PUT could not start it: admitted under its key, or refused. */
    startReturnRefund(req: { tenantId: string; region: string; returnId: string }): Promise<{ refund: string | null } | { refusal: string; refusalMessage?: string }> {
      if (!returnRefunds) throw ApplicationFailure.nonRetryable('this worker was built without return refunds', 'misconfigured');
      return returnRefunds.start(Context.current().client, req);
    },

    /** How a refund stands, from its record (its own workflow writes it). */
    async refundState(q: { tenantId: string; refund: string }): Promise<'pending' | 'success' | 'canceled' | 'unknown'> {
      return refundEnd(await refundData(mongo).find(q.tenantId, q.refund));
    },
  };
}

/**
 * How a refund has ended, as one waiting on it (a return) reads its record: a refund canceled at its SLA whose
 * cancel the gateway has not confirmed is still `pending` (the gateway may execute it yet).
 */
export function refundEnd(r: Pick<RefundRecord, 'status' | 'cancel_unconfirmed'> | null): 'pending' | 'success' | 'canceled' | 'unknown' {
  if (!r) return 'unknown';
  return r.status === 'canceled' && r.cancel_unconfirmed === true ? 'pending' : r.status;
}
