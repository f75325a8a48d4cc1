// Messages of the cart retention workflow: its name, id and input. The API and tests import this module; it
// pulls in no Node or I/O module.

export const CART_RETENTION_WORKFLOW = 'cartRetentionWorkflow';

/** One retention per cart: a repeated create (same idempotency key) finds it instead of starting another. */
export const cartRetentionWorkflowId = (cartId: string): string => `retention:${cartId}`;

export interface CartRetentionInput {
  cartId: string;
  tenantId: string;
  /** The cart's creation (ISO 8601): the deletion is due `retentionSeconds` after it, however late the start. */
  createdAt: string;
  /** CART_RETENTION_SECONDS of the API that created the cart (180 days by default). */
  retentionSeconds: number;
}

export interface CartRetentionResult {
  /** `deleted`: it was still open; `converted`: a checkout made it an order, so it is kept; `gone`: nothing to delete. */
  outcome: 'deleted' | 'converted' | 'gone';
  /** When the retention acted (workflow time, ISO 8601). */
  at: string;
}

/** When the cart is due for deletion (ms since the epoch). */
export const retentionDueMs = (input: Pick<CartRetentionInput, 'createdAt' | 'retentionSeconds'>): number =>
  Date.parse(input.createdAt) + input.retentionSeconds * 1000;
