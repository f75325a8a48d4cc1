import { conflict, DomainError, notFound } from '../../domain/errors';
import { periodContaining, utcDate } from '../../domain/billing/periods';
import { composeInvoice, discountApplies } from '../../domain/billing/compose-invoice';
import { prorationLines } from '../../domain/billing/proration';
import { invoiceNotActionable, invoiceView, isEndedSubscription, type InvoiceSnapshot, type InvoiceView, type LineSnapshot } from '../../domain/billing/snapshots';
import type { InvoiceRecord, SubscriptionRecord } from '../../platform/billing-records';
import { couponData } from '../../data/coupons';
import { customerBalanceData } from '../../data/credit-notes';
import { taxRateData, taxRateInputOf } from '../../data/tax-rates';
import { invoiceData, subscriptionData } from '../../data/subscriptions';
import { DEFAULT_DUNNING, payInvoiceUpdate, voidInvoiceUpdate, type InvoiceAction, type SubscriptionInput } from '../../workflows/subscription/messages';
import { testClockData } from '../../data/test-clocks';
import type { AppDeps, AuthContext } from '../deps';
import { freshStart, runUpdate } from '../http/workflow-calls';
import { liveSubscriptionState, priceItems, startOperation } from '../subscriptions/service';
import type { InvoicePreviewBody } from '../subscriptions/schemas';

export async function getInvoice(deps: AppDeps, tenantId: string, id: string): Promise<InvoiceRecord> {
  const r = await invoiceData(deps.mongo).find(tenantId, id);
  if (!r) throw notFound('invoice', id, 'invoice');
  return r;
}

export const recordInvoiceView = (r: InvoiceRecord): InvoiceView => invoiceView(r.snapshot);

/**
 * Pay now or void: the subscription's workflow owns its invoices. An open invoice is its running workflow's; a closed
 * one has nothing open. An uncollectible invoice (dunning ran out and canceled the subscription) can be paid or
 * voided too, as Stripe's: the Update carries its record, and goes to the subscription's workflow if it still runs,
 * else to a run started for it from the records (update-with-start, one run at a time under the subscription's id),
 * which does that and ends; the subscription stays canceled. Concurrent pays of one invoice reach one run, which
 * answers those that come while a pay is being decided with its outcome: one charge however many requests.
 */
async function onInvoice(deps: AppDeps, auth: AuthContext, id: string, action: 'pay' | 'void'): Promise<InvoiceView> {
  return actOnInvoice(deps, auth, await getInvoice(deps, auth.tenantId, id), action);
}

/** Pays or voids the invoice `inv` as the request read it (exported for the test of a stale read). */
export async function actOnInvoice(deps: AppDeps, auth: AuthContext, inv: InvoiceRecord, action: 'pay' | 'void'): Promise<InvoiceView> {
  const id = inv._id;
  const refused = (status: string) => conflict('invoice_not_open', invoiceNotActionable(status));
  // A void the run answers with an invoice that is not void did not happen: a charge of its intent (a saved-card
  // charge sent at the same moment) paid it first. Answered as a void of a paid invoice is, not as a 200.
  const answered = (invoice: InvoiceSnapshot) => {
    if (action === 'void' && invoice.status !== 'void') throw refused(invoice.status);
    return invoiceView(invoice);
  };
  if (!inv.subscription || (inv.status !== 'open' && inv.status !== 'uncollectible')) throw refused(inv.status);
  const handle = deps.temporal.workflow.getHandle(inv.subscription);
  const update = action === 'pay' ? payInvoiceUpdate : voidInvoiceUpdate;
  if (inv.status === 'open') {
    const answer = await runUpdate(deps, () => handle.executeUpdate(update, { args: [{ invoice: id }] }), () => conflict('invoice_not_open', 'The subscription of this invoice has ended'));
    return answered(answer.invoice!);
  }
  // The run this sends the invoice's record to trusts it. A request that read it before another one acted on it
  // (whose run may have paid it, written that, and closed since) must not act on what it read: one request per
  // version, the others read the invoice again (paid or void meanwhile: refused above).
  if (!(await invoiceData(deps.mongo).claimAction(auth.tenantId, id, inv.version))) {
    const now = await getInvoice(deps, auth.tenantId, id);
    if (now.version !== inv.version) return actOnInvoice(deps, auth, now, action);
  }
  const sub = await subscriptionData(deps.mongo).find(auth.tenantId, inv.subscription);
  if (!sub) throw refused(inv.status);
  const args: [InvoiceAction] = [{ invoice: id, uncollectible: { snapshot: inv.snapshot, version: inv.version } }];
  const start = isEndedSubscription(sub.snapshot.status) ? await reopeningStart(deps, sub) : null;
  const send = () =>
    start ? deps.temporal.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation: freshStart(start) }) : handle.executeUpdate(update, { args });
  // A run that closed as this arrived (its last handler done) did not take it: sent once more, it starts one.
  const answer = await runUpdate(deps, send, () => (start ? runUpdate(deps, send, () => refused(inv.status)) : refused(inv.status)));
  return answered(answer.invoice!);
}

