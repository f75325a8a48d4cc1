import { invalidRequest } from '../../domain/errors';
import type { Mongo } from '../../platform/mongo';
import type { ConnectorRecord, OrchestratorRecord, PaymentFormRecord, PaymentIntentRecord, PinKind } from '../../platform/records';
import { inCatalogOrder, type PaymentMethodName } from './catalog';
import { connectorData } from '../../data/connectors';
import { orchestratorData } from '../../data/orchestrators';
import { paymentFormData } from '../../data/payment-forms';

// Which connectors and payment methods a checkout may use. One set of rules serves the listing endpoints,
// intent creation (which freezes the connector list on the intent) and the hosted page, so what a merchant
// lists is what its customers see. The rules are pure functions over records; the async functions below
// only fetch the records, always scoped by tenant.

export interface CheckoutPin {
  kind: PinKind;
  id: string;
}

/** The target of a pin as read from MongoDB: the record, if it exists and is the tenant's. */
export type PinTarget =
  | { kind: 'payment_form'; record: PaymentFormRecord }
  | { kind: 'orchestrator'; record: OrchestratorRecord }
  | { kind: 'connector'; record: ConnectorRecord };

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

/** A form's own list when it has one, else what its connectors offer. */
export function methodsOfForm(form: Pick<PaymentFormRecord, 'payment_methods'>, formConnectors: readonly Pick<ConnectorRecord, 'payment_methods'>[]): PaymentMethodName[] {
  return form.payment_methods ? inCatalogOrder(form.payment_methods) : methodsOfConnectors(formConnectors);
}

/**
 * A live form only routes to live connectors (a production checkout never charges through a test
 * connector); a test form may use any of the tenant's connectors.
 */
export function formConnectorIds(form: PaymentFormRecord, connectors: readonly ConnectorRecord[]): string[] {
  return usableConnectorIds(form.connectors, connectors, form.tenant_id, form.live);
}

/** The message is the same whether the target is unknown or another tenant's: ids of others are not confirmed. */
export function pinInvalid(pin: CheckoutPin) {
  return invalidRequest('pin_invalid', `No live ${pin.kind} ${pin.id} for this merchant`, pin.kind);
}

/**
 * Connectors of a pinned checkout. The target must be the tenant's and live, else `pin_invalid`.
 * A pinned checkout with no live connector left behind it is refused too: an intent nobody can pay would
 * only expire.
 */
export function pinnedConnectorIds(pin: CheckoutPin, target: PinTarget | null, tenantConnectors: readonly ConnectorRecord[], tenantId: string): string[] {
  if (!target || target.kind !== pin.kind || target.record._id !== pin.id || target.record.tenant_id !== tenantId || !target.record.live)
    throw pinInvalid(pin);
  const ids = target.kind === 'connector' ? [target.record._id] : usableConnectorIds(target.record.connectors, tenantConnectors, tenantId, true);
  if (ids.length === 0) throw pinInvalid(pin);
  return ids;
}

/** Unpinned: the default live form's connectors, else every live connector (oldest first, a stable order). */
export function defaultConnectorIds(defaultForm: PaymentFormRecord | null, tenantConnectors: readonly ConnectorRecord[], tenantId: string): string[] {
  if (defaultForm) {
    const ids = formConnectorIds(defaultForm, tenantConnectors);
    if (ids.length > 0) return ids;
  }
  return [...tenantConnectors]
    .filter((c) => c.tenant_id === tenantId && c.live)
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a._id.localeCompare(b._id))
    .map((c) => c._id);
}

export interface CheckoutMethod {
  name: PaymentMethodName;
  /** Connectors of the checkout that can take this method, in checkout order; the first is tried. */
  connectors: string[];
}

/**
 * What the hosted page offers for an intent: the methods of its connectors (frozen at create), narrowed
 * to the applicable form's own list when it has one. A method no connector can take is not offered.
 */
export function checkoutMethods(connectorIds: readonly string[], connectors: readonly ConnectorRecord[], form: Pick<PaymentFormRecord, 'payment_methods'> | null): CheckoutMethod[] {
  const byId = new Map(connectors.map((c) => [c._id, c]));
  const inOrder = connectorIds.map((id) => byId.get(id)).filter((c): c is ConnectorRecord => c !== undefined);
  const allowed = form?.payment_methods ? new Set(inCatalogOrder(form.payment_methods)) : null;
  return methodsOfConnectors(inOrder)
    .filter((name) => !allowed || allowed.has(name))
    .map((name) => ({ name, connectors: inOrder.filter((c) => c.payment_methods.includes(name)).map((c) => c._id) }));
}

// ---- MongoDB lookups ----------------------------------------------------------------------------------

/**
 * A tenant's checkout configuration (connectors, default form) changes rarely and is read on every intent
 * create: keep it a few seconds. Admin changes in this process drop the entry at once (forgetCheckoutConfig);
 * other API processes see them within CHECKOUT_CONFIG_CACHE_MS.
 */
export const CHECKOUT_CONFIG_CACHE_MS = 5000;
type CheckoutConfig = { connectors: ConnectorRecord[]; form: PaymentFormRecord | null; orchestrator: OrchestratorRecord | null };
const checkoutConfigCache = new Map<string, { at: number; value: Promise<CheckoutConfig> }>();

