import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { typedIdFromUuid } from '../../domain/ids';
import { invoiceNotActionable, invoiceView, subscriptionView, type InvoiceSnapshot, type LineSnapshot } from '../../domain/billing/snapshots';
import { emitEvent } from '../emit-event';
import { historyIsLong } from '../history';
import { SA } from '../search-attributes';
import { clockAdvancedSignal, clockCaughtUpSignal, clockDeletedSignal } from '../test-clock/messages';
import {
  cancelSubscriptionUpdate,
  changeSubscriptionUpdate,
  intentOutcomeSignal,
  payInvoiceUpdate,
  startedUpdate,
  subscriptionStateQuery,
  voidInvoiceUpdate,
  type InvoiceAction,
  type ItemChange,
  type OpenInvoice,
  type SubscriptionAnswer,
  type SubscriptionInput,
} from './messages';
import { SubscriptionBook, type Due } from './state';
import { historyFloor } from '../serial-writer';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });
// A charge is an intent's merchant-initiated charge: its Update waits for the gateway (two tries and a
// status question at most), so a minute; retried on infrastructure errors only (a decline is an answer).
const charging = proxyActivities<Activities>({ startToCloseTimeout: '90s', retry: { initialInterval: '1s', maximumInterval: '30s' } });

// Letting an invoice's intent go: its cancel waits up to 20 s for a charge on the wire (and the API's resend of
// an unprocessed Update), so a minute, not the records' 10 s, which timed out and queued cancels meanwhile.
const intents = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { initialInterval: '1s', maximumInterval: '30s' } });

const FINAL_PRORATIONS_PATCH = 'final-invoice-pending-prorations';
const LAST_ATTEMPT_INTENT_PATCH = 'last-attempt-asks-intent';
/** An `unpaid` subscription's invoices are issued but not attempted (Stripe's); before, it charged each renewal. */
const UNPAID_NOT_ATTEMPTED_PATCH = 'unpaid-not-attempted';
/** Made unpaid: the retries other open invoices had left are called off (asked at that moment, apart from the above). */
const UNPAID_STOPS_OTHER_RETRIES_PATCH = 'unpaid-stops-other-retries';
/** Its clock deleted: canceled now (a signal an older run held unhandled changes nothing on replay). */
const CLOCK_DELETED_CANCELS_PATCH = 'clock-deleted-cancels';
/** Runs whose end waits for an open invoice's charge still being decided; older runs voided it under the charge. */
const END_WAITS_FOR_CHARGE_PATCH = 'end-waits-for-charge';
/** A failed attempt the merchant asked for leaves the dunning schedule as it was; older runs counted it as a retry. */
const ASKED_ATTEMPTS_OFF_SCHEDULE_PATCH = 'asked-attempts-off-schedule';
/** Collection paused: a change's `always_invoice` invoice is voided at once, not charged (before, it was charged). */
const PAUSED_CHANGE_INVOICE_VOID_PATCH = 'paused-change-invoice-void';
/**
 * A change's `prorationDate` sets only what the prorations cost, as Stripe's: its invoice is made, charged and
 * dated now (its dunning counted from now). Runs before it dated and charged that invoice at the proration date.
 */
const PRORATION_DATE_PRICES_ONLY_PATCH = 'proration-date-prices-only';
/** An uncollectible invoice can be paid or voided (Stripe's); before, only an open one. Asked only for such an invoice. */
const UNCOLLECTIBLE_PAY_OR_VOID_PATCH = 'uncollectible-pay-or-void';
/** `subscription.updated` only when the view differs from the last event's (Stripe's); before, every change sent one. */
const UPDATED_ONLY_WHEN_CHANGED_PATCH = 'subscription-updated-only-when-changed';
/** The trial's end is announced once its first cycle's invoice is issued (the event names it); before, ahead of it. */
const TRIAL_END_AFTER_INVOICE_PATCH = 'trial-end-updated-after-invoice';
/** `subscription.created` is sent once the first invoice exists, naming it as latest_invoice; before, with null. */
const CREATED_WITH_FIRST_INVOICE_PATCH = 'subscription-created-with-first-invoice';
/**
 * A pay of an invoice that comes while a pay of it is being decided is answered with that pay's outcome, not charged
 * again; before, each one queued and charged in turn. Asked only when such a pay comes.
 */
const PAY_JOINS_PAY_IN_FLIGHT_PATCH = 'pay-joins-pay-in-flight';

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/**
 * One workflow per subscription (id = `sub_...`). It owns the subscription and its invoices: the trial, each
 * renewal at its period's end (exact, month-end aware, computed from the billing-cycle anchor), each invoice's
 * charge of the saved card (a merchant-initiated charge of agreement type RECURRING through the invoice's
 * payment intent), dunning, prorations, pause and resume, and cancellation. On a test clock its time is the
 * clock's: it runs what is due up to each time the clock is advanced to, then tells the clock.
 */