/**
 * A run of an ended subscription's workflow, from its records, to pay or void one of its uncollectible invoices: it
 * starts ended (nothing due, no clock to follow), takes the Update and closes. Its time is the test clock's, when
 * the customer lives on one (a deleted clock's last time: when the subscription ended).
 */
async function reopeningStart(deps: AppDeps, sub: SubscriptionRecord) {
  const s = sub.snapshot;
  let clockNow: number | null = null;
  if (s.testClock) clockNow = (await testClockData(deps.mongo).find(sub.tenant_id, s.testClock))?.frozen_time.getTime() ?? s.endedAt ?? s.created;
  const input: SubscriptionInput = {
    id: s.id,
    tenantId: s.tenantId,
    region: s.region,
    customer: s.customer,
    currency: s.currency,
    interval: s.interval,
    intervalCount: s.intervalCount,
    items: s.items,
    paymentMethod: s.defaultPaymentMethod,
    taxRates: [],
    discount: null,
    startAt: s.created,
    trialEnd: s.trialEnd,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    clock: null,
    metadata: s.metadata,
    webhooks: sub.webhooks,
    webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
    dunning: DEFAULT_DUNNING,
    createdAt: s.created,
    carried: { sub: s, open: [], pendingProrations: [], discountUsedOnce: false, clockNow, versions: { [s.id]: sub.version }, invoiceCount: 0 },
  };
  return startOperation(deps, sub, input, `Subscription ${s.id} (${s.status}): paying or voiding an uncollectible invoice (${sub.tenant_id})`);
}

export const payInvoice = (deps: AppDeps, auth: AuthContext, id: string) => onInvoice(deps, auth, id, 'pay');
export const voidInvoice = (deps: AppDeps, auth: AuthContext, id: string) => onInvoice(deps, auth, id, 'void');

/**
 * POST /v202607/invoices/create-preview: the subscription's next invoice as the workflow would make it now, with
 * the prorations a proposed items change would add (what the billing portal shows before a plan switch). Made
 * by the same arithmetic the workflow uses, the customer's credit balance applied as it would be; nothing is
 * written. As Stripe's upcoming invoice, a subscription that makes no further invoice (canceled at the period's
 * end with no prorations pending, collection paused with no resume date) answers 404 `invoice_upcoming_none`.
 */
export async function previewInvoice(deps: AppDeps, auth: AuthContext, body: InvoicePreviewBody): Promise<InvoiceView> {
  const upcoming = await upcomingInvoice(deps, auth.tenantId, body);
  if (!upcoming) throw new DomainError('not_found', 'invoice_upcoming_none', `Subscription '${body.subscription}' makes no further invoice: it ends at its period's end with nothing left to bill, or its collection is paused with no resume date`);
  return invoiceView(upcoming);
}

/**
 * The subscription's next invoice as its workflow (workflows/subscription/workflow.ts `run`) would make it, or
 * null when it makes none:
 * - canceled at the period's end (`cancelAtPeriodEnd`, here or as `assume`): at that end, a final invoice of the
 *   pending prorations alone, for the current period, when some are pending and collection is not paused then;
 *   ended in a trial, nothing;
 * - collection paused (`void`): each renewal while paused rolls the period and invoices nothing; the first
 *   renewal at or after `resumes_at` (a resume at that very instant goes first) makes the invoice, with the
 *   prorations still pending; with no `resumes_at`, none is made until the merchant resumes it;
 * - else the renewal at the period's (or trial's) end, the pending prorations added.
 * The customer's credit balance is applied as the workflow's draw would (up to a positive total).
 */
