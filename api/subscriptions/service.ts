import { createHmac } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import { conflict, DomainError, invalidRequest, notFound } from '../../domain/errors';
import { DAY_MS, addMonths } from '../../domain/billing/periods';
import { invoicesOfChange } from '../../domain/billing/change-invoices';
import { undiscountedTotal } from '../../domain/billing/compose-invoice';
import { priceOf } from '../../domain/billing/pricing';
import { isEndedSubscription, subscriptionView, type SubscriptionSnapshot, type SubscriptionView } from '../../domain/billing/snapshots';
import { formatMoney, MAX_AMOUNT } from '../../domain/money';
import { newId } from '../../platform/ids';
import { isDuplicateKeyError } from '../../platform/mongo';
import type { PlanRecord, SubscriptionRecord } from '../../platform/billing-records';
import { idempotencyScope } from '../../data/idempotency';
import { planData } from '../../data/plans';
import { taxRateData, taxRateInputOf } from '../../data/tax-rates';
import { testClockData } from '../../data/test-clocks';
import { promotionCodeData } from '../../data/coupons';
import { clockDeletedSignal } from '../../workflows/test-clock/messages';
import { paymentMethodData } from '../../data/payment-methods';
import { customerData } from '../../data/customers';
import { subscriptionData, type KeyedSubscriptionRecord, type SubscriptionCreateRequest } from '../../data/subscriptions';
import { START_DEADLINE_MS, workflowExistence } from '../../platform/temporal';
import { SA } from '../../workflows/search-attributes';
import {
  cancelSubscriptionUpdate,
  changeSubscriptionUpdate,
  DEFAULT_DUNNING,
  startingSubscription,
  startedUpdate,
  subscriptionStateQuery,
  SUBSCRIPTION_WORKFLOW,
  type BilledItem,
  type SubscriptionAnswer,
  type SubscriptionChange,
  type SubscriptionInput,
} from '../../workflows/subscription/messages';
import type { AppDeps, AuthContext } from '../deps';
import { findCustomer } from '../customers/service';
import { assertChargeable } from '../cards-mit/service';
import { redeemDiscount, releaseRedeemed, type RedeemedDiscount } from '../coupons/redeem';
import { discardWebhookSecrets, planWebhookEndpoints, storeWebhookSecrets } from '../events/endpoints';
import { QUERY_DEADLINE_MS, runUpdate, withDeadline } from '../http/workflow-calls';
import type { SubscriptionCreateBody, SubscriptionUpdateBody } from './schemas';

/** A subscription id derived from its create's idempotency scope: HMAC-keyed, so unguessable as a random one. */
function subscriptionIdFor(region: string, scope: string, secret: string): string {
  return `sub_${region}_${createHmac('sha256', secret).update(`subscription:${scope}`).digest('hex').slice(0, 32)}`;
}

/** `2 × Gold (month)`: an item's words on invoices. */
export function itemDescription(plan: PlanRecord, quantity: number): string {
  const name = plan.nickname ?? plan._id;
  const every = plan.interval_count === 1 ? plan.interval : `${plan.interval_count} ${plan.interval}s`;
  return `${quantity} × ${name} (every ${every})`;
}

/** One item's price for a period, or the 400 naming its quantity when it is past what a payment can take. */
function periodAmountOf(plan: PlanRecord, quantity: number, param: string): number {
  let amount = Number.POSITIVE_INFINITY;
  try {
    amount = priceOf(plan, quantity);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err; // past 2^53: far past the largest amount
  }
  if (amount > MAX_AMOUNT) throw invalidRequest('subscription_total_too_large', `This quantity of plan '${plan._id}' would cost more than ${MAX_AMOUNT} a period, the largest amount a payment can take`, param);
  return amount;
}

/**
 * The plans of `items`, all the tenant's, active, of one currency and one interval; each item priced. `holding`: the
 * subscription's items as they are (a change or its preview): an item that keeps the plan it holds may keep an
 * archived one, as Stripe's keeps an archived price on an existing item; only a new plan must be active.
 */
