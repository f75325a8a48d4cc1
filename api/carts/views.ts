import { commerceTotals, type CommerceRates } from '../../domain/commerce-totals';
import { MAX_AMOUNT } from '../../domain/money';
import { addressObject } from '../../domain/addresses';
import type { CartProduct } from '../../data/carts';
import type { AddressRecord, AddressSnapshot, CartLineRecord, CartRecord, CheckoutRecord, CommerceTotals } from '../../platform/records';
import type { AddressView, CartView } from './schemas';

// Records (snake_case) as the commerce endpoints answer them (camelCase, as the spec names them).

/** The address fields a checkout or an order keeps (AddressSnapshot), from a saved address. */
export function addressSnapshot(r: AddressRecord): AddressSnapshot {
  return { _id: r._id, phone: r.phone, additional_phone: r.additional_phone, address: r.address, additional_info: r.additional_info, region: r.region, city: r.city };
}

/** An Address object of the spec, from a saved address or a snapshot of one. */
export const addressView = (r: AddressSnapshot): AddressView => addressObject(r);

/** The totals of stored lines (a cart's or a checkout's) at the tenant's rates; shipping only at checkout. */
export function linesTotals(lines: readonly Pick<CartLineRecord, 'unit_price' | 'quantity'>[], rates: CommerceRates, withShipping: boolean): CommerceTotals {
  return commerceTotals(lines.map((l) => ({ unitPrice: l.unit_price, quantity: l.quantity })), rates, withShipping);
}

/**
 * The totals, or null when they pass the largest amount a payment can take (or the numbers they are computed in,
 * which throw): what a cart's edit and a checkout refuse as `cart_total_too_large`.
 */
export function payableTotals(lines: readonly Pick<CartLineRecord, 'unit_price' | 'quantity'>[], rates: CommerceRates, withShipping: boolean): CommerceTotals | null {
  try {
    const totals = linesTotals(lines, rates, withShipping);
    return totals.total > MAX_AMOUNT ? null : totals;
  } catch {
    return null; // past 2^53: far past the largest amount
  }
}

/** A line of a cart at the price it was set at, with the product's live sku, title and image (`p`: read now, if it still exists). */
export function cartLineView(l: CartLineRecord, p: CartProduct | undefined): CartView['products'][number] {
  return {
    id: l.product_id,
    sku: p?.sku ?? null,
    title: p ? { en: p.title.en, ar: p.title.ar } : null,
    imageUrl: p?.image_url ?? null,
    quantity: l.quantity,
    unitPrice: l.unit_price,
    lineTotal: l.unit_price * l.quantity,
  };
}

/**
 * A cart as GET /cart and POST /cart answer it: each line at the price it was set at, with the product's live
 * title and image (`products` holds the cart's products, read now); totals at the tenant's rates, no shipping.
 */
export function cartView(cart: CartRecord, products: ReadonlyMap<string, CartProduct>, rates: CommerceRates, checkout: Pick<CheckoutRecord, '_id' | 'status'> | null = null): CartView {
  // A checkout that holds the cart (its open one, or the paid one not yet marked on the cart) shows in its status.
  const status = cart.status === 'converted' || checkout?.status === 'completed' ? 'converted' : checkout ? 'checkout_in_progress' : 'open';
  return {
    cartId: cart._id,
    userId: cart.user_id,
    status,
    checkoutId: checkout?._id ?? null,
    currency: cart.currency,
    idempotencyKey: cart.idempotency_key,
    totals: linesTotals(cart.products, rates, false),
    products: cart.products.map((l) => cartLineView(l, products.get(l.product_id))),
  };
}
