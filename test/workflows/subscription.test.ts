import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowUpdateStage, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { TestClockWrite } from '../../activities/test-clocks';
import type { InvoiceCharge, InvoiceChargeResult } from '../../domain/billing/invoice-charge';
import type { InvoiceSnapshot, SubscriptionSnapshot } from '../../domain/billing/snapshots';
import { HISTORY_EVENT_BOUND } from '../../domain/polling';
import {
  cancelSubscriptionUpdate,
  changeSubscriptionUpdate,
  DEFAULT_DUNNING,
  intentOutcomeSignal,
  payInvoiceUpdate,
  startedUpdate,
  SUBSCRIPTION_WORKFLOW,
  subscriptionStateQuery,
  voidInvoiceUpdate,
  type BilledDiscount,
  type DunningPolicy,
  type SubscriptionCarried,
  type SubscriptionChange,
  type SubscriptionInput,
} from '../../workflows/subscription/messages';
import { advanceClockUpdate, clockStateQuery, TEST_CLOCK_WORKFLOW, type TestClockInput } from '../../workflows/test-clock/messages';
import { createWorkflowTestEnv, expectRising, gate, getWorkflowBundle, keepHistory, useWorkflowTestEnv, waitFor } from './env';

// The subscription workflow in virtual time on the time-skipping server, with real timers and fake activities
// that record every saved snapshot, invoice, event and charge, and answer each charge as the test scripts it.
// Every instant is pinned: a renewal's invoice is made at its period's end exactly, and its charge is
// scheduled in that very second (the server's virtual clock when the charge activity was scheduled).
//
// The test server's clock starts at the machine's time and only moves forward, so each case first skips it
// to the case's start: an instant in BASE_YEAR, the first year without a leap day whose 31 January is still
// ahead (2027 when this was written), so the month-end clamps below read the same whichever year that is.

// A fresh test server per case: one whose clock a previous case moved months ahead does not skip reliably.
const testEnv = useWorkflowTestEnv({ perTest: true });

const DAY = 86_400_000;
const HOUR = 3_600_000;
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const BASE_YEAR = (() => {
  let y = new Date().getUTCFullYear();
  while (isLeap(y) || Date.UTC(y, 0, 31, 10) < Date.now() + 2 * DAY) y += 1;
  return y;
})();
/** An instant of BASE_YEAR (or `years` later), month 1..12. */
const at = (month: number, day: number, hour = 10, years = 0) => Date.UTC(BASE_YEAR + years, month - 1, day, hour);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** The instant floored to its second: "at T to the second" reads `expect(sec(x)).toBe(iso(T))` for a whole-second T. */
const sec = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

const TENANT = 'ten_eu_t';
const BASIC = { item: 'si_eu_basic', plan: 'plan_eu_basic', quantity: 1, periodAmount: 2000, description: '1 × Basic (monthly)' };
/** The plan switch of the proration tests: Basic at 10.00 to Pro at 25.00 a month, on the same item. */
const SWITCH = { basic: { ...BASIC, periodAmount: 1000 }, pro: { item: BASIC.item, plan: 'plan_eu_pro', quantity: 1, periodAmount: 2500, description: '1 × Pro (monthly)' } };

// ---- the fakes ---------------------------------------------------------------------------------------------

type Answer = 'succeeded' | 'processing' | 'requires_action' | { failed: string };
type Script = (req: InvoiceCharge, rec: Recorder) => Answer | Promise<Answer>;

interface Recorder {
  subs: { version: number; snapshot: SubscriptionSnapshot }[];
  invoices: { version: number; snapshot: InvoiceSnapshot }[];
  /** `at`: the server's (virtual) time when the charge was scheduled. */
  charges: { req: InvoiceCharge; at: number }[];
  events: { type: string; objectId: string; data: Record<string, unknown> }[];
  canceledIntents: string[];
  clockWrites: TestClockWrite[];
  /** Every write and charge in the order they happened, across workflows. */
  log: string[];
}

const succeedAll: Script = () => 'succeeded';

/** How an invoice's intent stands when the workflow lets it go (the real one asks the intent's workflow). */
type CancelAnswer = (paymentIntent: string) => 'canceled' | 'success' | 'pending';

function fakes(script: Script = succeedAll, onClock: string[] = [], cancelAnswer: CancelAnswer = () => 'canceled') {
  const rec: Recorder = { subs: [], invoices: [], charges: [], events: [], canceledIntents: [], clockWrites: [], log: [] };
  const activities = {
    saveSubscription: async (p: { id: string; version: number; snapshot: SubscriptionSnapshot }) => {
      rec.subs.push({ version: p.version, snapshot: p.snapshot });
      rec.log.push(`sub ${p.snapshot.status}`);
    },
    saveInvoice: async (p: { version: number; snapshot: InvoiceSnapshot }) => {
      rec.invoices.push(p);
      rec.log.push(`invoice ${p.snapshot.billingReason} ${p.snapshot.status}`);
    },
    chargeInvoice: async (req: InvoiceCharge): Promise<InvoiceChargeResult> => {
      rec.charges.push({ req, at: Context.current().info.currentAttemptScheduledTimestampMs });
      rec.log.push(`charge ${req.amount}`);
      const a = await script(req, rec);
      const outcome = typeof a === 'string' ? a : 'failed';
      return {
        paymentIntent: req.paymentIntent ?? `pi_eu_${req.invoice.slice(3)}_${req.attempt}`,
        outcome,
        failureCode: typeof a === 'string' ? null : a.failed,
        nextActionUrl: outcome === 'requires_action' ? 'https://pay.example.test/3ds' : null,
      };
    },
    cancelInvoiceIntent: async (p: { tenantId: string; paymentIntent: string }) => {
      rec.canceledIntents.push(p.paymentIntent);
      return cancelAnswer(p.paymentIntent);
    },
    // No customer credit in these cases (credit notes and the balance: test/workflows/customer-balance.test.ts, integration).
    drawCustomerCredit: async () => 0,
    creditCustomer: async () => undefined,
    recordEvent: async (e: { type: string; objectId: string; data: Record<string, unknown> }) => {
      rec.events.push({ type: e.type, objectId: e.objectId, data: e.data });
    },
    // A test clock's workflow (case 7): its record's writes, and the subscriptions it finds on the clock.
    saveTestClock: async (w: TestClockWrite) => {
      rec.clockWrites.push(w);
      rec.log.push(`clock ${w.status}`);
    },
    subscriptionsOnClock: async () => onClock,
  };
  return { rec, activities };
}

// ---- reading what was recorded -------------------------------------------------------------------------------

/** Each invoice of a subscription (in the order they were made), as last saved. */
function invoicesOf(rec: Recorder, sub: string): InvoiceSnapshot[] {
  const last = new Map<string, InvoiceSnapshot>();
  for (const { snapshot } of rec.invoices) if (snapshot.subscription === sub) last.set(snapshot.id, snapshot);
  return [...last.values()];
}
/** Every saved snapshot of one invoice, in order. */
const lastInvoice = (rec: Recorder, invoice: string) => savesOf(rec, invoice).at(-1)!;
const savesOf = (rec: Recorder, invoice: string) => rec.invoices.filter((i) => i.snapshot.id === invoice).map((i) => i.snapshot);
const chargesOf = (rec: Recorder, sub: string) => rec.charges.filter((c) => c.req.subscription === sub);
const reasonOf = (rec: Recorder, invoice: string) => rec.invoices.find((i) => i.snapshot.id === invoice)?.snapshot.billingReason;
/** The subscription's saved statuses, each change once. */
function statusesOf(rec: Recorder, sub: string): string[] {
  const out: string[] = [];
  for (const { snapshot } of rec.subs) if (snapshot.id === sub && out.at(-1) !== snapshot.status) out.push(snapshot.status);
  return out;
}
const lastSub = (rec: Recorder, sub: string) => rec.subs.filter((s) => s.snapshot.id === sub).at(-1)!.snapshot;
const eventsOf = (rec: Recorder, objectId: string) => rec.events.filter((e) => e.objectId === objectId).map((e) => e.type);
/** Which of its subscription's invoices the charged one is: 0 the first, 1 the first renewal ... */
const invoiceNumber = (rec: Recorder, req: InvoiceCharge) => invoicesOf(rec, req.subscription).findIndex((i) => i.id === req.invoice);
/** Consecutive repeats dropped (an invoice is saved twice after a failed attempt: the failure, then the attempt's end). */
const distinct = <T>(xs: T[]): T[] => xs.filter((x, k) => k === 0 || JSON.stringify(x) !== JSON.stringify(xs[k - 1]));
/** Where the k-th (1-based) `entry` is in `log`. */
const nthIndex = (log: string[], entry: string, k: number) => log.findIndex((_, i) => log.slice(0, i + 1).filter((x) => x === entry).length === k);

// ---- running ---------------------------------------------------------------------------------------------------

let n = 0;

function input(id: string, startAt: number, over: Partial<SubscriptionInput> = {}): SubscriptionInput {
  return {
    id,
    tenantId: TENANT,
    region: 'eu',
    customer: 'cus_eu_ada',
    currency: 'EUR',
    interval: 'month',
    intervalCount: 1,
    items: [{ ...BASIC }],
    paymentMethod: 'pm_eu_visa',
    taxRates: [],
    discount: null,
    startAt,
    trialEnd: null,
    cancelAtPeriodEnd: false,
    clock: null,
    metadata: {},
    // No endpoints: events are recorded, no delivery children start.
    webhooks: [],
    webhookTaskQueue: 'unused',
    dunning: DEFAULT_DUNNING,
    createdAt: startAt,
    ...over,
  };
}

/** Moves the test server's clock forward to `ms` (time skipping: timers due meanwhile fire, in order). */
async function skipTo(ms: number): Promise<void> {
  const now = await testEnv().currentTimeMs();
  if (ms > now) await testEnv().sleep(ms - now);
}

async function withWorker<T>(activities: object, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `subscriptions-${++n}`;
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
  return worker.runUntil(() => fn(taskQueue));
}

function start(taskQueue: string, inp: SubscriptionInput): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return testEnv().client.workflow.start(SUBSCRIPTION_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
}

const stateOf = (h: WorkflowHandle) => h.query(subscriptionStateQuery);