export async function upcomingInvoice(
  deps: AppDeps,
  tenantId: string,
  body: InvoicePreviewBody,
  assume: { cancelAtPeriodEnd?: boolean } = {},
): Promise<InvoiceSnapshot | null> {
  const r = await subscriptionData(deps.mongo).find(tenantId, body.subscription);
  if (!r) throw notFound('subscription', body.subscription, 'subscription');
  // No workflow: it ended (or never started). A query that got no answer is a 503, not an ended subscription; one a
  // closed workflow answered says how it ended.
  const state = await liveSubscriptionState(deps, r._id);
  if (!state || isEndedSubscription(state.subscription.status)) throw conflict('subscription_ended', `This subscription is ${state?.subscription.status ?? r.snapshot.status}`);
  const sub = state.subscription;
  const now = state.clockNow ?? Date.now();
  const at = Math.min(Math.max(body.proration_date !== undefined ? body.proration_date * 1000 : now, sub.currentPeriodStart), sub.currentPeriodEnd);
  let items = sub.items;
  let prorations: LineSnapshot[] = [...state.pendingProrations];
  if (body.items) {
    const priced = await priceItems(deps, tenantId, body.items, 'items', sub.items);
    const after = priced.items.map((i, n) => ({ item: i.item || `new_${n}`, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description }));
    if (sub.status !== 'trialing') {
      const lines = prorationLines(
        sub.items.map((i) => ({ key: i.item, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description })),
        after.map((i) => ({ key: i.item, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description })),
        { start: sub.currentPeriodStart, end: sub.currentPeriodEnd },
        at,
      );
      prorations = prorations.concat(
        lines.map((l, n) => ({ line: `preview_proration_${n}`, description: l.description, amount: l.amount, quantity: l.quantity, plan: l.plan, proration: true, period: l.period, discountAmount: 0, taxAmounts: [] })),
      );
    }
    items = after;
  }
  const trialing = sub.status === 'trialing';
  const cancelAtPeriodEnd = assume.cancelAtPeriodEnd ?? sub.cancelAtPeriodEnd;
  const pause = sub.pauseCollection;
  // The renewal (or trial end) at which an invoice is made: the first one collection is not paused at.
  const firstEnd = trialing ? sub.trialEnd! : sub.currentPeriodEnd;
  let when = firstEnd;
  const pausedAt = (t: number) => pause !== null && (pause.resumesAt === null || pause.resumesAt > t);
  let lines: LineSnapshot[];
  let period: { start: number; end: number };
  if (cancelAtPeriodEnd) {
    // It ends at the first end: a trial's ends with nothing billed; a paused one's final invoice is not made.
    if (trialing || pausedAt(firstEnd) || !prorations.length) return null;
    lines = prorations;
    period = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
  } else {
    if (pause && pause.resumesAt === null) return null;
    while (pausedAt(when)) when = periodContaining(sub.billingCycleAnchor, sub.interval, sub.intervalCount, when).end;
    period = { start: when, end: periodContaining(sub.billingCycleAnchor, sub.interval, sub.intervalCount, when).end };
    lines = [
      ...items.map((i, n) => ({ line: `preview_${n}`, description: i.description, amount: i.periodAmount, quantity: i.quantity, plan: i.plan, proration: false, period, discountAmount: 0, taxAmounts: [] })),
      ...prorations,
    ];
  }
  const taxRates = (await taxRateData(deps.mongo).findMany(tenantId, sub.defaultTaxRates)).map(taxRateInputOf);
  const coupon = sub.discount ? await couponData(deps.mongo).find(tenantId, sub.discount.coupon) : null;
  const applies = coupon && sub.discount && discountApplies({ duration: coupon.duration, end: sub.discount.end }, period.start, state.discountUsedOnce);
  const compose = (credit: number) =>
    composeInvoice({
      id: `upcoming_${utcDate(when)}`,
      head: { tenantId, region: r.region, customer: sub.customer, subscription: sub.id, currency: sub.currency, testClock: sub.testClock },
      reason: 'subscription_cycle',
      lines,
      period,
      at: now,
      taxRates,
      discount: applies ? { percentOff: coupon.percent_off, amountOff: coupon.amount_off } : null,
      credit,
    });
  const draft = compose(0);
  // The customer's credit balance, used first as the workflow's draw would (up to a positive total).
  const balance = draft.total > 0 ? ((await customerBalanceData(deps.mongo).find(tenantId, sub.customer, sub.currency))?.credit ?? 0) : 0;
  const preview = balance > 0 ? compose(balance) : draft;
  // Not made yet: a draft, attempted when it is made.
  return { ...preview, status: 'draft', nextPaymentAttempt: when, finalizedAt: null };
}
