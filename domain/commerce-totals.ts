import type { CommerceSettingsRecord, CommerceTotals } from '../platform/records';

// A cart's (and a checkout's) totals, in integer minor units, with no floating point anywhere: tax is the
// tenant's rate in basis points (1 bp = 0.01 %) on the products only, never on shipping, rounded half up
// once per cart; shipping is a flat fee, waived from a subtotal threshold. Pure: carts, checkouts and the
// checkout workflow compute the same numbers from the same inputs.

export interface CommerceLine {
  unitPrice: number;
  quantity: number;
}

export interface CommerceRates {
  taxRateBasisPoints: number;
  shippingFlat: number;
  /** Subtotal from which shipping is free; null: never free. */
  freeShippingFrom: number | null;
}

/** No tax, no shipping: what a tenant that never set its commerce settings gets. */
export const DEFAULT_COMMERCE_RATES: CommerceRates = { taxRateBasisPoints: 0, shippingFlat: 0, freeShippingFrom: null };

const BASIS = 10_000n;
const HALF = 5_000n;

function safe(n: bigint, what: string): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} exceeds the largest exact integer`);
  return Number(n);
}

/** The tax on a net amount: floor((net * bp + 5000) / 10000), half up (BigInt division floors non-negatives). */
const taxOf = (net: bigint, taxRateBasisPoints: number): bigint => (net * BigInt(taxRateBasisPoints) + HALF) / BASIS;

/** The tax on `net` minor units at the rate, rounded half up: what commerceTotals charges on a subtotal of `net`. */
export function taxOn(net: number, taxRateBasisPoints: number): number {
  return safe(taxOf(BigInt(net), taxRateBasisPoints), 'tax');
}

/**
 * `subtotal` = sum of unitPrice*quantity; `tax` = floor((subtotal * bp + 5000) / 10000) (half up, once per
 * cart, on products only); `shipping` = null without shipping, else 0 for an empty cart or from
 * `freeShippingFrom`, else `shippingFlat`; `total` = subtotal + tax + shipping. Exact (BigInt inside); a
 * RangeError when a figure would not be an exact JavaScript integer.
 */
export function commerceTotals(lines: readonly CommerceLine[], settings: CommerceRates, withShipping: boolean): CommerceTotals {
  let subtotal = 0n;
  for (const l of lines) subtotal += BigInt(l.unitPrice) * BigInt(l.quantity);
  const tax = taxOf(subtotal, settings.taxRateBasisPoints);
  let shipping: bigint | null = null;
  if (withShipping) {
    const free = lines.length === 0 || (settings.freeShippingFrom !== null && subtotal >= BigInt(settings.freeShippingFrom));
    shipping = free ? 0n : BigInt(settings.shippingFlat);
  }
  const total = subtotal + tax + (shipping ?? 0n);
  return {
    subtotal: safe(subtotal, 'subtotal'),
    tax: safe(tax, 'tax'),
    shipping: shipping === null ? null : safe(shipping, 'shipping'),
    total: safe(total, 'total'),
  };
}

/** A tenant's rates from its stored settings, or the defaults when it never set any. */
export function settingsOrDefault(record: CommerceSettingsRecord | null): CommerceRates {
  if (!record) return { ...DEFAULT_COMMERCE_RATES };
  return { taxRateBasisPoints: record.tax_rate_basis_points, shippingFlat: record.shipping_flat, freeShippingFrom: record.free_shipping_from };
}
