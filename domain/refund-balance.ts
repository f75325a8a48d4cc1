// The refundable balance of a payment, owned by its payment-intent workflow. Pure: the workflow calls
// `admit` inside an Update handler before its first await, so two refunds are never checked against the
// same balance.
export type RefundRejection = 'REFUND_TX_MUST_BE_SUCCESSFUL' | 'REFUND_CCY_MISMATCH' | 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT';

export interface RefundBalance {
  paid: number; // minor units captured
  currency: string;
  /** Amounts reserved by refunds that are pending or succeeded, by refund id. */
  reserved: Record<string, number>;
}

export function refundableLeft(b: RefundBalance): number {
  return b.paid - Object.values(b.reserved).reduce((a, n) => a + n, 0);
}

export function admit(
  b: RefundBalance | null,
  req: { refundId: string; amount: number; currency: string },
): { ok: true; balance: RefundBalance; left: number } | { ok: false; code: RefundRejection; message: string } {
  if (!b) return { ok: false, code: 'REFUND_TX_MUST_BE_SUCCESSFUL', message: 'The payment intent has no successful payment' };
  if (req.currency !== b.currency)
    return { ok: false, code: 'REFUND_CCY_MISMATCH', message: `Refund currency ${req.currency} differs from the paid currency ${b.currency}` };
  const left = refundableLeft(b);
  if (req.amount > left)
    return {
      ok: false,
      code: 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT',
      message: `Refund amount ${req.amount} exceeds the refundable balance ${left}`,
    };
  const balance = { ...b, reserved: { ...b.reserved, [req.refundId]: req.amount } };
  return { ok: true, balance, left: left - req.amount };
}

/**
 * A refund canceled (and released) that the gateway executed after all: its amount is spent again, even if
 * that leaves the balance negative; the money has left, and the balance must say so.
 */
export function restore(b: RefundBalance, refundId: string, amount: number): RefundBalance {
  if (refundId in b.reserved) return b;
  return { ...b, reserved: { ...b.reserved, [refundId]: amount } };
}

/** A canceled refund gives its amount back; releasing twice (a late outcome) changes nothing. */
export function release(b: RefundBalance, refundId: string): RefundBalance {
  if (!(refundId in b.reserved)) return b;
  const reserved = { ...b.reserved };
  delete reserved[refundId];
  return { ...b, reserved };
}
