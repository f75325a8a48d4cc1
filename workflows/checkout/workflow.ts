import {
  ApplicationFailure,
  condition,
  continueAsNew,
  allHandlersFinished,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { typedIdFromUuid } from '../../domain/ids';
import { historyIsLong } from '../history';
import { serialWriter } from '../serial-writer';
import { commitStockSignal, releaseStockSignal, stockWorkflowId } from '../product-stock/messages';
import { returnWorkflow } from '../return/workflow';
import type { ReturnInput } from '../return/messages';
import {
  admitReturnUpdate,
  attachIntentUpdate,
  checkoutChangedSignal,
  checkoutStateQuery,
  intentOutcomeSignal,
  returnEndedSignal,
  type CheckoutInput,
  type CheckoutState,
} from './messages';
import { CheckoutRules } from './state';
import { SA } from '../search-attributes';
import { formatMoney } from '../../domain/money';
import { plainText } from '../../domain/operator-text';

/**
 * Runs started by code with this patch keep the PaymentStatus search attribute equal to the checkout's status
 * (the runbook's "checkouts holding stock" query); runs recorded before it replay without those upserts.
 */
const STATUS_SEARCH_ATTRIBUTE_PATCH = 'checkout-status-search-attribute';
/** A known return key asked for another return is refused (before: answered with the key's return). */
const RETURN_KEY_SAME_REQUEST_PATCH = 'return-key-same-request';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/**
 * One workflow per checkout (its id is the `chk_` id). The API holds the lines' stock with each product's
 * stock workflow; this workflow owns those holds from then on: it releases them when the cart changed, when
 * no payment intent is attached in time, or when the intent is canceled or expires, and sells them when the
 * intent succeeds, creating the order. It then owns the order's returnable quantities for its return window.
 */
export async function checkoutWorkflow(input: CheckoutInput): Promise<CheckoutState> {
  const s = new CheckoutRules(input);
  const writer = serialWriter(input.carried?.version ?? 0, store.saveCheckout);
  const persist = () => writer.write({ id: input.id, status: s.status, paymentIntent: s.paymentIntent, orderId: s.orderId });
  let changed = false;
  /** The status moved: the search attribute and the summary operators read follow it. */
  const show = () => {
    if (patched(STATUS_SEARCH_ATTRIBUTE_PATCH)) upsertSearchAttributes([{ key: SA.PaymentStatus, value: s.status }]);
    describe();
  };
  const describe = () =>
    setCurrentDetails(
      `**${s.status}** · ${formatMoney(input.totals.total, input.currency)} · ${input.lines.length} line(s)` +
        `\n\ncart ${input.cartId} · user ${plainText(input.userId)} · tenant ${input.tenantId}` +
        (s.paymentIntent ? ` · payment ${s.paymentIntent}` : '') +
        (s.orderId ? ` · order ${s.orderId}` : ''),
    );
  describe();
  const outcomes = new Map<string, 'success' | 'canceled'>();
  // Returns carried across continue-as-new were started by an earlier run.
  const startedReturns = new Set<string>(input.carried?.returns.map((r) => r.id) ?? []);

  setHandler(
    attachIntentUpdate,
    async ({ paymentIntent }) => {
      if (s.status === 'reserving') {
        s.status = 'awaiting_payment';
        s.paymentIntent = paymentIntent;
        show();
        await persist();
      }
      return s.state();
    },
    {
      validator: ({ paymentIntent }) => {
        if (s.status === 'reserving' && !changed) return;
        if (s.paymentIntent === paymentIntent) return; // the same attach, repeated
        throw ApplicationFailure.nonRetryable(`This checkout is ${changed ? 'changed' : s.status}`, 'checkout_not_open');
      },
    },
  );
  setHandler(checkoutChangedSignal, () => {
    if (s.status === 'reserving') changed = true;
  });
  setHandler(intentOutcomeSignal, ({ paymentIntent, status }) => void outcomes.set(paymentIntent, status));
  setHandler(admitReturnUpdate, async (req) => {
    const known = s.returnsByKey.get(req.idempotencyKey);
    if (known) {
      await condition(() => startedReturns.has(known.id) || s.returnsByKey.get(req.idempotencyKey) !== known);
      const now = s.returnsByKey.get(req.idempotencyKey);
      if (now) {
        // Two requests with one key raced past the API's look-up: the other product's (quantity's, reason's)
        // request must not be answered with this return.
        if (!CheckoutRules.sameReturn(now, req) && patched(RETURN_KEY_SAME_REQUEST_PATCH))
          throw ApplicationFailure.nonRetryable('This idempotencyKey was used for another return of this order (another product, quantity or reason)', 'idempotency_key_in_use');
        await condition(() => startedReturns.has(now.id));
        return { ok: true, id: now.id, created: false };
      }
    }
    const id = typedIdFromUuid('ret', input.region, uuid4());
    const decision = s.admitReturn(req, id, Date.now());
    if (!decision.ok) return decision;
    const ret: ReturnInput = {
      id,
      tenantId: input.tenantId,
      region: input.region,
      orderId: s.orderId!,
      checkoutId: input.id,
      userId: input.userId,
      paymentIntent: s.paymentIntent!,
      productId: req.productId,
      quantity: req.quantity,
      amount: decision.amount,
      currency: input.currency,
      reasonCode: req.reasonCode,
      address: req.address,
      idempotencyKey: req.idempotencyKey,
      webhooks: req.webhooks,
      webhookTaskQueue: input.webhookTaskQueue,
      createdAt: new Date().toISOString(),
    };
    try {
      await store.createReturnRecord(ret);
      await startChild(returnWorkflow, {
        workflowId: id,
        args: [ret],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [
          { key: SA.TenantId, value: input.tenantId },
          { key: SA.AmountMinor, value: ret.amount },
          { key: SA.Currency, value: input.currency },
          { key: SA.PaymentIntentId, value: ret.paymentIntent },
        ],
        staticSummary: `Return of ${req.quantity} × ${plainText(req.productId)} from ${ret.orderId}`,
      });
    } catch (err) {
      s.undoReturn(req.idempotencyKey);
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof ApplicationFailure && cause.type === 'idempotency_key_in_use')
        throw ApplicationFailure.nonRetryable(cause.message, 'idempotency_key_in_use');
      throw err;
    }
    startedReturns.add(id);
    return { ok: true, id, created: true };
  });
  setHandler(returnEndedSignal, ({ returnId, rejected }) => s.returnEnded(returnId, rejected));
  setHandler(checkoutStateQuery, () => s.state());

  /** Tells each line's stock owner; a product whose owner never started (nothing held) is skipped. */
  const tellStock = async (signal: typeof releaseStockSignal | typeof commitStockSignal) => {
    for (const line of input.lines) {
      try {
        await getExternalWorkflowHandle(stockWorkflowId(line.productId)).signal(signal, { holder: input.id });
      } catch (err) {
        log.warn('the stock owner of a line could not be told', { productId: line.productId, error: String(err) });
      }
    }
  };

  /** Ends a checkout that was not paid: its held units are for sale again, and its record says why. */
  const endUnpaid = async (status: 'changed' | 'abandoned' | 'canceled') => {
    s.status = status;
    show();
    await tellStock(releaseStockSignal);
    await persist();
    await writer.flushed();
    return s.state();
  };

  if (!input.carried) {
    await condition(() => s.status !== 'reserving' || changed, input.attachWithinMs);
    if (s.status === 'reserving') return endUnpaid(changed ? 'changed' : 'abandoned');
  }
  if (s.status === 'awaiting_payment') {
    // The intent ends by its own deadline at the latest, and tells this workflow.
    await condition(() => outcomes.has(s.paymentIntent!));
    if (outcomes.get(s.paymentIntent!) === 'canceled') return endUnpaid('canceled');
    s.status = 'completed';
    s.paidAt = Date.now();
    s.orderId = typedIdFromUuid('ord', input.region, uuid4());
    show();
    await tellStock(commitStockSignal);
    await store.createOrder({ checkout: input, orderId: s.orderId, paymentIntent: s.paymentIntent!, createdAt: new Date().toISOString() });
    await store.markCartConverted({ tenantId: input.tenantId, cartId: input.cartId });
    await persist();
  }
  // Paid: the order takes returns for its window; the workflow continues as new when its history grows.
  while (!s.mayClose(Date.now())) {
    await condition(historyIsLong, Math.max(1, s.paidAt! + input.returnWindowMs - Date.now()));
    if (historyIsLong()) {
      await condition(allHandlersFinished);
      await writer.flushed();
      await continueAsNew<typeof checkoutWorkflow>({ ...input, carried: s.carry(writer.version()) });
    }
  }
  await condition(allHandlersFinished);
  await writer.flushed();
  return s.state();
}
