import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { DeliveryPlan, SendWebhookInput, SendWebhookResult } from '../../activities/webhooks';
import {
  adjustStockUpdate,
  commitStockSignal,
  PRODUCT_STOCK_WORKFLOW,
  releaseStockSignal,
  reserveStockUpdate,
  setPriceUpdate,
  setStockUpdate,
  stockLevelQuery,
  stockWorkflowId,
  type ProductStockInput,
  type ReserveResult,
  type StockLevel,
} from '../../workflows/product-stock/messages';
import {
  admitReturnUpdate,
  attachIntentUpdate,
  CHECKOUT_WORKFLOW,
  checkoutChangedSignal,
  checkoutStateQuery,
  intentOutcomeSignal,
  returnEndedSignal,
  type CheckoutInput,
  type CheckoutState,
  type ReturnAdmission,
  type ReturnRequest,
} from '../../workflows/checkout/messages';
import { moveReturnUpdate, RETURN_WORKFLOW, returnProgressQuery, returnRefundStartedUpdate, type ReturnInput, type ReturnProgress } from '../../workflows/return/messages';
import type { EndpointRef } from '../../workflows/events';
import { expectRising, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';

// The commerce workflows in virtual time, with fake activities: a product's stock owner deciding concurrent
// holds of its last unit, a checkout selling or releasing its holds and then owning its order's returns for
// the return window, and a return moved by the merchant to its refund (or rejected, giving its units back).
// Every test has its own test server; the product stock workflows run on the same worker as the checkouts,
// so a checkout's commit and release signals reach a real stock owner. Webhook deliveries run on a second
// worker, on the webhook task queue, with scripted activities that answer 200.

const testEnv = useWorkflowTestEnv({ perTest: true });

const TENANT = 'ten_eu_t';
const DAY = 86_400_000;
const RETURN_WINDOW_MS = 30 * DAY;
const ATTACH_WITHIN_MS = 120_000;

interface StockWrite {
  tenantId: string;
  productId: string;
  stock: number;
  price?: number;
  version: number;
}
interface CheckoutWrite {
  id: string;
  version: number;
  status: string;
  paymentIntent: string | null;
  orderId: string | null;
}
interface ReturnWrite {
  id: string;
  version: number;
  status: string;
  refund: string | null;
}
interface RecordedEvent {
  id: string;
  type: string;
  objectId: string;
  body: Record<string, unknown>;
  endpoints: { url: string; index: number }[];
}

/** The statuses a record went through, in order (a write that changed only the refund is not a new status). */
const statusesOf = (writes: { status: string }[]) => writes.map((w) => w.status).filter((st, i, a) => i === 0 || st !== a[i - 1]);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Recording fakes of every activity the commerce workflows call. `refundState` answers what the test says. */
function fakes(opts: { refundState?: (call: number) => 'pending' | 'success' | 'canceled' | 'unknown'; slowStockWrites?: boolean; firstReturnWrite?: Promise<void> } = {}) {
  const rec = {
    stock: [] as StockWrite[],
    /** Stock writes running at the same moment, at most (one writer: never above 1). */
    maxStockWritesInFlight: 0,
    checkouts: [] as CheckoutWrite[],
    orders: [] as { orderId: string; paymentIntent: string; createdAt: string; checkoutId: string }[],
    converted: [] as { tenantId: string; cartId: string }[],
    returnRecords: [] as ReturnInput[],
    returns: [] as ReturnWrite[],
    returnWritesAsked: 0,
    events: [] as RecordedEvent[],
    /** Virtual time of each refund check. */
    refundChecks: [] as number[],
    deliveries: [] as SendWebhookInput[],
  };
  let inFlight = 0;
  const activities = {
    saveProductStock: async (p: StockWrite) => {
      inFlight += 1;
      rec.maxStockWritesInFlight = Math.max(rec.maxStockWritesInFlight, inFlight);
      if (opts.slowStockWrites) await pause(5 + (p.version % 3) * 5); // later writes are not always slower
      rec.stock.push(p);
      inFlight -= 1;
    },
    saveCheckout: async (p: CheckoutWrite) => {
      rec.checkouts.push(p);
    },
    createOrder: async (o: { checkout: CheckoutInput; orderId: string; paymentIntent: string; createdAt: string }) => {
      rec.orders.push({ orderId: o.orderId, paymentIntent: o.paymentIntent, createdAt: o.createdAt, checkoutId: o.checkout.id });
    },
    markCartConverted: async (c: { tenantId: string; cartId: string }) => {
      rec.converted.push(c);
    },
    createReturnRecord: async (r: ReturnInput) => {
      rec.returnRecords.push(r);
    },
    saveReturn: async (p: ReturnWrite) => {
      rec.returnWritesAsked += 1;
      if (rec.returnWritesAsked === 1) await opts.firstReturnWrite;
      rec.returns.push(p);
    },
    refundState: async () => {
      rec.refundChecks.push(await testEnv().currentTimeMs());
      return opts.refundState?.(rec.refundChecks.length) ?? 'pending';
    },
    recordEvent: async (e: { id: string; type: string; objectId: string; body: string; endpoints: { url: string; index: number }[] }) => {
      rec.events.push({ id: e.id, type: e.type, objectId: e.objectId, body: JSON.parse(e.body), endpoints: e.endpoints });
    },
  };
  const webhookActivities = {
    async deliveryPlan(): Promise<DeliveryPlan> {
      return { waitsMs: [60_000], windowMs: DAY, attemptTimeoutMs: 10_000 };
    },
    async sendWebhook(i: SendWebhookInput): Promise<SendWebhookResult> {
      rec.deliveries.push(i);
      return { attemptedAt: new Date().toISOString(), statusCode: 200, latencyMs: 3, error: null, outcome: 'delivered', permanent: false, retryAfterMs: null };
    },
    async recordDeliveryAttempt(): Promise<void> {},
  };
  return { rec, activities, webhookActivities };
}

let n = 0;

/** Runs `fn` with a worker for the commerce workflows and one for webhook deliveries. */
async function withWorkers<T>(f: ReturnType<typeof fakes>, fn: (q: { taskQueue: string; webhookTaskQueue: string }) => Promise<T>): Promise<T> {
  n += 1;
  const taskQueue = `commerce-${n}`;
  const webhookTaskQueue = `commerce-webhooks-${n}`;
  const bundle = getWorkflowBundle();
  const main = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: bundle, activities: f.activities });
  const hooks = await Worker.create({ connection: testEnv().nativeConnection, taskQueue: webhookTaskQueue, workflowBundle: bundle, activities: f.webhookActivities });
  return hooks.runUntil(() => main.runUntil(() => fn({ taskQueue, webhookTaskQueue })));
}