/** Every run of a workflow's chain (continue-as-new), first to last: its history and its input. */
async function runsOf(h: WorkflowHandleWithFirstExecutionRunId, env = testEnv()): Promise<{ events: temporal.api.history.v1.IHistoryEvent[]; input: SubscriptionInput }[]> {
  const runs: { events: temporal.api.history.v1.IHistoryEvent[]; input: SubscriptionInput }[] = [];
  let runId: string | undefined = h.firstExecutionRunId;
  while (runId) {
    const events: temporal.api.history.v1.IHistoryEvent[] = (await env.client.workflow.getHandle(h.workflowId, runId).fetchHistory()).events ?? [];
    const payload = events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    runs.push({ events, input: defaultPayloadConverter.fromPayload<SubscriptionInput>(payload) });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** With RECORD_HISTORIES=1, the run's history becomes a replay fixture (test/workflows/histories). */
async function keep(name: string, h: WorkflowHandle): Promise<void> {
  if (process.env.RECORD_HISTORIES === '1') keepHistory(`subscription-${name}`, await h.fetchHistory());
}

// ---- 1. renewals ----------------------------------------------------------------------------------------------

test('real time, monthly from 31 January: twelve renewals, each invoiced and charged once at its period end to the second, month ends clamped', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_year${++n}`, T0);
    const h = await start(taskQueue, inp);
    const started = await h.executeUpdate(startedUpdate);
    expect(started.subscription.status).toBe('active');
    expect(started.invoice).toMatchObject({ billingReason: 'subscription_create', status: 'paid', amountDue: 2000, periodStart: T0, periodEnd: at(2, 28) });

    await skipTo(at(1, 31, 11, 1)); // an hour past the twelfth renewal, a year on
    const renewals = [at(2, 28), at(3, 31), at(4, 30), at(5, 31), at(6, 30), at(7, 31), at(8, 31), at(9, 30), at(10, 31), at(11, 30), at(12, 31), at(1, 31, 10, 1)];
    // The year after BASE_YEAR may have a leap day: the last period then ends on 29 February.
    const ends = [...renewals.slice(1), at(2, isLeap(BASE_YEAR + 1) ? 29 : 28, 10, 1)];
    const invoices = invoicesOf(rec, inp.id);
    expect(invoices).toHaveLength(13);
    const cycle = invoices.filter((i) => i.billingReason === 'subscription_cycle');
    expect(cycle.map((i) => [iso(i.periodStart), iso(i.periodEnd)])).toEqual(renewals.map((r, k) => [iso(r), iso(ends[k]!)]));
    for (const inv of cycle) {
      expect(inv).toMatchObject({ status: 'paid', amountDue: 2000, amountPaid: 2000, amountRemaining: 0, attemptCount: 1, created: inv.periodStart, paidAt: inv.periodStart });
      expect(inv.lines).toEqual([expect.objectContaining({ amount: 2000, proration: false, period: { start: inv.periodStart, end: inv.periodEnd } })]);
      const charges = rec.charges.filter((c) => c.req.invoice === inv.id);
      expect(charges).toHaveLength(1);
      expect(sec(charges[0]!.at)).toBe(iso(inv.periodStart));
      expect(charges[0]!.req).toMatchObject({ amount: 2000, currency: 'EUR', paymentMethod: 'pm_eu_visa', attempt: 1, paymentIntent: null, intentTimeoutSeconds: 9 * 86_400 });
    }
    expect(rec.charges).toHaveLength(13);

    const s = (await stateOf(h)).subscription;
    expect([s.status, iso(s.billingCycleAnchor), iso(s.currentPeriodStart), iso(s.currentPeriodEnd)]).toEqual(['active', iso(T0), iso(at(1, 31, 10, 1)), iso(ends.at(-1)!)]);
    expect(s.latestInvoice).toBe(cycle.at(-1)!.id);
    // One writer, each write above the last: for the subscription, and for each invoice (written twice).
    expectRising(rec.subs.map((x) => x.version));
    for (const inv of invoices) {
      const writes = rec.invoices.filter((x) => x.snapshot.id === inv.id).map((x) => x.version);
      expect(writes).toHaveLength(2);
      expectRising(writes);
    }
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active']);
    expect(rec.events.filter((e) => e.type === 'invoice.paid')).toHaveLength(13);
    await h.terminate('test done');
  });
});

test('a 14-day trial: trialing with a 0 invoice paid at the start, the first charge at the trial end exactly, which anchors the cycle', async () => {
  const T0 = at(1, 31);
  const trialEnd = T0 + 14 * DAY; // 14 February 10:00
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_trial${++n}`, T0, { trialEnd });
    const h = await start(taskQueue, inp);
    const started = await h.executeUpdate(startedUpdate);
    expect(started.subscription).toMatchObject({ status: 'trialing', trialStart: T0, trialEnd, billingCycleAnchor: trialEnd, currentPeriodStart: T0, currentPeriodEnd: trialEnd });
    expect(started.invoice).toMatchObject({ billingReason: 'subscription_create', status: 'paid', total: 0, amountDue: 0, paidAt: T0 });
    expect(started.invoice!.lines).toEqual([expect.objectContaining({ description: 'Trial period for 1 × Basic (monthly)', amount: 0, period: { start: T0, end: trialEnd } })]);
    expect(rec.charges).toEqual([]); // nothing to charge for a trial

    await skipTo(at(3, 14, 11));
    const [trial, first, second] = invoicesOf(rec, inp.id);
    expect(trial!.id).toBe(started.invoice!.id);
    expect([first, second].map((i) => [i!.billingReason, iso(i!.periodStart), iso(i!.periodEnd), i!.amountDue, i!.status])).toEqual([
      ['subscription_cycle', iso(trialEnd), iso(at(3, 14)), 2000, 'paid'],
      ['subscription_cycle', iso(at(3, 14)), iso(at(4, 14)), 2000, 'paid'],
    ]);
    expect(rec.charges.map((c) => [c.req.invoice, sec(c.at)])).toEqual([
      [first!.id, iso(trialEnd)],
      [second!.id, iso(at(3, 14))],
    ]);
    const s = (await stateOf(h)).subscription;
    expect(s).toMatchObject({ status: 'active', billingCycleAnchor: trialEnd, trialStart: T0, trialEnd, currentPeriodStart: at(3, 14), currentPeriodEnd: at(4, 14) });
    expect(statusesOf(rec, inp.id)).toEqual(['trialing', 'active']);
    // Created; updated at the trial's end (active) and at the renewal (the new period).
    expect(eventsOf(rec, inp.id)).toEqual(['subscription.created', 'subscription.updated', 'subscription.updated']);
    await h.terminate('test done');
  });
});

// ---- 3. dunning ---------------------------------------------------------------------------------------------------

/** The first invoice is paid; every later attempt is declined (or as `later` says). */
const declineRenewals =
  (later: (req: InvoiceCharge, rec: Recorder) => Answer | Promise<Answer> = () => ({ failed: 'card_declined' })): Script =>
  (req, rec) =>
    reasonOf(rec, req.invoice) === 'subscription_create' ? 'succeeded' : later(req, rec);

/** Renewals declined (with `failure`) until the test sets `card.fixed`: a customer who fixes the card while dunned. */
function declinedUntilFixed(failure: 'card_declined' | 'insufficient_funds') {
  const card = { fixed: false };
  return { card, ...fakes(declineRenewals(() => (card.fixed ? 'succeeded' : { failed: failure }))) };
}

/** Dunning as Stripe's `unpaid` setting: retries 1, 3 and 7 days on, then the invoice is left open. */
const UNPAID_DUNNING: DunningPolicy = { retryDays: [1, 3, 7], whenExhausted: 'unpaid' };

test('dunning: a declined renewal is retried 1, 3 and 7 days after the first failure, past_due from the first, canceled with the invoice uncollectible after the fourth', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(declineRenewals());
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_dunning${++n}`, T0);
    const h = await start(taskQueue, inp);
    expect(await h.result()).toBe('canceled'); // the workflow ends with the subscription
    await keep('dunning-canceled', h);

    const [, renewal] = invoicesOf(rec, inp.id);
    const attempts = rec.charges.filter((c) => c.req.invoice === renewal!.id);
    expect(attempts.map((c) => [sec(c.at), c.req.attempt, c.req.amount])).toEqual([
      [iso(at(2, 28)), 1, 2000],
      [iso(at(3, 1)), 2, 2000],
      [iso(at(3, 3)), 3, 2000],
      [iso(at(3, 7)), 4, 2000],
    ]);
    // The invoice's intent is charged again, not replaced, through its whole schedule.
    const intent = `pi_eu_${renewal!.id.slice(3)}_1`;
    expect(attempts.map((c) => c.req.paymentIntent)).toEqual([null, intent, intent, intent]);
    expect(rec.charges).toHaveLength(5);
    // Each failure saved with the next attempt's instant; the last with none, uncollectible.
    const failures = distinct(savesOf(rec, renewal!.id).filter((i) => i.lastFailure !== null).map((i) => [i.status, i.attemptCount, iso(i.nextPaymentAttempt)]));
    expect(failures).toEqual([
      ['open', 1, iso(at(3, 1))],
      ['open', 2, iso(at(3, 3))],
      ['open', 3, iso(at(3, 7))],
      ['uncollectible', 4, null],
    ]);
    expect(renewal).toMatchObject({ status: 'uncollectible', lastFailure: 'card_declined', amountPaid: 0, amountRemaining: 2000, paymentIntent: intent });
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'past_due', 'canceled']);
    // past_due from the first failure on: written between the renewal's first attempt and its second.
    const pastDue = rec.log.indexOf('sub past_due');
    expect(pastDue).toBeGreaterThan(nthIndex(rec.log, 'charge 2000', 2));
    expect(pastDue).toBeLessThan(nthIndex(rec.log, 'charge 2000', 3));
    const s = lastSub(rec, inp.id);
    expect([s.status, iso(s.canceledAt), iso(s.endedAt)]).toEqual(['canceled', iso(at(3, 7)), iso(at(3, 7))]);
    expect(eventsOf(rec, renewal!.id)).toEqual(['invoice.created', 'invoice.payment_failed', 'invoice.payment_failed', 'invoice.payment_failed', 'invoice.payment_failed']);
    expect(eventsOf(rec, inp.id).at(-1)).toBe('subscription.canceled');
  });
});

/**
 * What the API starts to pay or void an uncollectible invoice of an ended subscription (api/invoices/service.ts
 * reopeningStart): a run of the ended subscription from its records, with the invoice's record in the Update.
 */
function reopenAndAct(taskQueue: string, update: typeof payInvoiceUpdate, inp: SubscriptionInput, sub: SubscriptionSnapshot, inv: InvoiceSnapshot, version: number) {
  const carried: SubscriptionCarried = { sub, open: [], pendingProrations: [], discountUsedOnce: false, clockNow: null, versions: { [sub.id]: 1 }, invoiceCount: 0 };
  return testEnv().client.workflow.executeUpdateWithStart(update, {
    args: [{ invoice: inv.id, uncollectible: { snapshot: inv, version } }],
    startWorkflowOperation: new WithStartWorkflowOperation(SUBSCRIPTION_WORKFLOW, {
      workflowId: sub.id,
      taskQueue,
      args: [{ ...inp, clock: null, carried }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
}

test('an uncollectible invoice of a subscription dunning canceled is paid on request, once for concurrent requests, and the subscription stays canceled; another is voided', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities, card } = declinedUntilFixed('card_declined');
  await withWorker(activities, async (taskQueue) => {
    const pay = async (inp: SubscriptionInput) => {
      const h = await start(taskQueue, inp);
      expect(await h.result()).toBe('canceled');
      const [, renewal] = invoicesOf(rec, inp.id);
      expect(renewal).toMatchObject({ status: 'uncollectible', attemptCount: 4 });
      const version = rec.invoices.filter((x) => x.snapshot.id === renewal!.id).at(-1)!.version;
      return { h, renewal: renewal!, sub: lastSub(rec, inp.id), version };
    };

    const inp = input(`sub_eu_uncollectible${++n}`, T0);
    const { renewal, sub, version } = await pay(inp);
    card.fixed = true;
    const eventsBefore = eventsOf(rec, inp.id).length;
    // Three requests at once: one charge (attempt 5); the others joined it (its answer) or came after and find it paid.
    const answers = await Promise.allSettled([0, 1, 2].map(() => reopenAndAct(taskQueue, payInvoiceUpdate, inp, sub, renewal, version)));
    const paid = answers.filter((a) => a.status === 'fulfilled');
    expect(paid.length).toBeGreaterThanOrEqual(1);
    for (const p of paid)
      expect((p as PromiseFulfilledResult<{ invoice: InvoiceSnapshot | null; subscription: SubscriptionSnapshot }>).value).toMatchObject({
        invoice: { status: 'paid', amountPaid: 2000, amountRemaining: 0, attemptCount: 5, paidAt: expect.any(Number) },
        subscription: { status: 'canceled' },
      });
    for (const a of answers.filter((x) => x.status === 'rejected')) expect(String((a as PromiseRejectedResult).reason.cause?.type)).toBe('invoice_not_open');
    const after = rec.charges.filter((c) => c.req.invoice === renewal.id);
    expect(after.map((c) => c.req.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(lastInvoice(rec, renewal.id)).toMatchObject({ status: 'paid', amountPaid: 2000 });
    expectRising(rec.invoices.filter((x) => x.snapshot.id === renewal.id).map((x) => x.version));
    expect(eventsOf(rec, renewal.id).at(-1)).toBe('invoice.paid');
    // The subscription as it was: canceled, nothing written or announced about it.
    expect(lastSub(rec, inp.id).status).toBe('canceled');
    expect(eventsOf(rec, inp.id)).toHaveLength(eventsBefore);

    // Voided instead: void, its intent let go again.
    card.fixed = false;
    const other = input(`sub_eu_uncollectible${++n}`, T0);
    const o = await pay(other);
    const voided = await reopenAndAct(taskQueue, voidInvoiceUpdate, other, o.sub, o.renewal, o.version);
    expect(voided.invoice).toMatchObject({ status: 'void', amountRemaining: 0, voidedAt: expect.any(Number) });
    expect(voided.subscription.status).toBe('canceled');
    expect(lastInvoice(rec, o.renewal.id).status).toBe('void');
    expect(rec.charges.filter((c) => c.req.invoice === o.renewal.id)).toHaveLength(4);
  });
});

test('dunning with whenExhausted unpaid: unpaid after the fourth failure, the invoice open with no attempt left; paying it brings the subscription back active', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities, card } = declinedUntilFixed('insufficient_funds');
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_unpaid${++n}`, T0, { dunning: UNPAID_DUNNING });
    const h = await start(taskQueue, inp);
    await skipTo(at(3, 10));
    const [, renewal] = invoicesOf(rec, inp.id);
    expect(rec.charges.map((c) => sec(c.at)).slice(1)).toEqual([at(2, 28), at(3, 1), at(3, 3), at(3, 7)].map(iso));
    expect(renewal).toMatchObject({ status: 'open', attemptCount: 4, nextPaymentAttempt: null, lastFailure: 'insufficient_funds' });
    let st = await stateOf(h);
    expect(st.subscription.status).toBe('unpaid');
    expect(st.open.map((o) => [o.invoice.id, o.firstFailureAt])).toEqual([[renewal!.id, at(2, 28)]]);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'past_due', 'unpaid']);

    card.fixed = true;
    const paid = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: renewal!.id }] });
    expect(paid.invoice).toMatchObject({ id: renewal!.id, status: 'paid', attemptCount: 5, amountPaid: 2000 });
    expect(paid.subscription.status).toBe('active');
    st = await stateOf(h);
    expect(st.open).toEqual([]);
    // And the next renewal is charged as usual, at its period end.
    await skipTo(at(3, 31, 11));
    const next = invoicesOf(rec, inp.id)[2]!;
    expect([next.status, iso(next.periodStart), sec(rec.charges.at(-1)!.at)]).toEqual(['paid', iso(at(3, 31)), iso(at(3, 31))]);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'past_due', 'unpaid', 'active']);
    await h.terminate('test done');
  });
});

