import { serviceIntentKey } from '../../domain/intent-keys';
import { conflict, DomainError, invalidRequest, notFound } from '../../domain/errors';
import { taxOn, type CommerceRates } from '../../domain/commerce-totals';
import { DEFAULT_TIMEOUT_SECONDS } from '../../domain/payment-intent';
import { MAX_AMOUNT } from '../../domain/money';
import { plainText } from '../../domain/operator-text';
import { newId } from '../../platform/ids';
import type { AddressSnapshot, CartRecord, CheckoutLineRecord, CheckoutRecord, OrderRecord, ReturnRecord } from '../../platform/records';
import { isFinal } from '../../domain/returns';
import { paymentIntentData } from '../../data/payment-intents';
import { addressData, sameAddress } from '../../data/addresses';
import { cartData, cartProducts, type CartProduct } from '../../data/carts';
import { checkoutData, orderData, returnData } from '../../data/checkouts';
import { attachIntentUpdate, CHECKOUT_WORKFLOW, checkoutChangedSignal, type CheckoutInput } from '../../workflows/checkout/messages';
import type { AppDeps, AuthContext } from '../deps';
import { commerceRates, newCartRecord, retainOrTakeBack, savedAddressNamed } from '../carts/service';
import { addressSnapshot, addressView, cartLineView, linesTotals, payableTotals } from '../carts/views';
import { holdLines } from '../commerce/stock';
import { intentPageUrl } from '../hosted/client-secret';
import { runUpdate } from '../http/workflow-calls';
import { cancelPaymentIntent, insertAndStart, newIntentRecord } from '../payment-intents/service';
import { refundableLeft } from '../refunds/service';
import { isDuplicateKeyError } from '../../platform/mongo';
import { resolveCheckoutRouting } from '../payment-methods/resolve';
import { START_DEADLINE_MS, workflowExistence } from '../../platform/temporal';
import { RETURN_REASONS, type CheckoutCreateBody } from './schemas';
import { SA } from '../../workflows/search-attributes';

/** How long a checkout's workflow waits for its payment intent before it lets the held stock go. */
const ATTACH_WITHIN_MS = 2 * 60 * 1000;
/** How long after payment an order takes returns. */
export const RETURN_WINDOW_MS = 30 * 24 * 3600 * 1000;

type Difference = { productId: string; quantityChange: number; newQuantity: number; priceChange: number; newPrice: number };

const lineView = (l: CheckoutLineRecord) => ({ id: l.product_id, title: l.title, quantity: l.quantity, unitPrice: l.unit_price, lineTotal: l.unit_price * l.quantity });

/** How many times POST /checkouts reads the cart again when it was edited between its read and its claim. */
const CHECKOUT_ATTEMPTS = 2;
const CART_CHANGED = Symbol('cart changed');

/**
 * POST /checkouts. Everything that can refuse it is checked first (cart, total, address). Then its record
 * claims the cart (its one open checkout, of the contents read: a cart edited since it was read is read again),
 * its workflow is started (it owns whatever stock gets held for it from then on), each line's units are held
 * with the product's stock owner, and live prices are compared: any change releases the holds and answers
 * `cartChanges` with a new cart; otherwise the payment intent is made and attached to the workflow.
 */
export async function createCheckout(deps: AppDeps, auth: AuthContext, body: CheckoutCreateBody) {
  for (let attempt = 1; ; attempt++) {
    const made = await checkoutOnce(deps, auth, body);
    if (made !== CART_CHANGED) return made;
    if (attempt === CHECKOUT_ATTEMPTS) throw conflict('cart_changed', 'The cart kept changing while it was being checked out; check it out again');
  }
}

