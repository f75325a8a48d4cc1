import { allHandlersFinished, condition, continueAsNew, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { historyIsLong } from '../history';
import { serialWriter } from '../serial-writer';
import {
  adjustStockUpdate,
  commitStockSignal,
  releaseStockSignal,
  reserveStockUpdate,
  setPriceUpdate,
  setStockUpdate,
  stockLevelQuery,
  type ProductStockInput,
} from './messages';
import { StockState } from './state';

/**
 * Runs that count units sold past those on hand (on hand goes below 0); a run before it stopped at 0 and dropped
 * them, so a later delivery counted one too many. Asked only when a sale would go past on hand.
 */
const COUNT_SOLD_PAST_ON_HAND_PATCH = 'stock-sold-past-on-hand';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/**
 * The one owner of a product's stock: concurrent checkouts of the last unit are decided here, one Update at
 * a time, before any await (never a read-then-write in MongoDB). It writes the product record's `stock`
 * (units for sale) after every change, in order, and continues as new when its history grows.
 */
export async function productStockWorkflow(input: ProductStockInput): Promise<void> {
  const s = new StockState(input.initialStock, input.carried);
  const writer = serialWriter(input.carried?.version ?? 0, store.saveProductStock);
  const persist = () =>
    writer.write({ tenantId: input.tenantId, productId: input.productId, stock: s.available(), ...(s.price !== null ? { price: s.price } : {}) });
  /** An Update answers once every write asked for so far is done: what it changed is then what a read sees. */
  const persisted = async () => {
    void persist();
    await writer.flushed();
  };

  setHandler(reserveStockUpdate, async (req) => {
    const held = s.holds.has(req.holder);
    const result = s.reserve(req, Date.now());
    if (result.ok && !held) await persisted(); // the same holder again changes nothing
    return result;
  });
  setHandler(
    setStockUpdate,
    async ({ stock }) => {
      s.set(stock);
      await persisted();
      return s.level();
    },
    { validator: ({ stock }) => wholeAmount(stock, 'stock') },
  );
  setHandler(
    adjustStockUpdate,
    async ({ change, key }) => {
      const known = key !== undefined ? s.changes.get(key) : undefined;
      if (known) {
        // A write as an applied change makes (the record as it stands): the same commands as on code before keys,
        // so a worker still on it replays this history. It lands before the resend is answered.
        await persisted();
        return known.change === change ? known.answer : { ok: false as const, keyUsedFor: known.change };
      }
      if (!s.adjust(change)) return { ok: false as const, onHand: s.onHand };
      // Kept before the write's await, so a resend arriving meanwhile is answered, not applied again.
      if (key !== undefined) s.rememberChange(key, change, { ok: true, level: s.level() });
      await persisted();
      return { ok: true as const, level: s.level() };
    },
    {
      validator: ({ change }) => {
        if (!Number.isInteger(change)) throw new Error('change must be a whole number');
      },
    },
  );
  setHandler(
    setPriceUpdate,
    async ({ price }) => {
      s.price = price;
      await persisted();
      return s.level();
    },
    { validator: ({ price }) => wholeAmount(price, 'price') },
  );
  setHandler(releaseStockSignal, ({ holder }) => {
    if (s.release(holder)) void persist();
  });
  setHandler(commitStockSignal, ({ holder }) => {
    const countPastOnHand = !s.sellsPastOnHand(holder) || patched(COUNT_SOLD_PAST_ON_HAND_PATCH);
    if (s.commit(holder, countPastOnHand)) void persist();
  });
  setHandler(stockLevelQuery, () => s.level());

  await condition(historyIsLong);
  // Nothing may be in flight when the run hands over: no Update unanswered, no write unissued. A write's
  // activity is an await, during which new messages can arrive; so check again after each flush.
  for (;;) {
    await condition(allHandlersFinished);
    const version = writer.version();
    await writer.flushed();
    if (allHandlersFinished() && writer.version() === version) break;
  }
  await continueAsNew<typeof productStockWorkflow>({ ...input, carried: s.carry(writer.version()) });
}

function wholeAmount(n: number, what: string): void {
  if (!Number.isInteger(n) || n < 0) throw new Error(`${what} must be a whole number, 0 or more`);
}