/**
 * A subscription whose renewals all answer requires_action, run past its last dunning attempt (8 March), where
 * the workflow lets the renewal's intent go and the intent answers `cancelAnswer`; `then` goes on from there.
 */
async function pastLastDunningAttempt(tag: string, cancelAnswer: CancelAnswer, then: (run: { h: WorkflowHandle; rec: Recorder; inp: SubscriptionInput; renewal: InvoiceSnapshot }) => Promise<void>) {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(declineRenewals(() => 'requires_action'), [], cancelAnswer);
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_${tag}${++n}`, T0);
    const h = await start(taskQueue, inp);
    await skipTo(at(3, 8));
    await then({ h, rec, inp, renewal: invoicesOf(rec, inp.id)[1]! });
  });
}

// The last attempt answers requires_action while the customer, who got the earlier attempts' 3DS links, finishes
// one in another tab: the intent is paid by the time the workflow lets it go.
test('the last dunning attempt loses while a 3DS challenge pays the intent: the invoice is paid and the subscription stays active', async () => {
  await pastLastDunningAttempt('lastpaid', () => 'success', async ({ h, rec, inp, renewal }) => {
    await waitFor(() => lastInvoice(rec, renewal.id).status !== 'open');
    expect(lastInvoice(rec, renewal.id)).toMatchObject({ status: 'paid', attemptCount: 4, amountPaid: 2000, amountRemaining: 0 });
    expect(rec.canceledIntents).toEqual([renewal.paymentIntent]);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'past_due', 'active']);
    expect(eventsOf(rec, renewal.id).at(-1)).toBe('invoice.paid');
    expect(eventsOf(rec, inp.id)).not.toContain('subscription.canceled');
    expect((await stateOf(h)).subscription.status).toBe('active');
    await keep('last-attempt-paid-meanwhile', h);
    await h.terminate('test done');
  });
});

test('the last dunning attempt loses while a charge of its intent is still being decided: the subscription waits for the intent, then ends as it says', async () => {
  await pastLastDunningAttempt('lastpending', () => 'pending', async ({ h, rec, inp, renewal }) => {
    const lastTried = async () => (await stateOf(h)).open.find((o) => o.invoice.id === renewal.id && o.invoice.attemptCount === 4);
    await waitFor(async () => (await lastTried()) !== undefined && lastInvoice(rec, renewal.id).attemptCount === 4);
    expect(lastInvoice(rec, renewal.id)).toMatchObject({ status: 'open', nextPaymentAttempt: null, lastFailure: null });
    // It waits for the intent's word, however long: ten days on, still past_due with the invoice open.
    await skipTo(at(3, 18));
    expect((await stateOf(h)).subscription.status).toBe('past_due');
    expect(lastInvoice(rec, renewal.id).status).toBe('open');
    // Its charge is declined in the end: the intent says canceled, and only now is the subscription canceled.
    await h.signal(intentOutcomeSignal, { paymentIntent: renewal.paymentIntent!, status: 'canceled' });
    expect(await h.result()).toBe('canceled');
    expect(lastInvoice(rec, renewal.id).status).toBe('uncollectible');
    expect(eventsOf(rec, inp.id).at(-1)).toBe('subscription.canceled');
  });
});

// Under `whenExhausted: 'unpaid'`, as Stripe's: the exhausted invoice stays open, and the renewals after it are
// issued but not attempted (the merchant collects or voids them); paying the latest makes the subscription
// active again, and the renewal after that is charged as usual.
test('unpaid: later renewals are issued, not charged; paying the latest brings the subscription back active, and the next renewal is charged', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  // The February renewal fails through its schedule; the card would work again from March.
  const { rec, activities } = fakes(declineRenewals((req, r) => (invoiceNumber(r, req) >= 2 ? 'succeeded' : { failed: 'insufficient_funds' })));
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_unpaidnext${++n}`, T0, { dunning: UNPAID_DUNNING });
    const h = await start(taskQueue, inp);
    await skipTo(at(3, 31, 11));
    const [, feb, mar] = invoicesOf(rec, inp.id);
    expect(feb).toMatchObject({ status: 'open', attemptCount: 4, nextPaymentAttempt: null });
    expect(mar).toMatchObject({ status: 'open', periodStart: at(3, 31), attemptCount: 0, nextPaymentAttempt: null, paymentIntent: null });
    // Charged: the first invoice, then February's four attempts; nothing in March.
    expect(rec.charges.map((c) => sec(c.at)).slice(1)).toEqual([at(2, 28), at(3, 1), at(3, 3), at(3, 7)].map(iso));
    expect((await stateOf(h)).subscription.status).toBe('unpaid');

    const paid = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: mar!.id }] });
    expect(paid.invoice).toMatchObject({ id: mar!.id, status: 'paid', attemptCount: 1 });
    expect(paid.subscription.status).toBe('active');
    await skipTo(at(4, 30, 11));
    const apr = invoicesOf(rec, inp.id)[3]!;
    expect([apr.status, iso(apr.periodStart), sec(rec.charges.at(-1)!.at)]).toEqual(['paid', iso(at(4, 30)), iso(at(4, 30))]);
    // February's stays open, for the merchant to collect or void.
    expect(lastInvoice(rec, feb!.id)).toMatchObject({ status: 'open', attemptCount: 4 });
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'past_due', 'unpaid', 'active']);
    await h.terminate('test done');
  });
});

test('made unpaid while another invoice was being dunned: that invoice\'s retries left are called off, and stay off once a payment makes it active again', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities, card } = declinedUntilFixed('insufficient_funds');
  const { basic, pro } = SWITCH;
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_unpaidother${++n}`, T0, { items: [basic], dunning: UNPAID_DUNNING });
    const h = await start(taskQueue, inp);
    // The February renewal fails on 28 February (retries 1, 3 and 7 March); an upgrade on 2 March invoices its
    // prorations at once, declined too (retries 3, 5 and 9 March).
    await skipTo(at(3, 2));
    const up = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'always_invoice', prorationDate: at(3, 2) }] });
    expect(up.invoice).toMatchObject({ status: 'open' });
    expect(up.invoice!.nextPaymentAttempt! - at(3, 3)).toBeLessThan(1000); // a day after its first attempt, made now (ms after skipping)
    // 7 March: the renewal's last attempt fails, the subscription is unpaid, and the upgrade's 9 March retry is off.
    await skipTo(at(3, 8));
    expect((await stateOf(h)).subscription.status).toBe('unpaid');
    expect(lastInvoice(rec, up.invoice!.id)).toMatchObject({ status: 'open', attemptCount: 3, nextPaymentAttempt: null });
    // A second upgrade, issued while unpaid (not attempted), paid by the merchant: active again.
    const more = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [{ ...pro, quantity: 2, periodAmount: 5000, description: '2 × Pro (monthly)' }], prorationBehavior: 'always_invoice', prorationDate: at(3, 8) }] });
    expect(more.invoice).toMatchObject({ status: 'open', attemptCount: 0 });
    card.fixed = true;
    expect((await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: more.invoice!.id }] })).subscription.status).toBe('active');
    // 9 March passes: the first upgrade's invoice is not charged; it stays open for the merchant.
    await skipTo(at(3, 20));
    expect(chargesOf(rec, inp.id).filter((c) => c.req.invoice === up.invoice!.id).map((c) => sec(c.at))).toEqual([at(3, 2), at(3, 3), at(3, 5)].map(iso));
    expect(lastInvoice(rec, up.invoice!.id)).toMatchObject({ status: 'open', nextPaymentAttempt: null });
    expect((await stateOf(h)).subscription.status).toBe('active');
    await h.terminate('test done');
  });
});

test('unpaid: a payment the merchant asks for that fails is not retried on the dunning schedule', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(declineRenewals(() => ({ failed: 'insufficient_funds' })));
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_unpaidpay${++n}`, T0, { dunning: UNPAID_DUNNING });
    const h = await start(taskQueue, inp);
    await skipTo(at(3, 31, 11));
    const [, , mar] = invoicesOf(rec, inp.id);
    expect((await stateOf(h)).subscription.status).toBe('unpaid');
    // March's invoice, never attempted, paid by the merchant: declined, and left at that.
    const tried = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: mar!.id }] });
    expect(tried.invoice).toMatchObject({ status: 'open', attemptCount: 1, nextPaymentAttempt: null, lastFailure: 'insufficient_funds' });
    const charges = rec.charges.length;
    await skipTo(at(4, 20));
    expect(rec.charges).toHaveLength(charges);
    expect((await stateOf(h)).subscription.status).toBe('unpaid');
    await h.terminate('test done');
  });
});