/** One attempt of POST /checkouts; CART_CHANGED when the cart was edited since it was read (its record taken back, nothing held). */
async function checkoutOnce(deps: AppDeps, auth: AuthContext, body: CheckoutCreateBody) {
  const cart = await cartData(deps.mongo).find(auth.tenantId, body.cartId);
  if (!cart) throw notFound('cart', body.cartId, 'cartId');
  if (cart.status !== 'open') throw conflict('cart_converted', 'This cart was checked out and paid already');
  if (cart.products.length === 0) throw invalidRequest('cart_empty', 'The cart has no products: set them with POST /cart first', 'cartId');

  const [products, rates] = await Promise.all([cartProducts(deps.mongo, auth.tenantId, cart.products.map((l) => l.product_id)), commerceRates(deps, auth.tenantId)]);
  const live = new Map(products.map((p) => [p._id, p]));
  const lines: CheckoutLineRecord[] = cart.products.map((l) => ({
    product_id: l.product_id,
    quantity: l.quantity,
    unit_price: live.get(l.product_id)?.price ?? l.unit_price,
    title: live.get(l.product_id)?.title ?? { en: l.product_id, ar: l.product_id },
  }));
  // Live prices, tax and shipping can take a cart past what a payment can take (or past what numbers hold):
  // refused before anything is held or saved, as an edit of the cart would be.
  const totals = payableTotals(lines, rates, true);
  if (!totals)
    throw invalidRequest('cart_total_too_large', `This checkout's total (with tax and shipping) would exceed ${MAX_AMOUNT}, the largest amount a payment can take`, 'cartId');
  // No payment can take 0 (the gateways refuse it), so nothing would ever end such a checkout but the
  // intent's expiry, its units held until then: refused before anything is held or saved.
  if (totals.total <= 0)
    throw invalidRequest('checkout_total_zero', 'This checkout would total 0 (free products, no tax or shipping) and a payment must be above 0; nothing was held', 'cartId');
  // A checkout already open for this cart is answered before a new address is saved: a refused request saves none.
  const open = await checkoutData(deps.mongo).openOfCart(auth.tenantId, cart._id);
  if (open) return openCheckoutAnswer(deps, auth, cart._id, body.shippingAddress, open);
  const address = await shippingAddress(deps, auth, cart, body.shippingAddress);
  const id = newId('chk', auth.region);
  const now = new Date();
  const record: CheckoutRecord = {
    _id: id,
    tenant_id: auth.tenantId,
    cart_id: cart._id,
    user_id: cart.user_id,
    currency: cart.currency,
    lines,
    totals,
    tax_rate_basis_points: rates.taxRateBasisPoints,
    shipping_address: address,
    payment_intent: null,
    status: 'reserving',
    open_scope: cart._id,
    order_id: null,
    created_at: now,
    updated_at: now,
    version: 0,
  };
  try {
    await checkoutData(deps.mongo).insert(record);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return openCheckoutAnswer(deps, auth, cart._id, body.shippingAddress);
  }
  // With the record standing, POST /cart refuses; an edit that landed since the cart was read has made these
  // lines stale: the record goes (no workflow owns it yet) and the new contents are checked out instead.
  if (!(await cartData(deps.mongo).claimForCheckout(auth.tenantId, cart._id, cart.updated_at))) {
    await checkoutData(deps.mongo).takeBack(id).catch(() => undefined);
    return CART_CHANGED;
  }
  try {
    await startCheckoutWorkflow(deps, record, auth.region);
  } catch (err) {
    // Not started: the cart's one open checkout goes, so a retry can check it out. In doubt (Temporal did
    // not answer) it stays: a workflow may own it, and the stranded-records sweep decides later.
    if ((await workflowExistence(deps.temporal, id)) === false) await checkoutData(deps.mongo).takeBack(id).catch(() => undefined);
    throw err;
  }

  const handle = deps.temporal.workflow.getHandle(id);
  // The checkout lets its cart and what it holds go now (it would after ATTACH_WITHIN_MS): one that cannot reach
  // payment must not keep the cart locked (409 checkout_in_progress) and its units from other shoppers. Its
  // workflow may have ended already (its window passed): then there is nothing to tell.
  const letGo = () => handle.signal(checkoutChangedSignal).catch(() => undefined);

  // The workflow stops waiting ATTACH_WITHIN_MS after it starts, as the Temporal server's clock has it: the stock
  // owners compare the deadline with that clock, and the API's may be minutes off it.
  const startedAt = await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () => handle.describe()).then(
    (d) => d.startTime.getTime(),
    async (err: unknown) => {
      await letGo();
      throw err;
    },
  );
  const holdableUntil = startedAt + ATTACH_WITHIN_MS;
  const held = await holdLines(deps, auth.tenantId, id, cart.products.map((l) => ({ productId: l.product_id, quantity: l.quantity })), holdableUntil).catch(async (err: unknown) => {
    await letGo();
    throw err;
  });
  // A reserve refused though enough is for sale came past the checkout's window (a backlog, or the API's clock):
  // nothing is held for it, so it must not reach payment, nor be shown as a change of the cart.
  if (cart.products.some((l) => live.has(l.product_id) && lateRefusal(l.quantity, held.get(l.product_id)))) {
    await letGo();
    throw new DomainError('unavailable', 'service_unavailable', 'The stock could not be held in time; check the cart out again in a moment');
  }
  const differences = cart.products.flatMap((l): Difference[] => {
    const product = live.get(l.product_id);
    const hold = held.get(l.product_id);
    const newQuantity = product ? offeredQuantity(l.quantity, hold) : 0;
    const newPrice = product?.price ?? l.unit_price;
    return newQuantity !== l.quantity || newPrice !== l.unit_price
      ? [{ productId: l.product_id, quantityChange: newQuantity - l.quantity, newQuantity, priceChange: newPrice - l.unit_price, newPrice }]
      : [];
  });
  if (differences.length > 0) {
    // Whatever was held goes back: the workflow releases it (and would on its own, after ATTACH_WITHIN_MS).
    await letGo();
    return { status: 200, body: await changedAnswer(deps, auth, cart, live, differences, rates, id) };
  }

  const intent = await checkoutIntent(deps, auth, record).catch(async (err: unknown) => {
    await letGo();
    throw err;
  });
  try {
    await runUpdate(
      deps,
      () => handle.executeUpdate(attachIntentUpdate, { args: [{ paymentIntent: intent }] }),
      () => new DomainError('conflict', 'checkout_not_open', 'This checkout ended before its payment intent was made; check the cart out again'),
    );
  } catch (err) {
    // The checkout let its stock go: an intent nobody will turn into an order must not stay payable.
    if (err instanceof DomainError && err.kind === 'conflict') await cancelPaymentIntent(deps, auth.tenantId, intent).catch(() => undefined);
    throw err;
  }
  return {
    status: 201,
    body: { checkoutId: id, status: 'awaiting_payment' as const, totals, payment_intent: intent, url: intentPageUrl(intent, deps.config) },
  };
}