export async function priceItems(
  deps: AppDeps,
  tenantId: string,
  items: { plan: string; quantity: number; item?: string }[],
  param = 'items',
  holding: readonly { item: string; plan: string }[] = [],
): Promise<{ items: (BilledItem & { item?: string })[]; currency: string; interval: PlanRecord['interval']; intervalCount: number; plans: PlanRecord[] }> {
  const plans = await planData(deps.mongo).findMany(tenantId, items.map((i) => i.plan));
  const byId = new Map(plans.map((p) => [p._id, p]));
  const priced = items.map((i, n) => {
    const plan = byId.get(i.plan);
    if (!plan) throw invalidRequest('resource_missing', `No such plan: '${i.plan}'`, `${param}[${n}][plan]`);
    const kept = i.item !== undefined && holding.some((h) => h.item === i.item && h.plan === plan._id);
    if (!plan.active && !kept) throw invalidRequest('plan_inactive', `Plan '${i.plan}' is archived and takes no new subscriptions`, `${param}[${n}][plan]`);
    return { item: i.item ?? '', plan: plan._id, quantity: i.quantity, periodAmount: periodAmountOf(plan, i.quantity, `${param}[${n}][quantity]`), description: itemDescription(plan, i.quantity) };
  });
  // The invoice of a period adds every item up: past the largest amount a payment takes, nothing could ever pay
  // it. Its tax and prorations come on top; the create and the change hold the whole invoice to it (refusePastMax).
  if (priced.reduce((n, i) => n + i.periodAmount, 0) > MAX_AMOUNT)
    throw invalidRequest('subscription_total_too_large', `The items of a period would add up to more than ${MAX_AMOUNT}, the largest amount a payment can take`, param);
  const first = byId.get(items[0]!.plan)!;
  items.forEach((i, n) => {
    const p = byId.get(i.plan)!;
    if (p.currency !== first.currency || p.interval !== first.interval || p.interval_count !== first.interval_count)
      throw invalidRequest('plans_mismatch', 'Every plan of a subscription must have the same currency, interval and interval_count', `${param}[${n}][plan]`);
  });
  return { items: priced, currency: first.currency, interval: first.interval, intervalCount: first.interval_count, plans: items.map((i) => byId.get(i.plan)!) };
}

/**
 * An invoice past the largest amount a payment can take could never be charged, nor credited back in full: the
 * request that would make it is refused. Its total counts exclusive tax and prorations but no discount, since a
 * coupon can end and the same invoice then comes to its full figure.
 */
function refusePastMax(total: number, which: string): void {
  if (total > MAX_AMOUNT)
    throw invalidRequest('subscription_total_too_large', `${which} would come to ${total}, more than ${MAX_AMOUNT}, the largest amount a payment can take`, 'items');
}

/**
 * The subscription's workflow state, or null when it has no workflow (ended, or never started). A query that got
 * no answer in time throws (a 503): that is not an ended subscription.
 */
export function liveSubscriptionState(deps: AppDeps, id: string) {
  return withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => deps.temporal.workflow.getHandle(id).query(subscriptionStateQuery)).catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  });
}

/**
 * An items change, held to the largest amount before the workflow is asked: the invoice an `always_invoice` change
 * issues now, and the next period's with every proration pending then, from the workflow's state as it stands.
 * The new prorations are priced at the request's instant; the workflow's, a moment later, are nearer to none: an
 * upgrade's charge smaller, a downgrade's credit smaller but its invoice still below the old items' (checked before).
 * Two changes sent at once are each checked without the other's prorations: only the workflow sees both.
 */
