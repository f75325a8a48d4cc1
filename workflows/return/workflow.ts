import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, getExternalWorkflowHandle, log, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import { historyIsLong } from '../history';
import type { Activities } from '../../activities';
import { isFinal, nextReturnStatus, returnRefundFailure, wasReceived, type ReturnStatus } from '../../domain/returns';
import { addressObject } from '../../domain/addresses';
import { backoffMs } from '../../domain/polling';
import { emitEvent } from '../emit-event';
import { serialWriter } from '../serial-writer';
import { returnEndedSignal } from '../checkout/messages';
import { moveReturnUpdate, returnProgressQuery, returnRefundStartedUpdate, type RefundHandOver, type ReturnInput, type ReturnProgress } from './messages';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/** A received return's refund, started by the API's code (it waits on the payment intent's workflow). */
const refunds = proxyActivities<Activities>({ startToCloseTimeout: '2m', retry: { initialInterval: '5s', maximumInterval: '10m', maximumAttempts: 10 } });
/** How long a received return waits for the merchant's PUT to hand its refund over before starting it itself. */
const RECEIVED_REFUND_GRACE_MS = 5 * 60 * 1000;
/** Runs that start a received return's refund themselves when none was handed over; older runs only waited. */
const STARTS_OWN_REFUND_PATCH = 'return-starts-own-refund';
/**
 * Runs whose moves and refund hand-overs answer once every record write asked so far has landed. The API answers
 * from the record: a repeat answered at once showed the status before the move, and a move answered with a status
 * another Update had just set showed the one before it. Older runs answered without waiting for those writes.
 */
const ANSWERS_WRITTEN_PATCH = 'return-answers-written';
/** How often, at most, a received return asks how its refund stands (the refund settles within its SLA). */
const REFUND_POLL_CAP_MS = 60 * 60 * 1000;

/**
 * One workflow per return (its id is the `ret_` id), started by its order's checkout workflow. The merchant
 * moves it (requested -> approved -> received, or rejected.<reason>); once received and its refund admitted
 * (by the API, through the payment intent's refund admission), it waits for the refund to settle: refunded
 * or refund_failed. Every status change is written and sent to the tenant's commerce webhooks.
 */
