import { allHandlersFinished, condition, continueAsNew, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { historyIsLong } from '../history';
import { serialWriter } from '../serial-writer';
import { addCreditUpdate, balanceQuery, drawCreditUpdate, type CustomerBalanceInput } from './messages';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/** An hour without a change: the figures are on the record, the run may end (a later change starts one again). */
const IDLE_MS = 3600 * 1000;
/** Keys remembered for answering a repeated change without a read: the newest ones. */
const KEYS_KEPT = 500;
/** Runs that look a change's key up on the record when they do not remember it; older runs did not. */
const KEYS_ON_RECORD_PATCH = 'balance-keys-on-record';

export async function customerBalanceWorkflow(input: CustomerBalanceInput): Promise<{ credit: number }> {
  let credit = input.carried?.credit ?? input.creditOnRecord;
  const keys = new Map<string, number>(input.carried?.keys ?? []);
  const who = { tenantId: input.tenantId, customer: input.customer, currency: input.currency };
  const writer = serialWriter(input.carried?.version ?? input.versionOnRecord, (p: { version: number; credit: number; change?: { key: string; amount: number } }) =>
    store.saveCustomerBalance({ ...who, credit: p.credit, version: p.version, ...(p.change ? { change: p.change } : {}) }),
  );
  let changed = false;
  const remember = (key: string, amount: number) => {
    keys.set(key, amount);
    if (keys.size > KEYS_KEPT) keys.delete(keys.keys().next().value!);
  };
  /** Lookups of keys on the record in flight: a second change with that key waits for the first. */
  const looking = new Map<string, Promise<void>>();

  /**
   * A change's key this run does not remember is looked up on the record, which keeps every change by key (a run
   * after an idle close, or past the keys remembered here, would otherwise apply a repeated change again); what
   * it finds is remembered. Null when nothing needs awaiting: a known key, or a run from before the patch, whose
   * handlers must keep the await points they had.
   */
  function lookUp(key: string): Promise<void> | null {
    if (keys.has(key)) return null;
    const pending = looking.get(key);
    if (pending) return pending;
    if (!patched(KEYS_ON_RECORD_PATCH)) return null;
    const lookup = (async () => {
      try {
        const found = await store.customerBalanceChange({ ...who, key });
        if (found !== null && !keys.has(key)) remember(key, found);
      } finally {
        looking.delete(key);
      }
    })();
    looking.set(key, lookup);
    return lookup;
  }

  setHandler(addCreditUpdate, async ({ key, amount }) => {
    const lookup = lookUp(key);
    if (lookup) await lookup;
    if (!keys.has(key)) {
      credit += Math.max(0, amount);
      remember(key, amount);
      changed = true;
      await writer.write({ credit, change: { key, amount } });
    }
    return { credit };
  });
  setHandler(drawCreditUpdate, async ({ key, max }) => {
    const lookup = lookUp(key);
    if (lookup) await lookup;
    const known = keys.get(key);
    if (known !== undefined) return { drawn: known, credit };
    const drawn = Math.min(credit, Math.max(0, max));
    credit -= drawn;
    remember(key, drawn);
    changed = true;
    if (drawn > 0) await writer.write({ credit, change: { key, amount: drawn } });
    return { drawn, credit };
  });
  setHandler(balanceQuery, () => ({ credit }));

  for (;;) {
    changed = false;
    await condition(() => changed || historyIsLong(), IDLE_MS);
    if (historyIsLong()) {
      await condition(allHandlersFinished);
      await writer.flushed();
      await continueAsNew<typeof customerBalanceWorkflow>({ ...input, carried: { credit, version: writer.version(), keys: [...keys] } });
    }
    if (!changed) break;
  }
  await condition(allHandlersFinished);
  await writer.flushed();
  return { credit };
}