async function refuseChangePastMax(deps: AppDeps, tenantId: string, id: string, change: SubscriptionChange): Promise<void> {
  const state = await liveSubscriptionState(deps, id);
  if (!state || isEndedSubscription(state.subscription.status)) return; // the Update answers that it ended
  const sub = state.subscription;
  // A tax rate's percentage never changes, so the record's is the one the workflow was started with.
  const taxRates = (await taxRateData(deps.mongo).findMany(tenantId, sub.defaultTaxRates)).map(taxRateInputOf);
  const invoices = invoicesOfChange({
    before: sub.items.map((i) => ({ key: i.item, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description })),
    after: change.items!.map((i, n) => ({ key: i.item ?? `new_${n}`, plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description })),
    period: { start: sub.currentPeriodStart, end: sub.currentPeriodEnd },
    at: Math.min(Math.max(change.prorationDate ?? state.clockNow ?? Date.now(), sub.currentPeriodStart), sub.currentPeriodEnd),
    trialing: sub.status === 'trialing',
    behavior: change.prorationBehavior ?? 'create_prorations',
    pending: state.pendingProrations,
    taxRates,
  });
  if (invoices.now !== null) refusePastMax(invoices.now, "The invoice of this change's prorations, with its exclusive tax,");
  refusePastMax(invoices.next, 'The next invoice, with the prorations pending and its exclusive tax,');
}

/** A card saved to the customer that can be charged off-session. */
async function chargeableCard(deps: AppDeps, tenantId: string, customer: string, id: string, param: string): Promise<void> {
  const card = await paymentMethodData(deps.mongo).findAny(tenantId, id);
  if (!card) throw invalidRequest('resource_missing', `No such payment method: '${id}'`, param);
  if (card.customer !== customer) throw invalidRequest('payment_method_customer_mismatch', `This card is not saved to customer ${customer}`, param);
  assertChargeable(card, param);
}

/**
 * The coupon a subscription's create redeemed: its request's, or its promotion code's. Not its snapshot's discount,
 * which goes once spent (a `once` coupon's first invoice, a repeating coupon's end), while the redemption stays.
 */
async function redeemedCouponOf(deps: AppDeps, tenantId: string, sub: KeyedSubscriptionRecord): Promise<string | null> {
  const req = sub.create_request;
  if (req?.coupon) return req.coupon;
  if (req?.promotion_code) return (await promotionCodeData(deps.mongo).find(tenantId, req.promotion_code))?.coupon ?? null;
  return sub.snapshot.discount?.coupon ?? null;
}

/** What this create asks for, kept on its record (data/subscriptions.ts) for a repeat with its key to be held to. */
function createRequestOf(body: SubscriptionCreateBody): SubscriptionCreateRequest {
  return {
    customer: body.customer,
    items: body.items.map((i) => ({ plan: i.plan, quantity: i.quantity })),
    coupon: body.coupon ?? null,
    promotion_code: body.promotion_code ?? null,
    default_payment_method: body.default_payment_method,
    default_tax_rates: body.default_tax_rates ?? [],
    trial_period_days: body.trial_period_days ?? null,
  };
}

const sameList = <T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean) => a.length === b.length && a.every((x, n) => same(x, b[n]!));

/**
 * Whether `body` repeats the create that made `existing`. A record made before the request was kept is held to
 * its customer only, the one thing of the create it keeps as it was (its items, card and discount may have changed).
 */
function repeatsCreate(existing: KeyedSubscriptionRecord, body: SubscriptionCreateBody): boolean {
  const was = existing.create_request;
  if (!was) return existing.customer === body.customer;
  const now = createRequestOf(body);
  return (
    was.customer === now.customer &&
    sameList(was.items, now.items, (x, y) => x.plan === y.plan && x.quantity === y.quantity) &&
    was.coupon === now.coupon &&
    was.promotion_code === now.promotion_code &&
    was.default_payment_method === now.default_payment_method &&
    sameList([...was.default_tax_rates].sort(), [...now.default_tax_rates].sort(), (x, y) => x === y) &&
    was.trial_period_days === now.trial_period_days
  );
}

