import { Worker } from '@temporalio/worker';
import { CART_RETENTION_MONTHS, CART_RETENTION_WORKFLOW, cartRetentionWorkflowId, retentionDueMs, type CartRetentionInput, type CartRetentionResult } from '../../workflows/cart-retention/messages';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// A cart's retention in virtual time: 6 months pass in a second. An open cart is deleted at its due time, to
// the second; a converted one is kept. The store is a fake holding carts by id, as the activity sees them.

const testEnv = useWorkflowTestEnv();

function fakeStore(carts: Map<string, 'open' | 'converted'>) {
  const calls: { cartId: string; at: number }[] = [];
  return {
    calls,
    activities: {
      deleteUnconvertedCart: async ({ cartId }: { tenantId: string; cartId: string }) => {
        calls.push({ cartId, at: await testEnv().currentTimeMs() });
        const status = carts.get(cartId);
        if (status === undefined) return 'gone';
        if (status === 'converted') return 'converted';
        carts.delete(cartId);
        return 'deleted';
      },
    },
  };
}

let n = 0;
async function run(
  carts: Map<string, 'open' | 'converted'>,
  cartId: string,
  opts: { createdAgoMs?: number; during?: () => Promise<void>; recordAs?: string } = {},
): Promise<{ input: CartRetentionInput; result: CartRetentionResult; calls: { cartId: string; at: number }[] }> {
  const taskQueue = `cart-retention-${++n}`;
  const store = fakeStore(carts);
  const input: CartRetentionInput = {
    cartId,
    tenantId: 'ten_eu_t',
    createdAt: new Date((await testEnv().currentTimeMs()) - (opts.createdAgoMs ?? 0)).toISOString(),
    retentionMonths: CART_RETENTION_MONTHS,
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: store.activities });
  const result = await worker.runUntil(async () => {
    const handle = await testEnv().client.workflow.start(CART_RETENTION_WORKFLOW, { workflowId: cartRetentionWorkflowId(cartId), taskQueue, args: [input] });
    await opts.during?.();
    const result = (await handle.result()) as CartRetentionResult;
    if (opts.recordAs) keepHistory(opts.recordAs, await handle.fetchHistory());
    return result;
  });
  return { input, result, calls: store.calls };
}

const dueAt = (input: CartRetentionInput) => retentionDueMs(input);

test('an open cart is deleted 6 calendar months after its creation, to the second', async () => {
  const carts = new Map([['cart_eu_open0001', 'open' as const]]);
  const { input, result, calls } = await run(carts, 'cart_eu_open0001', { recordAs: 'cart-retention-open-deleted' });
  expect(result.outcome).toBe('deleted');
  expect(carts.has('cart_eu_open0001')).toBe(false);
  expect(calls).toHaveLength(1);
  const late = calls[0]!.at - dueAt(input);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(1000);
  const actedLate = Date.parse(result.at) - dueAt(input);
  expect(actedLate).toBeGreaterThanOrEqual(0);
  expect(actedLate).toBeLessThan(1000);
});

test('a cart converted meanwhile is kept', async () => {
  const carts = new Map<string, 'open' | 'converted'>([['cart_eu_conv0001', 'open']]);
  const { input, result, calls } = await run(carts, 'cart_eu_conv0001', {
    during: async () => {
      carts.set('cart_eu_conv0001', 'converted'); // a checkout of it was paid
    },
  });
  expect(result.outcome).toBe('converted');
  expect(carts.get('cart_eu_conv0001')).toBe('converted');
  expect(calls[0]!.at - dueAt(input)).toBeLessThan(1000);
  expect(calls[0]!.at).toBeGreaterThanOrEqual(dueAt(input));
});

test('started late (a repeated create after its first creator died), it still acts at creation + retention', async () => {
  const carts = new Map([['cart_eu_late0001', 'open' as const]]);
  const tenDays = 10 * 86_400_000;
  const { input, result, calls } = await run(carts, 'cart_eu_late0001', { createdAgoMs: tenDays });
  expect(result.outcome).toBe('deleted');
  const late = calls[0]!.at - dueAt(input);
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(1000);
});

test('a cart already gone (deleted, or its create taken back) ends the retention quietly', async () => {
  const { result } = await run(new Map(), 'cart_eu_gone0001');
  expect(result.outcome).toBe('gone');
});

test('overdue at start: it acts at once, with no timer', async () => {
  const carts = new Map([['cart_eu_over0001', 'open' as const]]);
  const { result, calls } = await run(carts, 'cart_eu_over0001', { createdAgoMs: 190 * 86_400_000 });
  expect(result.outcome).toBe('deleted');
  expect(calls).toHaveLength(1);
  // Not a wall-clock bound (the test server's clock runs on while activities run under load): the history
  // shows it never waited.
  const history = await testEnv().client.workflow.getHandle(cartRetentionWorkflowId('cart_eu_over0001')).fetchHistory();
  expect((history.events ?? []).some((e) => e.timerStartedEventAttributes)).toBe(false);
});
