import { invalidRequest } from '../../domain/errors';
import type { Mongo } from '../../platform/mongo';
import type { ConnectorRecord, OrchestratorRecord, PaymentFormRecord, PaymentIntentRecord, PinKind } from '../../platform/records';
import { inCatalogOrder, type PaymentMethodName } from './catalog';
import { connectorData } from '../../data/connectors';
import { orchestratorData } from '../../data/orchestrators';
import { paymentFormData } from '../../data/payment-forms';

// Which connectors and payment methods a checkout may use. One function decides (a `Checkout`: connectors
// in order, failover, the form that narrows the methods, and the methods with the connectors that take
// each), and every caller asks it: the listing endpoints, intent creation, the hosted page and embedded
// form, and the attempts endpoint. So what a merchant lists is what its customers are offered, and what
// they are offered is what an attempt may use. The rules are pure functions over records; the async
// functions below only fetch the records, always scoped by tenant.
//
// When the checkout is decided (see README, "Which connectors pay an intent"):
// - an unpinned intent is paid through the tenant's checkout as it stands when the customer pays: a
//   connector added (or a default form or orchestrator made) after the intent was created is used, one no
//   longer live is not. The connectors stored on the intent at create only record the checkout of that time.
// - a pinned intent (v202608 payment_form, orchestrator or connector; and an older intent bound to a
//   gateway) keeps the connectors its pin resolved to at create, in their order, less any no longer live:
//   a pin never widens to a connector the merchant did not have behind it when it pinned, and never
//   charges through one it has switched off since.

export interface CheckoutPin {
  kind: PinKind;
  id: string;
}

/** The target of a pin as read from MongoDB: the record, if it exists and is the tenant's. */
export type PinTarget =
  | { kind: 'payment_form'; record: PaymentFormRecord }
  | { kind: 'orchestrator'; record: OrchestratorRecord }
  | { kind: 'connector'; record: ConnectorRecord };

/** What decides an unpinned checkout: the tenant's connectors, its live default form and live default orchestrator. */
export interface TenantCheckoutConfig {
  connectors: ConnectorRecord[];
  form: PaymentFormRecord | null;
  orchestrator: OrchestratorRecord | null;
}

export interface CheckoutMethod {
  name: PaymentMethodName;
  /** Connectors of the checkout that can take this method, in checkout order; the first is tried. */
  connectors: string[];
}

/** A checkout: what a payment may go through, and what the customer is offered. */
export interface Checkout {
  /** In the order they are tried. Only connectors that take an offered method: nothing else can be paid through. */
  connectors: string[];
  /** The connectors are an orchestrator's: an unavailable connector hands the attempt to the next one. */
  failover: boolean;
  /** The `pf_` form whose list narrows the methods; null when they come straight from connectors. */
  form: string | null;
  /** In display order. */
  methods: CheckoutMethod[];
}

/**
 * `ids` in their given order, each once, keeping only connectors of `tenantId` that are known (and live
 * when `liveOnly`). Order matters: an orchestrator tries its connectors in turn.
 */
export function usableConnectorIds(ids: readonly string[], connectors: readonly ConnectorRecord[], tenantId: string, liveOnly: boolean): string[] {
  const byId = new Map(connectors.filter((c) => c.tenant_id === tenantId && (!liveOnly || c.live)).map((c) => [c._id, c]));
  return [...new Set(ids)].filter((id) => byId.has(id));
}

/** The union of the connectors' methods, in catalogue order. */
export function methodsOfConnectors(connectors: readonly Pick<ConnectorRecord, 'payment_methods'>[]): PaymentMethodName[] {
  return inCatalogOrder(connectors.flatMap((c) => c.payment_methods));
}

/**
 * What a form offers over the given connectors: what they take, narrowed to the form's own list when it
 * has one. A method of the form's list that no connector takes is not offered (the customer could not
 * pay with it).
 */
export function methodsOfForm(form: Pick<PaymentFormRecord, 'payment_methods'>, formConnectors: readonly Pick<ConnectorRecord, 'payment_methods'>[]): PaymentMethodName[] {
  const offered = methodsOfConnectors(formConnectors);
  if (!form.payment_methods) return offered;
  const allowed = new Set(form.payment_methods);
  return offered.filter((name) => allowed.has(name));
}