/** A key reused for another subscription: answering the first would read as this one made (README: idempotency). */
const keyInUse = () =>
  invalidRequest(
    'idempotency_key_in_use',
    'This idempotency_key was used for a subscription with other parameters (customer, items, coupon or promotion code, default payment method, tax rates or trial): use a new key for a new subscription',
    'idempotency_key',
  );

const noSuchCustomer = (id: string) => invalidRequest('resource_missing', `No such customer: '${id}'`, 'customer');

export function recordView(r: SubscriptionRecord): SubscriptionView {
  return subscriptionView(r.snapshot);
}

/**
 * POST /v202607/subscriptions. Everything that can refuse it is read first; then the discount is redeemed
 * (its coupon's workflow counts it), the record inserted (the idempotency guard) and the workflow started
 * with an Update that answers once the first invoice is charged (or the trial begun), so the answer says
 * `active`, `trialing` or `incomplete`, as Stripe's does.
 */
export async function createSubscription(
  deps: AppDeps,
  auth: AuthContext,
  body: SubscriptionCreateBody,
  /** `firstPaidBy`: the first invoice was paid on a hosted checkout page by this (successful) intent; it is not charged again. */
  opts: { firstPaidBy?: string } = {},
): Promise<{ status: number; body: SubscriptionView }> {
  const subs = subscriptionData(deps.mongo);
  if (body.idempotency_key) {
    const existing = await subs.byIdempotencyKey(auth.tenantId, body.idempotency_key);
    if (existing) {
      if (!repeatsCreate(existing, body)) throw keyInUse();
      return { status: 200, body: await settled(deps, existing) };
    }
  }
  const customer = await findCustomer(deps.mongo, auth.tenantId, body.customer);
  if (!customer) throw noSuchCustomer(body.customer);
  const priced = await priceItems(deps, auth.tenantId, body.items);
  await chargeableCard(deps, auth.tenantId, customer._id, body.default_payment_method, 'default_payment_method');
  const taxIds = body.default_tax_rates ?? [];
  const rates = await taxRateData(deps.mongo).findMany(auth.tenantId, taxIds);
  taxIds.forEach((id, n) => {
    const r = rates.find((x) => x._id === id);
    if (!r) throw invalidRequest('resource_missing', `No such tax rate: '${id}'`, `default_tax_rates[${n}]`);
    if (!r.active) throw invalidRequest('tax_rate_inactive', `Tax rate '${id}' is inactive`, `default_tax_rates[${n}]`);
  });
  const taxRates = taxIds.map((tid) => taxRateInputOf(rates.find((x) => x._id === tid)!));
  // Every period's invoice: the first one after a trial too (the trial's own is 0).
  refusePastMax(undiscountedTotal(priced.items.map((i, n) => ({ line: String(n), amount: i.periodAmount })), taxRates), "Each period's invoice, with its exclusive tax,");
  // On a test clock, the subscription's time is the clock's.
  let clock: SubscriptionInput['clock'] = null;
  const clockId = (customer as { test_clock?: string | null }).test_clock ?? null;
  if (clockId) {
    const c = await testClockData(deps.mongo).find(auth.tenantId, clockId);
    if (!c) throw invalidRequest('resource_missing', `The customer's test clock '${clockId}' was deleted`, 'customer');
    if (c.status !== 'ready') throw conflict('test_clock_advancing', "The customer's test clock is advancing; retry when it is ready");
    clock = { id: c._id, frozenTime: c.frozen_time.getTime() };
  }
  const webhooks = planWebhookEndpoints(auth.tenantId, auth.region, body.webhooks, deps.config);
  const startAt = clock?.frozenTime ?? Date.now();
  const trialDays = body.trial_period_days ?? priced.plans[0]!.trial_period_days ?? 0;
  // With an idempotency key the id is derived from it (keyed by a server secret, so still unguessable):
  // concurrent creates with one key name one subscription, so its coupon is redeemed once, for it.
  const id = body.idempotency_key ? subscriptionIdFor(auth.region, idempotencyScope(auth.tenantId, body.idempotency_key, ''), deps.config.KEY_HASH_SECRET) : newId('sub', auth.region);

  // The reads are done; from here on each write is taken back if a later step fails.
  let redeemed: RedeemedDiscount | null = null;
  if (body.coupon !== undefined || body.promotion_code !== undefined)
    redeemed = await redeemDiscount(deps, auth.tenantId, { coupon: body.coupon, promotionCode: body.promotion_code, subscription: id, currency: priced.currency });
  const giveBack = async (redemptionToo = true) => {
    if (redeemed && redemptionToo) await releaseRedeemed(deps, redeemed.coupon._id, id).catch(() => undefined);
    await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
  };
  const coupon = redeemed?.coupon;
  const input: SubscriptionInput = {
    id,
    tenantId: auth.tenantId,
    region: auth.region,
    customer: customer._id,
    currency: priced.currency,
    interval: priced.interval,
    intervalCount: priced.intervalCount,
    items: priced.items.map((i) => ({ ...i, item: newId('si', auth.region) })),
    paymentMethod: body.default_payment_method,
    taxRates,
    discount: coupon
      ? {
          coupon: coupon._id,
          promotionCode: redeemed!.promotionCode?._id ?? null,
          percentOff: coupon.percent_off,
          amountOff: coupon.amount_off,
          duration: coupon.duration,
          start: startAt,
          end: coupon.duration === 'repeating' ? addMonths(startAt, coupon.duration_in_months!) : null,
        }
      : null,
    startAt,
    trialEnd: trialDays > 0 ? startAt + trialDays * DAY_MS : null,
    cancelAtPeriodEnd: body.cancel_at_period_end ?? false,
    clock,
    metadata: body.metadata ?? {},
    webhooks: webhooks.endpoints,
    webhookTaskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
    dunning: {
      retryDays: body.dunning?.retry_days ?? DEFAULT_DUNNING.retryDays,
      whenExhausted: body.dunning?.when_exhausted ?? DEFAULT_DUNNING.whenExhausted,
    },
    createdAt: startAt,
    ...(opts.firstPaidBy ? { firstPaidBy: opts.firstPaidBy } : {}),
  };
  const now = new Date();
  const snapshot = startingSubscription(input);
  const record: KeyedSubscriptionRecord = {
    _id: id,
    tenant_id: auth.tenantId,
    region: auth.region,
    customer: customer._id,
    status: snapshot.status,
    test_clock: clock?.id ?? null,
    snapshot,
    webhooks: webhooks.endpoints,
    idempotency_key: body.idempotency_key ?? null,
    idempotency_scope: idempotencyScope(auth.tenantId, body.idempotency_key, id),
    ...(body.idempotency_key ? { create_request: createRequestOf(body) } : {}),
    created_at: now,
    updated_at: now,
    version: 0,
  };
  try {
    await storeWebhookSecrets(deps.mongo, webhooks);
  } catch (err) {
    await giveBack();
    throw err;
  }
  try {
    await subs.insert(record);
  } catch (err) {
    if (!isDuplicateKeyError(err)) {
      // The insert may have landed though it failed: take this attempt's record back (by its created_at, never a
      // concurrent create's under the same key), so that none stands.
      await subs.takeBack(id, now).catch(() => undefined);
      // A record still standing under the id is a concurrent same-key create's (the redemption, counted once per
      // id, is its too), or this one's if the take-back failed: the sweep takes that back later and gives the
      // redemption back then. When the read fails too, it is given back now; should this attempt's record stand
      // after all, the sweep finds the give-back's mark and does not give it back twice.
      const stands = await subs.standing(id).catch(() => false);
      await giveBack(!stands);
      throw err;
    }
    // A concurrent create with the same key won: the redemption counted is the winner's (same id); only
    // this request's webhook secrets go.
    await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
    const winner = await subs.byIdempotencyKey(auth.tenantId, body.idempotency_key!);
    // The winner took its record back (its workflow did not start) and is giving back the redemption this one
    // shares (same id): inserting again could start a discount whose count is about to go. Nothing of this
    // request stands, so it is answered as the winner's failure was, and sent again makes the subscription.
    if (!winner) throw concurrentCreateFailed();
    if (!repeatsCreate(winner, body)) {
      // Another discount than the winner's was counted for the shared id by this request alone: it goes back.
      // The winner's own coupon is its redemption, counted once for both.
      if (redeemed && redeemed.coupon._id !== (await redeemedCouponOf(deps, auth.tenantId, winner))) await releaseRedeemed(deps, redeemed.coupon._id, id).catch(() => undefined);
      throw keyInUse();
    }
    return { status: 200, body: await settled(deps, winner) };
  }
  // Deleted since it was read (its DELETE may have listed its subscriptions before this record was there): not
  // started, nothing of it stands, and it is answered as a create for a deleted customer is.
  if (await customerGone(deps, auth.tenantId, customer._id)) {
    await subs.takeBack(id, now);
    await giveBack();
    throw noSuchCustomer(customer._id);
  }
  let answer: SubscriptionSnapshot;
  try {
    answer = await startAndAwaitFirstStep(deps, record, input);
  } catch (err) {
    // Not started at all: nothing of it stands. Started but slow: it stands and the record will say so.
    // Only a workflow the server does not know was not started; any other doubt leaves it all standing.
    if ((await workflowExistence(deps.temporal, id)) === false) {
      await subs.takeBack(id);
      await giveBack();
    } else if (await customerGone(deps, auth.tenantId, customer._id).catch(() => false)) {
      await cancelSubscription(deps, auth, id).catch(() => undefined); // best effort: the answer is the failure's
    }
    throw err;
  }
  if (clock) await cancelIfClockDeleted(deps, auth.tenantId, id, clock.id);
  if (await customerGone(deps, auth.tenantId, customer._id)) {
    await cancelSubscription(deps, auth, id);
    throw noSuchCustomer(customer._id);
  }
  return { status: 201, body: subscriptionView(answer) };
}