/** A hold as the API asks for it: Update-with-Start of the product's stock owner, started from the record's stock. */
function reserve(taskQueue: string, productId: string, initialStock: number, holder: string, quantity: number): Promise<ReserveResult> {
  const input: ProductStockInput = { productId, tenantId: TENANT, initialStock };
  const start = new WithStartWorkflowOperation(PRODUCT_STOCK_WORKFLOW, {
    workflowId: stockWorkflowId(productId),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return testEnv().client.workflow.executeUpdateWithStart(reserveStockUpdate, { args: [{ holder, quantity }], startWorkflowOperation: start });
}

const stockOf = (productId: string): Promise<StockLevel> => testEnv().client.workflow.getHandle(stockWorkflowId(productId)).query(stockLevelQuery);

const address = { _id: 'addr_eu_1', phone: '+201000000000', additional_phone: null, address: '1 Nile St', additional_info: null, region: 'Cairo', city: 'Cairo' };

async function checkoutInput(webhookTaskQueue: string, lines: { productId: string; quantity: number; unitPrice: number }[], extra: Partial<CheckoutInput> = {}): Promise<CheckoutInput> {
  n += 1;
  const subtotal = lines.reduce((s, l) => s + l.unitPrice * l.quantity, 0);
  return {
    id: `chk_eu_test${n}`,
    tenantId: TENANT,
    region: 'eu',
    cartId: `cart_eu_test${n}`,
    userId: 'user_1',
    currency: 'EGP',
    lines: lines.map((l) => ({ ...l, title: { en: l.productId, ar: l.productId } })),
    totals: { subtotal, tax: 0, shipping: 0, total: subtotal },
    taxRateBasisPoints: 1000,
    shippingAddress: address,
    createdAt: new Date(await testEnv().currentTimeMs()).toISOString(),
    attachWithinMs: ATTACH_WITHIN_MS,
    returnWindowMs: RETURN_WINDOW_MS,
    webhookTaskQueue,
    ...extra,
  };
}

/** Holds each line for the checkout (as the API does after starting its workflow) and starts the checkout. */
async function startCheckout(taskQueue: string, inp: CheckoutInput, initialStock: number) {
  const handle = await testEnv().client.workflow.start(CHECKOUT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
  for (const l of inp.lines) expect(await reserve(taskQueue, l.productId, initialStock, inp.id, l.quantity)).toMatchObject({ ok: true, quantity: l.quantity });
  return handle;
}

const returnRequest = (productId: string, quantity: number, idempotencyKey: string, webhooks: EndpointRef[] = []): ReturnRequest => ({
  idempotencyKey,
  productId,
  quantity,
  reasonCode: 'too_small',
  address,
  webhooks,
});

/** A checkout paid: attached, then its intent succeeded; resolves once its order exists. */
async function payCheckout(handle: Awaited<ReturnType<typeof startCheckout>>, rec: ReturnType<typeof fakes>['rec'], paymentIntent: string): Promise<CheckoutState> {
  const attached = await handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent }] });
  expect(attached).toMatchObject({ status: 'awaiting_payment', paymentIntent, orderId: null });
  await handle.signal(intentOutcomeSignal, { paymentIntent, status: 'success' });
  await waitFor(() => rec.converted.length > 0 && rec.checkouts.some((c) => c.status === 'completed'));
  return handle.query(checkoutStateQuery);
}

/** With RECORD_HISTORIES=1, keeps a run's history for test/workflows/replay-recorded-histories. */
/** Keeps a run's history (RECORD_HISTORIES=1) for test/workflows/replay-recorded-histories. */
async function keep(name: string, workflowId: string) {
  keepHistory(`${name}`, await testEnv().client.workflow.getHandle(workflowId).fetchHistory());
}

const terminate = async (workflowId: string) => {
  await testEnv().client.workflow.getHandle(workflowId).terminate('test done').catch(() => undefined);
};