/**
 * A live form only routes to live connectors (a production checkout never charges through a test
 * connector); a test form may use any of the tenant's connectors.
 */
export function formConnectorIds(form: PaymentFormRecord, connectors: readonly ConnectorRecord[]): string[] {
  return usableConnectorIds(form.connectors, connectors, form.tenant_id, form.live);
}

/**
 * The methods a checkout over `connectorIds` (in order) offers, narrowed to `form`'s list when it has
 * one, each with the connectors that take it.
 */
export function checkoutMethods(connectorIds: readonly string[], connectors: readonly ConnectorRecord[], form: Pick<PaymentFormRecord, 'payment_methods'> | null): CheckoutMethod[] {
  const byId = new Map(connectors.map((c) => [c._id, c]));
  const inOrder = connectorIds.map((id) => byId.get(id)).filter((c): c is ConnectorRecord => c !== undefined);
  return methodsOfForm(form ?? { payment_methods: null }, inOrder).map((name) => ({
    name,
    connectors: inOrder.filter((c) => c.payment_methods.includes(name)).map((c) => c._id),
  }));
}

/** The checkout over `ids` (already filtered for tenant and liveness), keeping the connectors that take an offered method. */
export function checkoutOver(ids: readonly string[], connectors: readonly ConnectorRecord[], form: PaymentFormRecord | null, failover: boolean): Checkout {
  const methods = checkoutMethods(ids, connectors, form);
  const used = new Set(methods.flatMap((m) => m.connectors));
  return { connectors: ids.filter((id) => used.has(id)), failover, form: form?._id ?? null, methods };
}

/** A form's checkout: its (live, for a live form) connectors, narrowed to its list. */
export function formCheckout(form: PaymentFormRecord, connectors: readonly ConnectorRecord[]): Checkout {
  return checkoutOver(formConnectorIds(form, connectors), connectors, form, false);
}

/** An orchestrator's checkout: its live connectors in its order, with failover. */
export function orchestratorCheckout(orchestrator: OrchestratorRecord, connectors: readonly ConnectorRecord[]): Checkout {
  return checkoutOver(usableConnectorIds(orchestrator.connectors, connectors, orchestrator.tenant_id, true), connectors, null, true);
}

/** Every live connector of the tenant, oldest first (a stable order). */
export function liveConnectorsCheckout(connectors: readonly ConnectorRecord[], tenantId: string): Checkout {
  const ids = connectors
    .filter((c) => c.tenant_id === tenantId && c.live)
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a._id.localeCompare(b._id))
    .map((c) => c._id);
  return checkoutOver(ids, connectors, null, false);
}

/**
 * An unpinned checkout, the first of these that has a usable connector: the tenant's live default
 * orchestrator (its live connectors, failing over; methods straight from them), its live default form
 * (its live connectors that take a method of its list), else every live connector (`form` null).
 */
export function unpinnedCheckout(config: TenantCheckoutConfig, tenantId: string): Checkout {
  const { orchestrator, form, connectors } = config;
  if (orchestrator && orchestrator.live && orchestrator.tenant_id === tenantId) {
    const checkout = orchestratorCheckout(orchestrator, connectors);
    if (checkout.connectors.length > 0) return checkout;
  }
  if (form && form.live && form.tenant_id === tenantId) {
    const checkout = formCheckout(form, connectors);
    if (checkout.connectors.length > 0) return checkout;
  }
  return liveConnectorsCheckout(connectors, tenantId);
}


/** The message is the same whether the target is unknown or another tenant's: ids of others are not confirmed. */
export function pinInvalid(pin: CheckoutPin) {
  return invalidRequest('pin_invalid', `No live ${pin.kind} ${pin.id} for this merchant`, pin.kind);
}

/**
 * A pinned checkout at create. The target must be the tenant's and live, else `pin_invalid`. A pinned
 * checkout with no usable live connector behind it is refused too: an intent nobody can pay would only expire.
 */