export function forgetCheckoutConfig(tenantId: string): void {
  checkoutConfigCache.delete(tenantId);
}

function checkoutConfig(mongo: Mongo, tenantId: string) {
  const hit = checkoutConfigCache.get(tenantId);
  if (hit && Date.now() - hit.at < CHECKOUT_CONFIG_CACHE_MS) return hit.value;
  const value = Promise.all([tenantConnectors(mongo, tenantId), defaultForm(mongo, tenantId), orchestratorData(mongo).liveDefault(tenantId)]).then(
    ([connectors, form, orchestrator]) => ({ connectors, form, orchestrator }),
  );
  if (checkoutConfigCache.size > 10_000) checkoutConfigCache.clear();
  checkoutConfigCache.set(tenantId, { at: Date.now(), value });
  value.catch(() => checkoutConfigCache.delete(tenantId)); // a failed read is not remembered
  return value;
}

async function tenantConnectors(mongo: Mongo, tenantId: string): Promise<ConnectorRecord[]> {
  return connectorData(mongo).ofTenant(tenantId);
}

async function defaultForm(mongo: Mongo, tenantId: string): Promise<PaymentFormRecord | null> {
  return paymentFormData(mongo).liveDefault(tenantId);
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
export interface CheckoutRouting {
  connectors: string[];
  /** The connectors are an orchestrator's: an unavailable connector hands the attempt to the next one. */
  failover: boolean;
}

/**
 * The connectors a new intent may use, frozen on it at create. Pinned: the target's live connectors (in
 * an orchestrator's order, with failover), or `pin_invalid`. Unpinned: the tenant's default orchestrator's
 * live connectors (with failover), else the default form's, else all live connectors.
 */
export async function resolveCheckoutRouting(mongo: Mongo, tenantId: string, pin: CheckoutPin | null): Promise<CheckoutRouting> {
  // On the create path every round trip shows in latency: cached config, and the pin read beside it.
  if (pin) {
    const [{ connectors }, target] = await Promise.all([checkoutConfig(mongo, tenantId), pinTarget(mongo, tenantId, pin)]);
    return { connectors: pinnedConnectorIds(pin, target, connectors, tenantId), failover: pin.kind === 'orchestrator' };
  }
  const { connectors, form, orchestrator } = await checkoutConfig(mongo, tenantId);
  const orchestrated = orchestrator ? usableConnectorIds(orchestrator.connectors, connectors, tenantId, true) : [];
  if (orchestrated.length > 0) return { connectors: orchestrated, failover: true };
  return { connectors: defaultConnectorIds(form, connectors, tenantId), failover: false };
}

export interface MethodListing {
  /** The form the methods come from; null when they were derived from the live connectors directly. */
  paymentForm: string | null;
  methods: PaymentMethodName[];
}

/** GET /payment-methods: the default live form's methods, else those of the tenant's live connectors. */
export async function tenantPaymentMethods(mongo: Mongo, tenantId: string): Promise<MethodListing> {
  const [form, connectors] = await Promise.all([defaultForm(mongo, tenantId), tenantConnectors(mongo, tenantId)]);
  if (form) return { paymentForm: form._id, methods: methodsOfForm(form, pick(connectors, formConnectorIds(form, connectors))) };
  return { paymentForm: null, methods: methodsOfConnectors(connectors.filter((c) => c.live)) };
}

/** GET /payment-methods/:payment_form: null when the form is unknown or not the tenant's (the caller 404s). */
export async function formPaymentMethods(mongo: Mongo, tenantId: string, formId: string): Promise<MethodListing | null> {
  const form = await paymentFormData(mongo).find(tenantId, formId);
  if (!form) return null;
  const connectors = await tenantConnectors(mongo, tenantId);
  return { paymentForm: form._id, methods: methodsOfForm(form, pick(connectors, formConnectorIds(form, connectors))) };
}

/**
 * The methods the hosted page offers for an intent. The form that narrows them is the pinned one, or for
 * an unpinned intent the tenant's default form; an orchestrator or connector pin shows what its
 * connectors take.
 */
export async function intentCheckoutMethods(
  mongo: Mongo,
  intent: Pick<PaymentIntentRecord, 'tenant_id' | 'connectors' | 'pin'>,
): Promise<{ methods: CheckoutMethod[]; connectors: ConnectorRecord[] }> {
  const [connectors, form] = await Promise.all([
    connectorData(mongo).some(intent.tenant_id, intent.connectors),
    intent.pin?.kind === 'payment_form'
      ? paymentFormData(mongo).find(intent.tenant_id, intent.pin.id)
      : intent.pin
        ? Promise.resolve(null)
        : defaultForm(mongo, intent.tenant_id),
  ]);
  return { methods: checkoutMethods(intent.connectors, connectors, form), connectors };
}

function pick(connectors: readonly ConnectorRecord[], ids: readonly string[]): ConnectorRecord[] {
  const byId = new Map(connectors.map((c) => [c._id, c]));
  return ids.map((id) => byId.get(id)!).filter(Boolean);
}
