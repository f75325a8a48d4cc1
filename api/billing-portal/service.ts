import { customerData } from '../../data/customers';
import { conflict, DomainError, forbidden, invalidRequest, notFound } from '../../domain/errors';
import { isEndedSubscription, unixSeconds } from '../../domain/billing/snapshots';
import type { InvoiceView, SubscriptionView } from '../../domain/billing/snapshots';
import { minorUnitDigits } from '../../domain/money';
import { serviceRefundKey } from '../../domain/refund';
import { newId } from '../../platform/ids';
import type { InvoiceRecord, PlanRecord, PortalSessionRecord, SubscriptionRecord } from '../../platform/billing-records';
import type { PaymentIntentRecord, SavedPaymentMethodRecord } from '../../platform/records';
import { portalSessionData } from '../../data/billing-sessions';
import { paymentIntentData } from '../../data/payment-intents';
import { paymentMethodData } from '../../data/payment-methods';
import { planData } from '../../data/plans';
import { invoiceData, subscriptionData } from '../../data/subscriptions';
import { tenantData } from '../../data/tenants';
import { testClockData } from '../../data/test-clocks';
import { couponData } from '../../data/coupons';
import { taxRateData, taxRateInputOf } from '../../data/tax-rates';
import { periodContaining } from '../../domain/billing/periods';
import { recurringPrice, type RecurringPrice } from '../../domain/billing/recurring-price';
import { tenantAuth, type AppDeps, type AuthContext } from '../deps';
import { findCustomer } from '../customers/service';
import { portalPageUrl, PORTAL_SESSION_METADATA } from '../hosted/billing-paths';
import { isCsrfTokenFor, isSwitchTokenFor, switchTokenFor } from '../hosted/billing-tokens';
import { previewInvoice, upcomingInvoice } from '../invoices/service';
import { insertAndStart, newIntentRecord } from '../payment-intents/service';
import { resolveCheckoutRouting } from '../payment-methods/resolve';
import { giveBackPayment } from '../refunds/service';
import { updateSubscription } from '../subscriptions/service';
import { incompleteExpiresAt } from '../../workflows/subscription/messages';
import type { PortalSessionCreateBody, PortalSessionView } from './schemas';

// Billing-portal sessions (`bps_...`) and what their page does for the customer, always through the same
// services the merchant's API uses: a plan switch is previewInvoice at a `proration_date` fixed when shown, then
// updateSubscription at that same date (`create_prorations`); cancel and its undo are `cancel_at_period_end`;
// a new card is saved by a customer-present payment (a card check of one major unit, refunded at once, since a
// card is saved only by a payment) and set as `default_payment_method` of the customer's subscriptions.

export const PORTAL_SESSION_LIFETIME_MS = 3600 * 1000;
/** How long the intent of a card update stays payable. */
const CARD_CHECK_TIMEOUT_SECONDS = 1800;

export const isEnded = (s: Pick<SubscriptionRecord, 'status'>) => isEndedSubscription(s.status);

export function portalSessionView(s: PortalSessionRecord, deps: Pick<AppDeps, 'config'>): PortalSessionView {
  return {
    billing_portal_session: s._id,
    object: 'billing_portal.session',
    customer: s.customer,
    url: portalPageUrl(s._id, deps.config),
    return_url: s.return_url,
    expires_at: unixSeconds(s.expires_at),
    created: unixSeconds(s.created_at),
  };
}

/** POST /v202607/billing-portal/sessions. */
export async function createPortalSession(deps: AppDeps, auth: AuthContext, body: PortalSessionCreateBody): Promise<PortalSessionView> {
  const customer = await findCustomer(deps.mongo, auth.tenantId, body.customer);
  if (!customer) throw invalidRequest('resource_missing', `No such customer: '${body.customer}'`, 'customer');
  if (body.plans) {
    const found = await planData(deps.mongo).findMany(auth.tenantId, body.plans);
    body.plans.forEach((id, n) => {
      const p = found.find((x) => x._id === id);
      if (!p) throw invalidRequest('resource_missing', `No such plan: '${id}'`, `plans[${n}]`);
      if (!p.active) throw invalidRequest('plan_inactive', `Plan '${id}' is archived and takes no new subscriptions`, `plans[${n}]`);
    });
  }
  const now = new Date();
  const record: PortalSessionRecord = {
    _id: newId('bps', auth.region),
    tenant_id: auth.tenantId,
    region: auth.region,
    customer: customer._id,
    return_url: body.return_url ?? null,
    plans: body.plans ? [...new Set(body.plans)] : null,
    locale: body.locale ?? null,
    expires_at: new Date(now.getTime() + PORTAL_SESSION_LIFETIME_MS),
    created_at: now,
  };
  await portalSessionData(deps.mongo).insert(record);
  return portalSessionView(record, deps);
}