/**
 * A repeated POST /checkouts of a cart with an open checkout: that checkout, once it has its payment intent,
 * only if it was made of the cart's contents as they are (POST /cart refuses while it is open, but a checkout
 * made before that rule may be of older contents) and to the same shipping address (409 otherwise). `read`:
 * the open checkout when the caller has read it already.
 */
async function openCheckoutAnswer(deps: AppDeps, auth: AuthContext, cartId: string, given: CheckoutCreateBody['shippingAddress'], read?: CheckoutRecord) {
  const open = read ?? (await checkoutData(deps.mongo).openOfCart(auth.tenantId, cartId));
  if (open?.status === 'completed') throw conflict('cart_converted', 'This cart was checked out and paid already');
  if (!open?.payment_intent) {
    // Being started, or a start that died without an answer (a 503): the stranded-record sweep takes that back once it
    // is STRANDED_AFTER_SECONDS old, at its next run, and the same request then checks the cart out afresh.
    const minutes = Math.ceil(deps.config.STRANDED_AFTER_SECONDS / 60);
    throw conflict(
      'checkout_in_progress',
      `This cart is being checked out${open ? ` (${open._id})` : ''}; retry in a moment. If that checkout's start failed (a 503), it is taken back once it is ${minutes} minutes old, at the next run of the stranded-record sweep, and this request then checks the cart out afresh`,
    );
  }
  // The cart as it is now: the one this request read may predate an edit the open checkout was made after.
  const cart = await cartData(deps.mongo).find(auth.tenantId, cartId);
  if (!cart) throw notFound('cart', cartId, 'cartId');
  if (!sameContents(open.lines, cart.products))
    throw conflict('checkout_in_progress', `This cart's open checkout '${open._id}' was made of other contents; it must be paid or end (its payment intent canceled or expired) first`);
  // Its order ships to the address it was made with: another one would be silently dropped.
  if (!sameShippingAddress(open.shipping_address, given))
    throw conflict('checkout_in_progress', `This cart's open checkout '${open._id}' ships to another address; it must be paid or end (its payment intent canceled or expired) first`);
  return {
    status: 200,
    body: { checkoutId: open._id, status: open.status, totals: open.totals, payment_intent: open.payment_intent, url: intentPageUrl(open.payment_intent, deps.config) },
  };
}

/**
 * What a checkout can offer of a cart line: all of it when held; otherwise what is available, never more than
 * was asked for (a reserve refused for coming late answers all there is for sale); nothing without an answer.
 */
export function offeredQuantity(asked: number, hold: { ok: boolean; available: number } | undefined): number {
  if (!hold) return 0;
  return hold.ok ? asked : Math.min(hold.available, asked);
}

/** A reserve its owner refused with enough for sale: refused for coming late, not for the quantity. */
export function lateRefusal(asked: number, hold: { ok: boolean; available: number } | undefined): boolean {
  return hold !== undefined && !hold.ok && hold.available >= asked;
}

