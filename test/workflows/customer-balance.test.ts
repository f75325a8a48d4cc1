import { WithStartWorkflowOperation } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { addCreditUpdate, balanceQuery, balanceWorkflowId, CUSTOMER_BALANCE_WORKFLOW, drawCreditUpdate, type CustomerBalanceInput } from '../../workflows/customer-balance/messages';
import { expectRising, getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// A customer's credit balance, owned by its workflow: credits and draws are check-and-change on one number,
// each once per key however often it is asked, concurrent draws never take more than there is, and a run
// that closed when idle starts again from the figures on its record.

const testEnv = useWorkflowTestEnv();
let n = 0;
/** The changes each balance record keeps by key (data/credit-notes.ts balance_changes), across runs. */
const changesOnRecord = new Map<string, number>();

/** A balance workflow started (lazily, by the first call) from a record at `credit` and `version`. */
async function withBalance(
  onRecord: { credit: number; version?: number; customer?: string },
  body: (ctx: { call: <R>(u: typeof addCreditUpdate | typeof drawCreditUpdate, arg: object) => Promise<R>; writes: { credit: number; version: number }[]; id: string; input: CustomerBalanceInput }) => Promise<void>,
) {
  const taskQueue = `balance-${++n}`;
  const writes: { credit: number; version: number }[] = [];
  const worker = await Worker.create({
    connection: testEnv().nativeConnection,
    taskQueue,
    workflowBundle: getWorkflowBundle(),
    activities: {
      saveCustomerBalance: async (p: { customer: string; credit: number; version: number; change?: { key: string; amount: number } }) => {
        if (p.change && !changesOnRecord.has(`${p.customer}:${p.change.key}`)) changesOnRecord.set(`${p.customer}:${p.change.key}`, p.change.amount);
        writes.push({ credit: p.credit, version: p.version });
      },
      customerBalanceChange: async (p: { customer: string; key: string }) => changesOnRecord.get(`${p.customer}:${p.key}`) ?? null,
    },
  });
  const input: CustomerBalanceInput = { tenantId: 'ten_eu_t', customer: onRecord.customer ?? `cus_eu_test${n}`, currency: 'EUR', creditOnRecord: onRecord.credit, versionOnRecord: onRecord.version ?? 4 };
  const id = balanceWorkflowId(input.customer, input.currency);
  await worker.runUntil(async () => {
    const call = <R,>(u: typeof addCreditUpdate | typeof drawCreditUpdate, arg: object): Promise<R> =>
      testEnv().client.workflow.executeUpdateWithStart(u as typeof addCreditUpdate, {
        args: [arg as never],
        startWorkflowOperation: new WithStartWorkflowOperation(CUSTOMER_BALANCE_WORKFLOW, { workflowId: id, taskQueue, args: [input], workflowIdConflictPolicy: 'USE_EXISTING' }),
      }) as Promise<R>;
    await body({ call, writes, id, input });
  });
}

test('credits add once per key, draws take at most what there is, once per invoice', async () => {
  await withBalance({ credit: 0 }, async ({ call, writes, id }) => {
    expect(await call(addCreditUpdate, { key: 'cn_1', amount: 300 })).toEqual({ credit: 300 });
    expect(await call(addCreditUpdate, { key: 'cn_1', amount: 300 })).toEqual({ credit: 300 }); // repeated
    expect(await call(drawCreditUpdate, { key: 'in_1', max: 200 })).toEqual({ drawn: 200, credit: 100 });
    expect(await call(drawCreditUpdate, { key: 'in_1', max: 200 })).toEqual({ drawn: 200, credit: 100 }); // repeated: same answer
    expect(await call(drawCreditUpdate, { key: 'in_2', max: 1000 })).toEqual({ drawn: 100, credit: 0 });
    expect(await testEnv().client.workflow.getHandle(id).query(balanceQuery)).toEqual({ credit: 0 });
    // Written in order, each version above the record's (4).
    expect(writes.map((w) => w.credit)).toEqual([300, 100, 0]);
    expectRising(writes.map((w) => w.version), 4);
  });
});

test('the same new credit sent five times at once is added once', async () => {
  await withBalance({ credit: 0 }, async ({ call, writes }) => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => call<{ credit: number }>(addCreditUpdate, { key: 'cn_burst', amount: 250 })));
    expect(answers).toEqual(Array.from({ length: 5 }, () => ({ credit: 250 })));
    expect(writes.map((w) => w.credit)).toEqual([250]);
  });
});

test('twenty concurrent draws of 100 against 550 of credit take exactly 550', async () => {
  await withBalance({ credit: 550 }, async ({ call, id }) => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call<{ drawn: number }>(drawCreditUpdate, { key: `in_${i}`, max: 100 })));
    expect(answers.reduce((s, a) => s + a.drawn, 0)).toBe(550);
    expect(answers.filter((a) => a.drawn === 100)).toHaveLength(5);
    expect(answers.filter((a) => a.drawn === 50)).toHaveLength(1);
    expect(await testEnv().client.workflow.getHandle(id).query(balanceQuery)).toEqual({ credit: 0 });
  });
});

test('an idle balance closes after an hour with its figures written, and starts again from the record, where every change is kept by its key', async () => {
  let closed!: { customer: string; id: string; credit: number; version: number };
  await withBalance({ credit: 0 }, async ({ call, writes, id, input }) => {
    await call(addCreditUpdate, { key: 'cn_1', amount: 700 });
    expect(await testEnv().client.workflow.getHandle(id).result()).toEqual({ credit: 700 });
    expect(writes.at(-1)).toEqual({ credit: 700, version: expect.any(Number) });
    expectRising(writes.map((w) => w.version), 4);
    keepHistory('customer-balance-credited-idle-close', await testEnv().client.workflow.getHandle(id).fetchHistory());
    closed = { customer: input.customer, id, ...writes.at(-1)! };
  });
  // The same customer's next run begins from what the record says, and writes above its version.
  await withBalance({ credit: closed.credit, version: closed.version, customer: closed.customer }, async ({ call, writes, id }) => {
    expect(id).toBe(closed.id);
    // The credit note's request sent again (its answer lost): the new run finds its key on the record.
    expect(await call(addCreditUpdate, { key: 'cn_1', amount: 700 })).toEqual({ credit: 700 });
    expect(await call(drawCreditUpdate, { key: 'in_9', max: 1000 })).toEqual({ drawn: 700, credit: 0 });
    expect(await call(drawCreditUpdate, { key: 'in_9', max: 1000 })).toEqual({ drawn: 700, credit: 0 });
    expect(writes).toEqual([{ credit: 0, version: expect.any(Number) }]);
    expectRising(writes.map((w) => w.version), closed.version);
  });
});