// ---- the page ------------------------------------------------------------------------------------------

export type PortalSessionState = { kind: 'open'; session: PortalSessionRecord } | { kind: 'expired'; session: PortalSessionRecord } | { kind: 'unknown' };

/** The session a page or a form names, by its id (the capability). */
export async function portalSessionState(deps: AppDeps, id: string, now = new Date()): Promise<PortalSessionState> {
  const session = /^bps_[a-z]{2,8}_[0-9A-Za-z]{8,64}$/.test(id) ? await portalSessionData(deps.mongo).findForPage(id) : null;
  if (!session) return { kind: 'unknown' };
  if (now.getTime() >= session.expires_at.getTime()) return { kind: 'expired', session };
  // A session whose customer was deleted since ends with it: its page and forms would act for no one (a card
  // check was taken for a customer no card can be saved to).
  return (await customerData(deps.mongo).isDeleted(session.tenant_id, session.customer)) ? { kind: 'expired', session } : { kind: 'open', session };
}

/** A form's session: open, and the form's CSRF token is its own. */
export async function portalSessionForAction(deps: AppDeps, id: string, csrfToken: string): Promise<PortalSessionRecord> {
  const state = await portalSessionState(deps, id);
  if (state.kind === 'unknown') throw notFound('billing_portal_session', id, 'billing_portal_session');
  if (!isCsrfTokenFor(state.session._id, csrfToken, deps.config.KEY_HASH_SECRET)) throw forbidden('csrf_token_invalid', 'The form is not this billing session\'s: reload the page');
  if (state.kind === 'expired') throw conflict('billing_portal_session_expired', 'This billing session has expired: open a new one from the merchant\'s site');
  return state.session;
}

const authOf = (s: PortalSessionRecord): AuthContext => tenantAuth(s.tenant_id, s.region);

export interface PortalOverview {
  merchantName: string;
  subscriptions: SubscriptionRecord[];
  /** Plan names by id, for every plan the page mentions. */
  planNames: Map<string, string>;
  card: SavedPaymentMethodRecord | null;
  invoices: InvoiceRecord[];
  /** What each live subscription's customer pays per period, by subscription id (tax and discount in). */
  prices: Map<string, RecurringPrice>;
}

export async function portalOverview(deps: AppDeps, s: PortalSessionRecord): Promise<PortalOverview> {
  const [tenant, subscriptions, invoices] = await Promise.all([
    tenantData(deps.mongo).find(s.tenant_id),
    subscriptionData(deps.mongo).ofCustomer(s.tenant_id, s.customer),
    invoiceData(deps.mongo).ofCustomer(s.tenant_id, s.customer),
  ]);
  // Live ones first (newest first within each).
  subscriptions.sort((a, b) => Number(isEnded(a)) - Number(isEnded(b)));
  const planIds = subscriptions.flatMap((x) => x.snapshot.items.map((i) => i.plan));
  const plans = await planData(deps.mongo).findMany(s.tenant_id, planIds);
  // The card that pays: the live subscriptions' default, else the customer's newest.
  const pms = paymentMethodData(deps.mongo);
  const live = subscriptions.find((x) => !isEnded(x));
  let card = live ? await pms.find(s.tenant_id, live.snapshot.defaultPaymentMethod) : null;
  if (!card) card = (await pms.listOfCustomer(s.tenant_id, s.customer, { limit: 1 })).data[0] ?? null;
  const prices = await subscriptionPrices(deps, s.tenant_id, subscriptions.filter((x) => !isEnded(x)), invoices);
  return { merchantName: tenant?.name ?? 'Merchant', subscriptions, planNames: planNameMap(plans), card, invoices: invoices.filter((i) => i.status !== 'draft'), prices };
}

/**
 * What the customer pays per period for each subscription, as its next renewal invoice will say: its items with
 * its tax rates and its discount while that applies (and, for a discount that ends, the price after it). Its
 * items' `periodAmount` alone leaves tax and discount out.
 */
