import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Mongo } from '../platform/mongo';
import type { ChargedCard } from '../gateways/types';
import type { TransactionRecord } from '../platform/records';
import { connectorData } from '../data/connectors';
import { customerData } from '../data/customers';
import { paymentMethodData } from '../data/payment-methods';
import { chargeTokenData } from '../data/charge-tokens';
import { olderRefundFactsOf, olderRefundFields, refundData } from '../data/refunds';
import type { OlderRefundFacts } from '../domain/older-refund-progress';
import { idempotencyScope } from '../data/idempotency';
import { workflowRecordData } from '../data/workflow-records';
import { claimCheckoutIntent } from '../data/checkout-intents';
import { paymentIntentData } from '../data/payment-intents';
import { agreementData, agreementScope } from '../data/agreements';
import type { AgreementType } from '../platform/records';
import type { GatewayRegistry } from '../gateways/registry';

// MongoDB writes made on behalf of workflows, through the data layer (data/workflow-records.ts): every write
// is idempotent (a retried activity changes nothing twice) and versioned (a late write never overwrites a
// newer state). Here the workflows' inputs become records: ISO strings become dates, ids become keys.

export interface PaymentIntentPatch {
  id: string;
  version: number;
  status: 'pending' | 'success' | 'canceled';
  succeeded_at: string | null;
  canceled_at: string | null;
  cancellation_reason: 'requested' | 'expired' | 'checkout_completed' | null;
  amount_paid: number;
  amount_refunded: number;
  connector_used: string | null;
  gateway_charge_id: string | null;
  last_failure_code: string | null;
  /** The older interface's progress fields (domain/older-views.ts); absent from runs of older code. */
  sub_status?: string;
  step_number?: number;
  last_reason?: string;
  /** The saved card it was paid with, and its merchant-initiated charges; absent until there are any. */
  payment_method?: string;
  transactions?: TransactionRecord[];
  updated_at: string;
}

export interface RefundPatch {
  id: string;
  version: number;
  status: 'pending' | 'success' | 'canceled';
  gateway_transaction_id: string | null;
  failure_code: string | null;
  late_outcome: { status: string; at: string; gateway_transaction_id?: string } | null;
  /** The older interface's sub-status (domain/older-refund-views.ts); absent from runs of older code. */
  sub_status?: string;
  /** Canceled at its SLA while the gateway has not confirmed the cancel; absent from runs of older code. */
  cancel_unconfirmed?: boolean;
  updated_at: string;
}

/** What the refund record is created from (the refund workflow's input carries all of it). */
export interface RefundRecordInput {
  id: string;
  tenantId: string;
  paymentIntent: string;
  /** The connector that took the payment. */
  connector: string;
  amount: number;
  currency: string;
  idempotencyKey: string | null;
  webhooks: { url: string; events: string[] }[];
  slaSeconds: number;
  createdAt: string;
}

/** An event's record, as the workflow that emits it builds it (workflows/emit-event.ts). */
export interface EventRecordInput {
  id: string;
  tenantId: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  objectId: string;
  body: string;
  format: 'envelope' | 'legacy';
  source: { kind: 'payment_intent' | 'refund' | 'payout' | 'return' | 'subscription' | 'invoice'; id: string };
  endpoints: { url: string; index: number; secretRef?: string }[];
}

const asDate = (s: string | null) => (s ? new Date(s) : null);

