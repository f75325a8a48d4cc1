import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AddressSnapshot, CheckoutRecord, CommerceTotals } from '../../platform/records';
import type { EndpointRef } from '../events';

// Messages of a checkout's workflow: the owner of the stock its lines hold (released or sold), of its
// payment's outcome, and once paid, of its order's returnable quantities.

export const CHECKOUT_WORKFLOW = 'checkoutWorkflow';

export interface CheckoutLine {
  productId: string;
  quantity: number;
  unitPrice: number;
  title: { en: string; ar: string };
}

export interface CheckoutInput {
  id: string; // chk_...
  tenantId: string;
  region: string;
  cartId: string;
  userId: string;
  currency: string;
  lines: CheckoutLine[];
  totals: CommerceTotals;
  taxRateBasisPoints: number;
  shippingAddress: AddressSnapshot;
  createdAt: string; // ISO
  /** How long the API may take to attach the payment intent; past it the holds are released. */
  attachWithinMs: number;
  /** How long after payment the order takes returns. */
  returnWindowMs: number;
  webhookTaskQueue: string;
  carried?: CheckoutCarried;
}

export interface CheckoutCarried {
  status: CheckoutStatus;
  paymentIntent: string | null;
  orderId: string | null;
  paidAt: string | null;
  returns: CarriedReturn[];
  version: number;
}

export interface CarriedReturn {
  id: string;
  idempotencyKey: string;
  productId: string;
  quantity: number;
  /** A rejected return gives its quantity back. */
  rejected: boolean;
  /** Its share of the order's tax, as admitted; absent from returns admitted by older code. */
  taxShare?: number;
  /** Why it is returned, as asked; absent from returns admitted by older code. */
  reasonCode?: string;
}

/** The record's statuses (platform/records.ts CheckoutRecord says what each means). */
export type CheckoutStatus = CheckoutRecord['status'];

export interface CheckoutState {
  status: CheckoutStatus;
  paymentIntent: string | null;
  orderId: string | null;
  /** Per product of the order: what can still be returned (ordered minus returns not rejected). */
  returnable: { productId: string; returnableQuantity: number }[];
}

export interface ReturnRequest {
  idempotencyKey: string;
  productId: string;
  quantity: number;
  reasonCode: string;
  address: AddressSnapshot;
  /** The tenant's commerce webhook_urls when the return was asked for: each status change is sent there. */
  webhooks: EndpointRef[];
}

export type ReturnAdmission =
  | { ok: true; id: string; created: boolean }
  | { ok: false; code: 'return_quantity_exceeded' | 'return_window_closed' | 'order_not_paid' | 'product_not_in_order'; message: string };

/** The payment intent made for this checkout; its outcome will be signalled here. */
export const attachIntentUpdate = defineUpdate<CheckoutState, [{ paymentIntent: string }]>('attachIntent');
/** The API found the cart changed (stock or prices): whatever was held is released. */
export const checkoutChangedSignal = defineSignal<[]>('cartChanged');
/** The checkout's payment intent ended: `success` sells the held units, `canceled` releases them. */
export const intentOutcomeSignal = defineSignal<[{ paymentIntent: string; status: 'success' | 'canceled' }]>('intentOutcome');
export const admitReturnUpdate = defineUpdate<ReturnAdmission, [ReturnRequest]>('admitReturn');
/** A return of this order ended; a rejected one gives its quantity back. */
export const returnEndedSignal = defineSignal<[{ returnId: string; rejected: boolean }]>('returnEnded');
export const checkoutStateQuery = defineQuery<CheckoutState>('checkoutState');
