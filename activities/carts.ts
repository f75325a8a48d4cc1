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
     * checkout ends, paid (the cart is converted, kept) or not (deleted then). The cart is read before its
     * checkouts and deleted only as read, so a checkout claiming it between the two keeps it.
     */
    async deleteUnconvertedCart(ref: CartRef): Promise<'deleted' | 'converted' | 'gone'> {
      const carts = cartData(mongo);
      const cart = await carts.find(ref.tenantId, ref.cartId);
      if (!cart) return 'gone';
      if (cart.status !== 'open') return 'converted';
      const open = await checkoutData(mongo).openOfCart(ref.tenantId, ref.cartId);
      if (open && (open.status === 'reserving' || open.status === 'awaiting_payment'))
        throw ApplicationFailure.retryable(`cart ${ref.cartId} is being checked out: deleted once its checkout has ended, unless it converts it`, 'cart_checking_out');
      const outcome = await carts.deleteIfUnchanged(ref.tenantId, ref.cartId, cart.updated_at);
      if (outcome === 'changed') throw ApplicationFailure.retryable(`cart ${ref.cartId} was written while its retention looked at it (a checkout's claim, or an edit): read again`, 'cart_changed');
      return outcome;
    },
  };
}