describe('a product stock owner', () => {
  test('10 concurrent holds of the last unit: exactly one wins; writes in order; a release puts it back on sale', async () => {
    const f = fakes({ slowStockWrites: true });
    const productId = 'prd_eu_last1';
    await withWorkers(f, async ({ taskQueue }) => {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => reserve(taskQueue, productId, 1, `chk_eu_c${i}`, 1)));
      const winners = answers.map((a, i) => ({ a, holder: `chk_eu_c${i}` })).filter(({ a }) => a.ok);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.a).toEqual({ ok: true, quantity: 1, available: 0 });
      for (const a of answers.filter((x) => !x.ok)) expect(a).toEqual({ ok: false, available: 0 });
      // The winner's Update answered once its write was done: the record says 0 already.
      expect(f.rec.stock).toEqual([{ tenantId: TENANT, productId, stock: 0, version: expect.any(Number) }]);
      expect(await stockOf(productId)).toEqual({ onHand: 1, available: 0, held: 1 });

      // The same holder again is answered its hold; a loser asking again is still refused.
      expect(await reserve(taskQueue, productId, 1, winners[0]!.holder, 1)).toEqual({ ok: true, quantity: 1, available: 0 });
      expect(await reserve(taskQueue, productId, 1, 'chk_eu_late', 1)).toEqual({ ok: false, available: 0 });

      // The winner's checkout ended unpaid: the unit is for sale again, and written so.
      const owner = testEnv().client.workflow.getHandle(stockWorkflowId(productId));
      await owner.signal(releaseStockSignal, { holder: winners[0]!.holder });
      await owner.signal(releaseStockSignal, { holder: winners[0]!.holder }); // idempotent
      await waitFor(async () => (await stockOf(productId)).available === 1);
      expect(await stockOf(productId)).toEqual({ onHand: 1, available: 1, held: 0 });
      await waitFor(() => f.rec.stock.at(-1)!.stock === 1);
      // A late reserve of the released holder holds nothing; another checkout gets the unit.
      expect(await reserve(taskQueue, productId, 1, winners[0]!.holder, 1)).toEqual({ ok: false, available: 1 });
      expect(await reserve(taskQueue, productId, 1, 'chk_eu_next', 1)).toEqual({ ok: true, quantity: 1, available: 0 });
      expect(f.rec.stock.at(-1)!.stock).toBe(0);

      // One writer: its writes never overlap, and each has a higher version than the one before.
      expectRising(f.rec.stock.map((w) => w.version));
      expect(f.rec.stock.map((w) => w.stock).filter((v, i, a) => i === 0 || v !== a[i - 1])).toEqual([0, 1, 0]);
      expect(f.rec.maxStockWritesInFlight).toBe(1);
      await keep('product-stock-holds-released-sold', stockWorkflowId(productId));
      await terminate(stockWorkflowId(productId));
    });
  });

  test('the merchant’s count and price go through the owner: holds still count; each write has a higher version', async () => {
    const f = fakes({ slowStockWrites: true });
    const productId = 'prd_eu_count1';
    await withWorkers(f, async ({ taskQueue }) => {
      expect(await reserve(taskQueue, productId, 3, 'chk_eu_h1', 2)).toEqual({ ok: true, quantity: 2, available: 1 });
      const owner = testEnv().client.workflow.getHandle(stockWorkflowId(productId));
      expect(await owner.executeUpdate(setStockUpdate, { args: [{ stock: 1 }] })).toEqual({ onHand: 1, available: 0, held: 2 });
      expect(await owner.executeUpdate(setPriceUpdate, { args: [{ price: 4500 }] })).toEqual({ onHand: 1, available: 0, held: 2 });
      expect(await owner.executeUpdate(setStockUpdate, { args: [{ stock: 10 }] })).toEqual({ onHand: 10, available: 8, held: 2 });
      const refused = await owner.executeUpdate(setStockUpdate, { args: [{ stock: -1 }] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      const badPrice = await owner.executeUpdate(setPriceUpdate, { args: [{ price: 1.5 }] }).catch((e: unknown) => e);
      expect(badPrice).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(f.rec.stock.map(({ version: _v, ...w }) => w)).toEqual([
        { tenantId: TENANT, productId, stock: 1 },
        { tenantId: TENANT, productId, stock: 0 },
        { tenantId: TENANT, productId, stock: 0, price: 4500 },
        { tenantId: TENANT, productId, stock: 8, price: 4500 },
      ]);
      expectRising(f.rec.stock.map((w) => w.version));
      await terminate(stockWorkflowId(productId));
    });
  });
  test('units sold that were not on hand are counted: on hand goes below 0, and a delivery counts from there', async () => {
    // On hand 8, one unit held; the merchant counts 0 on the shelf; the checkout is then paid. The unit sold was not
    // on hand: the owner counts -1 (1 oversold), so a delivery of 5 leaves 4 on hand, not 5.
    const f = fakes();
    const productId = 'prd_eu_over1';
    await withWorkers(f, async ({ taskQueue }) => {
      expect(await reserve(taskQueue, productId, 8, 'chk_eu_o1', 1)).toEqual({ ok: true, quantity: 1, available: 7 });
      const owner = testEnv().client.workflow.getHandle(stockWorkflowId(productId));
      expect(await owner.executeUpdate(setStockUpdate, { args: [{ stock: 0 }] })).toEqual({ onHand: 0, available: 0, held: 1 });
      await owner.signal(commitStockSignal, { holder: 'chk_eu_o1' });
      await waitFor(async () => (await stockOf(productId)).held === 0);
      const afterSale = await stockOf(productId);
      const delivered = await owner.executeUpdate(adjustStockUpdate, { args: [{ change: 5 }] });
      const lost = await owner.executeUpdate(adjustStockUpdate, { args: [{ change: -5 }] });
      await keep('product-stock-sold-past-count', stockWorkflowId(productId));
      expect(afterSale).toEqual({ onHand: -1, available: 0, held: 0 });
      expect(delivered).toEqual({ ok: true, level: { onHand: 4, available: 4, held: 0 } });
      // A loss of more than is on hand is still refused.
      expect(lost).toEqual({ ok: false, onHand: 4 });
      expect(f.rec.stock.at(-1)!.stock).toBe(4);
      await terminate(stockWorkflowId(productId));
    });
  });
});