export function pinnedCheckout(pin: CheckoutPin, target: PinTarget | null, tenantConnectors: readonly ConnectorRecord[], tenantId: string): Checkout {
  if (!target || target.kind !== pin.kind || target.record._id !== pin.id || target.record.tenant_id !== tenantId || !target.record.live)
    throw pinInvalid(pin);
  let checkout: Checkout;
  if (target.kind === 'payment_form') checkout = formCheckout(target.record, tenantConnectors);
  else if (target.kind === 'orchestrator') checkout = orchestratorCheckout(target.record, tenantConnectors);
  else {
    // The record just read wins over a cached list that may predate it.
    const connectors = [target.record, ...tenantConnectors.filter((c) => c._id !== target.record._id)];
    checkout = checkoutOver([target.record._id], connectors, null, false);
  }
  if (checkout.connectors.length === 0) throw pinInvalid(pin);
  return checkout;
}


type IntentRouting = Pick<PaymentIntentRecord, 'tenant_id' | 'connectors' | 'failover' | 'pin' | 'gateway'>;

/** Pinned on v202608, or bound to a gateway by the older create: its checkout was fixed at create. */
export function isBound(intent: Pick<PaymentIntentRecord, 'pin' | 'gateway'>): boolean {
  return intent.pin != null || !!intent.gateway;
}

/**
 * A bound intent's checkout when it is paid: the connectors it was created with, in their order, less
 * those no longer live, narrowed by its pinned form's list (`pinnedForm`: that form's record, null when
 * it is not found, which leaves nothing to offer).
 */
export function boundCheckout(intent: IntentRouting, pinnedForm: PaymentFormRecord | null, tenantConnectors: readonly ConnectorRecord[]): Checkout {
  const formPin = intent.pin?.kind === 'payment_form' ? intent.pin.id : null;
  if (formPin && pinnedForm?._id !== formPin) return { connectors: [], failover: false, form: formPin, methods: [] };
  const ids = usableConnectorIds(intent.connectors, tenantConnectors, intent.tenant_id, true);
  return checkoutOver(ids, tenantConnectors, formPin ? pinnedForm : null, intent.failover === true);
}

/** An intent's checkout when it is shown or paid: unpinned, the tenant's as it stands now; bound, see boundCheckout. */
export function intentCheckoutOf(intent: IntentRouting, config: TenantCheckoutConfig, pinnedForm: PaymentFormRecord | null): Checkout {
  return isBound(intent) ? boundCheckout(intent, pinnedForm, config.connectors) : unpinnedCheckout(config, intent.tenant_id);
}

/**
 * What the API vouches for with a customer's attempt: the connector to try first (the one the customer
 * named, else the checkout's first), the checkout's connectors as they stand (in order), and whether it
 * fails over along them.
 */
export interface AttemptRouting {
  connector: string;
  connectors: string[];
  failover: boolean;
}

/**
 * The routing of an attempt, or the refusal the workflow would give (same codes and messages): a named
 * connector must be one of the checkout's now, and a checkout without connectors takes no attempt.
 */
export function attemptRouting(checkout: CheckoutRouting, requested: string | undefined): AttemptRouting {
  if (requested !== undefined && !checkout.connectors.includes(requested))
    throw invalidRequest('connector_not_allowed', 'This connector cannot be used for this payment intent', 'connector');
  const [first] = checkout.connectors;
  if (first === undefined) throw invalidRequest('no_connector', 'The merchant has no live connector');
  return { connector: requested ?? first, connectors: [...checkout.connectors], failover: checkout.failover };
}

/**
 * The form methods no connector of the form takes, by index in `methods` (the admin API refuses such a
 * form: its checkout could never offer them). Liveness is not considered: it changes over time.
 */
export function unsupportedFormMethods(methods: readonly string[], formConnectors: readonly Pick<ConnectorRecord, 'payment_methods'>[]): number[] {
  const supported = new Set(formConnectors.flatMap((c) => c.payment_methods));
  return methods.flatMap((name, i) => (supported.has(name) ? [] : [i]));
}

// ---- MongoDB lookups ----------------------------------------------------------------------------------

/**
 * A tenant's checkout configuration (connectors, default form, default orchestrator) changes rarely and is
 * read on every intent create, page view and attempt: keep it a few seconds. Admin changes in this process
 * drop the entry at once (forgetCheckoutConfig); other API processes see them within CHECKOUT_CONFIG_CACHE_MS.
 */
export const CHECKOUT_CONFIG_CACHE_MS = 5000;
const checkoutConfigCache = new Map<string, { at: number; value: Promise<TenantCheckoutConfig> }>();

export function forgetCheckoutConfig(tenantId: string): void {
  checkoutConfigCache.delete(tenantId);
}

