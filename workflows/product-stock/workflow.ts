import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { historyIsLong } from '../history';
import { serialWriter } from '../serial-writer';
import {
  commitStockSignal,
  releaseStockSignal,
  reserveStockUpdate,
  setStockUpdate,
  stockLevelQuery,
  type ProductStockInput,
} from './messages';
import { StockState } from './state';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/**
 * The one owner of a product's stock: concurrent checkouts of the last unit are decided here, one Update at
 * a time, before any await (never a read-then-write in MongoDB). It writes the product record's `stock`
 * (units for sale) after every change, in order, and continues as new when its history grows.
 */
export async function productStockWorkflow(input: ProductStockInput): Promise<void> {
  const s = new StockState(input.initialStock, input.carried);
  const writer = serialWriter(input.carried?.version ?? 0, store.saveProductStock);
  const persist = () => writer.write({ tenantId: input.tenantId, productId: input.productId, stock: s.available() });

  setHandler(reserveStockUpdate, async (req) => {
    const result = s.reserve(req);
    if (result.ok) await persist();
    return result;
  });
  setHandler(setStockUpdate, async ({ stock }) => {
    s.set(stock);
    await persist();
    return s.level();
  }, { validator: ({ stock }) => {
    if (!Number.isInteger(stock) || stock < 0) throw new Error('stock must be a whole number of units, 0 or more');
  } });
  setHandler(releaseStockSignal, ({ holder }) => {
    if (s.release(holder)) void persist();
  });
  setHandler(commitStockSignal, ({ holder }) => {
    if (s.commit(holder)) void persist();
  });
  setHandler(stockLevelQuery, () => s.level());

  if (!input.carried) await persist(); // the record follows the owner from its first run
  await condition(historyIsLong);
  await condition(allHandlersFinished);
  await writer.flushed();
  await continueAsNew<typeof productStockWorkflow>({ ...input, carried: s.carry(writer.version()) });
}