describe('a checkout', () => {
  test('paid: the holds are sold, the order made once, returns taken for the window, and then it ends', async () => {
    const f = fakes();
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = await checkoutInput(webhookTaskQueue, [
        { productId: 'prd_eu_paid_a', quantity: 2, unitPrice: 1000 },
        { productId: 'prd_eu_paid_b', quantity: 1, unitPrice: 250 },
      ]);
      const handle = await startCheckout(taskQueue, inp, 5);
      expect(await stockOf('prd_eu_paid_a')).toEqual({ onHand: 5, available: 3, held: 2 });

      // An outcome of another intent is not this checkout's.
      await handle.signal(intentOutcomeSignal, { paymentIntent: 'pi_eu_other', status: 'success' });
      const state = await payCheckout(handle, f.rec, 'pi_eu_paid1');
      expect(state).toEqual({
        status: 'completed',
        paymentIntent: 'pi_eu_paid1',
        orderId: f.rec.orders[0]!.orderId,
        returnable: [
          { productId: 'prd_eu_paid_a', returnableQuantity: 2 },
          { productId: 'prd_eu_paid_b', returnableQuantity: 1 },
        ],
      });
      expect(f.rec.orders).toHaveLength(1);
      expect(f.rec.orders[0]).toMatchObject({ paymentIntent: 'pi_eu_paid1', checkoutId: inp.id, orderId: expect.stringMatching(/^ord_eu_/) });
      expect(f.rec.converted).toEqual([{ tenantId: TENANT, cartId: inp.cartId }]);

      // The commit signal reached each product's stock owner: the held units are sold, once.
      await waitFor(async () => (await stockOf('prd_eu_paid_a')).held === 0 && (await stockOf('prd_eu_paid_b')).held === 0);
      expect(await stockOf('prd_eu_paid_a')).toEqual({ onHand: 3, available: 3, held: 0 });
      expect(await stockOf('prd_eu_paid_b')).toEqual({ onHand: 4, available: 4, held: 0 });

      // Returns: bounded by the order, idempotent by key.
      const over = await handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_paid_a', 3, 'k-over')] });
      expect(over).toEqual({ ok: false, code: 'return_quantity_exceeded', message: 'At most 2 of product prd_eu_paid_a can still be returned (open returns count)' });
      const stranger = await handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_nothere', 1, 'k-stranger')] });
      expect(stranger).toMatchObject({ ok: false, code: 'product_not_in_order' });
      const first = await handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_paid_a', 1, 'k-1')] });
      expect(first).toEqual({ ok: true, id: expect.stringMatching(/^ret_eu_/), created: true });
      const again = await handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_paid_a', 1, 'k-1')] });
      const id = (first as Extract<ReturnAdmission, { ok: true }>).id;
      expect(again).toEqual({ ok: true, id, created: false });
      expect(f.rec.returnRecords.map((r) => r.id)).toEqual([id]);
      expect(f.rec.returnRecords[0]).toMatchObject({ orderId: state.orderId, checkoutId: inp.id, paymentIntent: 'pi_eu_paid1', quantity: 1, amount: 1100 });
      // The open return counts: one unit of A is left.
      expect((await handle.query(checkoutStateQuery)).returnable[0]).toEqual({ productId: 'prd_eu_paid_a', returnableQuantity: 1 });
      expect(await handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_paid_a', 2, 'k-2')] })).toMatchObject({ ok: false, code: 'return_quantity_exceeded' });
      // A key asked again for another return (product, quantity or reason) is refused, never answered with the key's return;
      // so is the loser of two such requests racing (both past the API's look-up of the key).
      const keyInUse = (e: unknown) => e instanceof WorkflowUpdateFailedError && e.cause instanceof ApplicationFailure && e.cause.type === 'idempotency_key_in_use';
      for (const other of [returnRequest('prd_eu_paid_b', 1, 'k-1'), returnRequest('prd_eu_paid_a', 2, 'k-1'), { ...returnRequest('prd_eu_paid_a', 1, 'k-1'), reasonCode: 'damaged' }]) {
        expect(keyInUse(await handle.executeUpdate(admitReturnUpdate, { args: [other] }).catch((e: unknown) => e))).toBe(true);
      }
      const raced = await Promise.all([
        handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_paid_a', 1, 'k-race')] }).catch((e: unknown) => e),
        handle.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_paid_b', 1, 'k-race')] }).catch((e: unknown) => e),
      ]);
      const won = raced.filter((r): r is Extract<ReturnAdmission, { ok: true }> => (r as ReturnAdmission).ok === true);
      expect(won).toEqual([{ ok: true, id: expect.stringMatching(/^ret_eu_/), created: true }]);
      expect(raced.filter(keyInUse)).toHaveLength(1);
      expect(f.rec.returnRecords.map((r) => r.id)).toEqual([id, won[0]!.id]);
      // Its return workflow runs, a child on the same worker.
      await waitFor(async () => (await testEnv().client.workflow.getHandle(id).query(returnProgressQuery)).status === 'requested');

      // The order takes returns for its window: still open a day before the end, closed right after it.
      const paidAt = Date.parse(f.rec.orders[0]!.createdAt);
      await testEnv().sleep(RETURN_WINDOW_MS - DAY);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const final = await handle.result();
      await keep('checkout-paid-return-window-closed', handle.workflowId);
      // The server's clock may run on after the end; the workflow's close time is when it ended. The order's
      // createdAt is written a task after the payment time the window counts from: a second of slack.
      const endedAt = (await handle.describe()).closeTime!.getTime();
      expect(endedAt).toBeGreaterThanOrEqual(paidAt + RETURN_WINDOW_MS - 1000);
      expect(endedAt).toBeLessThan(paidAt + RETURN_WINDOW_MS + 60_000);
      expect(final).toMatchObject({ status: 'completed', orderId: state.orderId });
      expect(f.rec.orders).toHaveLength(1);
      expect(f.rec.converted).toHaveLength(1);
      const versions = f.rec.checkouts.map((c) => c.version);
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(new Set(versions).size).toBe(versions.length);
      expect(f.rec.checkouts.map((c) => c.status)).toEqual(['awaiting_payment', 'completed']);
      await terminate(id);
      await terminate(won[0]!.id);
      await terminate(stockWorkflowId('prd_eu_paid_a'));
      await terminate(stockWorkflowId('prd_eu_paid_b'));
    });
  });

  test('no payment intent attached in time: abandoned after attachWithinMs, its holds released', async () => {
    const f = fakes();
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = await checkoutInput(webhookTaskQueue, [{ productId: 'prd_eu_aband', quantity: 2, unitPrice: 500 }]);
      const handle = await startCheckout(taskQueue, inp, 2);
      expect(await stockOf('prd_eu_aband')).toEqual({ onHand: 2, available: 0, held: 2 });
      await testEnv().sleep(ATTACH_WITHIN_MS / 2);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const final = await handle.result();
      expect(final).toEqual({ status: 'abandoned', paymentIntent: null, orderId: null, returnable: [] });
      const d = await handle.describe();
      expect(d.closeTime!.getTime() - d.startTime.getTime()).toBeGreaterThanOrEqual(ATTACH_WITHIN_MS);
      expect(d.closeTime!.getTime() - d.startTime.getTime()).toBeLessThan(ATTACH_WITHIN_MS + 60_000);
      await waitFor(async () => (await stockOf('prd_eu_aband')).held === 0);
      expect(await stockOf('prd_eu_aband')).toEqual({ onHand: 2, available: 2, held: 0 });
      await waitFor(() => f.rec.stock.at(-1)?.stock === 2);
      expect(f.rec.stock.map((w) => w.stock)).toEqual([0, 2]);
      expectRising(f.rec.stock.map((w) => w.version));
      expect(f.rec.checkouts.map((c) => c.status)).toEqual(['abandoned']);
      expect(f.rec.orders).toEqual([]);
      expect(f.rec.converted).toEqual([]);
      // Too late to attach now.
      await expect(handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent: 'pi_eu_late' }] })).rejects.toThrow();
      await terminate(stockWorkflowId('prd_eu_aband'));
    });
  });

  test('the intent canceled: the holds are released, no order', async () => {
    const f = fakes();
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = await checkoutInput(webhookTaskQueue, [{ productId: 'prd_eu_cancel', quantity: 1, unitPrice: 500 }]);
      const handle = await startCheckout(taskQueue, inp, 1);
      expect(await handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent: 'pi_eu_c1' }] })).toMatchObject({ status: 'awaiting_payment' });
      // The same attach again is answered; another intent is refused.
      expect(await handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent: 'pi_eu_c1' }] })).toMatchObject({ status: 'awaiting_payment', paymentIntent: 'pi_eu_c1' });
      const other = await handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent: 'pi_eu_c2' }] }).catch((e: unknown) => e);
      expect(other).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((other as WorkflowUpdateFailedError & { cause: { type: string } }).cause.type).toBe('checkout_not_open');
      await handle.signal(intentOutcomeSignal, { paymentIntent: 'pi_eu_c1', status: 'canceled' });
      expect(await handle.result()).toEqual({ status: 'canceled', paymentIntent: 'pi_eu_c1', orderId: null, returnable: [] });
      await waitFor(async () => (await stockOf('prd_eu_cancel')).available === 1);
      expect(await stockOf('prd_eu_cancel')).toEqual({ onHand: 1, available: 1, held: 0 });
      expect(f.rec.checkouts.map((c) => c.status)).toEqual(['awaiting_payment', 'canceled']);
      expect(f.rec.orders).toEqual([]);
      await terminate(stockWorkflowId('prd_eu_cancel'));
    });
  });

  test('the cart changed: the holds are released at once (status changed) and no intent may be attached', async () => {
    const f = fakes();
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = await checkoutInput(webhookTaskQueue, [{ productId: 'prd_eu_changed', quantity: 1, unitPrice: 500 }]);
      const handle = await startCheckout(taskQueue, inp, 1);
      await handle.signal(checkoutChangedSignal);
      await expect(handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent: 'pi_eu_x' }] })).rejects.toThrow();
      expect(await handle.result()).toEqual({ status: 'changed', paymentIntent: null, orderId: null, returnable: [] });
      const d = await handle.describe();
      expect(d.closeTime!.getTime() - d.startTime.getTime()).toBeLessThan(ATTACH_WITHIN_MS);
      await waitFor(async () => (await stockOf('prd_eu_changed')).available === 1);
      expect(f.rec.checkouts.map((c) => c.status)).toEqual(['changed']);
      await terminate(stockWorkflowId('prd_eu_changed'));
    });
  });
});