/**
 * Whether the customer was deleted after the create found it. A DELETE marks the customer, then lists its
 * subscriptions and cancels each; this create inserts its record, starts its workflow, then reads the customer
 * again. Should this read miss the mark, the mark (hence the listing) came after the start: the DELETE finds the
 * record and its workflow, and cancels it. Should it see the mark, the listing may have come before the record or
 * the workflow (its cancel found nothing to stop), so this create cancels its own. The read before the start only
 * spares most lost races a workflow (and a first charge): the one after it is what closes the race.
 */
async function customerGone(deps: AppDeps, tenantId: string, customer: string): Promise<boolean> {
  return customerData(deps.mongo).isDeleted(tenantId, customer);
}

const concurrentCreateFailed = () =>
  new DomainError('unavailable', 'service_unavailable', 'A concurrent request with this idempotency_key failed before it made the subscription; send this one again');

/**
 * Its clock deleted while it was being made (after the check above, before the clock listed its subscriptions
 * or while this one's workflow was not there yet): it is told as the clock tells the others, and cancels.
 */
async function cancelIfClockDeleted(deps: AppDeps, tenantId: string, subscription: string, clockId: string): Promise<void> {
  if (await testClockData(deps.mongo).find(tenantId, clockId)) return;
  await deps.temporal.workflow
    .getHandle(subscription)
    .signal(clockDeletedSignal, { clock: clockId })
    .catch((err: unknown) => deps.logger.warn({ subscription, clock: clockId, err }, 'a subscription made as its clock was deleted could not be told to cancel'));
}