export async function returnWorkflow(input: ReturnInput): Promise<ReturnProgress> {
  let status: ReturnStatus = input.carried?.status ?? 'requested';
  let refund: string | null = input.carried?.refund ?? null;
  /** Why its refund was refused, when it was (the webhook of its `refund_failed` says so). */
  let refused: { code: string; message?: string } | null = null;
  const writer = serialWriter(input.carried?.version ?? 1, store.saveReturn);
  const progress = (): ReturnProgress => ({ status, refund });
  /**
   * The answer to a move or a hand-over, whether it changed the return or not (the same one again, or sent
   * beside another): the return as it stands once every write asked so far has landed, so the record the API
   * then reads is the one the answer describes. Without the patch (a run recorded before it) it answers at
   * once, not even a promise later (a tick more could move the answer after commands a replayed history has
   * before it).
   */
  const answer = (): ReturnProgress | Promise<ReturnProgress> => (patched(ANSWERS_WRITTEN_PATCH) ? writer.flushed().then(progress) : progress());

  /** A status change: written, then sent to the tenant's return webhooks. */
  const changed = async () => {
    // The event describes the status this change made, whatever a later Update changes while it is sent.
    const now = new Date().toISOString();
    const type = returnEventType(status);
    const body = returnWebhookBody(input, status, refund, now, refused);
    await writer.write({ id: input.id, status, refund });
    await emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type,
      objectId: input.id,
      source: { kind: 'return', id: input.id },
      data: body,
      endpoints: input.webhooks,
      format: 'legacy',
      legacyBody: body,
    });
  };

  // requested: the record exists already; this sends the first webhook. Asked before the handlers exist, so an
  // Update delivered with the workflow's first task (an approval at once) cannot overtake it and skip it.
  const first = input.carried ? null : changed();
  setHandler(
    moveReturnUpdate,
    async ({ move, reason }) => {
      const next = nextReturnStatus(status, move, reason);
      if (!next.ok || next.status === status) return answer();
      status = next.status;
      await changed();
      return answer();
    },
    {
      validator: ({ move, reason }) => {
        const next = nextReturnStatus(status, move, reason);
        if (!next.ok) throw ApplicationFailure.nonRetryable(next.message, 'return_transition_invalid');
      },
    },
  );
  /** The refund of a received return handed over (by the merchant's PUT, or by this workflow itself). */
  const refundStarted = async (req: RefundHandOver) => {
    if (refund !== null || status !== 'received') return;
    if ('refusal' in req) {
      log.warn('the refund of a received return was refused', { refusal: req.refusal });
      // The refusal's own message, as GET /returns shows it (hand-overs from before it was sent carry the code only).
      refused = { code: req.refusal, ...(req.refusalMessage !== undefined ? { message: req.refusalMessage } : {}) };
      status = 'refund_failed';
      await changed();
    } else if (req.refund === null) {
      // Nothing was paid for it (a free product): no refund to wait for, it ends as any refunded return.
      status = 'refunded';
      await changed();
    } else {
      refund = req.refund;
      await writer.write({ id: input.id, status, refund });
    }
  };
  setHandler(
    returnRefundStartedUpdate,
    async (req) => {
      // Handed over already (by a PUT beside this one, or the workflow itself): nothing to do. answer() keeps it
      // synchronous in runs recorded before its patch, as the handler always was.
      if (refund !== null || status !== 'received') {
        // A refund made beside a refusal (the balance freed in between) is money out that this return will not
        // follow: an operator should look (logged only; no command, so replays are unchanged).
        if ('refund' in req && req.refund !== null && req.refund !== refund)
          log.error('a refund handed over to a return that ended without it; it is not followed', { return: input.id, refund: req.refund, status });
        return answer();
      }
      await refundStarted(req);
      return answer();
    },
    {
      validator: (req) => {
        // Ended by its refund already (refused, or settled): a hand-over beside it, answered with that end.
        if (!wasReceived(status)) throw ApplicationFailure.nonRetryable(`A return that is ${status} is not refunded`, 'return_transition_invalid');
        if ('refund' in req && req.refund === null && input.amount > 0)
          throw ApplicationFailure.nonRetryable(`A return of ${input.amount} cannot be refunded without a refund`, 'return_transition_invalid');
      },
    },
  );
  setHandler(returnProgressQuery, progress);

  await first;
  const refundHandedOver = () => isFinal(status) || refund !== null;
  if (patched(STARTS_OWN_REFUND_PATCH)) {
    // Received, and no refund handed over a while later (the PUT that received it died before it could): this
    // workflow starts the refund itself, under the same key, rather than staying received for good.
    while (!refundHandedOver()) {
      if (status !== 'received') await condition(() => refundHandedOver() || status === 'received');
      else if (!(await condition(refundHandedOver, RECEIVED_REFUND_GRACE_MS))) {
        try {
          await refundStarted(await refunds.startReturnRefund({ tenantId: input.tenantId, region: input.region, returnId: input.id }));
        } catch (err) {
          // Refused for good (its order or payment gone): the merchant's PUT may still hand one over; asked again later.
          log.warn('a received return could not start its refund itself; trying again later', { error: String(err) });
        }
      }
    }
  } else await condition(refundHandedOver);
  if (refund !== null) {
    // The refund's own workflow settles it within its SLA; ask its record with backoff.
    for (let checks = 0; ; checks++) {
      const state = await store.refundState({ tenantId: input.tenantId, refund });
      if (state === 'success' || state === 'canceled') {
        status = state === 'success' ? 'refunded' : 'refund_failed';
        await changed();
        break;
      }
      await sleep(backoffMs(checks, 1000, REFUND_POLL_CAP_MS));
      if (historyIsLong()) {
        await condition(allHandlersFinished);
        await writer.flushed();
        await continueAsNew<typeof returnWorkflow>({ ...input, carried: { status, refund, version: writer.version() } });
      }
    }
  }
  if (status.startsWith('rejected.')) {
    try {
      await getExternalWorkflowHandle(input.checkoutId).signal(returnEndedSignal, { returnId: input.id, rejected: true });
    } catch (err) {
      log.warn('the order no longer takes returns; nothing to give back', { error: String(err) });
    }
  }
  await condition(allHandlersFinished);
  await writer.flushed();
  return progress();
}

/** A status's event type: `return.<status>`, every rejection (`rejected.<reason>`) `return.rejected`. */
function returnEventType(status: ReturnStatus): string {
  return `return.${status.startsWith('rejected.') ? 'rejected' : status}`;
}

/**
 * The body of a return webhook: the Return object (camelCase, as GET /returns answers it, its address too) and
 * the event. Only the send activity's input holds it, so changing it needs no patch.
 */
export function returnWebhookBody(input: ReturnInput, status: ReturnStatus, refund: string | null, updatedAt: string, refused: { code: string; message?: string } | null = null): Record<string, unknown> {
  return {
    webhook_type: 'return',
    event: returnEventType(status),
    id: input.id,
    orderId: input.orderId,
    idempotencyKey: input.idempotencyKey,
    userId: input.userId,
    productId: input.productId,
    status,
    reasonCode: input.reasonCode,
    quantity: input.quantity,
    address: addressObject(input.address),
    amount: input.amount,
    currency: input.currency,
    refund,
    refundFailure: returnRefundFailure(status, refund, refused),
    updatedAt,
  };
}