async function subscriptionPrices(deps: AppDeps, tenantId: string, subs: SubscriptionRecord[], invoices: InvoiceRecord[]): Promise<Map<string, RecurringPrice>> {
  const [rates, coupons] = await Promise.all([
    taxRateData(deps.mongo).findMany(tenantId, [...new Set(subs.flatMap((x) => x.snapshot.defaultTaxRates))]),
    couponData(deps.mongo).findMany(tenantId, [...new Set(subs.flatMap((x) => (x.snapshot.discount ? [x.snapshot.discount.coupon] : [])))]),
  ]);
  const prices = new Map<string, RecurringPrice>();
  for (const sub of subs) {
    const snap = sub.snapshot;
    const coupon = snap.discount ? coupons.find((c) => c._id === snap.discount!.coupon) : undefined;
    const nextStart = (t: number) => periodContaining(snap.billingCycleAnchor, snap.interval, snap.intervalCount, t).end;
    prices.set(
      sub._id,
      recurringPrice({
        amounts: snap.items.map((i) => i.periodAmount),
        taxRates: rates.filter((r) => snap.defaultTaxRates.includes(r._id)).map(taxRateInputOf),
        discount: coupon && snap.discount ? { percentOff: coupon.percent_off, amountOff: coupon.amount_off, duration: coupon.duration, end: snap.discount.end } : null,
        // A `once` coupon is spent by the first of its invoices it reduced.
        usedOnce: invoices.some((i) => i.subscription === sub._id && i.snapshot.discount > 0),
        firstStart: snap.status === 'trialing' && snap.trialEnd !== null ? snap.trialEnd : snap.currentPeriodEnd,
        nextStart,
      }),
    );
  }
  return prices;
}

/** The names merchants gave their plans; a plan without a nickname has none here (the pages name it neutrally, never by its id). */
export const planNameMap = (plans: PlanRecord[]) => new Map(plans.flatMap((p): [string, string][] => (p.nickname ? [[p._id, p.nickname]] : [])));

/** One of the session's customer's subscriptions; any other (or another tenant's) is not found. */
export async function customerSubscription(deps: AppDeps, s: PortalSessionRecord, id: string): Promise<SubscriptionRecord> {
  const sub = await subscriptionData(deps.mongo).find(s.tenant_id, id);
  if (!sub || sub.customer !== s.customer) throw notFound('subscription', id, 'subscription');
  return sub;
}

/** The plans the customer may switch this subscription to, cheapest first (its own plan among them). */
export async function switchablePlans(deps: AppDeps, s: PortalSessionRecord, sub: SubscriptionRecord): Promise<PlanRecord[]> {
  const snap = sub.snapshot;
  const candidates = s.plans
    ? await planData(deps.mongo).findMany(s.tenant_id, s.plans)
    : (await planData(deps.mongo).list(s.tenant_id, { active: true, currency: snap.currency }, { limit: 100 })).data;
  return candidates
    .filter((p) => p.active && p.currency === snap.currency && p.interval === snap.interval && p.interval_count === snap.intervalCount)
    .sort((a, b) => a.amount - b.amount || a._id.localeCompare(b._id));
}

/** A plan switch is offered for a live subscription of one item. */
export function switchRefusal(sub: SubscriptionRecord): DomainError | null {
  if (isEnded(sub)) return conflict('subscription_ended', `This subscription is ${sub.status}`);
  if (sub.status === 'incomplete') return conflict('subscription_incomplete', 'The plan of an incomplete subscription cannot change before its first invoice is paid');
  if (sub.snapshot.items.length !== 1) return conflict('portal_switch_unavailable', 'This subscription has several items: its plans are changed by the merchant');
  return null;
}

async function switchTarget(deps: AppDeps, s: PortalSessionRecord, sub: SubscriptionRecord, plan: string): Promise<PlanRecord> {
  const refusal = switchRefusal(sub);
  if (refusal) throw refusal;
  const target = (await switchablePlans(deps, s, sub)).find((p) => p._id === plan);
  if (!target) throw invalidRequest('resource_missing', `No such plan to switch to: '${plan}'`, 'plan');
  return target;
}

/** The subscription's time now: its test clock's, if it lives on one. */
async function subscriptionNow(deps: AppDeps, sub: SubscriptionRecord): Promise<number> {
  if (!sub.test_clock) return Date.now();
  const clock = await testClockData(deps.mongo).find(sub.tenant_id, sub.test_clock);
  return clock?.frozen_time.getTime() ?? Date.now();
}