/** The address a checkout was made with, asked for again: the same saved one by id, or the same fields. */
function sameShippingAddress(made: AddressSnapshot, given: CheckoutCreateBody['shippingAddress']): boolean {
  return 'id' in given ? made._id === given.id : sameAddress(made, given);
}

/** The same products in the same quantities, line for line (prices may differ: a checkout takes live ones). */
function sameContents(checkout: readonly CheckoutLineRecord[], cart: CartRecord['products']): boolean {
  return checkout.length === cart.length && checkout.every((l, i) => l.product_id === cart[i]!.product_id && l.quantity === cart[i]!.quantity);
}

/** `{id}` of the user's saved address, or a full one, saved for the user (the same fields are not saved twice). */
async function shippingAddress(deps: AppDeps, auth: AuthContext, cart: CartRecord, given: CheckoutCreateBody['shippingAddress']): Promise<AddressSnapshot> {
  const addresses = addressData(deps.mongo);
  if ('id' in given) return addressSnapshot(await savedAddressNamed(deps, auth.tenantId, cart.user_id, given, 'shippingAddress'));
  return addressSnapshot(await addresses.save(auth.tenantId, auth.region, cart.user_id, given, { reuseIdentical: true }));
}

async function startCheckoutWorkflow(deps: AppDeps, r: CheckoutRecord, region: string): Promise<void> {
  const input: CheckoutInput = {
    id: r._id,
    tenantId: r.tenant_id,
    region,
    cartId: r.cart_id,
    userId: r.user_id,
    currency: r.currency,
    lines: r.lines.map((l) => ({ productId: l.product_id, quantity: l.quantity, unitPrice: l.unit_price, title: l.title })),
    totals: r.totals,
    taxRateBasisPoints: r.tax_rate_basis_points,
    shippingAddress: r.shipping_address,
    createdAt: r.created_at.toISOString(),
    attachWithinMs: ATTACH_WITHIN_MS,
    returnWindowMs: RETURN_WINDOW_MS,
    webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
  };
  await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    deps.temporal.workflow.start(CHECKOUT_WORKFLOW, {
      workflowId: r._id,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      // The status while it holds stock (reserving, awaiting_payment) is the runbook's "checkouts holding stock" query.
      typedSearchAttributes: [
        { key: SA.TenantId, value: r.tenant_id },
        { key: SA.PaymentStatus, value: 'reserving' },
        { key: SA.AmountMinor, value: r.totals.total },
        { key: SA.Currency, value: r.currency },
      ],
      staticSummary: `Checkout of ${r.cart_id} for ${plainText(r.user_id)} (${r.tenant_id})`,
    }),
  );
}

/**
 * The checkout's payment intent (v202607 shapes: its hosted page and the attempts endpoint pay it), told to
 * report its end to the checkout's workflow. Its idempotency key is the checkout's, so it is made once.
 */
async function checkoutIntent(deps: AppDeps, auth: AuthContext, checkout: CheckoutRecord): Promise<string> {
  const { connectors, failover } = await resolveCheckoutRouting(deps.mongo, auth.tenantId, null);
  const record = await newIntentRecord(deps, auth, {
    amount: checkout.totals.total,
    currency: checkout.currency,
    customer: null,
    metadata: { checkout: checkout._id, cart: checkout.cart_id, user: checkout.user_id.slice(0, 500) },
    webhooks: [],
    return_url: null,
    pin: null,
    connectors,
    ...(failover ? { failover } : {}),
    timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
    idempotency_key: serviceIntentKey.ofCheckout(checkout._id),
    api_version: 'v202607',
    owner: checkout._id,
  });
  const made = await insertAndStart(deps, auth, record, { webhooks: [], customer: null });
  return made.record._id;
}

/** The cart as it can be bought now: a new cart (with its retention) holding what is in stock at live prices. */
async function changedAnswer(
  deps: AppDeps,
  auth: AuthContext,
  cart: CartRecord,
  live: ReadonlyMap<string, CartProduct>,
  differences: Difference[],
  rates: CommerceRates,
  checkoutId: string,
) {
  const byProduct = new Map(differences.map((d) => [d.productId, d]));
  const lines = cart.products
    .map((l) => {
      const d = byProduct.get(l.product_id);
      return { product_id: l.product_id, quantity: d ? d.newQuantity : l.quantity, unit_price: d ? d.newPrice : l.unit_price };
    })
    .filter((l) => l.quantity > 0);
  const newCart = newCartRecord(auth, cart.user_id, cart.currency, null, lines);
  await cartData(deps.mongo).insert(newCart);
  await retainOrTakeBack(deps, newCart);
  const quantity = differences.some((d) => d.quantityChange !== 0);
  const prices = differences.some((d) => d.priceChange !== 0);
  return {
    checkoutId,
    status: 'changed' as const,
    totals: linesTotals(lines, rates, true),
    cartChanges: {
      type: quantity && prices ? ('price_and_quantity' as const) : quantity ? ('quantity' as const) : ('prices' as const),
      newCart: { cartId: newCart._id, products: lines.map((l) => cartLineView(l, live.get(l.product_id))), currency: newCart.currency, totals: linesTotals(lines, rates, false) },
      differences,
    },
  };
}

