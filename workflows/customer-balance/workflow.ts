import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { historyIsLong } from '../history';
import { serialWriter } from '../serial-writer';
import { addCreditUpdate, balanceQuery, drawCreditUpdate, type CustomerBalanceInput } from './messages';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/** An hour without a change: the figures are on the record, the run may end (a later change starts one again). */
const IDLE_MS = 3600 * 1000;
/** Keys remembered for answering a repeated change: the newest ones, enough for any retry. */
const KEYS_KEPT = 500;

export async function customerBalanceWorkflow(input: CustomerBalanceInput): Promise<{ credit: number }> {
  let credit = input.carried?.credit ?? input.creditOnRecord;
  const keys = new Map<string, number>(input.carried?.keys ?? []);
  const writer = serialWriter(input.carried?.version ?? input.versionOnRecord, (p: { version: number; credit: number }) =>
    store.saveCustomerBalance({ tenantId: input.tenantId, customer: input.customer, currency: input.currency, credit: p.credit, version: p.version }),
  );
  let changed = false;
  const remember = (key: string, amount: number) => {
    keys.set(key, amount);
    if (keys.size > KEYS_KEPT) keys.delete(keys.keys().next().value!);
  };

  setHandler(addCreditUpdate, async ({ key, amount }) => {
    if (!keys.has(key)) {
      credit += Math.max(0, amount);
      remember(key, amount);
      changed = true;
      await writer.write({ credit });
    }
    return { credit };
  });
  setHandler(drawCreditUpdate, async ({ key, max }) => {
    const known = keys.get(key);
    if (known !== undefined) return { drawn: known, credit };
    const drawn = Math.min(credit, Math.max(0, max));
    credit -= drawn;
    remember(key, drawn);
    changed = true;
    if (drawn > 0) await writer.write({ credit });
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
