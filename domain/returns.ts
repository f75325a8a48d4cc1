import { taxOn } from './commerce-totals';

// The lifecycle of a return, as plain rules: which status may follow which, and what a return refunds.
//
//   requested ──approve──▶ approved ──receive──▶ received ──(its refund settles)──▶ refunded
//       │                      │                     └──(its refund is canceled)──▶ refund_failed
//       └──reject(reason)──────┴──▶ rejected.<reason>
//
// The merchant moves a return with PUT /returns/{id} (`approved`, `received`, `rejected` with a reason);
// `refunded` and `refund_failed` are reached by the refund alone.

export type ReturnStatus = 'requested' | 'approved' | 'received' | 'refunded' | 'refund_failed' | `rejected.${string}`;
export type ReturnMove = 'approved' | 'received' | 'rejected';

/** A reason suffix: lower-case words joined by underscores, so `rejected.<reason>` stays one token. */
export const REJECTION_REASON = /^[a-z][a-z0-9_]{0,63}$/;

export function isFinal(status: ReturnStatus): boolean {
  return status === 'refunded' || status === 'refund_failed' || status.startsWith('rejected.');
}

/** Received, or ended by its refund since: its refund has been (or is being) handed over. */
export function wasReceived(status: ReturnStatus): boolean {
  return status === 'received' || status === 'refunded' || status === 'refund_failed';
}

/**
 * The status a merchant's move leads to, or why it is refused. Repeating the move that led to the current
 * status is allowed (an idempotent retry) and changes nothing.
 */
export function nextReturnStatus(current: ReturnStatus, move: ReturnMove, reason?: string): { ok: true; status: ReturnStatus } | { ok: false; message: string } {
  if (move === 'rejected') {
    if (!reason || !REJECTION_REASON.test(reason)) return { ok: false, message: 'A rejection needs a reason: lower-case letters, digits and underscores' };
    const status = `rejected.${reason}` as const;
    if (current === status) return { ok: true, status };
    if (current === 'requested' || current === 'approved') return { ok: true, status };
    return { ok: false, message: `A return that is ${current} can no longer be rejected` };
  }
  if (move === current) return { ok: true, status: current };
  // Received again once its refund has ended it: the same move repeated (an answer that came late, or a PUT
  // sent beside it), which changes nothing, as it would while the refund is under way.
  if (move === 'received' && (current === 'refunded' || current === 'refund_failed')) return { ok: true, status: current };
  if (move === 'approved' && current === 'requested') return { ok: true, status: 'approved' };
  if (move === 'received' && current === 'approved') return { ok: true, status: 'received' };
  return { ok: false, message: `A return that is ${current} cannot become ${move}` };
}

/**
 * What a return refunds: the returned units at the price paid, and their share of the order's tax. The share
 * is the order's tax on everything returned so far with these units, minus its tax on what was returned
 * before them (returns not rejected): the shares of an order's returns add up to the tax on what they return
 * together, so a whole order returned gives back exactly the tax paid and split returns never more. Shipping
 * is not refunded.
 */
export function returnAmount(unitPrice: number, quantity: number, taxRateBasisPoints: number, returnedNetBefore = 0, taxRefundedBefore?: number): number {
  const net = unitPrice * quantity;
  return net + returnTaxShare(net, taxRateBasisPoints, returnedNetBefore, taxRefundedBefore);
}

/**
 * A return's share of the order's tax: what brings the tax given back by the returns not rejected up to the
 * order's tax on everything they return. `taxRefundedBefore` is their shares as admitted; without it, the tax
 * on what they returned (the same when none was rejected). With it, a rejected return's rounding, counted in
 * the shares admitted after it, is not given back twice: never below 0.
 */
export function returnTaxShare(net: number, taxRateBasisPoints: number, returnedNetBefore: number, taxRefundedBefore?: number): number {
  const before = taxRefundedBefore ?? taxOn(returnedNetBefore, taxRateBasisPoints);
  return Math.max(0, taxOn(returnedNetBefore + net, taxRateBasisPoints) - before);
}

/** Why a `refund_failed` return has no money back, as GET /returns and its webhook show it; null otherwise. */
export function returnRefundFailure(
  status: ReturnStatus,
  refund: string | null,
  refused: { code: string; message?: string } | null,
): { code: string; message: string } | null {
  if (status !== 'refund_failed') return null;
  // Its refund ended canceled, not executed: at its SLA, or rejected by the gateway (the refund says which).
  if (refund !== null) return { code: 'refund_canceled', message: `Its refund ${refund} ended canceled without being executed (at its deadline, or rejected by the gateway: GET /v202607/refunds/${refund} says which)` };
  // Its refund was refused when it was received: the payment's refundable balance no longer covered it.
  return { code: refused?.code ?? 'refund_refused', message: refused?.message ?? "Its refund was refused: the order's payment no longer had this much left to refund" };
}