export interface SwitchPreview {
  plan: PlanRecord;
  /** Unix seconds the figures are computed for; the confirm applies the change at this same instant. */
  prorationDate: number;
  preview: InvoiceView;
  confirmToken: string;
}

/** The confirm step of a plan switch: the next invoice with its prorations, at a `proration_date` fixed now. */
export async function previewSwitch(deps: AppDeps, s: PortalSessionRecord, sub: SubscriptionRecord, plan: string): Promise<SwitchPreview> {
  const target = await switchTarget(deps, s, sub, plan);
  const prorationDate = unixSeconds(await subscriptionNow(deps, sub));
  const item = sub.snapshot.items[0]!;
  const preview = await previewInvoice(deps, authOf(s), { subscription: sub._id, items: [{ item: item.item, plan: target._id, quantity: item.quantity }], proration_date: prorationDate });
  return { plan: target, prorationDate, preview, confirmToken: switchTokenFor(s._id, sub._id, target._id, prorationDate, deps.config.KEY_HASH_SECRET) };
}

/** Applies a switch the customer confirmed, at the `proration_date` they were shown. */
export async function applySwitch(deps: AppDeps, s: PortalSessionRecord, subId: string, body: { plan: string; proration_date: number; confirm_token: string }): Promise<void> {
  if (!isSwitchTokenFor(s._id, subId, body.plan, body.proration_date, body.confirm_token, deps.config.KEY_HASH_SECRET))
    throw invalidRequest('confirm_token_invalid', 'This confirmation is not the one shown for this plan and date: preview the switch again', 'confirm_token');
  const sub = await customerSubscription(deps, s, subId);
  const target = await switchTarget(deps, s, sub, body.plan);
  const item = sub.snapshot.items[0]!;
  await updateSubscription(deps, authOf(s), sub._id, {
    items: [{ item: item.item, plan: target._id, quantity: item.quantity }],
    proration_behavior: 'create_prorations',
    proration_date: body.proration_date,
  });
}

/**
 * What canceling at the period's end would still charge then: a final invoice of the prorations pending (a plan
 * switch made this period with `create_prorations`), the customer's credit applied, as the workflow makes it
 * (`upcomingInvoice` assuming the cancellation). Null when nothing would be charged.
 */
export async function chargeAtPeriodEndIfCanceled(deps: AppDeps, s: PortalSessionRecord, sub: SubscriptionRecord): Promise<{ amount: number; currency: string; at: number } | null> {
  const final = await upcomingInvoice(deps, s.tenant_id, { subscription: sub._id }, { cancelAtPeriodEnd: true });
  return final && final.amountDue > 0 ? { amount: final.amountDue, currency: final.currency, at: final.nextPaymentAttempt ?? sub.snapshot.currentPeriodEnd } : null;
}

/** What the subscription's open invoices still owe when it is canceled at its period's end, and what becomes of it. */
export interface OwedAtCancel {
  /** What they still owe in all (minor units), and how many there are. */
  amount: number;
  currency: string;
  invoices: number;
  /** Unix ms of the next dunning retry before `until`; null: none will come (unpaid, incomplete, or after the end). */
  retryAt: number | null;
  /** Unix ms until which they may still be paid: the subscription's end, where those still open are voided. */
  until: number;
}

/**
 * Canceling at the period's end leaves its open invoices as they are (workflows/subscription): dunning goes on
 * retrying them until the subscription ends, and those still open then are voided. An incomplete one ends sooner
 * unless its first invoice is paid: it expires, its first invoice voided, which is never retried. Null: none owed.
 */
export async function owedAtCancel(deps: AppDeps, s: PortalSessionRecord, sub: SubscriptionRecord): Promise<OwedAtCancel | null> {
  const open = (await invoiceData(deps.mongo).list(s.tenant_id, { subscription: sub._id, status: 'open' }, { limit: 100 })).data.filter((i) => i.snapshot.amountRemaining > 0);
  if (!open.length) return null;
  const snap = sub.snapshot;
  const until = snap.status === 'incomplete' ? incompleteExpiresAt(snap) : snap.currentPeriodEnd;
  // A retry due at the very end still runs: it goes before the period's end (SubscriptionBook.nextDue).
  const retries = open.flatMap((i) => (i.snapshot.nextPaymentAttempt !== null && i.snapshot.nextPaymentAttempt <= until ? [i.snapshot.nextPaymentAttempt] : []));
  return {
    amount: open.reduce((n, i) => n + i.snapshot.amountRemaining, 0),
    currency: snap.currency,
    invoices: open.length,
    retryAt: retries.length ? Math.min(...retries) : null,
    until,
  };
}