/** The subscription workflow's start for an update-with-start: its create's, or a run of an ended one (`summary`). */
export function startOperation(deps: AppDeps, record: SubscriptionRecord, input: SubscriptionInput, summary?: string) {
  const amount = input.items.reduce((n, i) => n + i.periodAmount, 0);
  return new WithStartWorkflowOperation(SUBSCRIPTION_WORKFLOW, {
    workflowId: record._id,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: SA.TenantId, value: record.tenant_id },
      { key: SA.CustomerId, value: record.customer },
      { key: SA.PaymentStatus, value: record.status },
      { key: SA.AmountMinor, value: amount },
      { key: SA.Currency, value: input.currency },
    ],
    staticSummary: summary ?? `Subscription ${formatMoney(amount, input.currency)} every ${input.intervalCount} ${input.interval} for ${record.customer} (${record.tenant_id})`,
  });
}

async function startAndAwaitFirstStep(deps: AppDeps, record: SubscriptionRecord, input: SubscriptionInput): Promise<SubscriptionSnapshot> {
  const answer: SubscriptionAnswer = await withDeadline(deps.temporal, START_DEADLINE_MS + deps.config.WORKFLOW_UPDATE_DEADLINE_MS, () =>
    deps.temporal.workflow.executeUpdateWithStart(startedUpdate, { args: [], startWorkflowOperation: startOperation(deps, record, input) }),
  );
  return answer.subscription;
}