describe('a checkout across continue-as-new', () => {
  // Returns carried across continue-as-new were started by an earlier run: a repeated key must not wait for
  // its start again (it would never be answered, and the checkout would never close).
  test('a repeated idempotency key is answered after the run continued as new, and the order still closes after its window', async () => {
    const f = fakes();
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = await checkoutInput(webhookTaskQueue, [{ productId: 'prd_eu_can', quantity: 3, unitPrice: 1000 }]);
      const checkout = await startCheckout(taskQueue, inp, 3);
      await payCheckout(checkout, f.rec, 'pi_eu_can');
      const first = await checkout.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_can', 1, 'k-can')] });
      expect(first).toMatchObject({ ok: true, created: true });
      const firstRun = (await checkout.describe()).runId;
      // Grow the run's history past its bound with signals that change nothing (returns it never had).
      for (let batch = 0; batch < 110; batch++)
        await Promise.all(Array.from({ length: 20 }, (_, i) => checkout.signal(returnEndedSignal, { returnId: `ret_eu_none${batch}_${i}`, rejected: true })));
      await waitFor(async () => (await testEnv().client.workflow.getHandle(inp.id).describe()).runId !== firstRun, 30_000);
      const latest = testEnv().client.workflow.getHandle(inp.id);
      expect((await latest.query(checkoutStateQuery)).returnable).toEqual([{ productId: 'prd_eu_can', returnableQuantity: 2 }]);
      const again = latest.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_can', 1, 'k-can')] });
      again.catch(() => undefined); // unanswered when the test ends: its rejection at teardown is not the test's
      let timer: NodeJS.Timeout | undefined;
      const answer = await Promise.race([again, new Promise((r) => (timer = setTimeout(() => r('no answer within 10 s'), 10_000)))]);
      clearTimeout(timer);
      // Past its window the order would close; with the Update unanswered it never does.
      await testEnv().sleep(RETURN_WINDOW_MS + DAY);
      const statusAfterWindow = (await latest.describe()).status.name;
      await terminate(inp.id);
      await terminate((first as Extract<ReturnAdmission, { ok: true }>).id);
      await terminate(stockWorkflowId('prd_eu_can'));
      expect(answer).toEqual({ ok: true, id: (first as Extract<ReturnAdmission, { ok: true }>).id, created: false });
      expect(statusAfterWindow).toBe('COMPLETED');
    });
  }, 120_000);
});

