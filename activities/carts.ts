import { ApplicationFailure } from '@temporalio/activity';
import type { Mongo } from '../platform/mongo';
import { cartData } from '../data/carts';
import { checkoutData } from '../data/checkouts';

// Activities of the cart retention workflow.

export interface CartRef {
  tenantId: string;
  cartId: string;
}

export function createCartActivities({ mongo }: { mongo: Mongo }) {
  return {
    /**
     * Deletes the cart unless a checkout converted it (one conditional delete: retried, it changes nothing). A
     * cart being checked out is not deleted yet: the attempt fails and is retried (every 5 min at most) until its
     * checkout ends, paid (the cart is converted, kept) or not (deleted then).
     */
    async deleteUnconvertedCart(ref: CartRef): Promise<'deleted' | 'converted' | 'gone'> {
      const open = await checkoutData(mongo).openOfCart(ref.tenantId, ref.cartId);
      if (open && (open.status === 'reserving' || open.status === 'awaiting_payment'))
        throw ApplicationFailure.retryable(`cart ${ref.cartId} is being checked out: deleted once its checkout has ended, unless it converts it`, 'cart_checking_out');
      return cartData(mongo).deleteIfOpen(ref.tenantId, ref.cartId);
    },
  };
}
