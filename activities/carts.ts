import type { Mongo } from '../platform/mongo';
import { cartData } from '../data/carts';

// Activities of the cart retention workflow.

export interface CartRef {
  tenantId: string;
  cartId: string;
}

export function createCartActivities({ mongo }: { mongo: Mongo }) {
  return {
    /** Deletes the cart unless a checkout converted it (one conditional delete: retried, it changes nothing). */
    async deleteUnconvertedCart(ref: CartRef): Promise<'deleted' | 'converted' | 'gone'> {
      return cartData(mongo).deleteIfOpen(ref.tenantId, ref.cartId);
    },
  };
}