/** Cancel at the end of the period (`true`), or undo it (`false`). */
export async function setCancelAtPeriodEnd(deps: AppDeps, s: PortalSessionRecord, subId: string, cancel: boolean): Promise<SubscriptionView> {
  const sub = await customerSubscription(deps, s, subId);
  return updateSubscription(deps, authOf(s), sub._id, { cancel_at_period_end: cancel });
}

// ---- a new card ----------------------------------------------------------------------------------------

/** The card check a new card is saved by: one major unit of the subscriptions' currency. */
async function cardCheckCurrency(deps: AppDeps, s: PortalSessionRecord): Promise<string> {
  const subs = await subscriptionData(deps.mongo).ofCustomer(s.tenant_id, s.customer);
  return (subs.find((x) => !isEnded(x)) ?? subs[0])?.snapshot.currency ?? 'EUR';
}

/** Makes the intent the card page pays (saving the card): its id. */
export async function startCardUpdate(deps: AppDeps, s: PortalSessionRecord): Promise<string> {
  const auth = authOf(s);
  const currency = await cardCheckCurrency(deps, s);
  const { connectors, failover } = await resolveCheckoutRouting(deps.mongo, s.tenant_id, null);
  const record = await newIntentRecord(deps, auth, {
    amount: 10 ** minorUnitDigits(currency),
    currency,
    customer: s.customer,
    metadata: { [PORTAL_SESSION_METADATA]: s._id },
    webhooks: [],
    return_url: null,
    pin: null,
    connectors,
    ...(failover ? { failover } : {}),
    timeout_seconds: CARD_CHECK_TIMEOUT_SECONDS,
    idempotency_key: null,
    api_version: 'v202607',
    setup_future_usage: 'off_session',
    // Once paid, the worker sets the card and refunds the check, whether or not the customer comes back.
    owner: s._id,
  });
  // Once paid, its page (where a 3-D Secure challenge returns) sends the customer on to finish the update.
  record.return_url = portalPageUrl(s._id, deps.config, `/card/done?payment_intent=${record._id}`);
  return (await insertAndStart(deps, auth, record, { webhooks: [], customer: null })).record._id;
}

/** A card-update intent of this session (its customer's, made by its page); any other is not found. */
export async function cardUpdateIntent(deps: AppDeps, s: PortalSessionRecord, id: string): Promise<PaymentIntentRecord> {
  const intent = /^pi_[a-z]{2,8}_[0-9A-Za-z]{8,64}$/.test(id) ? await paymentIntentData(deps.mongo).find(s.tenant_id, id) : null;
  if (!intent || intent.customer !== s.customer || intent.metadata?.[PORTAL_SESSION_METADATA] !== s._id) throw notFound('payment_intent', id, 'payment_intent');
  return intent;
}

export type CardUpdateOutcome = 'updated' | 'pending' | 'failed';

/**
 * Once the card-update intent has succeeded: its saved card becomes the card of every live subscription of the
 * customer, and the card check is refunded. Idempotent (the same card set again, the refund by its key).
 */
export async function finishCardUpdate(deps: AppDeps, s: PortalSessionRecord, intent: PaymentIntentRecord): Promise<CardUpdateOutcome> {
  if (intent.status === 'pending') return 'pending';
  if (intent.status !== 'success') return 'failed';
  let outcome: CardUpdateOutcome = 'updated';
  const card = intent.payment_method;
  if (!card) outcome = 'failed';
  else {
    const subs = (await subscriptionData(deps.mongo).ofCustomer(s.tenant_id, s.customer)).filter((x) => !isEnded(x));
    try {
      for (const sub of subs) if (sub.snapshot.defaultPaymentMethod !== card) await updateSubscription(deps, authOf(s), sub._id, { default_payment_method: card });
    } catch (err) {
      // A card the gateway gave no reusable token for cannot pay renewals: it is not used, its check refunded.
      if (!(err instanceof DomainError) || err.kind !== 'invalid_request') throw err;
      outcome = 'failed';
    }
  }
  // In full, or what the merchant has not refunded of it already.
  await giveBackPayment(deps, intent, serviceRefundKey.ofCardCheck(s._id, intent._id));
  return outcome;
}