export function createStoreActivities({ mongo, gateways }: { mongo: Mongo; gateways: GatewayRegistry }) {
  const records = workflowRecordData(mongo);
  const connectors = connectorData(mongo);
  const chargeTokens = chargeTokenData(mongo);
  const customers = customerData(mongo);
  const savedCards = paymentMethodData(mongo);
  /** The card of a charge, as its gateway describes it now (undefined when it does not say). */
  // Best effort: a gateway that cannot say leaves the card without details (and without a token) rather than
  // failing a paid intent's save.
  const cardOfCharge = async (tenantId: string, connectorId: string, chargeId: string): Promise<ChargedCard | undefined> => {
    try {
      const connector = await connectors.find(tenantId, connectorId);
      if (!connector) return undefined;
      const outcome = await gateways.get(connector.gateway, { sandboxBehavior: connector.sandbox_behavior ?? null }).chargeStatus(chargeId);
      return outcome.status === 'succeeded' ? outcome.card : undefined;
    } catch {
      return undefined;
    }
  };
  // workflows/payment-intent/messages.ts checkoutCompletedUpdate (activities import no workflow code).
  const CHECKOUT_COMPLETED_UPDATE = 'cancelCheckoutCompleted';
  /**
   * The claim won: the checkout intent's other pending intents can never be paid, so each is canceled now, as
   * `checkout_completed`, rather than expiring later with a canceled_timeout webhook after the checkout's
   * success. Not awaited (the customer's payment does not wait); one with a charge on the wire is canceled once
   * it is declined, or loses the claim with its capture and cancels itself; one missed expires as before.
   */
  const cancelSiblings = async (c: { checkoutIntent: string; tenantId: string; paymentIntent: string }): Promise<void> => {
    const { client, log } = Context.current();
    try {
      const siblings = await paymentIntentData(mongo).pendingSiblings(c.tenantId, c.checkoutIntent, c.paymentIntent);
      await Promise.all(siblings.map((s) => client.workflow.getHandle(s._id).executeUpdate(CHECKOUT_COMPLETED_UPDATE).catch((err: unknown) => log.info('a sibling of a paid checkout intent was not canceled', { payment_intent: s._id, error: String(err) }))));
    } catch (err) {
      log.warn('the siblings of a paid checkout intent could not be listed', { checkout_intent: c.checkoutIntent, error: String(err) });
    }
  };
  const savePaymentIntent = async (p: PaymentIntentPatch): Promise<'applied' | 'stale'> => {
    return records.savePaymentIntent(p.id, p.version, {
      status: p.status,
      succeeded_at: asDate(p.succeeded_at),
      canceled_at: asDate(p.canceled_at),
      cancellation_reason: p.cancellation_reason,
      amount_paid: p.amount_paid,
      amount_refunded: p.amount_refunded,
      connector_used: p.connector_used,
      gateway_charge_id: p.gateway_charge_id,
      last_failure_code: p.last_failure_code,
      ...(p.sub_status !== undefined ? { sub_status: p.sub_status, step_number: p.step_number!, last_reason: p.last_reason! } : {}),
      ...(p.payment_method !== undefined ? { payment_method: p.payment_method } : {}),
      ...(p.transactions !== undefined ? { transactions: p.transactions } : {}),
      updated_at: new Date(p.updated_at),
    });
  };
  const recordEvent = async (e: EventRecordInput): Promise<void> => {
    await records.insertEvent({
      _id: e.id,
      tenant_id: e.tenantId,
      type: e.type,
      created_at: new Date(e.createdAt),
      data: e.data,
      object_id: e.objectId,
      body: e.body,
      format: e.format,
      source: e.source,
      endpoints: e.endpoints.map((ep) => ({
        url: ep.url,
        index: ep.index,
        has_secret: Boolean(ep.secretRef),
        ...(ep.secretRef ? { secret_ref: ep.secretRef } : {}),
      })),
    });
  };
  return {
    savePaymentIntent,

    /**
     * A transition of an intent in one write activity: its record, then the events it emitted, in that order
     * (the read model is never behind an event). One local activity instead of one per write saves the
     * workflow an activation and a local-activity dispatch per write (bench/RESULTS.md, run 10). The events
     * are inserted whether the save applied or was stale: a stale save means a retry of this same write
     * after a newer one, and the events are inserts keyed by their ids.
     */
    async savePaymentIntentAndEvents(w: { patch: PaymentIntentPatch; events: EventRecordInput[] }): Promise<'applied' | 'stale'> {
      const saved = await savePaymentIntent(w.patch);
      for (const e of w.events) await recordEvent(e);
      return saved;
    },

    /**
     * Inserts the refund's record, with the older interface's integer id and UUID (a retried insert finds
     * its own record, so the first insert's numbers stand; a retry only leaves a gap in the sequence) and
     * what its row shows of the refunded payment, read once here (data/refunds.ts olderRefundFields).
     */
    async createRefundRecord(r: RefundRecordInput): Promise<void> {
      const createdAt = new Date(r.createdAt);
      const older = await olderRefundFields(mongo, r.tenantId, r.paymentIntent, r.connector);
      const holder = await records.insertRefund({
        _id: r.id,
        tenant_id: r.tenantId,
        payment_intent: r.paymentIntent,
        status: 'pending',
        amount: r.amount,
        currency: r.currency,
        idempotency_key: r.idempotencyKey,
        idempotency_scope: idempotencyScope(r.tenantId, r.idempotencyKey, r.id),
        // Secrets stay in webhook_secrets, referenced by secretRef.
        webhooks: r.webhooks.map((w) => ({ url: w.url, events: w.events })),
        refund_sla_timeout: r.slaSeconds,
        sla_expires_at: new Date(createdAt.getTime() + r.slaSeconds * 1000),
        gateway_transaction_id: null,
        failure_code: null,
        late_outcome: null,
        created_at: createdAt,
        updated_at: createdAt,
        version: 1,
        ...older,
        sub_status: 'pending_created',
      });
      // A retried activity finds its own record; another refund holding this idempotency key is a conflict.
      if (holder !== null)
        throw ApplicationFailure.nonRetryable(`idempotency_key '${r.idempotencyKey}' is already used by refund ${holder}`, 'idempotency_key_in_use');
    },

    async saveRefund(p: RefundPatch): Promise<'applied' | 'stale'> {
      return records.saveRefund(p.id, p.version, {
        status: p.status,
        gateway_transaction_id: p.gateway_transaction_id,
        failure_code: p.failure_code,
        late_outcome: p.late_outcome ? { ...p.late_outcome, at: new Date(p.late_outcome.at) } : null,
        ...(p.sub_status !== undefined ? { sub_status: p.sub_status } : {}),
        ...(p.cancel_unconfirmed !== undefined ? { cancel_unconfirmed: p.cancel_unconfirmed } : {}),
        updated_at: new Date(p.updated_at),
      });
    },

    /** What an older refund's webhook body shows that its workflow does not own (its record has it). */
    async olderRefundFacts(q: { tenantId: string; id: string }): Promise<OlderRefundFacts> {
      const refunds = refundData(mongo);
      const found = await refunds.find(q.tenantId, q.id);
      if (!found) throw ApplicationFailure.retryable(`refund ${q.id} has no record yet`, 'refund_record_missing');
      return olderRefundFactsOf(await refunds.withOlderIds(found));
    },

    recordEvent,

    /**
     * Saves the card a customer-present payment was made with (`pm_...`): its reusable gateway token (null
     * when the gateway issued none) and what the customer recognises it by. `card` comes with the charge's
     * answer; when the answer that decided the charge did not carry it, the gateway is asked.
     */
    async savePaymentMethod(pm: {
      id: string;
      tenantId: string;
      customer: string | null;
      paymentIntent: string;
      connectorId: string;
      chargeId: string;
      createdAt: string;
      card?: ChargedCard;
    }): Promise<void> {
      const connector = await connectors.find(pm.tenantId, pm.connectorId);
      const card = pm.card ?? (await cardOfCharge(pm.tenantId, pm.connectorId, pm.chargeId));
      const gateway = connector?.gateway ?? 'unknown';
      // The token was kept aside when the answer was read (data/charge-tokens.ts); a history recorded before
      // that carries it in `card`.
      const token = card?.reusableToken ?? (await chargeTokens.token(gateway, pm.chargeId));
      // A card saved for a customer deleted meanwhile is kept detached, as the delete left the customer's other
      // cards: it is never charged. Asked before the insert and again after, so a delete between the two, whose
      // detach-all ran before the card existed, is caught too.
      const customerGone = () => (pm.customer ? customers.isDeleted(pm.tenantId, pm.customer) : Promise.resolve(false));
      const goneBefore = await customerGone();
      await records.insertSavedPaymentMethod({
        _id: pm.id,
        tenant_id: pm.tenantId,
        customer: pm.customer,
        payment_intent: pm.paymentIntent,
        connector: pm.connectorId,
        gateway,
        gateway_token: token,
        brand: card?.brand ?? null,
        last4: card?.last4 ?? null,
        exp_month: card?.expMonth ?? null,
        exp_year: card?.expYear ?? null,
        created_at: new Date(pm.createdAt),
        detached_at: goneBefore ? new Date() : null,
      });
      // Always asked again: a retry of this activity finds the first try's insert, attached or not.
      if (pm.customer && (await customerGone())) await savedCards.detach(pm.tenantId, pm.customer, pm.id, new Date());
      await chargeTokens.drop(gateway, pm.chargeId);
    },

    /** The agreement's first successful charge: later charges under it send its network transaction id. */
    async recordAgreementCharge(a: {
      tenantId: string;
      paymentMethod: string;
      agreement: { id: string; agreementId: string; type: AgreementType };
      networkTransactionId: string;
      transaction: string;
    }): Promise<void> {
      await agreementData(mongo).recordFirstCharge({
        _id: a.agreement.id,
        tenant_id: a.tenantId,
        scope: agreementScope(a.tenantId, a.paymentMethod, a.agreement.agreementId),
        payment_method: a.paymentMethod,
        agreement_id: a.agreement.agreementId,
        agreement_type: a.agreement.type,
        network_transaction_id: a.networkTransactionId,
        first_transaction: a.transaction,
        created_at: new Date(),
      });
    },

    /** Whether this payment intent holds its checkout intent's one claim of success (data/checkout-intents.ts). */
    async claimCheckoutIntent(c: { checkoutIntent: string; tenantId: string; paymentIntent: string }): Promise<boolean> {
      const won = await claimCheckoutIntent(mongo, c);
      if (won) void cancelSiblings(c);
      return won;
    },

    /** Kept on the intent for operators: a late capture we refunded, or failed to. */
    async recordVoidedCharge(v: { id: string; chargeId: string; attempt: number; at: string; outcome: 'refunded' | 'failed'; error: string | null }): Promise<void> {
      await records.addVoidedCharge(v.id, { charge_id: v.chargeId, attempt: v.attempt, at: new Date(v.at), outcome: v.outcome, error: v.error });
    },
  };
}