test('payments the merchant asks for that fail use none of the dunning schedule: its retries come 1, 3 and 7 days after, then it cancels', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(declineRenewals());
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_askedpay${++n}`, T0);
    const h = await start(taskQueue, inp);
    await skipTo(at(2, 28, 12)); // the renewal declined once: past_due, retry due a day after
    await waitFor(() => invoicesOf(rec, inp.id).length > 1 && lastInvoice(rec, invoicesOf(rec, inp.id)[1]!.id).lastFailure !== null);
    const renewal = invoicesOf(rec, inp.id)[1]!;
    // Three pays the merchant asks for within the hour, each declined. Before, the third used up the schedule and
    // canceled the subscription on the spot.
    for (let i = 0; i < 3; i++) {
      const tried = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: renewal.id }] });
      expect(tried.invoice).toMatchObject({ status: 'open', nextPaymentAttempt: at(3, 1), lastFailure: 'card_declined' });
    }
    expect((await stateOf(h)).subscription.status).toBe('past_due');
    expect(await h.result()).toBe('canceled');
    // The schedule's own retries, at its days, then canceled after its fourth failure.
    const scheduled = rec.charges.filter((c) => c.req.invoice === renewal.id).map((c) => sec(c.at));
    expect(scheduled.filter((t) => [at(3, 1), at(3, 3), at(3, 7)].map(iso).includes(t))).toEqual([iso(at(3, 1)), iso(at(3, 3)), iso(at(3, 7))]);
    expect(rec.charges.filter((c) => c.req.invoice === renewal.id)).toHaveLength(7);
    expect(lastInvoice(rec, renewal.id).status).toBe('uncollectible');
  });
});

test('paying a past_due invoice between its retries: active again, and the retries left are not attempted', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities, card } = declinedUntilFixed('card_declined');
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_paydue${++n}`, T0);
    const h = await start(taskQueue, inp);
    await skipTo(at(3, 2));
    const [, renewal] = invoicesOf(rec, inp.id);
    expect((await stateOf(h)).subscription.status).toBe('past_due');
    expect(renewal!.nextPaymentAttempt).toBe(at(3, 3));
    card.fixed = true;
    const paid = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: renewal!.id }] });
    expect(paid.subscription.status).toBe('active');
    expect(paid.invoice).toMatchObject({ status: 'paid', attemptCount: 3, nextPaymentAttempt: null });
    await skipTo(at(3, 31, 11));
    // The 3 March and 7 March retries never ran; the 31 March renewal did.
    expect(rec.charges.slice(1).map((c) => [sec(c.at), c.req.attempt])).toEqual([
      [iso(at(2, 28)), 1],
      [iso(at(3, 1)), 2],
      [iso(at(3, 2)), 3], // the pay
      [iso(at(3, 31)), 1],
    ]);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'past_due', 'active']);
    await h.terminate('test done');
  });
});

// ---- 4. prorations ---------------------------------------------------------------------------------------------

test('a proration date ahead sets only what the prorations cost: the always_invoice invoice is made, charged and dated now', async () => {
  const T0 = at(4, 1, 0);
  const asked = at(4, 8, 0);
  const change = at(4, 11, 0);
  await skipTo(T0);
  const { rec, activities } = fakes();
  const { basic, pro } = SWITCH;
  await withWorker(activities, async (taskQueue) => {
    const h = await start(taskQueue, input(`sub_eu_prodate${++n}`, T0, { items: [basic] }));
    await h.executeUpdate(startedUpdate);
    await skipTo(asked);
    const a = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'always_invoice', prorationDate: change }] });
    // The same prorations as on 11 April (20 of 30 days), on an invoice of 8 April.
    expect(a.invoice).toMatchObject({ status: 'paid', total: 1000, periodStart: change, periodEnd: at(5, 1, 0) });
    expect(a.invoice!.created).toBeGreaterThanOrEqual(asked);
    expect(a.invoice!.created).toBeLessThan(change);
    const charged = chargesOf(rec, h.workflowId).at(-1)!;
    expect(charged.req.invoice).toBe(a.invoice!.id);
    expect(charged.at).toBeLessThan(change);
    await h.terminate('test done');
  });
});

test('an upgrade 10 days into a 30-day period: always_invoice charges the exact prorations at once; create_prorations puts them on the next renewal', async () => {
  // April has 30 days: the period 1 April -> 1 May, the change on 11 April at 00:00, 20 of 30 days left.
  const T0 = at(4, 1, 0);
  const change = at(4, 11, 0);
  await skipTo(T0);
  const { rec, activities } = fakes();
  const { basic, pro } = SWITCH;
  const d = `${BASE_YEAR}-04-11`;
  // Unused time: −round(1000 × 20/30) = −667; remaining time: round(2500 × 20/30) = 1667.
  const prorations = [
    { description: `Unused time on 1 × Basic (monthly) after ${d}`, amount: -667, plan: 'plan_eu_basic', proration: true, period: { start: change, end: at(5, 1, 0) } },
    { description: `Remaining time on 1 × Pro (monthly) after ${d}`, amount: 1667, plan: 'plan_eu_pro', proration: true, period: { start: change, end: at(5, 1, 0) } },
  ];
  await withWorker(activities, async (taskQueue) => {
    const now = await start(taskQueue, input(`sub_eu_upnow${++n}`, T0, { items: [basic] }));
    const later = await start(taskQueue, input(`sub_eu_uplater${++n}`, T0, { items: [basic] }));
    await now.executeUpdate(startedUpdate);
    await later.executeUpdate(startedUpdate);
    await skipTo(change);

    const a = await now.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'always_invoice', prorationDate: change }] });
    expect(a.invoice).toMatchObject({ billingReason: 'subscription_update', status: 'paid', subtotal: 1000, total: 1000, amountDue: 1000, amountPaid: 1000, periodStart: change, periodEnd: at(5, 1, 0) });
    expect(a.invoice!.created - change).toBeLessThan(1000); // dated when it was made: the change, a few ms after skipping to it
    expect(a.invoice!.lines).toEqual(prorations.map((l) => expect.objectContaining(l)));
    expect(a.subscription.items).toEqual([pro]);
    const charged = chargesOf(rec, now.workflowId).at(-1)!;
    expect([charged.req.invoice, charged.req.amount, sec(charged.at)]).toEqual([a.invoice!.id, 1000, iso(change)]);

    const b = await later.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'create_prorations', prorationDate: change }] });
    expect(b.invoice).toBeNull();
    expect((await stateOf(later)).pendingProrations).toEqual(prorations.map((l) => expect.objectContaining(l)));
    expect(chargesOf(rec, later.workflowId)).toHaveLength(1); // only the first invoice, nothing now

    await skipTo(at(6, 1, 1));
    // always_invoice: the renewals are the new price only.
    expect(invoicesOf(rec, now.workflowId).map((i) => [i.billingReason, i.total])).toEqual([
      ['subscription_create', 1000],
      ['subscription_update', 1000],
      ['subscription_cycle', 2500],
      ['subscription_cycle', 2500],
    ]);
    // create_prorations: the 1 May renewal carries them (2500 + 1000), the 1 June one does not.
    const [, may, june] = invoicesOf(rec, later.workflowId);
    expect(may!.lines).toEqual([expect.objectContaining({ description: '1 × Pro (monthly)', amount: 2500, proration: false }), ...prorations.map((l) => expect.objectContaining(l))]);
    expect([may!.total, may!.status, iso(may!.periodStart), june!.total]).toEqual([3500, 'paid', iso(at(5, 1, 0)), 2500]);
    expect(chargesOf(rec, later.workflowId).slice(1).map((c) => [c.req.amount, sec(c.at)])).toEqual([
      [3500, iso(at(5, 1, 0))],
      [2500, iso(at(6, 1, 0))],
    ]);
    expect((await stateOf(later)).pendingProrations).toEqual([]);
    await Promise.all([now.terminate('test done'), later.terminate('test done')]);
  });
});

// ---- 5. coupons ----------------------------------------------------------------------------------------------------

test('a 25% coupon, once / repeating 2 months / forever, with an 8.875% exclusive tax: exact amounts on each invoice', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  const coupon = (duration: BilledDiscount['duration']): BilledDiscount => ({
    coupon: `co_eu_${duration}`,
    promotionCode: null,
    percentOff: 25,
    amountOff: null,
    duration,
    start: T0,
    end: duration === 'repeating' ? at(3, 31) : null, // addMonths(T0, 2), as the API computes it
  });
  const taxRates = [{ id: 'txr_eu_ny', percentage: 8.875, inclusive: false }];
  // Discounted: 2000 − 500 = 1500, tax round(133.125) = 133, total 1633. Full: tax round(177.5) = 178, total 2178.
  const full = { subtotal: 2000, discount: 0, tax: 178, total: 2178 };
  const off = { subtotal: 2000, discount: 500, tax: 133, total: 1633 };
  await withWorker(activities, async (taskQueue) => {
    const handles = await Promise.all(
      (['once', 'repeating', 'forever'] as const).map((duration) => start(taskQueue, input(`sub_eu_${duration}${++n}`, T0, { discount: coupon(duration), taxRates }))),
    );
    await skipTo(at(4, 30, 11)); // the create invoice and three renewals: 28 Feb, 31 Mar, 30 Apr
    const figures = (h: WorkflowHandle) => invoicesOf(rec, h.workflowId).map((i) => ({ subtotal: i.subtotal, discount: i.discount, tax: i.tax, total: i.total }));
    const [once, repeating, forever] = [handles[0]!, handles[1]!, handles[2]!];
    expect(figures(once)).toEqual([off, full, full, full]);
    expect(figures(repeating)).toEqual([off, off, full, full]);
    expect(figures(forever)).toEqual([off, off, off, off]);
    for (const h of handles) {
      for (const inv of invoicesOf(rec, h.workflowId)) {
        expect(inv.status).toBe('paid');
        expect(inv.lines[0]!.taxAmounts).toEqual([{ taxRate: 'txr_eu_ny', amount: inv.tax, inclusive: false }]);
        expect(inv.lines[0]!.discountAmount).toBe(inv.discount);
      }
      expect(chargesOf(rec, h.workflowId).map((c) => c.req.amount)).toEqual(invoicesOf(rec, h.workflowId).map((i) => i.amountDue));
    }
    await Promise.all(handles.map((h) => h.terminate('test done')));
  });
});

