import { returnTaxShare } from '../../domain/returns';
import type { CarriedReturn, CheckoutCarried, CheckoutInput, CheckoutState, CheckoutStatus, ReturnAdmission, ReturnRequest } from './messages';

// A checkout's state and rules as plain code: its status, and once paid, what of its order can still be
// returned. The workflow (workflow.ts) performs what these decide.

export class CheckoutRules {
  status: CheckoutStatus;
  paymentIntent: string | null;
  orderId: string | null;
  paidAt: number | null;
  /** Keys come from merchants: a Map, so any string is a key like any other. */
  readonly returnsByKey: Map<string, CarriedReturn>;

  constructor(private readonly input: CheckoutInput) {
    const c: Partial<CheckoutCarried> = input.carried ?? {};
    this.status = c.status ?? 'reserving';
    this.paymentIntent = c.paymentIntent ?? null;
    this.orderId = c.orderId ?? null;
    this.paidAt = c.paidAt ? Date.parse(c.paidAt) : null;
    this.returnsByKey = new Map((c.returns ?? []).map((r) => [r.idempotencyKey, r]));
  }

  /** Units of a product the order can still take back: ordered, minus returns not rejected. */
  returnable(productId: string): number {
    const ordered = this.input.lines.filter((l) => l.productId === productId).reduce((n, l) => n + l.quantity, 0);
    let out = 0;
    for (const r of this.returnsByKey.values()) if (r.productId === productId && !r.rejected) out += r.quantity;
    return Math.max(0, ordered - out);
  }

  state(): CheckoutState {
    return {
      status: this.status,
      paymentIntent: this.paymentIntent,
      orderId: this.orderId,
      returnable: this.status === 'completed' ? this.input.lines.map((l) => ({ productId: l.productId, returnableQuantity: this.returnable(l.productId) })) : [],
    };
  }

  /** Checks a return and, when it fits, counts it at once (before any await): one admission at a time. */
  admitReturn(req: ReturnRequest, id: string, now: number): { ok: true; amount: number } | Extract<ReturnAdmission, { ok: false }> {
    if (this.status !== 'completed' || this.paidAt === null) return { ok: false, code: 'order_not_paid', message: 'This order is not paid' };
    if (now > this.paidAt + this.input.returnWindowMs) return { ok: false, code: 'return_window_closed', message: 'The return window of this order has closed' };
    const line = this.input.lines.find((l) => l.productId === req.productId);
    if (!line) return { ok: false, code: 'product_not_in_order', message: `Product ${req.productId} is not in this order` };
    const left = this.returnable(req.productId);
    if (!Number.isInteger(req.quantity) || req.quantity < 1 || req.quantity > left)
      return { ok: false, code: 'return_quantity_exceeded', message: `At most ${left} of product ${req.productId} can still be returned (open returns count)` };
    const returnedNetBefore = this.returnedNet();
    const net = line.unitPrice * req.quantity;
    const taxShare = returnTaxShare(net, this.input.taxRateBasisPoints, returnedNetBefore, this.taxRefunded());
    this.returnsByKey.set(req.idempotencyKey, { id, idempotencyKey: req.idempotencyKey, productId: req.productId, quantity: req.quantity, rejected: false, taxShare, reasonCode: req.reasonCode });
    return { ok: true, amount: net + taxShare };
  }

  /** The tax shares of the returns not rejected, as admitted; undefined when one was admitted by older code (it has none). */
  private taxRefunded(): number | undefined {
    let tax = 0;
    for (const r of this.returnsByKey.values()) {
      if (r.rejected) continue;
      if (r.taxShare === undefined) return undefined;
      tax += r.taxShare;
    }
    return tax;
  }

  /** The price of everything returned so far (returns not rejected), across the order's products. */
  returnedNet(): number {
    let net = 0;
    for (const r of this.returnsByKey.values()) {
      if (r.rejected) continue;
      const line = this.input.lines.find((l) => l.productId === r.productId);
      if (line) net += line.unitPrice * r.quantity;
    }
    return net;
  }

  /** Whether a request with a known key asks for the return that key holds (older returns kept no reason). */
  static sameReturn(known: CarriedReturn, req: ReturnRequest): boolean {
    return known.productId === req.productId && known.quantity === req.quantity && (known.reasonCode === undefined || known.reasonCode === req.reasonCode);
  }

  /** A return that could not be started gives its quantity and key back. */
  undoReturn(idempotencyKey: string): void {
    this.returnsByKey.delete(idempotencyKey);
  }

  returnEnded(returnId: string, rejected: boolean): void {
    if (!rejected) return;
    for (const r of this.returnsByKey.values()) if (r.id === returnId) r.rejected = true;
  }

  /** Whether the order still owns anything: its return window, or a return that may still be rejected. */
  mayClose(now: number): boolean {
    return this.status !== 'completed' || (this.paidAt !== null && now >= this.paidAt + this.input.returnWindowMs);
  }

  carry(version: number): CheckoutCarried {
    return {
      status: this.status,
      paymentIntent: this.paymentIntent,
      orderId: this.orderId,
      paidAt: this.paidAt === null ? null : new Date(this.paidAt).toISOString(),
      returns: [...this.returnsByKey.values()],
      version,
    };
  }
}
