import { nextReturnStatus, returnRefundFailure } from '../../domain/returns';
import { conflict, DomainError, invalidRequest, notFound } from '../../domain/errors';
import { DEFAULT_REFUND_SLA_SECONDS, serviceRefundKey } from '../../domain/refund';
import { pageList } from '../../data/page-list';
import { parsePageQuery, type PageListSpec } from '../../domain/page-query';
import { newId } from '../../platform/ids';
import type { AddressSnapshot, OrderRecord, ReturnRecord } from '../../platform/records';
import { storedAddressFields } from '../../data/addresses';
import { orderData, returnData } from '../../data/checkouts';
import { commerceSettingsData } from '../../data/commerce-settings';
import { admitReturnUpdate } from '../../workflows/checkout/messages';
import { moveReturnUpdate, returnRefundStartedUpdate, type RefundHandOver } from '../../workflows/return/messages';
import { tenantAuth, type AppDeps, type AuthContext } from '../deps';
import { addressSnapshot, addressView } from '../carts/views';
import { savedAddressNamed } from '../carts/service';
import { endpointRefs, planWebhookEndpoints } from '../events/endpoints';
import { runUpdate } from '../http/workflow-calls';
import { admitRefund } from '../refunds/service';
import { getPaymentIntent } from '../payment-intents/service';
import { findOrder, refundableForReturns, returnableQuantity, returnRefundOf } from '../checkouts/service';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../catalog/query';
import { pagination } from '../catalog/views';
import type { ReturnCreateBody, ReturnMoveBody } from './schemas';