test('a spent coupon leaves the subscription, as Stripe\'s: a once coupon with the invoice that used it, a repeating one at the first period from its end, paused or not', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  const coupon = (duration: 'once' | 'repeating'): BilledDiscount => ({
    coupon: `co_eu_${duration}`,
    promotionCode: null,
    percentOff: 50,
    amountOff: null,
    duration,
    start: T0,
    end: duration === 'repeating' ? at(3, 31) : null, // 2 months
  });
  /** The discount each subscription event carried, by event: the coupon, or null. */
  const carried = (sub: string) => rec.events.filter((e) => e.objectId === sub).map((e) => [e.type, (e.data.discount as { coupon: string } | null)?.coupon ?? null]);
  await withWorker(activities, async (taskQueue) => {
    const once = await start(taskQueue, input(`sub_eu_spentonce${++n}`, T0, { discount: coupon('once') }));
    const repeating = await start(taskQueue, input(`sub_eu_spentrepeating${++n}`, T0, { discount: coupon('repeating') }));
    const paused = await start(taskQueue, input(`sub_eu_spentpaused${++n}`, T0, { discount: coupon('repeating') }));
    const first = await once.executeUpdate(startedUpdate);
    await repeating.executeUpdate(startedUpdate);
    await paused.executeUpdate(startedUpdate);
    // The first invoice used the once coupon: the subscription is announced and answered without it.
    expect(first.invoice).toMatchObject({ discount: 1000, total: 1000 });
    expect(first.subscription.discount).toBeNull();
    await skipTo(at(2, 10));
    await paused.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: { behavior: 'void', resumesAt: null } }] });

    await skipTo(at(2, 28, 11));
    // Before the repeating coupon's end (31 March): still on, and still taken off the February renewal.
    expect(invoicesOf(rec, repeating.workflowId).map((i) => i.discount)).toEqual([1000, 1000]);
    expect((await stateOf(repeating)).subscription.discount).toMatchObject({ coupon: 'co_eu_repeating', end: at(3, 31) });
    expect((await stateOf(paused)).subscription.discount).toMatchObject({ coupon: 'co_eu_repeating' });

    await skipTo(at(3, 31, 11));
    // The period from 31 March starts at the coupon's end: its renewal is full, and the discount is gone.
    expect(invoicesOf(rec, repeating.workflowId).map((i) => i.discount)).toEqual([1000, 1000, 0]);
    expect(invoicesOf(rec, once.workflowId).map((i) => i.discount)).toEqual([1000, 0, 0]);
    for (const h of [once, repeating, paused]) {
      expect((await stateOf(h)).subscription.discount).toBeNull();
      expect(lastSub(rec, h.workflowId).discount).toBeNull();
    }
    expect(carried(once.workflowId)).toEqual([
      ['subscription.created', null],
      ['subscription.updated', null],
      ['subscription.updated', null],
      ['subscription.updated', null],
    ]);
    expect(carried(repeating.workflowId)).toEqual([
      ['subscription.created', 'co_eu_repeating'],
      ['subscription.updated', 'co_eu_repeating'],
      ['subscription.updated', 'co_eu_repeating'],
      ['subscription.updated', null],
    ]);
    // Paused, no invoice is made: the renewal of 31 March alone ends it, and its event says so.
    expect(invoicesOf(rec, paused.workflowId)).toHaveLength(1);
    expect(carried(paused.workflowId).slice(-3)).toEqual([
      ['subscription.updated', 'co_eu_repeating'],
      ['subscription.updated', 'co_eu_repeating'],
      ['subscription.updated', null],
    ]);
    await Promise.all([once, repeating, paused].map((h) => h.terminate('test done')));
  });
});

// ---- 7. test clock ---------------------------------------------------------------------------------------------------

test('on a test clock: nothing happens until the clock advances; past three period ends the three renewals run, then the clock is ready', async () => {
  const T0 = at(1, 31);
  const target = at(4, 30, 12);
  const clockId = `clock_eu_test${++n}`;
  const subId = `sub_eu_onclock${n}`;
  const { rec, activities } = fakes(succeedAll, [subId]);
  await withWorker(activities, async (taskQueue) => {
    const clockInput: TestClockInput = { id: clockId, tenantId: TENANT, frozenTime: T0 };
    const clock = await testEnv().client.workflow.start(TEST_CLOCK_WORKFLOW, { workflowId: clockId, taskQueue, args: [clockInput] });
    const h = await start(taskQueue, input(subId, T0, { clock: { id: clockId, frozenTime: T0 } }));
    const started = await h.executeUpdate(startedUpdate);
    expect(started.subscription).toMatchObject({ status: 'active', testClock: clockId, currentPeriodEnd: at(2, 28) });
    // Real time means nothing to it: months of the server's time pass and no renewal runs.
    await testEnv().sleep(120 * DAY);
    expect(rec.charges).toHaveLength(1);
    expect((await stateOf(h)).clockNow).toBe(T0);

    expect(await clock.executeUpdate(advanceClockUpdate, { args: [{ frozenTime: target }] })).toEqual({ frozenTime: T0, status: 'advancing', deleted: false });
    await waitFor(async () => (await clock.query(clockStateQuery)).status === 'ready');
    expect(await clock.query(clockStateQuery)).toEqual({ frozenTime: target, status: 'ready', deleted: false });

    const renewals = invoicesOf(rec, subId).slice(1);
    expect(renewals.map((i) => [iso(i.periodStart), iso(i.created), iso(i.paidAt), i.status, i.testClock])).toEqual(
      [at(2, 28), at(3, 31), at(4, 30)].map((t) => [iso(t), iso(t), iso(t), 'paid', clockId]),
    );
    expect(rec.charges).toHaveLength(4);
    // The clock's record said ready only after the three renewals were charged and written.
    const ready = rec.log.indexOf('clock ready');
    expect(ready).toBeGreaterThan(rec.log.lastIndexOf('charge 2000'));
    expect(ready).toBeGreaterThan(rec.log.lastIndexOf('invoice subscription_cycle paid'));
    expect(rec.clockWrites.map((w) => [w.status, iso(w.frozenTime)])).toEqual([
      ['advancing', iso(T0)],
      ['ready', iso(target)],
    ]);
    // The subscription told the clock it caught up, with the clock's new time.
    const told = ((await clock.fetchHistory()).events ?? [])
      .map((e) => e.workflowExecutionSignaledEventAttributes)
      .filter((a) => a?.signalName === 'clockCaughtUp')
      .map((a) => defaultPayloadConverter.fromPayload(a!.input!.payloads![0]!));
    expect(told).toEqual([{ subscription: subId, frozenTime: target, ended: false }]);
    const st = await stateOf(h);
    expect([st.clockNow, iso(st.subscription.currentPeriodStart), iso(st.subscription.currentPeriodEnd)]).toEqual([target, iso(at(4, 30)), iso(at(5, 31))]);
    await keep('test-clock-three-renewals', h);
    await Promise.all([h.terminate('test done'), clock.terminate('test done')]);
  });
});

// ---- 8. cancel, pause, pay, void, started, intent outcomes -----------------------------------------------------------

test('cancel now: canceled at once, the workflow ends, nothing more is charged', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_cancelnow${++n}`, T0);
    const h = await start(taskQueue, inp);
    await h.executeUpdate(startedUpdate);
    await skipTo(at(2, 10));
    const a = await h.executeUpdate(cancelSubscriptionUpdate, { args: [{}] });
    expect(a.subscription.status).toBe('canceled');
    expect(sec(a.subscription.canceledAt!)).toBe(iso(at(2, 10)));
    expect(a.subscription.endedAt).toBe(a.subscription.canceledAt);
    expect(await h.result()).toBe('canceled');
    expect(rec.charges).toHaveLength(1);
    expect(invoicesOf(rec, inp.id)).toHaveLength(1);
    expect(eventsOf(rec, inp.id).at(-1)).toBe('subscription.canceled');
    expect(lastSub(rec, inp.id)).toMatchObject({ status: 'canceled', canceledAt: a.subscription.canceledAt });
  });
});

test('cancel at period end: still active until then, canceled at the period end exactly, no renewal invoiced', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_cancelend${++n}`, T0);
    const h = await start(taskQueue, inp);
    await h.executeUpdate(startedUpdate);
    await skipTo(at(2, 10));
    const a = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ cancelAtPeriodEnd: true }] });
    expect(a.subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    // Dated when it was asked for, as Stripe dates it.
    expect(a.subscription.canceledAt! - at(2, 10)).toBeGreaterThanOrEqual(0);
    expect(a.subscription.canceledAt! - at(2, 10)).toBeLessThan(60_000);
    expect(await h.result()).toBe('canceled');
    const s = lastSub(rec, inp.id);
    expect([s.status, iso(s.endedAt), iso(s.currentPeriodEnd)]).toEqual(['canceled', iso(at(2, 28)), iso(at(2, 28))]);
    expect(s.canceledAt).toBe(a.subscription.canceledAt);
    expect(rec.charges).toHaveLength(1);
    expect(invoicesOf(rec, inp.id)).toHaveLength(1);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active', 'canceled']);
  });
});

test('cancel at period end with prorations pending: they are billed on a final invoice at the period end (an upgrade charged, a downgrade credited), then canceled', async () => {
  // As the billing portal does: a plan switch with create_prorations on 11 April (20 of 30 days left), then
  // cancel at period end. Stripe: pending prorations "are also left in place and collected at the end of the period".
  const T0 = at(4, 1, 0);
  const change = at(4, 11, 0);
  const end = at(5, 1, 0);
  await skipTo(T0);
  const { rec, activities } = fakes();
  const credits: { key: string; amount: number }[] = [];
  const withCredit = { ...activities, creditCustomer: async (p: { key: string; amount: number }) => void credits.push({ key: p.key, amount: p.amount }) };
  const { basic, pro } = SWITCH;
  await withWorker(withCredit, async (taskQueue) => {
    const up = await start(taskQueue, input(`sub_eu_upcancel${++n}`, T0, { items: [basic] }));
    const down = await start(taskQueue, input(`sub_eu_downcancel${++n}`, T0, { items: [pro] }));
    await up.executeUpdate(startedUpdate);
    await down.executeUpdate(startedUpdate);
    await skipTo(change);
    for (const [h, to] of [[up, pro], [down, basic]] as const) {
      await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [to], prorationBehavior: 'create_prorations', prorationDate: change }] });
      await h.executeUpdate(changeSubscriptionUpdate, { args: [{ cancelAtPeriodEnd: true }] });
    }
    expect(await up.result()).toBe('canceled');
    expect(await down.result()).toBe('canceled');

    // The upgrade: −667 + 1667 = 1000 owed, charged at the period end exactly.
    expect(invoicesOf(rec, up.workflowId).map((i) => [i.billingReason, i.total])).toEqual([
      ['subscription_create', 1000],
      ['subscription_cycle', 1000],
    ]);
    const [, upFinal] = invoicesOf(rec, up.workflowId);
    expect(upFinal!.lines.map((l) => [l.amount, l.proration])).toEqual([[-667, true], [1667, true]]);
    expect(upFinal).toMatchObject({ billingReason: 'subscription_cycle', total: 1000, amountPaid: 1000, status: 'paid', periodStart: T0, periodEnd: end, created: end });
    const upCharges = chargesOf(rec, up.workflowId);
    expect(upCharges).toHaveLength(2);
    expect([upCharges[1]!.req.invoice, upCharges[1]!.req.amount, sec(upCharges[1]!.at)]).toEqual([upFinal!.id, 1000, iso(end)]);
    // The downgrade: −1667 + 667 = 1000 credit, nothing charged, the credit on the customer's balance.
    const [, downFinal] = invoicesOf(rec, down.workflowId);
    expect(downFinal).toMatchObject({ total: -1000, amountDue: 0, status: 'paid' });
    expect(chargesOf(rec, down.workflowId)).toHaveLength(1);
    expect(credits).toEqual([{ key: downFinal!.id, amount: 1000 }]);

    for (const h of [up, down]) {
      expect(lastSub(rec, h.workflowId)).toMatchObject({ status: 'canceled', endedAt: end });
      expect(invoicesOf(rec, h.workflowId)).toHaveLength(2); // no renewal: only the prorations
      expect(eventsOf(rec, h.workflowId).at(-1)).toBe('subscription.canceled');
    }
    await keep('cancel-at-period-end-with-prorations', up);
  });
});

