import { WithStartWorkflowOperation } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { notFound } from '../../domain/errors';
import { productStockData } from '../../data/product-stock';
import {
  adjustStockUpdate,
  PRODUCT_STOCK_WORKFLOW,
  reserveStockUpdate,
  setPriceUpdate,
  setStockUpdate,
  stockWorkflowId,
  type ProductStockInput,
  type ReserveResult,
  type StockAdjustment,
  type StockLevel,
} from '../../workflows/product-stock/messages';
import type { AppDeps } from '../deps';
import { freshStart, withDeadline } from '../http/workflow-calls';
import { SA } from '../../workflows/search-attributes';

// A product's stock has one owner: its stock workflow (workflows/product-stock). Every change of the number
// of units for sale goes through it: the merchant's count, a checkout's hold, its release and its sale. The
// product record's `stock` is what the owner last wrote; nobody else writes it.

/** How long one Update to a stock owner may take before the API answers 503. */
const STOCK_CALL_DEADLINE_MS = 10_000;

/** An Update to a product's stock owner, started on first use from the record's stock (Update-with-Start). */
async function onOwner<R, A extends unknown[]>(deps: AppDeps, tenantId: string, productId: string, update: UpdateDefinition<R, A>, args: A): Promise<R> {
  const initialStock = await productStockData(deps.mongo).stockOf(tenantId, productId);
  if (initialStock === null) throw notFound('product', productId);
  const input: ProductStockInput = { productId, tenantId, initialStock };
  const start = new WithStartWorkflowOperation(PRODUCT_STOCK_WORKFLOW, {
    workflowId: stockWorkflowId(productId),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [{ key: SA.TenantId, value: tenantId }],
    staticSummary: `Stock of ${productId} (${tenantId})`,
  });
  return withDeadline(deps.temporal, STOCK_CALL_DEADLINE_MS, () => deps.temporal.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation: freshStart(start) }));
}

/** Sets a product's units on hand (admin PATCH); the owner has written the record when this returns. */
export async function setProductStock(deps: AppDeps, tenantId: string, productId: string, stock: number): Promise<StockLevel> {
  return onOwner(deps, tenantId, productId, setStockUpdate, [{ stock }]);
}

/**
 * Adds units to (or takes them from) those on hand, through the owner: a delivery needs no read first. With `key`,
 * a change the owner has applied already answers as it did then (a resend after a 503 counts a delivery once).
 */
export async function adjustProductStock(deps: AppDeps, tenantId: string, productId: string, change: number, key?: string): Promise<StockAdjustment> {
  return onOwner(deps, tenantId, productId, adjustStockUpdate, [{ change, ...(key !== undefined ? { key } : {}) }]);
}

/** Sets a product's price through its owner, the one writer of the product record once it runs. */
export async function setProductPrice(deps: AppDeps, tenantId: string, productId: string, price: number): Promise<StockLevel> {
  return onOwner(deps, tenantId, productId, setPriceUpdate, [{ price }]);
}

/**
 * Holds each line's units for `holder` (a checkout), all of a line or none of it. Lines are asked in product
 * order, one at a time; the answers say what was held and, for a line that could not be, how many units are
 * for sale now. `holdableUntil`: when the holder stops waiting for its holds; an owner refuses a reserve that
 * lands later (the holder's release may have found no owner to tell).
 */
export async function holdLines(
  deps: AppDeps,
  tenantId: string,
  holder: string,
  lines: { productId: string; quantity: number }[],
  holdableUntil: number,
): Promise<Map<string, ReserveResult>> {
  const results = new Map<string, ReserveResult>();
  for (const line of [...lines].sort((a, b) => a.productId.localeCompare(b.productId))) {
    results.set(line.productId, await onOwner(deps, tenantId, line.productId, reserveStockUpdate, [{ holder, quantity: line.quantity, holdableUntil }]));
  }
  return results;
}