/** How long a repeat waits for the first request to start the workflow: as long as that request's own start may take. */
const FIRST_START_WAIT_MS = START_DEADLINE_MS;
const FIRST_START_POLL_MS = 100;
/** The Retry-After of the 409: a first invoice's charge takes a second or two. */
const IN_PROGRESS_RETRY_AFTER_S = 2;

const firstRequestInProgress = () =>
  new DomainError(
    'conflict',
    'idempotency_request_in_progress',
    'The first request with this idempotency_key is still making the subscription (its first invoice is being charged): retry shortly to get its answer',
    'idempotency_key',
    IN_PROGRESS_RETRY_AFTER_S,
  );

/**
 * A subscription a repeated create finds, answered as its first request answers it: once its workflow says the
 * first step is done (the first invoice charged, or the trial begun), as it then stands. A repeat sent with the
 * first can find the record before its workflow is started: it waits for the start. Never the record as inserted,
 * `incomplete` with no invoice, which reads as "customer action needed": past the wait, a 409 to retry.
 */
async function settled(deps: AppDeps, r: SubscriptionRecord): Promise<SubscriptionView> {
  const handle = deps.temporal.workflow.getHandle(r._id);
  const giveUpAt = Date.now() + FIRST_START_WAIT_MS;
  // Asked again after a pause, never in a tight loop; past the wait, the 409.
  const pauseOrGiveUp = async () => {
    if (Date.now() >= giveUpAt) throw firstRequestInProgress();
    await new Promise((resolve) => setTimeout(resolve, FIRST_START_POLL_MS));
  };
  for (;;) {
    try {
      const answer = await withDeadline(deps.temporal, deps.config.WORKFLOW_UPDATE_DEADLINE_MS, () => handle.executeUpdate(startedUpdate));
      return subscriptionView(answer.subscription);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) return asRecorded(deps, r); // no answer in time
    }
    // Not found by the Update: not started yet, or closed (its record is then final).
    const running = await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.describe()).then(
      (d) => d.status.name === 'RUNNING',
      (err: unknown) => (err instanceof WorkflowNotFoundError ? null : undefined),
    );
    if (running === true) {
      await pauseOrGiveUp(); // started between the two calls
      continue;
    }
    if (running === false) return recordView((await subscriptionData(deps.mongo).find(r.tenant_id, r._id)) ?? r);
    if (running === undefined) return asRecorded(deps, r);
    // Still not there: the first request took its record back (its start failed), or has not started it yet.
    if (!(await subscriptionData(deps.mongo).find(r.tenant_id, r._id))) throw concurrentCreateFailed();
    await pauseOrGiveUp();
  }
}

/**
 * The workflow did not answer: the record answers once the workflow has moved it past its start (active, trialing,
 * past due, ended). An `incomplete` one may still be charging, which only the workflow can tell: a 409 to retry.
 */