test('pause (void) with a resume date, and pause resumed by hand: no invoices while paused, renewals again after', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const timed = await start(taskQueue, input(`sub_eu_pausetimed${++n}`, T0));
    const manual = await start(taskQueue, input(`sub_eu_pausemanual${++n}`, T0));
    await timed.executeUpdate(startedUpdate);
    await manual.executeUpdate(startedUpdate);
    await skipTo(at(2, 10));
    const p1 = await timed.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: { behavior: 'void', resumesAt: at(4, 15) } }] });
    const p2 = await manual.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: { behavior: 'void', resumesAt: null } }] });
    expect([p1.subscription.status, p2.subscription.status]).toEqual(['paused', 'paused']);

    await skipTo(at(3, 10));
    // Paused through 28 February: the period moved on, nothing was invoiced.
    const m = (await stateOf(manual)).subscription;
    expect([m.status, iso(m.currentPeriodStart), iso(m.currentPeriodEnd)]).toEqual(['paused', iso(at(2, 28)), iso(at(3, 31))]);
    const r = await manual.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: null }] });
    expect(r.subscription).toMatchObject({ status: 'active', pauseCollection: null });

    await skipTo(at(4, 30, 11));
    // By hand on 10 March: 31 March and 30 April invoiced and charged.
    expect(invoicesOf(rec, manual.workflowId).map((i) => iso(i.periodStart))).toEqual([T0, at(3, 31), at(4, 30)].map(iso));
    expect(chargesOf(rec, manual.workflowId).slice(1).map((c) => sec(c.at))).toEqual([at(3, 31), at(4, 30)].map(iso));
    // Resumed on 15 April by its date: 28 February and 31 March skipped, 30 April invoiced.
    expect(invoicesOf(rec, timed.workflowId).map((i) => iso(i.periodStart))).toEqual([T0, at(4, 30)].map(iso));
    expect(chargesOf(rec, timed.workflowId).slice(1).map((c) => sec(c.at))).toEqual([iso(at(4, 30))]);
    const resumed = rec.subs.find((s) => s.snapshot.id === timed.workflowId && s.snapshot.status === 'active' && s.snapshot.currentPeriodStart === at(3, 31))!;
    expect(resumed.snapshot.pauseCollection).toBeNull();
    expect(statusesOf(rec, timed.workflowId)).toEqual(['incomplete', 'active', 'paused', 'active']);
    expect(statusesOf(rec, manual.workflowId)).toEqual(['incomplete', 'active', 'paused', 'active']);
    await Promise.all([timed.terminate('test done'), manual.terminate('test done')]);
  });
});

test("paused (void), an always_invoice change's invoice is voided at once, as Stripe's: not charged, no credit drawn; once resumed, charged again", async () => {
  const T0 = at(4, 1, 0);
  await skipTo(T0);
  const { rec, activities } = fakes();
  const [draws, credits]: string[][] = [[], []];
  const acts = {
    ...activities,
    drawCustomerCredit: async (p: { key: string }) => {
      draws.push(p.key);
      return 0;
    },
    creditCustomer: async (p: { key: string }) => void credits.push(p.key),
  };
  const { basic, pro } = SWITCH;
  await withWorker(acts, async (taskQueue) => {
    const h = await start(taskQueue, input(`sub_eu_pausedchange${++n}`, T0, { items: [basic] }));
    await h.executeUpdate(startedUpdate);
    await skipTo(at(4, 11, 0));
    await h.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: { behavior: 'void', resumesAt: null } }] });
    const up = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'always_invoice', prorationDate: at(4, 11, 0) }] });
    expect(up.invoice).toMatchObject({ billingReason: 'subscription_update', status: 'void', total: 1000, amountPaid: 0, amountRemaining: 0 });
    expect(up.invoice!.voidedAt! - at(4, 11, 0)).toBeLessThan(1000); // voided when made: a few ms after skipping to the change
    // The latest invoice, as Stripe's, and the change's event names it.
    expect(up.subscription).toMatchObject({ status: 'paused', items: [pro], latestInvoice: up.invoice!.id });
    expect(eventsOf(rec, up.invoice!.id)).toEqual(['invoice.created']);
    expect(rec.events.filter((e) => e.objectId === h.workflowId).at(-1)!.data).toMatchObject({ status: 'paused', latest_invoice: up.invoice!.id });
    // A pause asked in the same change counts too: the downgrade back is voided, and credits nothing.
    const resumed = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: null }] });
    expect(resumed.subscription.status).toBe('active');
    const down = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [basic], prorationBehavior: 'always_invoice', prorationDate: at(4, 11, 0), pauseCollection: { behavior: 'void', resumesAt: null } }] });
    expect(down.invoice).toMatchObject({ status: 'void', total: -1000 });
    // Resumed, the next always_invoice change is charged.
    await h.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: null }] });
    const charged = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'always_invoice', prorationDate: at(4, 11, 0) }] });
    expect(charged.invoice).toMatchObject({ status: 'paid', total: 1000, amountPaid: 1000 });
    expect(chargesOf(rec, h.workflowId).map((c) => c.req.invoice)).toEqual([invoicesOf(rec, h.workflowId)[0]!.id, charged.invoice!.id]);
    expect(draws).toEqual([invoicesOf(rec, h.workflowId)[0]!.id, charged.invoice!.id]);
    expect(credits).toEqual([]);
    await keep('paused-change-invoice-void', h);
    await h.terminate('test done');
  });
});

test("unpaid and paused, a change's void invoice is the latest, yet paying the exhausted one still brings the subscription back", async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities, card } = declinedUntilFixed('insufficient_funds');
  const { basic, pro } = SWITCH;
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_unpaidpausedchange${++n}`, T0, { items: [basic], dunning: UNPAID_DUNNING });
    const h = await start(taskQueue, inp);
    await skipTo(at(3, 10));
    const [, renewal] = invoicesOf(rec, inp.id);
    expect((await stateOf(h)).subscription.status).toBe('unpaid');
    await h.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: { behavior: 'void', resumesAt: null } }] });
    const up = await h.executeUpdate(changeSubscriptionUpdate, { args: [{ items: [pro], prorationBehavior: 'always_invoice' }] });
    expect(up.invoice).toMatchObject({ status: 'void' });
    expect(up.subscription).toMatchObject({ status: 'unpaid', latestInvoice: up.invoice!.id });

    card.fixed = true;
    const paid = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: renewal!.id }] });
    expect(paid.invoice).toMatchObject({ id: renewal!.id, status: 'paid' });
    // Back from unpaid, to paused: its collection still is.
    expect(paid.subscription).toMatchObject({ status: 'paused', latestInvoice: up.invoice!.id });
    await h.terminate('test done');
  });
});

test('the first invoice declined: incomplete, not dunned; voiding it makes the subscription incomplete_expired and cancels its intent', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(() => ({ failed: 'card_declined' }));
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_void${++n}`, T0);
    const h = await start(taskQueue, inp);
    const started = await h.executeUpdate(startedUpdate);
    expect(started.subscription.status).toBe('incomplete');
    expect(started.invoice).toMatchObject({ status: 'open', attemptCount: 1, lastFailure: 'card_declined', nextPaymentAttempt: null });
    await skipTo(T0 + 2 * HOUR);
    const v = await h.executeUpdate(voidInvoiceUpdate, { args: [{ invoice: started.invoice!.id }] });
    expect(v.invoice).toMatchObject({ status: 'void', amountRemaining: 0 });
    expect(sec(v.invoice!.voidedAt!)).toBe(iso(T0 + 2 * HOUR));
    expect(v.subscription).toMatchObject({ status: 'incomplete_expired', endedAt: v.invoice!.voidedAt });
    expect(await h.result()).toBe('incomplete_expired');
    expect(rec.canceledIntents).toEqual([`pi_eu_${started.invoice!.id.slice(3)}_1`]);
    expect(rec.charges).toHaveLength(1);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'incomplete_expired']);
  });
});

test('the first invoice left unpaid: incomplete_expired 23 hours after creation exactly, its invoice void', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(() => ({ failed: 'card_declined' }));
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_expire${++n}`, T0);
    const h = await start(taskQueue, inp);
    expect(await h.result()).toBe('incomplete_expired');
    const [first] = invoicesOf(rec, inp.id);
    expect([first!.status, iso(first!.voidedAt)]).toEqual(['void', iso(T0 + 23 * HOUR)]);
    expect(iso(lastSub(rec, inp.id).endedAt)).toBe(iso(T0 + 23 * HOUR));
    expect(rec.charges).toHaveLength(1);
  });
});

test('startedUpdate answers only once the first charge has answered, with the paid invoice', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const held = gate();
  const { rec, activities } = fakes(async (): Promise<Answer> => {
    await held.p;
    return 'succeeded';
  });
  await withWorker(activities, async (taskQueue) => {
    const h = await start(taskQueue, input(`sub_eu_started${++n}`, T0));
    let answered = false;
    const answer = h.executeUpdate(startedUpdate).then((a) => {
      answered = true;
      return a;
    });
    await waitFor(() => rec.charges.length === 1);
    // The charge is on the wire: the Update has not answered.
    expect(answered).toBe(false);
    held.open();
    const a = await answer;
    expect(a.subscription.status).toBe('active');
    expect(a.invoice).toMatchObject({ status: 'paid', attemptCount: 1, paymentIntent: expect.stringMatching(/^pi_eu_/) });
    await h.terminate('test done');
  });
});

test("the intent's outcome: a first invoice needing 3DS, and a renewal charge still processing, are paid when their intents say success", async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const script: Script = (req, rec) => (reasonOf(rec, req.invoice) === 'subscription_create' ? 'requires_action' : 'processing');
  const { rec, activities } = fakes(script);
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_outcome${++n}`, T0);
    const h = await start(taskQueue, inp);
    const started = await h.executeUpdate(startedUpdate);
    expect(started.subscription.status).toBe('incomplete');
    expect(started.invoice).toMatchObject({ status: 'open', lastFailure: 'requires_action', nextPaymentAttempt: null });
    const firstIntent = started.invoice!.paymentIntent!;
    await skipTo(T0 + HOUR);
    await h.signal(intentOutcomeSignal, { paymentIntent: firstIntent, status: 'success' });
    await waitFor(() => lastSub(rec, inp.id).status === 'active');
    const first = invoicesOf(rec, inp.id)[0]!;
    expect(first.status).toBe('paid');
    expect(sec(first.paidAt!)).toBe(iso(T0 + HOUR));

    await skipTo(at(2, 28, 12));
    const renewal = invoicesOf(rec, inp.id)[1]!;
    // Processing is neither paid nor failed: open, no retry planned, the subscription still active.
    expect(renewal).toMatchObject({ status: 'open', attemptCount: 1, lastFailure: null, nextPaymentAttempt: null });
    expect((await stateOf(h)).subscription.status).toBe('active');
    await h.signal(intentOutcomeSignal, { paymentIntent: renewal.paymentIntent!, status: 'success' });
    await waitFor(() => eventsOf(rec, renewal.id).includes('invoice.paid'));
    expect(sec(invoicesOf(rec, inp.id)[1]!.paidAt!)).toBe(iso(at(2, 28, 12)));
    expect(eventsOf(rec, renewal.id)).toEqual(['invoice.created', 'invoice.paid']);
    expect(rec.charges).toHaveLength(2);
    expect(statusesOf(rec, inp.id)).toEqual(['incomplete', 'active']);
    await h.terminate('test done');
  });
});

