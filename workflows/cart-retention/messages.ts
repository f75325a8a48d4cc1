// Messages of the cart retention workflow: its name, id and input. The API and tests import this module; it
// pulls in no Node or I/O module.

import { addMonths } from '../../domain/billing/periods';

export const CART_RETENTION_WORKFLOW = 'cartRetentionWorkflow';

/** One retention per cart: a repeated create (same idempotency key) finds it instead of starting another. */
export const cartRetentionWorkflowId = (cartId: string): string => `retention:${cartId}`;

export interface CartRetentionInput {
  cartId: string;
  tenantId: string;
  /** The cart's creation (ISO 8601): the deletion is due `retentionMonths` (or `retentionSeconds`) after it, however late the start. */
  createdAt: string;
  /** Calendar months (6, the spec's retention); carts created before it was given have `retentionSeconds` only. */
  retentionMonths?: number;
  /** CART_RETENTION_SECONDS of the API that created the cart, when set (tests); used when there are no months. */
  retentionSeconds?: number;
}

export interface CartRetentionResult {
  /** `deleted`: it was still open; `converted`: a checkout made it an order, so it is kept; `gone`: nothing to delete. */
  outcome: 'deleted' | 'converted' | 'gone';
  /** When the retention acted (workflow time, ISO 8601). */
  at: string;
}

/** The spec's retention: "deleted automatically 6 months after creation". */
export const CART_RETENTION_MONTHS = 6;
/** Seconds that older inputs without either field mean (the 180 days they were started with). */
const OLDER_DEFAULT_SECONDS = 180 * 86_400;

/** When the cart is due for deletion (ms since the epoch). */
export function retentionDueMs(input: Pick<CartRetentionInput, 'createdAt' | 'retentionMonths' | 'retentionSeconds'>): number {
  const created = Date.parse(input.createdAt);
  if (input.retentionMonths !== undefined) return addMonths(created, input.retentionMonths);
  return created + (input.retentionSeconds ?? OLDER_DEFAULT_SECONDS) * 1000;
}
