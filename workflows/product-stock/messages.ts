import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

// Messages of a product's stock workflow: the one owner of the units for sale of one product (and the one
// writer of its record once it runs). Reservations are Updates (the answer says whether the units were
// held); release and commit are Signals (fire and forget from a checkout's workflow, idempotent per holder).

export const PRODUCT_STOCK_WORKFLOW = 'productStockWorkflow';

/** One stock workflow per product, forever (it continues as new). */
export const stockWorkflowId = (productId: string) => `stock:${productId}`;

export interface ProductStockInput {
  productId: string;
  tenantId: string;
  /** The record's `stock` when the workflow was first started (read by whoever started it). */
  initialStock: number;
  carried?: StockCarried;
}

export interface StockCarried {
  onHand: number;
  holds: [string, number][];
  version: number;
  /** The price last set through the owner (null: never; the record's stands). */
  price?: number | null;
  /** Holders already released or sold (they can never hold again). */
  settled?: string[];
  /** Keyed stock changes applied, with their answers, oldest first (at most CHANGE_KEYS_KEPT). */
  changes?: [string, KeyedChange][];
}

export interface ReserveRequest {
  /** Who holds the units: a checkout id. Reserving again for the same holder answers its hold. */
  holder: string;
  quantity: number;
  /**
   * When the holder stops waiting for its holds (ms since the epoch): a reserve that lands later is refused, since
   * the holder may already have let its lines go, and its release to an owner not yet started was lost.
   */
  holdableUntil?: number;
}

export type ReserveResult = { ok: true; quantity: number; available: number } | { ok: false; available: number };

export interface StockLevel {
  /**
   * Units on hand: set by the merchant, lowered by sales. Below 0 when units were sold that were not on hand (held
   * before the merchant counted fewer): that many are oversold, and the next delivery makes up for them first.
   */
  onHand: number;
  /** Units for sale: on hand minus what open checkouts hold (never below 0). */
  available: number;
  /** Units open checkouts hold: sold if they are paid, for sale again if not. It may be more than on hand. */
  held: number;
}

export const reserveStockUpdate = defineUpdate<ReserveResult, [ReserveRequest]>('reserve');
export const setStockUpdate = defineUpdate<StockLevel, [{ stock: number }]>('setStock');
/** Units added to (a delivery) or taken from (damage, a loss) those on hand, whatever they are when it lands. */
export type StockAdjustment = { ok: true; level: StockLevel } | { ok: false; onHand: number } | { ok: false; keyUsedFor: number };
/** A keyed change the owner applied: the change, and how it was answered. */
export interface KeyedChange {
  change: number;
  answer: StockAdjustment;
}
/**
 * `key`: the merchant's stockChangeKey; the same change with a key already applied answers as it did, unapplied
 * again, and another change with it is refused (`keyUsedFor`: the change the key was applied with).
 */
export const adjustStockUpdate = defineUpdate<StockAdjustment, [{ change: number; key?: string }]>('adjustStock');
/**
 * The merchant's new price. It goes through the owner too: every write of the product record after its
 * creation is then one writer's, in order (FerretDB rewrites a whole document per update, so two writers
 * of one product could undo each other's field).
 */
export const setPriceUpdate = defineUpdate<StockLevel, [{ price: number }]>('setPrice');
/** The holder's checkout ended unpaid: its units are for sale again. */
export const releaseStockSignal = defineSignal<[{ holder: string }]>('release');
/** The holder's checkout was paid: its units are sold. */
export const commitStockSignal = defineSignal<[{ holder: string }]>('commit');
export const stockLevelQuery = defineQuery<StockLevel>('stockLevel');