// ---- 6. continue-as-new ------------------------------------------------------------------------------------------------

/**
 * The 400-day run takes most of this file's wall time (some 3,200 activities, each a few server round trips,
 * mostly spent waiting), so it runs on a test server of its own, started before the other cases and checked
 * by the last one, while the others run on theirs.
 */
interface LongRun {
  rec: Recorder;
  inp: SubscriptionInput;
  T0: number;
  runs: { events: temporal.api.history.v1.IHistoryEvent[]; input: SubscriptionInput }[];
  state: Awaited<ReturnType<typeof stateOf>>;
  wallMs: number;
  /** Whole days of virtual time the run had when it was stopped (400, unless the test server's clock went past the sleep's end). */
  days: number;
}
let longRun: Promise<LongRun> | undefined;

async function dailyFor400Days(): Promise<LongRun> {
  const began = Date.now();
  const env = await createWorkflowTestEnv();
  try {
    const T0 = at(1, 31);
    await env.sleep(T0 - (await env.currentTimeMs()));
    const { rec, activities } = fakes();
    const taskQueue = 'subscriptions-daily';
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities });
    return await worker.runUntil(async () => {
      const daily = { ...BASIC, periodAmount: 150, description: '1 × Basic (daily)' };
      const inp = input('sub_eu_daily', T0, { interval: 'day', items: [daily] });
      const h = await env.client.workflow.start(SUBSCRIPTION_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
      await env.sleep(T0 + 400 * DAY + HOUR - (await env.currentTimeMs()));
      // Stopped at once, and read after: one loaded CI run recorded 773 invoices where 401 were due (the test
      // server's clock past the sleep's end, we think), so the checks count the days the workflow itself
      // reached, still one invoice and one charge for each.
      await h.terminate('test done');
      const state = await stateOf(h);
      const days = Math.round((state.subscription.currentPeriodStart - T0) / DAY);
      const runs = await runsOf(h, env);
      return { rec, inp, T0, runs, state, wallMs: Date.now() - began, days };
    });
  } finally {
    await env.teardown();
  }
}

beforeAll(() => {
  longRun = dailyFor400Days();
  longRun.catch(() => undefined); // awaited (and reported) by its test
});
afterAll(async () => {
  await longRun?.catch(() => undefined);
}, 300_000);

test('a daily plan for 400 days: the run chain continues as new with its state intact, every run near the history bound', async () => {
  const { rec, inp, T0, runs, state, wallMs, days } = await longRun!;
  expect(days).toBeGreaterThanOrEqual(400);
  const invoices = invoicesOf(rec, inp.id);
  expect(invoices).toHaveLength(days + 1); // the first and a renewal each day (401 when the clock stopped on day 400)
  invoices.forEach((inv, k) => {
    expect([iso(inv.periodStart), iso(inv.periodEnd), inv.status, inv.amountPaid]).toEqual([iso(T0 + k * DAY), iso(T0 + (k + 1) * DAY), 'paid', 150]);
  });
  expect(rec.charges).toHaveLength(days + 1);
  rec.charges.slice(1).forEach((c, k) => expect([c.req.invoice, sec(c.at)]).toEqual([invoices[k + 1]!.id, iso(T0 + (k + 1) * DAY)]));
  // The versions run on across runs: each save above the one before.
  expectRising(rec.subs.map((x) => x.version));

  const lengths = runs.map((r) => r.events.length);
  process.stdout.write(`400-day daily subscription: ${days} days, ${runs.length} runs of ${lengths.join(', ')} history events (bound ${HISTORY_EVENT_BOUND}); ${wallMs} ms of wall time\n`);
  expect(runs.length).toBeGreaterThan(1);
  // A run continues as new at the first turn of its loop past the bound: at most one renewal (some 55 events) over it.
  for (const length of lengths) expect(length).toBeLessThanOrEqual(HISTORY_EVENT_BOUND + 100);
  // What each run was handed is what the previous one had: its latest invoice, the count, the period, the versions.
  for (const { input: carriedInput } of runs.slice(1)) {
    const c = carriedInput.carried as SubscriptionCarried;
    const k = invoices.findIndex((i) => i.id === c.sub.latestInvoice);
    expect([c.invoiceCount, iso(c.sub.currentPeriodStart), c.sub.status, c.open, c.clockNow]).toEqual([k + 1, iso(T0 + k * DAY), 'active', [], null]);
    // The subscription's carried version is that of its last save up to that period.
    expect(c.versions[inp.id]).toBe(rec.subs.filter((s) => s.snapshot.currentPeriodStart <= c.sub.currentPeriodStart).at(-1)!.version);
    // Paid invoices are never written again: only the subscription's and open invoices' versions are carried.
    expect(Object.keys(c.versions)).toEqual([inp.id, ...c.open.map((o) => o.invoice.id)]);
  }
  const s = state.subscription;
  expect([s.status, iso(s.currentPeriodStart), iso(s.currentPeriodEnd), s.latestInvoice]).toEqual(['active', iso(T0 + days * DAY), iso(T0 + (days + 1) * DAY), invoices.at(-1)!.id]);
}, 300_000); // its wall time grows with the load of the whole suite on 2 cores (one CI run passed 120 s)

// ---- what a review found (each was a defect before its fix) ------------------------------------------------

test('canceled at period end during a trial: it ends with the trial, nothing charged; paused during a trial: nothing charged', async () => {
  const T0 = at(1, 31);
  const trialEnd = T0 + 14 * DAY;
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const canceling = await start(taskQueue, input(`sub_eu_trialcancel${++n}`, T0, { trialEnd }));
    await canceling.executeUpdate(startedUpdate);
    await canceling.executeUpdate(changeSubscriptionUpdate, { args: [{ cancelAtPeriodEnd: true }] });
    const pausing = await start(taskQueue, input(`sub_eu_trialpause${++n}`, T0, { trialEnd }));
    await pausing.executeUpdate(startedUpdate);
    await pausing.executeUpdate(changeSubscriptionUpdate, { args: [{ pauseCollection: { behavior: 'void', resumesAt: null } }] });
    expect(await canceling.result()).toBe('canceled');
    expect(lastSub(rec, canceling.workflowId)).toMatchObject({ status: 'canceled', endedAt: trialEnd });
    await skipTo(trialEnd + HOUR);
    expect((await stateOf(pausing)).subscription.status).toBe('paused');
    expect(rec.charges).toEqual([]);
    await pausing.terminate('test done');
  });
});

test('a retry the gateway answers processing is not attempted again: its intent says how it ends', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  // The first renewal is declined; its retry a day later stays processing.
  const { rec, activities } = fakes((req) => (invoiceNumber(rec, req) === 0 ? 'succeeded' : req.attempt === 1 ? { failed: 'card_declined' } : 'processing'));
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_processing${++n}`, T0);
    const h = await start(taskQueue, inp);
    await h.executeUpdate(startedUpdate);
    await skipTo(at(3, 5));
    // The clock is past the retry; the worker may still be handling what fell due (a busy machine).
    await waitFor(() => invoicesOf(rec, inp.id).length > 1);
    const renewal = invoicesOf(rec, inp.id)[1]!;
    const retriedOf = async () => (await stateOf(h)).open.find((o) => o.invoice.id === renewal.id && o.invoice.attemptCount === 2);
    await waitFor(async () => (await retriedOf()) !== undefined);
    expect(chargesOf(rec, inp.id).filter((c) => c.req.invoice === renewal.id)).toHaveLength(2);
    const open = (await retriedOf())!;
    expect(open.invoice).toMatchObject({ attemptCount: 2, nextPaymentAttempt: null, lastFailure: null });
    await h.signal(intentOutcomeSignal, { paymentIntent: open.invoice.paymentIntent!, status: 'success' });
    await waitFor(async () => (await stateOf(h)).subscription.status === 'active');
    // The state moves before its write lands: the invoice's record is read once written.
    await waitFor(() => lastInvoice(rec, renewal.id).status === 'paid');
    expect(chargesOf(rec, inp.id).filter((c) => c.req.invoice === renewal.id)).toHaveLength(2);
    await h.terminate('test done');
  });
});

test('concurrent pays of a declining invoice make one charge, and every one answers its outcome; a pay after that answer is charged anew', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  // The first pay's charge (attempt 2) is held on the wire until the other pays are in.
  const wire = gate();
  const { rec, activities } = fakes(async (req) => {
    if (req.attempt === 2) await wire.p;
    return { failed: 'card_declined' };
  });
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_joined${++n}`, T0);
    const h = await start(taskQueue, inp);
    const started = await h.executeUpdate(startedUpdate);
    expect(started.subscription.status).toBe('incomplete');
    const pay = () => h.startUpdate(payInvoiceUpdate, { args: [{ invoice: started.invoice!.id }], waitForStage: WorkflowUpdateStage.ACCEPTED });
    const first = await pay();
    await waitFor(() => rec.charges.length === 2);
    const others = await Promise.all([1, 2, 3].map(pay));
    wire.open();
    const answers = await Promise.all([first, ...others].map((u) => u.result()));
    await keep('concurrent-pays-declined-joined', h);
    expect(rec.charges.map((c) => c.req.attempt)).toEqual([1, 2]);
    expect(answers[0]!.invoice).toMatchObject({ status: 'open', attemptCount: 2, lastFailure: 'card_declined' });
    for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);
    expect(eventsOf(rec, started.invoice!.id).filter((e) => e === 'invoice.payment_failed')).toHaveLength(2);

    // Once answered, a pay is the merchant trying again: a new attempt.
    const again = await h.executeUpdate(payInvoiceUpdate, { args: [{ invoice: started.invoice!.id }] });
    expect(again.invoice).toMatchObject({ status: 'open', attemptCount: 3 });
    expect(rec.charges.map((c) => c.req.attempt)).toEqual([1, 2, 3]);
    await h.terminate('test done');
  });
});