/** A Return object of the spec, from its record (the order gives its product's title). */
export function returnView(r: ReturnRecord, order?: OrderRecord | null) {
  const line = order?.lines.find((l) => l.product_id === r.product_id);
  return {
    id: r._id,
    orderId: r.order_id,
    idempotencyKey: r.idempotency_key,
    userId: r.user_id,
    productId: r.product_id,
    product: line ? { id: line.product_id, title: line.title } : null,
    status: r.status,
    reasonCode: r.reason_code,
    quantity: r.quantity,
    address: addressView(r.address),
    amount: r.amount,
    currency: r.currency,
    refund: r.refund,
    refundFailure: returnRefundFailure(r.status, r.refund, r.refund_refusal ?? null),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}


/** The collection address: one of the user's saved addresses, or the given one, kept with the return only. */
async function collectionAddress(deps: AppDeps, auth: AuthContext, order: OrderRecord, given: ReturnCreateBody['address']): Promise<AddressSnapshot> {
  if ('id' in given) return addressSnapshot(await savedAddressNamed(deps, auth.tenantId, order.user_id, given, 'address'));
  return { _id: newId('addr', auth.region), ...storedAddressFields(given) };
}

/**
 * POST /returns. The order's workflow (its checkout's) owns what can still be returned: its Update checks
 * the quantity against the order and every return not rejected, and starts the return's workflow, one at
 * a time. A known idempotencyKey answers its return.
 */
export async function createReturn(deps: AppDeps, auth: AuthContext, body: ReturnCreateBody) {
  const returns = returnData(deps.mongo);
  const known = await returns.byIdempotencyKey(auth.tenantId, body.idempotencyKey);
  if (known) {
    // Another order, product, quantity or reason: the merchant would take a return that does not exist for one
    // that does.
    if (known.order_id !== body.orderId || known.product_id !== body.productId || known.quantity !== body.quantity || known.reason_code !== body.reasonCode)
      throw invalidRequest('idempotency_key_in_use', 'This idempotencyKey was used for another return (another order, product, quantity or reason)', 'idempotencyKey');
    return { status: 200, body: { id: known._id } };
  }
  const order = await findOrder(deps, auth.tenantId, body.orderId);
  await refuseWhatCannotBeRefunded(deps, order, body);
  const address = await collectionAddress(deps, auth, order, body.address);
  const settings = await commerceSettingsData(deps.mongo).find(auth.tenantId);
  const admission = await runUpdate(
    deps,
    () =>
      deps.temporal.workflow.getHandle(order.checkout_id).executeUpdate(admitReturnUpdate, {
        args: [
          {
            idempotencyKey: body.idempotencyKey,
            productId: body.productId,
            quantity: body.quantity,
            reasonCode: body.reasonCode,
            address,
            webhooks: endpointRefs(settings?.webhook_urls ?? []),
          },
        ],
      }),
    () => invalidRequest('return_window_closed', 'The return window of this order has closed', 'orderId'),
  ).catch((err: unknown) => {
    if (err instanceof DomainError && err.code === 'idempotency_key_in_use') throw invalidRequest(err.code, err.message, 'idempotencyKey');
    throw err;
  });
  if (!admission.ok) {
    const param = admission.code === 'return_quantity_exceeded' ? 'quantity' : admission.code === 'product_not_in_order' ? 'productId' : 'orderId';
    throw invalidRequest(admission.code, admission.message, param);
  }
  return { status: 200, body: { id: admission.id } };
}

/**
 * A return whose units, at the price paid and with their tax, are more than what of the order's payment is left to refund (refunded
 * outside returns, through POST /refunds, or promised to open returns) is refused as more than is returnable: its
 * refund would be refused when it is received. The order's `returnableQuantity` counts the same. The refund's own
 * admission stays the guard (a refund made between this check and then still ends the return `refund_failed`,
 * with its reason).
 */
async function refuseWhatCannotBeRefunded(deps: AppDeps, order: OrderRecord, body: ReturnCreateBody): Promise<void> {
  const line = order.lines.find((l) => l.product_id === body.productId);
  if (!line || line.unit_price === 0) return; // a product not in the order: the order's workflow says so
  const returns = await returnData(deps.mongo).ofOrder(order.tenant_id, order._id);
  const refundable = await refundableForReturns(deps, order, returns);
  if (returnRefundOf(line.unit_price, body.quantity, order.tax_rate_basis_points) <= refundable) return;
  const can = returnableQuantity(line, returns, refundable, order.tax_rate_basis_points);
  throw invalidRequest(
    'return_quantity_exceeded',
    refundable === 0
      ? `Nothing of this order's payment is left to refund (it was refunded outside returns, or open returns will take the rest): no unit can be returned`
      : `Only ${refundable} of this order's payment is left to refund (the rest was refunded outside returns, or open returns will take it): at most ${can} of product '${body.productId}' can be returned (asked for ${body.quantity})`,
    'quantity',
  );
}

async function returnOr404(deps: AppDeps, tenantId: string, id: string): Promise<ReturnRecord> {
  const r = await returnData(deps.mongo).find(tenantId, id);
  if (!r) throw notFound('return', id, 'id');
  return r;
}

/**
 * The refund of a received return, as its workflow is told of it: admitted against the order's payment intent
 * (idempotency key `return:<id>`, so a repeated PUT makes one refund), refused (`refusal`), or none at all
 * when the return's amount is 0 (a free product: the refund check refuses a refund of 0).
 */
async function refundOfReturn(deps: AppDeps, auth: AuthContext, r: ReturnRecord): Promise<RefundHandOver> {
  if (r.amount === 0) return { refund: null };
  const order = await findOrder(deps, auth.tenantId, r.order_id);
  const intent = await getPaymentIntent(deps, auth.tenantId, order.payment_intent);
  try {
    const admitted = await admitRefund(
      deps,
      intent,
      {
        amount: r.amount,
        currency: r.currency,
        idempotencyKey: serviceRefundKey.ofReturn(r._id),
        slaSeconds: DEFAULT_REFUND_SLA_SECONDS,
        webhooks: () => planWebhookEndpoints(auth.tenantId, auth.region, [], deps.config),
      },
      { intent: 'payment_intent', idempotencyKey: 'idempotency_key', older: false },
    );
    return { refund: admitted.record._id };
  } catch (err) {
    // The payment can no longer cover it (refunded elsewhere): the return ends refund_failed, not stuck, and its
    // record keeps why (written before its workflow is told, which then writes refund_failed).
    if (!(err instanceof DomainError && err.code.startsWith('REFUND_'))) throw err;
    await returnData(deps.mongo).recordRefundRefusal(auth.tenantId, r._id, { code: err.code, message: err.message });
    return { refusal: err.code, refusalMessage: err.message };
  }
}

/**
 * The refund of a return its workflow found received with no refund handed over (the PUT that received it died
 * before it could): the same admission, under the same key, so a PUT doing it at the same time makes one refund.
 * Run by the worker for the return's workflow, which applies the answer itself.
 */
export async function startReturnRefund(deps: AppDeps, req: { tenantId: string; region: string; returnId: string }): Promise<RefundHandOver> {
  const r = await returnOr404(deps, req.tenantId, req.returnId);
  return refundOfReturn(deps, tenantAuth(req.tenantId, req.region), r);
}

/**
 * PUT /returns/{id}: the merchant's move. `received` also refunds it (refundOfReturn), and hands the refund to
 * the return's workflow, which becomes `refunded` when the refund settles (at once when there is none). The
 * answer is the record, read once the workflow has answered: it answers a move, or the same move repeated
 * (beside it or after it), only once its writes have landed.
 */
export async function moveReturn(deps: AppDeps, auth: AuthContext, id: string, body: ReturnMoveBody) {
  const r = await returnOr404(deps, auth.tenantId, id);
  if (body.status === 'rejected' && !body.reason) throw invalidRequest('parameter_missing', 'A rejection needs a reason', 'reason');
  const handle = deps.temporal.workflow.getHandle(id);
  const wanted = body.status === 'rejected' ? `rejected.${body.reason}` : body.status;
  const progress = await runUpdate(
    deps,
    () => handle.executeUpdate(moveReturnUpdate, { args: [{ move: body.status, ...(body.reason ? { reason: body.reason } : {}) }] }),
    async () => {
      // The return has ended: the same move again answers it, anything else is too late. Read again: it may
      // have ended since `r` was read (its workflow writes its end before it closes).
      const ended = await returnOr404(deps, auth.tenantId, id);
      const same = nextReturnStatus(ended.status, body.status, body.reason);
      if (same.ok && same.status === ended.status) return { status: ended.status, refund: ended.refund };
      throw conflict('return_transition_invalid', `A return that is ${ended.status} cannot become ${wanted}`);
    },
  ).catch((err: unknown) => {
    if (err instanceof DomainError && err.code === 'return_transition_invalid') throw conflict(err.code, err.message);
    throw err;
  });
  if (progress.status === 'received' && progress.refund === null) {
    const outcome = await refundOfReturn(deps, auth, r);
    await runUpdate(
      deps,
      () => handle.executeUpdate(returnRefundStartedUpdate, { args: [outcome] }),
      async () => {
        // Closed: a PUT beside this one handed its refund over and the refund ended it (refused, or a free
        // product's): this receipt answers that end.
        const ended = await returnOr404(deps, auth.tenantId, id);
        if (ended.status === 'refunded' || ended.status === 'refund_failed') return { status: ended.status, refund: ended.refund };
        throw conflict('return_transition_invalid', 'The return ended before its refund was recorded');
      },
    );
  }
  const [now, order] = await Promise.all([returnOr404(deps, auth.tenantId, id), findOrder(deps, auth.tenantId, r.order_id).catch(() => null)]);
  return { status: 200, body: returnView(now, order) };
}

export const RETURN_LIST: PageListSpec = {
  filterable: {
    userId: { type: 'string', column: 'user_id' },
    idempotencyKey: { type: 'string', column: 'idempotency_key' },
    status: { type: 'string' },
    id: { type: 'string', column: '_id' },
    amount: { type: 'integer' },
  },
  sortable: { createdAt: 'created_at', amount: 'amount' },
  defaultSort: ['createdAt', 'DESC'],
};

/** `$in:[a, b]` as the commerce endpoints write lists (spaces after commas too), read as the list language's `$in:a,b`. */
function unbracket(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unbracket);
  if (typeof value !== 'string') return value;
  const m = /^((?:\$not:)?\$(?:in|btw)):\[(.*)\]$/.exec(value);
  return m ? `${m[1]}:${m[2]!.split(',').map((v) => v.trim()).join(',')}` : value;
}