describe('a return', () => {
  const hooks: EndpointRef[] = [{ url: 'https://shop.example.com/hooks/returns', events: [] }];

  function returnInput(webhookTaskQueue: string, extra: Partial<ReturnInput> = {}): ReturnInput {
    n += 1;
    return {
      id: `ret_eu_test${n}`,
      tenantId: TENANT,
      region: 'eu',
      orderId: 'ord_eu_1',
      checkoutId: 'chk_eu_none',
      userId: 'user_1',
      paymentIntent: 'pi_eu_1',
      productId: 'prd_eu_r',
      quantity: 1,
      amount: 1100,
      currency: 'EGP',
      reasonCode: 'too_small',
      address,
      idempotencyKey: `k-${n}`,
      webhooks: hooks,
      webhookTaskQueue,
      createdAt: new Date().toISOString(),
      ...extra,
    };
  }

  test('requested -> approved -> received -> refunded once its refund succeeds: a record and a webhook per status', async () => {
    const f = fakes({ refundState: (call) => (call < 4 ? 'pending' : 'success') });
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = returnInput(webhookTaskQueue);
      const handle = await testEnv().client.workflow.start(RETURN_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      const move = (m: 'approved' | 'received' | 'rejected', reason?: string) => handle.executeUpdate(moveReturnUpdate, { args: [{ move: m, ...(reason ? { reason } : {}) }] });
      const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as WorkflowUpdateFailedError & { cause: { type: string } });

      await waitFor(() => f.rec.returns.length === 1);
      expect((await failure(handle.executeUpdate(returnRefundStartedUpdate, { args: [{ refund: 're_eu_early' }] })))?.cause.type).toBe('return_transition_invalid');
      expect((await failure(move('received')))?.cause.type).toBe('return_transition_invalid');
      expect(await move('approved')).toEqual<ReturnProgress>({ status: 'approved', refund: null });
      expect(await move('approved')).toEqual<ReturnProgress>({ status: 'approved', refund: null }); // a retry: nothing new
      expect((await failure(move('rejected')))?.cause.type).toBe('return_transition_invalid'); // no reason
      expect(await move('received')).toEqual<ReturnProgress>({ status: 'received', refund: null });
      expect((await failure(move('approved')))?.cause.type).toBe('return_transition_invalid');
      expect((await failure(move('rejected', 'damaged')))?.cause.type).toBe('return_transition_invalid');
      expect(await handle.executeUpdate(returnRefundStartedUpdate, { args: [{ refund: 're_eu_1' }] })).toEqual<ReturnProgress>({ status: 'received', refund: 're_eu_1' });
      // A repeated start keeps the first refund.
      expect(await handle.executeUpdate(returnRefundStartedUpdate, { args: [{ refund: 're_eu_2' }] })).toEqual<ReturnProgress>({ status: 'received', refund: 're_eu_1' });

      expect(await handle.result()).toEqual<ReturnProgress>({ status: 'refunded', refund: 're_eu_1' });
      await keep('return-refunded', handle.workflowId);
      // Asked with backoff in virtual time until the refund said success.
      expect(f.rec.refundChecks).toHaveLength(4);
      const gaps = f.rec.refundChecks.slice(1).map((t, i) => t - f.rec.refundChecks[i]!);
      expect(gaps.map((g) => Math.round(g / 1000))).toEqual([1, 2, 4]);

      // Its record: written after the one the checkout created (version 1), each write a higher version,
      // each status in turn, the refund once it started; nothing after refunded.
      expect(f.rec.returns.every((r) => r.id === inp.id)).toBe(true);
      expectRising(f.rec.returns.map((r) => r.version), 1);
      expect(statusesOf(f.rec.returns)).toEqual(['requested', 'approved', 'received', 'refunded']);
      expect(f.rec.returns.filter((r) => r.status !== 'received' || r.refund === null).map((r) => r.refund)).toEqual([null, null, null, 're_eu_1']);
      expect(f.rec.returns.at(-1)).toEqual({ id: inp.id, version: expect.any(Number), status: 'refunded', refund: 're_eu_1' });
      expect(f.rec.events.map((e) => e.type)).toEqual(['return.requested', 'return.approved', 'return.received', 'return.refunded']);
      expect(f.rec.events.map((e) => e.body.status)).toEqual(['requested', 'approved', 'received', 'refunded']);
      for (const e of f.rec.events) {
        expect(e.objectId).toBe(inp.id);
        expect(e.endpoints).toEqual([{ url: hooks[0]!.url, index: 0 }]);
        expect(e.body).toMatchObject({ webhook_type: 'return', id: inp.id, orderId: 'ord_eu_1', productId: 'prd_eu_r', quantity: 1, amount: 1100, currency: 'EGP', event_id: e.id });
      }
      expect(f.rec.events.at(-1)!.body).toMatchObject({ event: 'return.refunded', refund: 're_eu_1' });
      // One delivery per status, on the webhook task queue, byte for byte the recorded body.
      await waitFor(() => f.rec.deliveries.length === 4);
      expect(f.rec.deliveries.map((d) => d.eventId).sort()).toEqual(f.rec.events.map((e) => e.id).sort());
      for (const d of f.rec.deliveries) {
        expect(d.url).toBe(hooks[0]!.url);
        expect(JSON.parse(d.body)).toEqual(f.rec.events.find((e) => e.id === d.eventId)!.body);
      }
    });
  });

  test('a move while the requested write is still in flight: each event tells its own status', async () => {
    let letWrite!: () => void;
    const f = fakes({ firstReturnWrite: new Promise<void>((r) => (letWrite = r)) });
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = returnInput(webhookTaskQueue);
      const handle = await testEnv().client.workflow.start(RETURN_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      await waitFor(() => f.rec.returnWritesAsked === 1); // the requested write hangs
      const approved = handle.executeUpdate(moveReturnUpdate, { args: [{ move: 'approved' }] });
      await waitFor(async () => (await handle.query(returnProgressQuery)).status === 'approved');
      letWrite();
      expect(await approved).toEqual<ReturnProgress>({ status: 'approved', refund: null });
      expect(f.rec.returns).toEqual([
        { id: inp.id, version: expect.any(Number), status: 'requested', refund: null },
        { id: inp.id, version: expect.any(Number), status: 'approved', refund: null },
      ]);
      expectRising(f.rec.returns.map((r) => r.version), 1);
      await waitFor(() => f.rec.events.length === 2);
      expect(f.rec.events.map((e) => [e.type, e.body.status]).sort()).toEqual([
        ['return.approved', 'approved'],
        ['return.requested', 'requested'],
      ]);
      await waitFor(() => f.rec.deliveries.length === 2);
      expect(f.rec.deliveries.map((d) => JSON.parse(d.body).status).sort()).toEqual(['approved', 'requested']);
      await terminate(inp.id);
    });
  });

  test('the same move again while its write is in flight answers once that write has landed, not at once with the record still behind', async () => {
    let letWrite!: () => void;
    const f = fakes({ firstReturnWrite: new Promise<void>((r) => (letWrite = r)) });
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = returnInput(webhookTaskQueue, { webhooks: [] });
      const handle = await testEnv().client.workflow.start(RETURN_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      await waitFor(() => f.rec.returnWritesAsked === 1); // the requested write hangs; approved's queues behind it
      const answered: string[] = [];
      const approve = (who: string) => handle.executeUpdate(moveReturnUpdate, { args: [{ move: 'approved' }] }).then((p) => (answered.push(who), p));
      const first = approve('first');
      await waitFor(async () => (await handle.query(returnProgressQuery)).status === 'approved');
      const again = approve('again');
      await new Promise((r) => setTimeout(r, 500));
      const whileWriting = [...answered];
      letWrite();
      // Before: the repeat answered approved at once, while the record still said requested.
      expect(whileWriting).toEqual([]);
      expect(await Promise.all([first, again])).toEqual<ReturnProgress[]>([
        { status: 'approved', refund: null },
        { status: 'approved', refund: null },
      ]);
      expect(statusesOf(f.rec.returns)).toEqual(['requested', 'approved']);
      await terminate(inp.id);
    });
  });

  test('received, and the PUT that received it died before it handed the refund over: after 5 minutes the return starts its refund itself', async () => {
    const f = fakes({ refundState: () => 'success' });
    const started: Array<{ returnId: string; at: number }> = [];
    const activities = {
      ...f.activities,
      startReturnRefund: async (r: { returnId: string }) => (started.push({ returnId: r.returnId, at: await testEnv().currentTimeMs() }), { refund: 're_eu_self' }),
    };
    await withWorkers({ ...f, activities }, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = returnInput(webhookTaskQueue, { webhooks: [] });
      const handle = await testEnv().client.workflow.start(RETURN_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      await handle.executeUpdate(moveReturnUpdate, { args: [{ move: 'approved' }] });
      const receivedAt = await testEnv().currentTimeMs(); // just before: the wait starts as the Update is handled
      await handle.executeUpdate(moveReturnUpdate, { args: [{ move: 'received' }] });
      // No returnRefundStartedUpdate: the API's process was gone.
      expect(await handle.result()).toEqual<ReturnProgress>({ status: 'refunded', refund: 're_eu_self' });
      expect(started.map((x) => x.returnId)).toEqual([inp.id]);
      // It waited 5 minutes for the API's hand-over first, and no longer.
      expect(started[0]!.at - receivedAt).toBeGreaterThanOrEqual(5 * 60_000);
      expect(started[0]!.at - receivedAt).toBeLessThan(6 * 60_000);
      expect(statusesOf(f.rec.returns)).toEqual(['requested', 'approved', 'received', 'refunded']);
    });
  });

  test('a refund canceled: refund_failed', async () => {
    const f = fakes({ refundState: (call) => (call < 2 ? 'unknown' : 'canceled') });
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = returnInput(webhookTaskQueue, { webhooks: [] });
      const handle = await testEnv().client.workflow.start(RETURN_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      await handle.executeUpdate(moveReturnUpdate, { args: [{ move: 'approved' }] });
      await handle.executeUpdate(moveReturnUpdate, { args: [{ move: 'received' }] });
      await handle.executeUpdate(returnRefundStartedUpdate, { args: [{ refund: 're_eu_c' }] });
      expect(await handle.result()).toEqual<ReturnProgress>({ status: 'refund_failed', refund: 're_eu_c' });
      expectRising(f.rec.returns.map((r) => r.version), 1);
      expect(statusesOf(f.rec.returns)).toEqual(['requested', 'approved', 'received', 'refund_failed']);
      expect(f.rec.returns.at(-1)).toMatchObject({ status: 'refund_failed', refund: 're_eu_c' });
      expect(f.rec.events.map((e) => e.type)).toEqual(['return.requested', 'return.approved', 'return.received', 'return.refund_failed']);
      expect(f.rec.deliveries).toEqual([]);
    });
  });

  test('rejected: it tells its checkout, which then admits the quantity again', async () => {
    const f = fakes();
    await withWorkers(f, async ({ taskQueue, webhookTaskQueue }) => {
      const inp = await checkoutInput(webhookTaskQueue, [{ productId: 'prd_eu_rej', quantity: 2, unitPrice: 1000 }]);
      const checkout = await startCheckout(taskQueue, inp, 2);
      await payCheckout(checkout, f.rec, 'pi_eu_rej');
      const all = await checkout.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_rej', 2, 'k-all', hooks)] });
      expect(all).toMatchObject({ ok: true, created: true });
      const id = (all as Extract<ReturnAdmission, { ok: true }>).id;
      expect(f.rec.returnRecords[0]).toMatchObject({ id, amount: 2200, webhooks: hooks, webhookTaskQueue });
      expect(await checkout.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_rej', 1, 'k-more')] })).toMatchObject({
        ok: false,
        code: 'return_quantity_exceeded',
      });

      const ret = testEnv().client.workflow.getHandle(id);
      expect(await ret.executeUpdate(moveReturnUpdate, { args: [{ move: 'rejected', reason: 'worn_out' }] })).toEqual<ReturnProgress>({ status: 'rejected.worn_out', refund: null });
      expect(await ret.result()).toEqual<ReturnProgress>({ status: 'rejected.worn_out', refund: null });
      const mine = f.rec.returns.filter((r) => r.id === id);
      expect(mine.map((r) => r.status)).toEqual(['requested', 'rejected.worn_out']);
      expectRising(mine.map((r) => r.version), 1);
      expect(f.rec.events.map((e) => e.type)).toEqual(['return.requested', 'return.rejected']);
      expect(f.rec.events[1]!.body).toMatchObject({ status: 'rejected.worn_out', refund: null });
      await waitFor(() => f.rec.deliveries.length === 2);

      // Its units are returnable again.
      await waitFor(async () => (await checkout.query(checkoutStateQuery)).returnable[0]!.returnableQuantity === 2);
      const retry = await checkout.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_rej', 2, 'k-again')] });
      expect(retry).toMatchObject({ ok: true, created: true });
      expect((retry as Extract<ReturnAdmission, { ok: true }>).id).not.toBe(id);
      // The rejected return's key still answers that return.
      expect(await checkout.executeUpdate(admitReturnUpdate, { args: [returnRequest('prd_eu_rej', 2, 'k-all')] })).toEqual({ ok: true, id, created: false });
      await terminate((retry as Extract<ReturnAdmission, { ok: true }>).id);
      await terminate(inp.id);
      await terminate(stockWorkflowId('prd_eu_rej'));
    });
  });
});
