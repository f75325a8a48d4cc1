import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { settingsOrDefault, type CommerceRates } from '../../domain/commerce-totals';
import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { MAX_AMOUNT } from '../../domain/money';
import { addressData, sameAddress, type AddressInput } from '../../data/addresses';
import { cartData, cartProducts, type CartProduct } from '../../data/carts';
import { checkoutData } from '../../data/checkouts';
import { commerceSettingsData } from '../../data/commerce-settings';
import { idempotencyScope, insertOrHolder } from '../../data/idempotency';
import { newId } from '../../platform/ids';
import type { AddressRecord, CartLineRecord, CartRecord } from '../../platform/records';
import { START_DEADLINE_MS, workflowExistence } from '../../platform/temporal';
import { CART_RETENTION_MONTHS, CART_RETENTION_WORKFLOW, cartRetentionWorkflowId, retentionDueMs, type CartRetentionInput } from '../../workflows/cart-retention/messages';
import type { cartRetentionWorkflow } from '../../workflows/cart-retention/workflow';
import { SA } from '../../workflows/search-attributes';
import type { AppDeps, AuthContext } from '../deps';
import type { AddressCreateBody, CartCreateBody, CartSetBody } from './schemas';
import { addressView, cartView, payableTotals } from './views';

// Carts: created with a retention (a workflow that deletes the cart 6 months on unless a checkout converted
// it), filled by replacing their contents at live prices, read back. Everything that can refuse a request
// is decided by reads before its one write.

/** A tenant's tax and shipping rates (the defaults when it never set them). */
/**
 * The user's saved address an `{id}` names (404-like 400 naming `param` when the user has none). A full Address
 * object with its id must carry that address's fields: a changed field is a 400, not a silent choice of one.
 */
export async function savedAddressNamed(deps: AppDeps, tenantId: string, userId: string, given: { id: string } & Partial<AddressInput>, param: string): Promise<AddressRecord> {
  const saved = await addressData(deps.mongo).find(tenantId, userId, given.id);
  if (!saved) throw invalidRequest('resource_missing', `No such address of this user: '${given.id}'`, `${param}[id]`);
  if (given.phone !== undefined && !sameAddress(saved, given as AddressInput))
    throw invalidRequest('parameter_invalid', `These fields are not those of saved address '${given.id}': give {id} alone for it, or the fields without id for another`, param);
  return saved;
}

export async function commerceRates(deps: AppDeps, tenantId: string): Promise<CommerceRates> {
  return settingsOrDefault(await commerceSettingsData(deps.mongo).find(tenantId));
}

function retentionInput(deps: AppDeps, cart: CartRecord): CartRetentionInput {
  const seconds = deps.config.CART_RETENTION_SECONDS;
  return { cartId: cart._id, tenantId: cart.tenant_id, createdAt: cart.created_at.toISOString(), ...(seconds !== undefined ? { retentionSeconds: seconds } : { retentionMonths: CART_RETENTION_MONTHS }) };
}

/**
 * Starts the cart's retention, or finds it: one workflow per cart (`retention:<cartId>`), so a repeated or
 * concurrent create attaches to the running one, and one that has already acted (a converted cart it kept) is
 * never started again.
 */
export async function ensureRetention(deps: AppDeps, cart: CartRecord): Promise<void> {
  const input = retentionInput(deps, cart);
  try {
    await deps.temporal.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start<typeof cartRetentionWorkflow>(CART_RETENTION_WORKFLOW, {
        workflowId: cartRetentionWorkflowId(cart._id),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA.TenantId, value: cart.tenant_id },
          { key: SA.ExpiresAt, value: new Date(retentionDueMs(input)) },
        ],
        staticSummary: `Retention of cart ${cart._id} (${cart.tenant_id})`,
      }),
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return; // it ran already: the cart was kept
    throw err;
  }
}

/**
 * Starts a just-inserted cart's retention; when it surely did not start, the cart is taken back (it would never
 * be deleted) and the error thrown. A start that timed out on our side may have happened: then the cart stands.
 */
export async function retainOrTakeBack(deps: AppDeps, cart: CartRecord): Promise<void> {
  try {
    await ensureRetention(deps, cart);
  } catch (err) {
    if (!(await retentionExists(deps, cart._id))) {
      await cartData(deps.mongo).takeBack(cart.tenant_id, cart._id).catch(() => undefined);
      throw err;
    }
  }
}