test('concurrent pays of an uncollectible invoice whose card still declines reach one run of the ended subscription: one charge, one answer', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const wire = gate();
  const { rec, activities } = fakes(
    declineRenewals(async (req) => {
      if (req.attempt === 5) await wire.p;
      return { failed: 'card_declined' };
    }),
  );
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_uncollectiblejoined${++n}`, T0);
    expect(await (await start(taskQueue, inp)).result()).toBe('canceled');
    const [, renewal] = invoicesOf(rec, inp.id);
    expect(renewal).toMatchObject({ status: 'uncollectible', attemptCount: 4 });
    const version = rec.invoices.filter((x) => x.snapshot.id === renewal!.id).at(-1)!.version;
    const sub = lastSub(rec, inp.id);
    // As the API sends each request: an update-with-start of a run made from the records.
    const carried: SubscriptionCarried = { sub, open: [], pendingProrations: [], discountUsedOnce: false, clockNow: null, versions: { [sub.id]: 1 }, invoiceCount: 0 };
    const pay = () =>
      testEnv().client.workflow.startUpdateWithStart(payInvoiceUpdate, {
        args: [{ invoice: renewal!.id, uncollectible: { snapshot: renewal!, version } }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
        startWorkflowOperation: new WithStartWorkflowOperation(SUBSCRIPTION_WORKFLOW, {
          workflowId: sub.id,
          taskQueue,
          args: [{ ...inp, clock: null, carried }],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    const first = await pay();
    // The pay's charge (the renewal's fifth attempt) has reached the gateway, which holds it. Counting all charges
    // (=== 5, the first invoice's and four attempts) passed only when the Update was accepted before that charge
    // was made, and waited for ever otherwise.
    await waitFor(() => rec.charges.filter((c) => c.req.invoice === renewal!.id).length === 5);
    const others = await Promise.all([1, 2, 3].map(pay));
    wire.open();
    const answers = await Promise.all([first, ...others].map((u) => u.result()));
    expect(new Set([first, ...others].map((u) => u.workflowRunId)).size).toBe(1);
    expect(rec.charges.filter((c) => c.req.invoice === renewal!.id).map((c) => c.req.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(answers[0]!.invoice).toMatchObject({ status: 'uncollectible', attemptCount: 5, lastFailure: 'card_declined' });
    for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);
    expect(lastInvoice(rec, renewal!.id)).toMatchObject({ status: 'uncollectible', attemptCount: 5 });
  });
});

/** The activities with a customer whose balance holds 500 of credit: each invoice draws it; `credits` records what is given back. */
function creditOf500<A extends object>(activities: A) {
  const credits: { key: string; amount: number }[] = [];
  const withCredit = {
    ...activities,
    drawCustomerCredit: async (p: { max: number }) => Math.min(p.max, 500),
    creditCustomer: async (p: { key: string; amount: number }) => void credits.push({ key: p.key, amount: p.amount }),
  };
  return { credits, withCredit };
}

test('canceled under a renewal whose charge is still being decided: the invoice waits for its intent; paid, it is paid and its credit kept', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  // The renewal's charge answers processing; letting its intent go finds it still deciding.
  const { rec, activities } = fakes((req, r) => (invoiceNumber(r, req) === 0 ? 'succeeded' : 'processing'), [], () => 'pending');
  const { credits, withCredit } = creditOf500(activities);
  await withWorker(withCredit, async (taskQueue) => {
    const inp = input(`sub_eu_endpending${++n}`, T0);
    const h = await start(taskQueue, inp);
    await h.executeUpdate(startedUpdate);
    await skipTo(at(2, 28, 12)); // the renewal is charged and still processing
    await waitFor(() => invoicesOf(rec, inp.id).length > 1 && chargesOf(rec, inp.id).length === 2);
    const renewal = invoicesOf(rec, inp.id)[1]!;
    await h.executeUpdate(cancelSubscriptionUpdate, { args: [{}] });
    await waitFor(() => rec.canceledIntents.length > 0);
    // Canceled, but its invoice stays open: the customer may yet pay it. Before, it was voided here and its credit
    // handed back, and the charge that then succeeded was kept against a void invoice.
    expect((await stateOf(h)).subscription.status).toBe('canceled');
    const intent = (await stateOf(h)).open.find((o) => o.invoice.id === renewal.id)!.invoice.paymentIntent!;
    expect(lastInvoice(rec, renewal.id).status).toBe('open');
    await h.signal(intentOutcomeSignal, { paymentIntent: intent, status: 'success' });
    expect(await h.result()).toBe('canceled');
    expect(lastInvoice(rec, renewal.id)).toMatchObject({ status: 'paid', amountPaid: 1500 });
    expect(eventsOf(rec, renewal.id)).toContain('invoice.paid');
    expect(credits).toEqual([]);
  });
});

test('canceled with a renewal still open: its intent is canceled and the invoice voided, the credit it took given back', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(declineRenewals());
  const { credits, withCredit } = creditOf500(activities);
  await withWorker(withCredit, async (taskQueue) => {
    const inp = input(`sub_eu_endopen${++n}`, T0);
    const h = await start(taskQueue, inp);
    await h.executeUpdate(startedUpdate);
    await skipTo(at(2, 28, 12)); // the renewal failed once: past_due, open
    const renewal = invoicesOf(rec, inp.id)[1]!;
    expect(renewal).toMatchObject({ appliedBalance: 500, amountDue: 1500 });
    await h.executeUpdate(cancelSubscriptionUpdate, { args: [{}] });
    expect(await h.result()).toBe('canceled');
    expect(lastInvoice(rec, renewal.id)).toMatchObject({ status: 'void', nextPaymentAttempt: null });
    expect(rec.canceledIntents).toContain(lastInvoice(rec, renewal.id).paymentIntent);
    expect(credits).toEqual([{ key: `void:${renewal.id}`, amount: 500 }]);
  });
});

// ---- 9. subscription events: one per change, none without one, each naming the latest invoice -----------------------

/** The subscription's events, each with what a receiver checks first. */
const subEvents = (rec: Recorder, sub: string) =>
  rec.events.filter((e) => e.objectId === sub).map((e) => ({ type: e.type, status: e.data.status, latestInvoice: e.data.latest_invoice }));

test('a renewal sends one subscription.updated with its new period and invoice: active when paid, past_due when declined (not past_due twice)', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes((req, rec) => (reasonOf(rec, req.invoice) === 'subscription_create' || req.subscription.includes('paying') ? 'succeeded' : { failed: 'card_declined' }));
  await withWorker(activities, async (taskQueue) => {
    const paying = await start(taskQueue, input(`sub_eu_paying${++n}`, T0));
    const declined = await start(taskQueue, input(`sub_eu_declined${++n}`, T0));
    await paying.executeUpdate(startedUpdate);
    await declined.executeUpdate(startedUpdate);
    await skipTo(at(2, 28, 12)); // past the renewal, before the declined one's first retry
    await keep('renewal-declined-one-update', declined);
    for (const [h, status] of [
      [paying, 'active'],
      [declined, 'past_due'],
    ] as const) {
      const [first, renewal] = invoicesOf(rec, h.workflowId);
      const updated = subEvents(rec, h.workflowId).filter((e) => e.type === 'subscription.updated');
      expect(updated).toEqual([
        { type: 'subscription.updated', status: 'active', latestInvoice: first!.id },
        { type: 'subscription.updated', status, latestInvoice: renewal!.id },
      ]);
      expect(rec.events.find((e) => e.objectId === h.workflowId && e.data.latest_invoice === renewal!.id)!.data).toMatchObject({ current_period_start: at(2, 28) / 1000 });
    }
    await paying.terminate('test done');
    await declined.terminate('test done');
  });
});

test('an update that changes nothing sends no subscription.updated: the same metadata, cancel at period end (double-clicked), pause or card again', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes();
  await withWorker(activities, async (taskQueue) => {
    const inp = input(`sub_eu_nochange${++n}`, T0, { metadata: { plan: 'gold' } });
    const h = await start(taskQueue, inp);
    await h.executeUpdate(startedUpdate);
    const change = (c: SubscriptionChange) => h.executeUpdate(changeSubscriptionUpdate, { args: [c] });
    const updates = () => rec.events.filter((e) => e.objectId === inp.id && e.type === 'subscription.updated').map((e) => e.data);
    const sent = updates().length; // active, the first invoice paid

    await skipTo(at(2, 10));
    await change({ metadata: { plan: 'gold' } });
    await change({ paymentMethod: 'pm_eu_visa' });
    await change({ metadata: { seats: '3' } });
    await change({ metadata: { seats: '3' } });
    // The billing portal's cancel, double-clicked, then asked again a day later: one cancellation, dated once.
    const [a, b] = await Promise.all([change({ cancelAtPeriodEnd: true }), change({ cancelAtPeriodEnd: true })]);
    await skipTo(at(2, 11));
    const c = await change({ cancelAtPeriodEnd: true });
    await change({ pauseCollection: { behavior: 'void', resumesAt: null } });
    await change({ pauseCollection: { behavior: 'void', resumesAt: null } });
    await keep('updates-that-change-nothing', h);

    expect(new Set([a.subscription.canceledAt, b.subscription.canceledAt, c.subscription.canceledAt]).size).toBe(1);
    const canceledAt = Math.floor(a.subscription.canceledAt! / 1000);
    // Three changes, three events.
    expect(updates().slice(sent).map((d) => [d.status, d.metadata, d.cancel_at_period_end, d.canceled_at, d.pause_collection])).toEqual([
      ['active', { plan: 'gold', seats: '3' }, false, null, null],
      ['active', { plan: 'gold', seats: '3' }, true, canceledAt, null],
      ['paused', { plan: 'gold', seats: '3' }, true, canceledAt, { behavior: 'void', resumes_at: null }],
    ]);
    await h.terminate('test done');
  });
});

test("a trial's end sends subscription.updated once its first cycle's invoice is issued, naming it: active when paid, past_due when declined", async () => {
  const T0 = at(1, 31);
  const trialEnd = T0 + 14 * DAY;
  await skipTo(T0);
  const { rec, activities } = fakes((req) => (req.subscription.includes('paying') ? 'succeeded' : { failed: 'card_declined' }));
  await withWorker(activities, async (taskQueue) => {
    const paying = await start(taskQueue, input(`sub_eu_trialpaying${++n}`, T0, { trialEnd }));
    const declined = await start(taskQueue, input(`sub_eu_trialdeclined${++n}`, T0, { trialEnd }));
    await paying.executeUpdate(startedUpdate);
    await declined.executeUpdate(startedUpdate);
    await skipTo(trialEnd + HOUR);
    await keep('trial-end-declined-updated-after-invoice', declined);
    for (const [h, status] of [
      [paying, 'active'],
      [declined, 'past_due'],
    ] as const) {
      const [trial, cycle] = invoicesOf(rec, h.workflowId);
      expect(subEvents(rec, h.workflowId)).toEqual([
        { type: 'subscription.created', status: 'trialing', latestInvoice: trial!.id },
        { type: 'subscription.updated', status, latestInvoice: cycle!.id },
      ]);
      // After the invoice's own events: a receiver that fetches latest_invoice finds it.
      const order = rec.events.filter((e) => e.objectId === h.workflowId || e.objectId === cycle!.id).map((e) => e.type);
      expect(order.slice(1)).toEqual(['invoice.created', status === 'active' ? 'invoice.paid' : 'invoice.payment_failed', 'subscription.updated']);
    }
    await paying.terminate('test done');
    await declined.terminate('test done');
  });
});

test('subscription.created names the first invoice as latest_invoice: a trial\'s, and one waiting for 3DS (no update follows until it is paid)', async () => {
  const T0 = at(1, 31);
  await skipTo(T0);
  const { rec, activities } = fakes(() => 'requires_action');
  await withWorker(activities, async (taskQueue) => {
    const trialing = await start(taskQueue, input(`sub_eu_createdtrial${++n}`, T0, { trialEnd: T0 + 7 * DAY }));
    const challenged = await start(taskQueue, input(`sub_eu_created3ds${++n}`, T0));
    const t = await trialing.executeUpdate(startedUpdate);
    const c = await challenged.executeUpdate(startedUpdate);
    expect(c.subscription.status).toBe('incomplete');
    expect(subEvents(rec, trialing.workflowId)).toEqual([{ type: 'subscription.created', status: 'trialing', latestInvoice: t.invoice!.id }]);
    expect(subEvents(rec, challenged.workflowId)).toEqual([{ type: 'subscription.created', status: 'incomplete', latestInvoice: c.invoice!.id }]);
    // Still announced before its invoice, as a receiver expects the subscription first.
    expect(rec.events.filter((e) => e.objectId === challenged.workflowId || e.objectId === c.invoice!.id).map((e) => e.type).slice(0, 2)).toEqual(['subscription.created', 'invoice.created']);
    await trialing.terminate('test done');
    await challenged.terminate('test done');
  });
});