export async function getCheckout(deps: AppDeps, tenantId: string, id: string) {
  const r = await checkoutData(deps.mongo).find(tenantId, id);
  if (!r) throw notFound('checkout', id, 'checkoutId');
  return {
    checkoutId: r._id,
    status: r.status,
    cartId: r.cart_id,
    userId: r.user_id,
    currency: r.currency,
    products: r.lines.map(lineView),
    totals: r.totals,
    shippingAddress: addressView(r.shipping_address),
    payment_intent: r.payment_intent,
    url: r.payment_intent ? intentPageUrl(r.payment_intent, deps.config) : null,
    orderId: r.order_id,
    createdAt: r.created_at.toISOString(),
  };
}

export async function findOrder(deps: AppDeps, tenantId: string, id: string, param = 'orderId'): Promise<OrderRecord> {
  const order = await orderData(deps.mongo).find(tenantId, id);
  if (!order) throw notFound('order', id, param);
  return order;
}

/**
 * What of an order's payment its returns can still refund: the payment's refundable balance, as its intent's
 * workflow counts it (refunds made or pending, through returns or not), or its record when that cannot answer,
 * less the amounts of open returns whose refund has not started yet. A payment refunded outside returns
 * (POST /refunds) leaves less, or nothing.
 */
export async function refundableForReturns(deps: AppDeps, order: OrderRecord, returns: readonly ReturnRecord[]): Promise<number> {
  const left = await refundableLeft(deps, order.payment_intent, () => paymentIntentData(deps.mongo).findByRef(order.tenant_id, order.payment_intent));
  const promised = returns.filter((r) => !isFinal(r.status) && r.refund === null).reduce((n, r) => n + r.amount, 0);
  return Math.max(0, left - promised);
}

/** What a return of `quantity` units of a line pays back: the units at the price paid and their tax. */
export function returnRefundOf(unitPrice: number, quantity: number, taxRateBasisPoints: number): number {
  const net = unitPrice * quantity;
  return net + taxOn(net, taxRateBasisPoints);
}

/**
 * How many units of a line can still be returned: ordered minus returns not rejected (open ones count), and no
 * more than the money left for returns pays back, tax included (`refundable`; a free line is not bound by it).
 */
export function returnableQuantity(
  line: Pick<CheckoutLineRecord, 'product_id' | 'quantity' | 'unit_price'>,
  returns: readonly ReturnRecord[],
  refundable: number,
  taxRateBasisPoints: number,
): number {
  const returned = returns.filter((r) => r.product_id === line.product_id && !r.status.startsWith('rejected.')).reduce((n, r) => n + r.quantity, 0);
  let can = Math.max(0, line.quantity - returned);
  if (line.unit_price > 0) while (can > 0 && returnRefundOf(line.unit_price, can, taxRateBasisPoints) > refundable) can -= 1;
  return can;
}

/** GET /orders/{orderId}: the order and what of it can still be returned (open returns count, and money refunded outside returns). */
export async function getOrder(deps: AppDeps, tenantId: string, id: string) {
  const order = await findOrder(deps, tenantId, id);
  const returns = await returnData(deps.mongo).ofOrder(tenantId, id);
  const windowOpen = Date.now() < order.created_at.getTime() + RETURN_WINDOW_MS;
  const refundable = windowOpen ? await refundableForReturns(deps, order, returns) : 0;
  return {
    orderId: order._id,
    checkoutId: order.checkout_id,
    userId: order.user_id,
    status: order.status,
    payment_intent: order.payment_intent,
    currency: order.currency,
    products: order.lines.map(lineView),
    totals: order.totals,
    shippingAddress: addressView(order.shipping_address),
    returnableProducts: order.lines.map((l) => ({
      productId: l.product_id,
      returnableQuantity: windowOpen ? returnableQuantity(l, returns, refundable, order.tax_rate_basis_points) : 0,
      returnableReasons: [...RETURN_REASONS],
    })),
    createdAt: order.created_at.toISOString(),
  };
}