/** Whether the server has the cart's retention; unknown (Temporal unreachable) counts as no. */
async function retentionExists(deps: AppDeps, cartId: string): Promise<boolean> {
  return (await workflowExistence(deps.temporal, cartRetentionWorkflowId(cartId))) === true;
}

async function createAnswer(deps: AppDeps, cart: CartRecord, status: 200 | 201) {
  const addresses = await addressData(deps.mongo).ofUser(cart.tenant_id, cart.user_id);
  return { status, body: { cartId: cart._id, customerAddresses: addresses.map(addressView) } };
}

/** A new open cart's record (the create, and a checkout's `newCart` after cartChanges). */
export function newCartRecord(auth: AuthContext, userId: string, currency: string, key: string | null, products: CartLineRecord[]): CartRecord {
  const id = newId('cart', auth.region);
  const now = new Date();
  return {
    _id: id,
    tenant_id: auth.tenantId,
    user_id: userId,
    currency,
    idempotency_key: key,
    idempotency_scope: idempotencyScope(auth.tenantId, key, id),
    products,
    status: 'open',
    created_at: now,
    updated_at: now,
  };
}

/**
 * POST /commerce/cart: 201 with a new cart; 200 with the cart a repeated idempotencyKey made (its retention
 * started if its first creator died before starting it), 400 `idempotency_key_in_use` when that cart is
 * another user's or in another currency. The insert is the guard: concurrent creates with one key make one
 * cart. A cart whose retention cannot be started is taken back (503), so none lives forever.
 */
export async function createCart(deps: AppDeps, auth: AuthContext, body: CartCreateBody) {
  const carts = cartData(deps.mongo);
  const key = body.idempotencyKey ?? null;
  const repeated = async (cart: CartRecord) => {
    // The answer lists the user's saved addresses: a key must not hand one user's cart to another.
    if (cart.user_id !== body.userId || cart.currency !== body.currency)
      throw invalidRequest('idempotency_key_in_use', 'This idempotencyKey was used for a cart of another user or currency', 'idempotencyKey');
    await ensureRetention(deps, cart);
    return createAnswer(deps, cart, 200);
  };
  if (key) {
    const existing = await carts.byIdempotencyKey(auth.tenantId, key);
    if (existing) return repeated(existing);
  }
  const cart = newCartRecord(auth, body.userId, body.currency, key, []);
  const winner = await insertOrHolder(
    () => carts.insert(cart),
    () => (key ? carts.byIdempotencyKey(auth.tenantId, key) : Promise.resolve(null)),
  );
  if (winner) return repeated(winner);
  await retainOrTakeBack(deps, cart);
  return createAnswer(deps, cart, 201);
}

async function cartOr404(deps: AppDeps, tenantId: string, cartId: string): Promise<CartRecord> {
  const cart = await cartData(deps.mongo).find(tenantId, cartId);
  if (!cart) throw notFound('cart', cartId, 'cartId');
  return cart;
}

const byId = (products: CartProduct[]) => new Map(products.map((p) => [p._id, p]));

/**
 * GET /cart/{cartId}: the lines at the prices they were set at, live titles and images, totals at today's rates,
 * and whether a checkout holds it (`checkout_in_progress`, its `checkoutId`).
 */
export async function getCart(deps: AppDeps, tenantId: string, cartId: string) {
  const cart = await cartOr404(deps, tenantId, cartId);
  const [products, rates, checkout] = await Promise.all([
    cartProducts(deps.mongo, tenantId, [...new Set(cart.products.map((l) => l.product_id))]),
    commerceRates(deps, tenantId),
    checkoutData(deps.mongo).openOfCart(tenantId, cart._id),
  ]);
  return cartView(cart, byId(products), rates, checkout);
}

const convertedConflict = (cartId: string) =>
  conflict('cart_converted', `Cart '${cartId}' was converted into an order and can no longer change; create a new cart`);

/**
 * Refuses a change to a cart with an open checkout (`reserving` or `awaiting_payment`): the checkout was
 * priced and held for these contents, and its payment must buy exactly them.
 */