/** GET /returns: page-numbered with `page` and `perPage` (default 20, at most 100), `{returns, pagination}`. */
export async function listReturns(deps: AppDeps, tenantId: string, raw: Record<string, unknown>) {
  const { perPage, ...rest } = raw;
  if ('limit' in rest) throw invalidRequest('parameter_unknown', 'Received unknown parameter: limit (this list pages with perPage)', 'limit');
  let limit = DEFAULT_PER_PAGE;
  if (perPage !== undefined) {
    const n = typeof perPage === 'string' && /^\d{1,4}$/.test(perPage) ? Number(perPage) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_PER_PAGE) throw invalidRequest('parameter_invalid', `perPage must be a whole number from 1 to ${MAX_PER_PAGE}`, 'perPage');
    limit = n;
  }
  const query = parsePageQuery(Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, unbracket(v)])), RETURN_LIST);
  const page = await pageList(returnData(deps.mongo).collection(), { tenant_id: tenantId }, { ...query, limit }, '/returns', RETURN_LIST);
  // Each return's product as its order sold it (the spec's Return carries `product`).
  const orders = new Map((await orderData(deps.mongo).findMany(tenantId, [...new Set(page.data.map((r) => r.order_id))])).map((o) => [o._id, o]));
  return {
    returns: page.data.map((r) => returnView(r, orders.get(r.order_id))),
    pagination: pagination(page.meta.totalItems, page.meta.currentPage, limit),
  };
}