export async function subscriptionWorkflow(input: SubscriptionInput): Promise<string> {
  const b = new SubscriptionBook(input);
  const clock = input.clock;
  let clockNow: number | null = input.carried?.clockNow ?? clock?.frozenTime ?? null;
  let clockToAnswer = input.carried?.clockToAnswer ?? false;
  const now = (): number => clockNow ?? Date.now();
  const newId = (prefix: 'in' | 'il' | 'si'): string => typedIdFromUuid(prefix, input.region, uuid4());
  const versions = new Map<string, number>(Object.entries(input.carried?.versions ?? {}));
  let wake = false;
  let busy = false;
  const outcomes: { paymentIntent: string; status: 'success' | 'canceled' }[] = [...(input.carried?.outcomes ?? [])];
  let started = input.carried !== undefined;
  let firstInvoice: InvoiceSnapshot | null = null;
  /** Uncollectible invoices this run was asked to pay or void, as it left them (see takeUncollectible). */
  const closedHere = new Map<string, OpenInvoice>();
  /** The subscription's view as its last event carried it (JSON), so a change that changed nothing sends none. */
  let sentView: string | null = input.carried?.sentView ?? null;

  // ---- writes, in order, each with a higher version of its record -----------------------------------------
  let chain: Promise<unknown> = Promise.resolve();
  const carriedVersions = input.carried?.versions ?? {};
  // Above the writes of a dead attempt of this task too (workflows/serial-writer.ts, historyFloor).
  const nextVersion = (id: string): number => {
    const v = Math.max((versions.get(id) ?? 0) + 1, historyFloor(carriedVersions[id] ?? 0)());
    versions.set(id, v);
    return v;
  };
  const saveSub = (): Promise<unknown> => {
    const snapshot = clone(b.sub);
    const version = nextVersion(b.sub.id);
    setCurrentDetails(b.summary());
    chain = chain.then(() => store.saveSubscription({ id: snapshot.id, version, snapshot }));
    return chain;
  };
  const saveInvoice = (inv: InvoiceSnapshot): Promise<unknown> => {
    const snapshot = clone(inv);
    const version = nextVersion(inv.id);
    chain = chain.then(() => store.saveInvoice({ version, snapshot }));
    return chain;
  };
  const emit = async (type: string, kind: 'subscription' | 'invoice', data: Record<string, unknown>, objectId: string): Promise<void> => {
    await chain; // the record reads as the event says before the event is sent
    await emitEvent({
      webhookTaskQueue: input.webhookTaskQueue,
      tenantId: input.tenantId,
      region: input.region,
      type,
      objectId,
      source: { kind, id: objectId },
      data,
      endpoints: input.webhooks,
    });
  };
  /**
   * A subscription event with its view as it is now. An `updated` whose view is the last event's is not sent: a
   * change that changed nothing (the same metadata again, a double-clicked cancel), or one a step announced already
   * (a failed renewal's past_due, then the renewal's own). Asked only then: older runs sent it.
   */
  const announce = async (type: string): Promise<void> => {
    const view = subscriptionView(b.sub);
    const json = JSON.stringify(view);
    if (type === 'subscription.updated' && json === sentView && patched(UPDATED_ONLY_WHEN_CHANGED_PATCH)) return;
    sentView = json;
    await emit(type, 'subscription', view, b.sub.id);
  };
  const subscriptionChanged = async (type = 'subscription.updated'): Promise<void> => {
    upsertSearchAttributes([{ key: SA.PaymentStatus, value: b.sub.status }]);
    await saveSub();
    await announce(type);
  };
  const invoiceEvent = (type: string, inv: InvoiceSnapshot) => emit(type, 'invoice', invoiceView(inv), inv.id);

  /** One change at a time: the main loop's due work and the Updates never interleave their awaits. */
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // Every waiter whose condition holds is woken in one activation: each checks again before it takes the turn.
    while (busy) await condition(() => !busy);
    busy = true;
    try {
      return await fn();
    } finally {
      busy = false;
      wake = true;
    }
  }

  // ---- collecting an invoice --------------------------------------------------------------------------
  const lineIds = (lines: LineSnapshot[]): LineSnapshot[] => lines.map((l) => (l.line ? l : { ...l, line: newId('il') }));

  /**
   * A new invoice: the customer's credit balance is used first (its workflow takes it, once per invoice), and
   * a negative total (a downgrade invoiced at once) becomes credit.
   */
  async function makeInvoice(reason: InvoiceSnapshot['billingReason'], lines: LineSnapshot[], period: { start: number; end: number }, at: number, useCredit = true): Promise<InvoiceSnapshot> {
    const id = newId('in');
    const draft = b.invoice(reason, lines, period, at, id);
    const who = { tenantId: input.tenantId, customer: input.customer, currency: input.currency, key: id };
    if (!useCredit) return draft;
    if (draft.total > 0) {
      const drawn = await store.drawCustomerCredit({ ...who, max: draft.total });
      if (drawn > 0) return b.invoice(reason, lines, period, at, id, drawn);
    } else if (draft.total < 0) await store.creditCustomer({ ...who, max: 0, amount: -draft.total });
    return draft;
  }

  /** A new invoice is made: recorded, announced, then collected. */
  async function issue(inv: InvoiceSnapshot, at: number): Promise<void> {
    b.took(inv);
    await saveInvoice(inv);
    await invoiceEvent('invoice.created', inv);
    const o = b.openInvoice(inv.id);
    // Unpaid, an invoice with something due is issued, not attempted.
    if (o && !(inv.amountDue > 0 && notAttempted())) await collect(o, at);
    else await saveSub();
  }

  /**
   * A new invoice while collection is paused (`void`): recorded and announced, voided at once, never charged; it
   * took no credit (made without drawing any), and a credit it would have made (a downgrade) is not given. It is
   * the latest invoice, as Stripe's, but not the one an unpaid subscription waits to see paid (it never can be).
   */
  async function issueVoided(inv: InvoiceSnapshot, at: number): Promise<void> {
    b.took(inv, false);
    const o = b.openInvoice(inv.id);
    if (o) b.void(o, at);
    await saveInvoice(inv);
    await invoiceEvent('invoice.created', inv);
    await saveSub();
  }

  /**
   * Unpaid (dunning ran out under `whenExhausted: unpaid`), as Stripe's: invoices go on being issued, but none is
   * attempted; they stay open for the merchant to collect (pay) or void. Paying the latest makes it active again.
   * Asked only while unpaid: older runs charged on.
   */
  function notAttempted(): boolean {
    return b.sub.status === 'unpaid' && patched(UNPAID_NOT_ATTEMPTED_PATCH);
  }

  /** Just made unpaid by `exhausted`: the retries other open invoices still had scheduled are called off. */
  async function stopOtherRetries(exhausted: OpenInvoice): Promise<void> {
    if (!patched(UNPAID_STOPS_OTHER_RETRIES_PATCH)) return;
    for (const other of b.open) {
      if (other === exhausted || other.invoice.nextPaymentAttempt === null) continue;
      other.invoice.nextPaymentAttempt = null;
      await saveInvoice(other.invoice);
    }
  }

  /** The invoice's next attempt: its intent and charge are keyed by the invoice and this attempt's number. */
  function chargeNextAttempt(inv: OpenInvoice['invoice']) {
    inv.attemptCount += 1;
    return charging.chargeInvoice({
      tenantId: input.tenantId,
      region: input.region,
      subscription: input.id,
      invoice: inv.id,
      customer: input.customer,
      amount: inv.amountDue,
      currency: inv.currency,
      paymentMethod: b.sub.defaultPaymentMethod,
      paymentIntent: inv.paymentIntent,
      attempt: inv.attemptCount,
      intentTimeoutSeconds: intentLifeSeconds(input),
    });
  }

  /** Charges an open invoice once (nothing to charge: paid at once) and applies the outcome. */
  /** `asked`: the merchant asked for this attempt (POST /invoices/{id}/pay), not the dunning schedule. */
  async function collect(o: OpenInvoice, at: number, asked = false): Promise<void> {
    const inv = o.invoice;
    const statusBefore = b.sub.status;
    if (inv.amountDue === 0) {
      b.paid(o, at);
    } else {
      const r = await chargeNextAttempt(inv);
      inv.paymentIntent = r.paymentIntent;
      if (r.outcome === 'succeeded') b.paid(o, at);
      else if (r.outcome === 'processing') {
        // Its intent tells this workflow how it ends (intentOutcomeSignal); nothing is attempted meanwhile.
        inv.lastFailure = null;
        inv.nextPaymentAttempt = null;
      } else {
        // A payment the merchant asked for while unpaid is not retried either.
        const { exhausted } = b.failed(o, r.failureCode ?? r.outcome, at, notAttempted(), asked && patched(ASKED_ATTEMPTS_OFF_SCHEDULE_PATCH));
        if (exhausted && input.dunning.whenExhausted === 'cancel' && inv.paymentIntent && patched(LAST_ATTEMPT_INTENT_PATCH)) {
          await lastAttemptLost(o, at, statusBefore);
          return;
        }
        const became = exhausted ? b.exhausted(o, at) : null;
        if (became === 'unpaid') await stopOtherRetries(o);
        // Uncollectible: its intent is let go, so no later payment lands on it.
        if (became === 'canceled' && inv.paymentIntent) await intents.cancelInvoiceIntent({ tenantId: input.tenantId, paymentIntent: inv.paymentIntent });
        await saveInvoice(inv);
        await invoiceEvent('invoice.payment_failed', inv);
        if (became) {
          await subscriptionChanged(became === 'canceled' ? 'subscription.canceled' : 'subscription.updated');
          return;
        }
        if (b.sub.status !== statusBefore) await subscriptionChanged();
        else await saveSub();
        return;
      }
    }
    await invoiceMoved(inv, statusBefore, true);
  }

  /**
   * The last attempt failed and the policy cancels: the invoice's intent is let go first, and how it stands
   * decides. Paid meanwhile (the customer finished a 3DS challenge in another tab while the attempt ran): the
   * invoice is paid and the subscription stays. A charge still being decided: its intent says how it ends
   * (intentOutcomeSignal), as for a charge answered `processing`. Canceled: uncollectible, the subscription
   * canceled. Before this, the subscription was canceled first and a payment landing meanwhile was kept.
   */
  async function lastAttemptLost(o: OpenInvoice, at: number, statusBefore: string): Promise<void> {
    const inv = o.invoice;
    const intent = await intents.cancelInvoiceIntent({ tenantId: input.tenantId, paymentIntent: inv.paymentIntent! });
    if (intent === 'success') {
      b.paid(o, at);
      await invoiceMoved(inv, statusBefore, true);
      return;
    }
    if (intent === 'pending') {
      inv.lastFailure = null;
      await saveInvoice(inv);
      if (b.sub.status !== statusBefore) await subscriptionChanged();
      else await saveSub();
      return;
    }
    b.exhausted(o, at);
    await saveInvoice(inv);
    await invoiceEvent('invoice.payment_failed', inv);
    await subscriptionChanged('subscription.canceled');
  }

  /**
   * An invoice's new state written (and announced when paid); the subscription's with it when its status moved
   * (or, `saveSubscription`, in any case: a new invoice is its latest).
   */
  async function invoiceMoved(inv: InvoiceSnapshot, statusBefore: string, saveSubscription = false): Promise<void> {
    await saveInvoice(inv);
    if (inv.status === 'paid') await invoiceEvent('invoice.paid', inv);
    if (b.sub.status !== statusBefore) await subscriptionChanged(b.sub.status === 'canceled' ? 'subscription.canceled' : 'subscription.updated');
    else if (saveSubscription) await saveSub();
  }

  /** An invoice's intent ended after its charge answered (3DS completed, an asynchronous charge settled). */
  async function applyOutcomes(): Promise<void> {
    while (outcomes.length) {
      const { paymentIntent, status } = outcomes.shift()!;
      const o = b.openByIntent(paymentIntent);
      if (!o) continue;
      const statusBefore = b.sub.status;
      if (status === 'success') b.paid(o, now());
      else {
        // Its intent is gone: the next attempt makes a new one.
        o.invoice.paymentIntent = null;
        if (o.invoice.nextPaymentAttempt === null && o.invoice.lastFailure === null) {
          const { exhausted } = b.failed(o, 'payment_intent_canceled', now(), notAttempted());
          if (exhausted && b.exhausted(o, now()) === 'unpaid') await stopOtherRetries(o);
        }
      }
      await invoiceMoved(o.invoice, statusBefore);
    }
  }

  // ---- what falls due ----------------------------------------------------------------------------------
  async function run(due: Due): Promise<void> {
    const s = b.sub;
    switch (due.kind) {
      case 'expire_incomplete':
        b.expireIncomplete(due.at);
        await subscriptionChanged();
        return;
      case 'trial_end': {
        // Canceled at the period's end during a trial: it ends with the trial, nothing charged.
        if (s.cancelAtPeriodEnd) {
          b.cancel(due.at);
          await subscriptionChanged('subscription.canceled');
          return;
        }
        b.endTrial();
        if (s.pauseCollection) {
          s.status = 'paused';
          await subscriptionChanged();
          return;
        }
        // Announced once the cycle's invoice is issued, so the event names it as latest_invoice (a failed charge
        // announced past_due already, and this one then changes nothing: not sent). Older runs announced first.
        const after = patched(TRIAL_END_AFTER_INVOICE_PATCH);
        if (!after) await subscriptionChanged();
        const inv = await makeInvoice('subscription_cycle', b.periodLines(s.currentPeriodStart, s.currentPeriodEnd, newId), { start: s.currentPeriodStart, end: s.currentPeriodEnd }, due.at);
        await issue(inv, due.at);
        if (after) await subscriptionChanged();
        return;
      }
      case 'period_end': {
        if (s.cancelAtPeriodEnd) {
          await invoicePendingAtEnd(due.at);
          if (b.ended()) return; // its final invoice's dunning ran out at once (no retry days): canceled already
          b.cancel(due.at);
          await subscriptionChanged('subscription.canceled');
          return;
        }
        b.roll();
        if (s.pauseCollection) {
          // Collection paused: the period moves on, nothing is invoiced (Stripe's `void` behaviour).
          await subscriptionChanged();
          return;
        }
        const inv = await makeInvoice('subscription_cycle', b.periodLines(s.currentPeriodStart, s.currentPeriodEnd, newId), { start: s.currentPeriodStart, end: s.currentPeriodEnd }, due.at);
        await saveSub();
        await issue(inv, due.at);
        // The new period and invoice; not sent again when a failed charge announced past_due with them already.
        await announce('subscription.updated');
        return;
      }
      case 'retry': {
        const o = b.openInvoice(due.invoice);
        if (o && notAttempted()) {
          // Left scheduled by a run made unpaid before unpaid-stops-other-retries: not attempted either.
          o.invoice.nextPaymentAttempt = null;
          await saveInvoice(o.invoice);
        } else if (o) await collect(o, due.at);
        return;
      }
      case 'resume':
        s.pauseCollection = null;
        if (s.status === 'paused') s.status = b.open.length ? 'past_due' : 'active';
        await subscriptionChanged();
        return;
    }
  }

  /**
   * Ending at its period's end, it still bills the prorations held for a renewal that will not come (Stripe: "left
   * in place and collected at the end of the period"): a final invoice of them alone, charged like a renewal, a
   * net credit going to the balance. Paused, nothing is invoiced, as at a renewal. A cancel now drops them (as
   * Stripe's without `invoice_now`). Asked only when some are pending: older runs ended without this invoice.
   */
  async function invoicePendingAtEnd(at: number): Promise<void> {
    const s = b.sub;
    if (!b.pendingProrations.length || s.pauseCollection || !patched(FINAL_PRORATIONS_PATCH)) return;
    const inv = await makeInvoice('subscription_cycle', [], { start: s.currentPeriodStart, end: s.currentPeriodEnd }, at);
    await issue(inv, at);
  }

  // ---- messages ----------------------------------------------------------------------------------------
  setHandler(intentOutcomeSignal, (o) => {
    outcomes.push(o);
    wake = true;
  });
  setHandler(clockAdvancedSignal, ({ frozenTime }) => {
    if (clockNow === null || frozenTime > clockNow) clockNow = frozenTime;
    clockToAnswer = true;
    wake = true;
  });
  // Its clock was deleted: its time never moves again, so it is canceled now, as a cancel now would.
  setHandler(clockDeletedSignal, () =>
    exclusive(async () => {
      if (b.ended() || !patched(CLOCK_DELETED_CANCELS_PATCH)) return;
      b.cancel(now());
      await subscriptionChanged('subscription.canceled');
    }),
  );
  setHandler(subscriptionStateQuery, () => ({ subscription: b.sub, open: b.open, pendingProrations: b.pendingProrations, clockNow, discountUsedOnce: b.discountUsedOnce }));

  const answer = (invoice: InvoiceSnapshot | null): SubscriptionAnswer => ({ ok: true, subscription: clone(b.sub), invoice: invoice ? clone(invoice) : null });
  const refuseIfEnded = () => {
    if (b.ended()) throw ApplicationFailure.nonRetryable(`This subscription is ${b.sub.status}`, 'subscription_ended');
  };

  setHandler(startedUpdate, async () => {
    await condition(() => started);
    return answer(firstInvoice);
  });

  setHandler(
    changeSubscriptionUpdate,
    (c) =>
      exclusive(async () => {
        refuseIfEnded();
        const at = Math.min(Math.max(c.prorationDate ?? now(), b.sub.currentPeriodStart), b.sub.currentPeriodEnd);
        let invoice: InvoiceSnapshot | null = null;
        if (c.items) {
          const lines = lineIds(b.changeItems(c, at, () => newId('si')));
          if (lines.length && c.prorationBehavior === 'always_invoice') {
            // Collection paused (by this change too), as Stripe's `void`: the invoice is made, and voided at once.
            const paused = (c.pauseCollection !== undefined ? c.pauseCollection : b.sub.pauseCollection) !== null && patched(PAUSED_CHANGE_INVOICE_VOID_PATCH);
            const stamp = at !== now() && patched(PRORATION_DATE_PRICES_ONLY_PATCH) ? now() : at;
            invoice = await makeInvoice('subscription_update', lines, { start: at, end: b.sub.currentPeriodEnd }, stamp, !paused);
            if (paused) await issueVoided(invoice, stamp);
            else await issue(invoice, stamp);
          } else b.pendingProrations.push(...lines);
        }
        // As Stripe: a cancellation at period end is dated when it was asked for; undoing it clears the date. Asked
        // again (a double-click), it is the same cancellation: its date stays, and nothing changed.
        if (c.cancelAtPeriodEnd !== undefined && c.cancelAtPeriodEnd !== b.sub.cancelAtPeriodEnd) {
          b.sub.cancelAtPeriodEnd = c.cancelAtPeriodEnd;
          b.sub.canceledAt = c.cancelAtPeriodEnd ? now() : null;
        }
        if (c.pauseCollection !== undefined) {
          b.sub.pauseCollection = c.pauseCollection;
          if (c.pauseCollection && (b.sub.status === 'active' || b.sub.status === 'past_due')) b.sub.status = 'paused';
          if (!c.pauseCollection && b.sub.status === 'paused') b.sub.status = b.open.length ? 'past_due' : 'active';
        }
        if (c.paymentMethod) b.sub.defaultPaymentMethod = c.paymentMethod;
        if (c.metadata) b.sub.metadata = { ...b.sub.metadata, ...c.metadata };
        await subscriptionChanged();
        return answer(invoice ? b.openInvoice(invoice.id)?.invoice ?? invoice : null);
      }),
    {
      validator: (c) => {
        refuseIfEnded();
        if (c.items && b.sub.status === 'incomplete')
          throw ApplicationFailure.nonRetryable('The items of an incomplete subscription cannot change before its first invoice is paid', 'subscription_incomplete');
        const kept = (c.items ?? []).flatMap((i: ItemChange): string[] => (i.item ? [i.item] : []));
        if (new Set(kept).size !== kept.length) throw ApplicationFailure.nonRetryable('An item may appear once in a change', 'subscription_items_duplicate');
      },
    },
  );

  setHandler(
    cancelSubscriptionUpdate,
    (_opts) =>
      exclusive(async () => {
        if (b.ended()) return answer(null); // the same cancel, repeated
        b.cancel(now());
        await subscriptionChanged('subscription.canceled');
        return answer(null);
      }),
    { validator: (_opts) => (b.sub.status === 'incomplete_expired' ? refuseIfEnded() : undefined) },
  );

  // Pays being decided, by invoice. Requests that come meanwhile (a merchant's burst, a double click) are one
  // request: they get its answer rather than a charge each. One that comes after it answered is a retry.
  const paysInFlight = new Map<string, Promise<SubscriptionAnswer>>();
  setHandler(
    payInvoiceUpdate,
    (action) => {
      const inFlight = paysInFlight.get(action.invoice);
      if (inFlight && patched(PAY_JOINS_PAY_IN_FLIGHT_PATCH)) return inFlight;
      const pay = exclusive(async () => {
        const o = b.openInvoice(action.invoice);
        if (o) {
          await collect(o, now(), true);
          return answer(o.invoice);
        }
        const u = takeUncollectible(action);
        if (!u) throw notActionable(action.invoice);
        await collectUncollectible(u, now());
        return answer(u.invoice);
      });
      paysInFlight.set(action.invoice, pay);
      const settled = () => {
        if (paysInFlight.get(action.invoice) === pay) paysInFlight.delete(action.invoice);
      };
      void pay.then(settled, settled);
      return pay;
    },
    { validator: (action) => void actionableOrRefuse(action) },
  );

  setHandler(
    voidInvoiceUpdate,
    (action) =>
      exclusive(async () => {
        const o = b.openInvoice(action.invoice) ?? takeUncollectible(action);
        if (!o) throw notActionable(action.invoice);
        const statusBefore = b.sub.status;
        // Its intent first: one being charged is not let go, and one paid meanwhile pays the invoice.
        const intent = o.invoice.paymentIntent ? await intents.cancelInvoiceIntent({ tenantId: input.tenantId, paymentIntent: o.invoice.paymentIntent }) : 'canceled';
        if (intent === 'pending') throw ApplicationFailure.nonRetryable('A charge of this invoice is in progress: retry when it has been decided', 'invoice_payment_in_progress');
        if (intent === 'success') b.paid(o, now());
        else {
          b.void(o, now());
          await giveCreditBack(o.invoice);
        }
        await invoiceMoved(o.invoice, statusBefore);
        return answer(o.invoice);
      }),
    { validator: (action) => void actionableOrRefuse(action) },
  );

  /** A voided invoice gives back the customer credit it had taken. */
  async function giveCreditBack(inv: InvoiceSnapshot): Promise<void> {
    if (inv.appliedBalance > 0)
      await store.creditCustomer({ tenantId: input.tenantId, customer: input.customer, currency: input.currency, key: `void:${inv.id}`, max: 0, amount: inv.appliedBalance });
  }

  /**
   * Ended (canceled, expired incomplete): nothing is collected any more, so each open invoice's intent is canceled
   * and the invoice voided (or paid, if its intent was paid meanwhile). One whose charge is still being decided
   * stays open: its intent's word decides it (settleOutcomesAtEnd), or a later ask here.
   */
  async function settleOpenAtEnd(at: number): Promise<void> {
    for (const o of b.openAtEnd()) {
      const intent = o.invoice.paymentIntent ? await intents.cancelInvoiceIntent({ tenantId: input.tenantId, paymentIntent: o.invoice.paymentIntent }) : 'canceled';
      if (intent === 'pending' && patched(END_WAITS_FOR_CHARGE_PATCH)) continue;
      if (intent === 'pending') log.warn('an ended subscription voids an invoice whose charge is still being decided', { invoice: o.invoice.id });
      await endInvoice(o, intent === 'success', at);
    }
  }

  /** Ended: an open invoice's intent said how its charge ended. */
  async function settleOutcomesAtEnd(): Promise<void> {
    while (outcomes.length) {
      const { paymentIntent, status } = outcomes.shift()!;
      const o = b.openByIntent(paymentIntent);
      if (o) await endInvoice(o, status === 'success', now());
    }
  }

  /** An ended subscription's open invoice closes: paid, or voided with the credit it took given back. */
  async function endInvoice(o: OpenInvoice, paid: boolean, at: number): Promise<void> {
    if (paid) b.paid(o, at);
    else {
      b.void(o, at);
      await giveCreditBack(o.invoice);
    }
    await invoiceMoved(o.invoice, b.sub.status);
  }

  function actionableOrRefuse(action: InvoiceAction): void {
    if (b.openInvoice(action.invoice) || uncollectibleOf(action)) return;
    throw notActionable(action.invoice);
  }

  /** The refusal of an invoice this run can neither pay nor void (one it paid or voided already says so). */
  function notActionable(invoice: string): ApplicationFailure {
    return ApplicationFailure.nonRetryable(invoiceNotActionable(closedHere.get(invoice)?.invoice.status ?? 'not open'), 'invoice_not_open');
  }

  // ---- uncollectible invoices ----------------------------------------------------------------------------
  // Dunning ran out and canceled the subscription: its invoice is uncollectible and no longer held by the book.
  // As Stripe's, it can still be paid (the customer fixed their card) or voided; the subscription stays canceled.
  // The API sends the invoice's record; what this run did to it since is remembered (closedHere), so a second
  // request in the same run sees the invoice as this run left it.

  /** The uncollectible invoice an action names, as this run knows it (or as the API read it), else null. */
  function uncollectibleOf(action: InvoiceAction): OpenInvoice | null {
    const known = closedHere.get(action.invoice);
    if (known) return known.invoice.status === 'uncollectible' ? known : null;
    const u = action.uncollectible?.snapshot;
    if (!u || u.id !== action.invoice || u.subscription !== input.id || u.status !== 'uncollectible') return null;
    return { invoice: clone(u), firstFailureAt: null };
  }

  /** Takes an uncollectible invoice into this run (its writes numbered above the record's). Asked only then. */
  function takeUncollectible(action: InvoiceAction): OpenInvoice | null {
    const u = uncollectibleOf(action);
    if (!u || !patched(UNCOLLECTIBLE_PAY_OR_VOID_PATCH)) return null;
    if (!closedHere.has(u.invoice.id)) {
      closedHere.set(u.invoice.id, u);
      const version = action.uncollectible?.version ?? 0;
      if ((versions.get(u.invoice.id) ?? 0) < version) versions.set(u.invoice.id, version);
    }
    return u;
  }

  /**
   * Charges an uncollectible invoice once more, as the merchant asked: a new attempt (its intent and charge keyed by
   * the invoice and attempt number, so the same attempt sent again, by a retry or a run that read the record before
   * this one wrote it, is answered, never charged twice). Paid: `paid` with its amount, the subscription as it was
   * (canceled stays canceled). Not paid: still uncollectible with the attempt's error, its intent let go again so
   * that nothing lands on it unseen (one paid meanwhile pays the invoice); never retried by any schedule.
   */
  async function collectUncollectible(o: OpenInvoice, at: number): Promise<void> {
    const inv = o.invoice;
    const statusBefore = b.sub.status;
    const r = await chargeNextAttempt(inv);
    if (r.paymentIntent) inv.paymentIntent = r.paymentIntent;
    let paid = r.outcome === 'succeeded';
    if (!paid && r.paymentIntent) paid = (await intents.cancelInvoiceIntent({ tenantId: input.tenantId, paymentIntent: r.paymentIntent })) === 'success';
    if (paid) {
      b.paid(o, at);
      await invoiceMoved(inv, statusBefore);
      return;
    }
    inv.lastFailure = r.failureCode ?? r.outcome;
    inv.nextPaymentAttempt = null;
    await saveInvoice(inv);
    await invoiceEvent('invoice.payment_failed', inv);
  }

  // ---- the first run's start ---------------------------------------------------------------------------
  if (!input.carried) {
    setCurrentDetails(b.summary());
    await exclusive(async () => {
      const s = b.sub;
      // Created is announced once its first invoice exists, naming it (latest_invoice), as Stripe's does: a
      // subscription left trialing or incomplete (3DS) sends no update that would name it. Older runs announced
      // it first, with none.
      const withFirst = patched(CREATED_WITH_FIRST_INVOICE_PATCH);
      if (!withFirst) {
        await saveSub();
        await announce('subscription.created');
      }
      const period = { start: s.currentPeriodStart, end: s.currentPeriodEnd };
      const trial = s.status === 'trialing';
      // Paid on a checkout page already (its amount quoted without credit): the balance is not drawn for it.
      const first = await makeInvoice('subscription_create', b.periodLines(period.start, period.end, newId, trial), period, input.startAt, !input.firstPaidBy);
      if (input.firstPaidBy && !trial) first.paymentIntent = input.firstPaidBy;
      b.took(first);
      await saveInvoice(first);
      if (withFirst) {
        await saveSub();
        await announce('subscription.created');
      }
      await invoiceEvent('invoice.created', first);
      const o = b.openInvoice(first.id)!;
      if (input.firstPaidBy && !trial) {
        b.paid(o, input.startAt);
        await saveInvoice(first);
        await invoiceEvent('invoice.paid', first);
        await subscriptionChanged();
      } else if (trial) {
        b.paid(o, input.startAt);
        await saveInvoice(first);
        await invoiceEvent('invoice.paid', first);
        await saveSub();
      } else await collect(o, input.startAt);
      firstInvoice = first;
    });
    started = true;
  }

  // ---- the loop ----------------------------------------------------------------------------------------
  const tellClock = async (ended: boolean): Promise<void> => {
    if (!clock || clockNow === null) return;
    clockToAnswer = false;
    try {
      await getExternalWorkflowHandle(clock.id).signal(clockCaughtUpSignal, { subscription: input.id, frozenTime: clockNow, ended });
    } catch (err) {
      log.warn('the test clock could not be told this subscription caught up', { clock: clock.id, error: String(err) });
    }
  };

  /** Waits for `at` on this subscription's time, or for something that changes what is due. */
  const reach = async (at: number): Promise<boolean> => {
    wake = false;
    if (clock) {
      await condition(() => wake || (clockNow !== null && clockNow >= at) || historyIsLong());
      return clockNow !== null && clockNow >= at;
    }
    const wait = at - Date.now();
    if (wait > 0) await condition(() => wake || historyIsLong(), wait);
    return Date.now() >= at;
  };

  while (!b.ended()) {
    if (outcomes.length) await exclusive(applyOutcomes);
    if (b.ended()) break;
    const due = b.nextDue();
    if (!due) break;
    // Everything up to the clock's time has run: the clock may move on.
    if (clock && clockToAnswer && !busy && !outcomes.length && (clockNow === null || due.at > clockNow)) await tellClock(false);
    if (historyIsLong()) {
      await condition(() => allHandlersFinished() && !busy);
      await chain;
      // Only records still written carry their versions: the subscription's and its open invoices'.
      const live = new Set([b.sub.id, ...b.open.map((o) => o.invoice.id)]);
      const kept = Object.fromEntries([...versions].filter(([id]) => live.has(id)));
      await continueAsNew<typeof subscriptionWorkflow>({
        ...input,
        carried: { ...b.carry(clockNow, kept), clockToAnswer, outcomes: [...outcomes], ...(sentView !== null ? { sentView } : {}) },
      });
    }
    if (!(await reach(due.at))) continue;
    await exclusive(async () => {
      // An Update may have changed what is due while this waited for its turn.
      const still = b.nextDue();
      if (still && still.kind === due.kind && still.at === due.at) await run(still);
    });
  }
  await exclusive(() => settleOpenAtEnd(b.sub.endedAt ?? now()));
  // A charge still being decided when it ended (canceled under a renewal answered `processing`): the customer may
  // yet pay it, so its invoice waits for its intent's word (intentOutcomeSignal), asked again every hour should
  // that word be lost. Before, it was voided under the charge and a payment landing after was kept unseen.
  while (b.openAtEnd().length > 0) {
    await condition(() => outcomes.length > 0, '1 hour');
    await exclusive(async () => {
      await settleOutcomesAtEnd();
      await settleOpenAtEnd(now());
    });
  }
  await condition(() => allHandlersFinished() && !busy);
  await chain;
  await tellClock(true);
  return b.sub.status;
}

/** An invoice's intent lives through its whole dunning schedule, and a day more for a late 3DS. */
function intentLifeSeconds(input: SubscriptionInput): number {
  const lastRetryDay = input.dunning.retryDays.at(-1) ?? 0;
  return (lastRetryDay + 2) * 86_400;
}
