import type { KeyedChange, ReserveRequest, ReserveResult, StockAdjustment, StockCarried, StockLevel } from './messages';

/** How many settled holders a product remembers: far more than can race one checkout's late reserve. */
export const SETTLED_KEPT = 1000;
/** How many keyed stock changes a product remembers: a resend comes within minutes, not a thousand changes later. */
export const CHANGE_KEYS_KEPT = 1000;

// A product's units as plain code: what a reservation, a release, a sale or a merchant's count does to
// them. No Temporal API here, so it is tested directly.

export class StockState {
  onHand: number;
  price: number | null;
  /** Holders and their units. Holder ids come from our checkouts, but a Map keeps them data all the same. */
  readonly holds: Map<string, number>;
  /**
   * Holders whose units were released or sold, newest last (at most SETTLED_KEPT): a reserve of theirs that
   * arrives late (an Update admitted before its caller gave up) must not hold units nobody will release.
   */
  readonly settled: Set<string>;
  /** Keyed stock changes applied, with their answers, oldest first (at most CHANGE_KEYS_KEPT). */
  readonly changes: Map<string, KeyedChange>;

  constructor(initialStock: number, carried?: StockCarried) {
    this.onHand = carried?.onHand ?? initialStock;
    this.price = carried?.price ?? null;
    this.holds = new Map(carried?.holds ?? []);
    this.settled = new Set(carried?.settled ?? []);
    this.changes = new Map(carried?.changes ?? []);
  }

  held(): number {
    let sum = 0;
    for (const q of this.holds.values()) sum += q;
    return sum;
  }

  available(): number {
    return Math.max(0, this.onHand - this.held());
  }

  level(): StockLevel {
    return { onHand: this.onHand, available: this.available(), held: this.held() };
  }

  /** All the units asked for, or none: a checkout line is either held in full or reported short. */
  reserve(req: ReserveRequest, now: number): ReserveResult {
    const existing = this.holds.get(req.holder);
    if (existing !== undefined) return { ok: true, quantity: existing, available: this.available() };
    if (this.settled.has(req.holder)) return { ok: false, available: this.available() };
    if (req.holdableUntil !== undefined && now >= req.holdableUntil) {
      // Too late: nobody would release it. Settled, so a retry of this reserve is refused too.
      this.settle(req.holder);
      return { ok: false, available: this.available() };
    }
    if (!Number.isInteger(req.quantity) || req.quantity < 1 || req.quantity > this.available()) return { ok: false, available: this.available() };
    this.holds.set(req.holder, req.quantity);
    return { ok: true, quantity: req.quantity, available: this.available() };
  }

  /** Returns whether anything changed (an unknown or settled holder changes nothing). */
  release(holder: string): boolean {
    this.settle(holder);
    return this.holds.delete(holder);
  }

  private settle(holder: string): void {
    this.settled.delete(holder);
    this.settled.add(holder);
    if (this.settled.size > SETTLED_KEPT) this.settled.delete(this.settled.values().next().value!);
  }

  /** Whether selling the holder's units would take more than are on hand (the merchant counted fewer since they were held). */
  sellsPastOnHand(holder: string): boolean {
    const q = this.holds.get(holder);
    return q !== undefined && q > this.onHand;
  }

  /**
   * The holder's units are sold. Units sold that were not on hand (the merchant counted fewer while they were
   * held) leave on hand below 0, so the next delivery makes up for them, as Shopify lets inventory go negative;
   * `countPastOnHand` false is how a run before that stopped at 0 and dropped them (its histories replay so).
   */
  commit(holder: string, countPastOnHand = true): boolean {
    const q = this.holds.get(holder);
    this.settle(holder);
    if (q === undefined) return false;
    this.holds.delete(holder);
    this.onHand = countPastOnHand ? this.onHand - q : Math.max(0, this.onHand - q);
    return true;
  }

  /**
   * The merchant counted the shelf: units on hand; open holds still count against it, also past it (a held
   * unit the count does not cover is sold all the same if its checkout is paid, and is then counted oversold).
   */
  set(stock: number): void {
    this.onHand = stock;
  }

  /**
   * Units added or taken away, relative to what is on hand now (no read-then-write on the caller's side). A loss
   * may not take on hand below 0; a delivery is always taken, and first makes up for units oversold.
   */
  adjust(change: number): boolean {
    if (!Number.isInteger(change) || (change < 0 && this.onHand + change < 0)) return false;
    this.onHand += change;
    return true;
  }

  /** Keeps a keyed change with its answer; the oldest goes past CHANGE_KEYS_KEPT. */
  rememberChange(key: string, change: number, answer: StockAdjustment): void {
    this.changes.set(key, { change, answer });
    if (this.changes.size > CHANGE_KEYS_KEPT) this.changes.delete(this.changes.keys().next().value!);
  }

  carry(version: number): StockCarried {
    return { onHand: this.onHand, holds: [...this.holds], version, price: this.price, settled: [...this.settled], ...(this.changes.size > 0 ? { changes: [...this.changes] } : {}) };
  }
}