async function asRecorded(deps: AppDeps, r: SubscriptionRecord): Promise<SubscriptionView> {
  const now = await subscriptionData(deps.mongo).find(r.tenant_id, r._id);
  if (!now) throw concurrentCreateFailed();
  if (now.version > 0 && now.snapshot.status !== 'incomplete') return recordView(now);
  throw firstRequestInProgress();
}

export async function getSubscription(deps: AppDeps, tenantId: string, id: string): Promise<SubscriptionRecord> {
  const r = await subscriptionData(deps.mongo).find(tenantId, id);
  if (!r) throw notFound('subscription', id, 'subscription');
  return r;
}

/** After the workflow closed (canceled, expired): nothing can change any more. */
const ended = (r: SubscriptionRecord) => () => conflict('subscription_ended', `This subscription is ${r.snapshot.status}`);

/** POST /v202607/subscriptions/{id}: plan or quantity change (with prorations), cancel at period end, pause, card, metadata. */
export async function updateSubscription(deps: AppDeps, auth: AuthContext, id: string, body: SubscriptionUpdateBody): Promise<SubscriptionView> {
  const r = await getSubscription(deps, auth.tenantId, id);
  const change: SubscriptionChange = {};
  if (body.items) {
    const known = new Set(r.snapshot.items.map((i) => i.item));
    body.items.forEach((i, n) => {
      if (i.item !== undefined && !known.has(i.item)) throw invalidRequest('resource_missing', `No such item of this subscription: '${i.item}'`, `items[${n}][item]`);
    });
    const priced = await priceItems(deps, auth.tenantId, body.items, 'items', r.snapshot.items);
    if (priced.currency !== r.snapshot.currency || priced.interval !== r.snapshot.interval || priced.intervalCount !== r.snapshot.intervalCount)
      throw invalidRequest('plans_mismatch', "The new plans must have the subscription's currency, interval and interval_count", 'items');
    change.items = priced.items.map((i) => ({ plan: i.plan, quantity: i.quantity, periodAmount: i.periodAmount, description: i.description, ...(i.item ? { item: i.item } : {}) }));
    change.prorationBehavior = body.proration_behavior ?? 'create_prorations';
  }
  if (body.proration_date !== undefined) change.prorationDate = body.proration_date * 1000;
  if (body.cancel_at_period_end !== undefined) change.cancelAtPeriodEnd = body.cancel_at_period_end;
  if (body.pause_collection !== undefined)
    change.pauseCollection = body.pause_collection === null ? null : { behavior: 'void', resumesAt: body.pause_collection.resumes_at !== undefined ? body.pause_collection.resumes_at * 1000 : null };
  if (body.default_payment_method !== undefined) {
    await chargeableCard(deps, auth.tenantId, r.customer, body.default_payment_method, 'default_payment_method');
    change.paymentMethod = body.default_payment_method;
  }
  if (body.metadata !== undefined) change.metadata = body.metadata;
  if (change.items) await refuseChangePastMax(deps, auth.tenantId, id, change);
  const answer = await runUpdate(deps, () => deps.temporal.workflow.getHandle(id).executeUpdate(changeSubscriptionUpdate, { args: [change] }), ended(r));
  return subscriptionView(answer.subscription);
}

/** POST /v202607/subscriptions/{id}/cancel: canceled now; repeated, the same answer. */
export async function cancelSubscription(deps: AppDeps, auth: AuthContext, id: string): Promise<SubscriptionView> {
  const r = await getSubscription(deps, auth.tenantId, id);
  const answer = await runUpdate(
    deps,
    () => deps.temporal.workflow.getHandle(id).executeUpdate(cancelSubscriptionUpdate, { args: [{}] }),
    async (): Promise<SubscriptionAnswer> => {
      const now = (await subscriptionData(deps.mongo).find(auth.tenantId, id)) ?? r;
      if (now.snapshot.status === 'canceled') return { ok: true, subscription: now.snapshot, invoice: null };
      throw ended(now)();
    },
  );
  return subscriptionView(answer.subscription);
}