function checkoutConfig(mongo: Mongo, tenantId: string): Promise<TenantCheckoutConfig> {
  const hit = checkoutConfigCache.get(tenantId);
  if (hit && Date.now() - hit.at < CHECKOUT_CONFIG_CACHE_MS) return hit.value;
  const value = Promise.all([
    connectorData(mongo).ofTenant(tenantId),
    paymentFormData(mongo).liveDefault(tenantId),
    orchestratorData(mongo).liveDefault(tenantId),
  ]).then(([connectors, form, orchestrator]) => ({ connectors, form, orchestrator }));
  if (checkoutConfigCache.size > 10_000) checkoutConfigCache.clear();
  checkoutConfigCache.set(tenantId, { at: Date.now(), value });
  value.catch(() => checkoutConfigCache.delete(tenantId)); // a failed read is not remembered
  return value;
}

async function pinTarget(mongo: Mongo, tenantId: string, pin: CheckoutPin): Promise<PinTarget | null> {
  switch (pin.kind) {
    case 'payment_form': {
      const record = await paymentFormData(mongo).find(tenantId, pin.id);
      return record ? { kind: 'payment_form', record } : null;
    }
    case 'orchestrator': {
      const record = await orchestratorData(mongo).find(tenantId, pin.id);
      return record ? { kind: 'orchestrator', record } : null;
    }
    case 'connector': {
      const record = await connectorData(mongo).find(tenantId, pin.id);
      return record ? { kind: 'connector', record } : null;
    }
  }
}

/** How a new intent routes its payment: its connectors in order, and whether an attempt fails over along them. */
export type CheckoutRouting = Pick<Checkout, 'connectors' | 'failover'>;

/**
 * The checkout of a new intent, stored on it at create. Pinned: the pin's checkout, or `pin_invalid`; this
 * is what the intent keeps. Unpinned: the tenant's checkout of the moment, for the record only (it is
 * decided again when the intent is shown and paid).
 */
export async function resolveCheckoutRouting(mongo: Mongo, tenantId: string, pin: CheckoutPin | null): Promise<CheckoutRouting> {
  // On the create path every round trip shows in latency: cached config, and the pin read beside it.
  if (pin) {
    const [{ connectors }, target] = await Promise.all([checkoutConfig(mongo, tenantId), pinTarget(mongo, tenantId, pin)]);
    return pinnedCheckout(pin, target, connectors, tenantId);
  }
  return unpinnedCheckout(await checkoutConfig(mongo, tenantId), tenantId);
}

export interface MethodListing {
  /** The form the methods come from; null when they were derived from connectors directly. */
  paymentForm: string | null;
  methods: PaymentMethodName[];
}

const listingOf = (checkout: Checkout): MethodListing => ({ paymentForm: checkout.form, methods: checkout.methods.map((m) => m.name) });

/** GET /payment-methods: what the hosted page offers an unpinned intent now. */
export async function tenantPaymentMethods(mongo: Mongo, tenantId: string): Promise<MethodListing> {
  return listingOf(unpinnedCheckout(await checkoutConfig(mongo, tenantId), tenantId));
}

/**
 * GET /payment-methods/:payment_form: what the form's checkout offers now (for a live form, what an intent
 * pinned to it is offered). Null when the form is unknown or not the tenant's (the caller 404s).
 */
export async function formPaymentMethods(mongo: Mongo, tenantId: string, formId: string): Promise<MethodListing | null> {
  const [form, config] = await Promise.all([paymentFormData(mongo).find(tenantId, formId), checkoutConfig(mongo, tenantId)]);
  if (!form) return null;
  return listingOf(formCheckout(form, config.connectors));
}

/** An intent's checkout now (hosted page, embedded form, attempts), with the tenant's connector records. */
export async function intentCheckout(mongo: Mongo, intent: IntentRouting): Promise<{ checkout: Checkout; connectors: ConnectorRecord[] }> {
  const [config, pinnedForm] = await Promise.all([
    checkoutConfig(mongo, intent.tenant_id),
    intent.pin?.kind === 'payment_form' ? paymentFormData(mongo).find(intent.tenant_id, intent.pin.id) : Promise.resolve(null),
  ]);
  return { checkout: intentCheckoutOf(intent, config, pinnedForm), connectors: config.connectors };
}