async function refuseWhileCheckingOut(deps: AppDeps, cart: CartRecord): Promise<void> {
  const open = await checkoutData(deps.mongo).openOfCart(cart.tenant_id, cart._id);
  if (!open) return;
  if (open.status === 'completed') throw convertedConflict(cart._id);
  throw conflict(
    'checkout_in_progress',
    `Cart '${cart._id}' is being checked out (checkout '${open._id}'); its contents can change once that checkout ends unpaid (its payment intent canceled or expired), or never if it is paid`,
  );
}

/** How many times POST /cart reads the cart again when another request changed it between its read and its write. */
const EDIT_ATTEMPTS = 5;

/**
 * The lines of POST /cart at live prices, or the 400 that names the first product refused (in the order
 * given): listed twice, unknown to this tenant, in another currency, quantity below 1 or above its stock.
 */
export function priceLines(requested: CartSetBody['products'], live: ReadonlyMap<string, CartProduct>, currency: string): CartLineRecord[] {
  const firstIndex = new Map<string, number>();
  return requested.map(({ id, quantity }, i) => {
    const seen = firstIndex.get(id);
    if (seen !== undefined)
      throw invalidRequest('product_duplicate', `Product '${id}' is listed twice (products[${seen}] and products[${i}]); list each product once with its whole quantity`, `products[${i}][id]`);
    firstIndex.set(id, i);
    const p = live.get(id);
    if (!p) throw invalidRequest('product_unknown', `No such product: '${id}'`, `products[${i}][id]`);
    if (p.currency !== currency)
      throw invalidRequest('product_currency_mismatch', `Product '${id}' is priced in ${p.currency}; this cart is in ${currency}`, `products[${i}][id]`);
    if (quantity < 1)
      throw invalidRequest('quantity_invalid', `The quantity of product '${id}' must be at least 1 (got ${quantity}); leave a product out to remove it`, `products[${i}][quantity]`);
    if (quantity > p.stock)
      throw invalidRequest(
        'quantity_above_stock',
        p.stock <= 0 ? `Product '${id}' is out of stock` : `Only ${p.stock} of product '${id}' in stock (asked for ${quantity})`,
        `products[${i}][quantity]`,
      );
    return { product_id: id, quantity, unit_price: p.price };
  });
}

/**
 * POST /cart: replaces the contents whole, each line at the product's live price (kept on the line: a
 * checkout compares it with the price then). Refused (400) before anything is written; a converted cart, or
 * one with an open checkout, is a 409, another tenant's (or a deleted) cart a 404. The write applies only
 * to the cart as read, so a checkout that claims the cart in between makes it read again (and refuse).
 */
export async function setCartContents(deps: AppDeps, auth: AuthContext, body: CartSetBody) {
  const carts = cartData(deps.mongo);
  let cart = await cartOr404(deps, auth.tenantId, body.cartId);
  if (cart.status !== 'open') throw convertedConflict(cart._id);
  await refuseWhileCheckingOut(deps, cart);
  const [products, rates] = await Promise.all([
    cartProducts(deps.mongo, auth.tenantId, [...new Set(body.products.map((l) => l.id))]),
    commerceRates(deps, auth.tenantId),
  ]);
  const live = byId(products);
  const lines = priceLines(body.products, live, cart.currency);
  if (!payableTotals(lines, rates, false)) throw invalidRequest('cart_total_too_large', `The cart's total would exceed ${MAX_AMOUNT}, the largest amount a payment can take`, 'products');
  for (let attempt = 1; ; attempt++) {
    const updated = await carts.replaceContents(auth.tenantId, cart._id, lines, cart.updated_at);
    if (updated) return cartView(updated, live, rates);
    // Changed since it was read: converted, deleted by its retention, claimed by a checkout, or set by
    // another POST /cart (then this one replaces that, as it would have a moment later).
    const now = await carts.find(auth.tenantId, cart._id);
    if (!now) throw notFound('cart', cart._id, 'cartId');
    if (now.status !== 'open') throw convertedConflict(cart._id);
    await refuseWhileCheckingOut(deps, now);
    if (attempt === EDIT_ATTEMPTS) throw conflict('cart_changed', `Cart '${cart._id}' kept changing under other requests; send its contents again`);
    cart = now;
  }
}

/** POST /commerce/addresses: saves an address for the user; a later cart lists it in `customerAddresses`. */
export async function createAddress(deps: AppDeps, auth: AuthContext, body: AddressCreateBody) {
  const { userId, ...address } = body;
  const saved = await addressData(deps.mongo).save(auth.tenantId, auth.region, userId, address);
  return addressView(saved);
}
