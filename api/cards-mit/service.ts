import { conflict, DomainError, forbidden, invalidRequest, notFound, paymentFailed } from '../../domain/errors';
import { MIT_FAILURES_NOT_THE_CARDS, notPendingMessage } from '../../domain/payment-intent';
import { savesCardForItsSession } from '../hosted/billing-paths';
import { paymentIntentData } from '../../data/payment-intents';
import { paymentMethodData } from '../../data/payment-methods';
import { customerData } from '../../data/customers';
import { agreementData, agreementIdFor, agreementScope } from '../../data/agreements';
import type { AgreementRecord, AgreementType, PaymentIntentRecord, SavedPaymentMethodRecord, TransactionRecord } from '../../platform/records';
import type { Mongo } from '../../platform/mongo';
import { mitChargeUpdate, type MitChargeInput, type MitChargeResult } from '../../workflows/payment-intent/messages';
import type { AppDeps, AuthContext } from '../deps';
import type { RouteResult } from '../http/route';
import { runUpdate } from '../http/workflow-calls';
import type { MitChargeBody, TransactionView } from './schemas';
import { agreementTurn, agreementTypeMismatch, settleClaim, type TurnRequest } from './agreement-claim';
import { gatewayTaskQueue } from '../../workflows/task-queues';
import { checkoutStillOpen } from '../older-payment-intents/service';

/** The claim a secret key needs to charge saved cards. */
export const MIT_CLAIM = 'cards.mit';

/**
 * Every request that has a saved card charged with the customer absent needs the claim, whichever route asks:
 * POST /cards/mit, and the subscription requests that name the card, change what it is charged, or charge an
 * invoice now. Otherwise a key without it could charge any saved card any amount through a subscription.
 */
export function requireMitClaim(auth: AuthContext): void {
  if (!auth.claims.includes(MIT_CLAIM)) throw forbidden('missing_claim', `Charging a saved card needs a secret key with the claim '${MIT_CLAIM}'`);
}

/** What the card's issuer said: answered as `card_declined` with the issuer's reason as `decline_code`. */
const ISSUER_DECLINES = new Set(['card_declined', 'insufficient_funds', 'authentication_failed', 'expired_card', 'do_not_honor', 'lost_card', 'stolen_card']);

/**
 * POST /cards/mit: everything that can refuse the charge is read and checked here; the charge itself is
 * the intent workflow's (one at a time, once per call however often it is repeated). The one write before
 * it: a new agreement's first charge claims the agreement (agreement-claim.ts), so that concurrent charges
 * under it wait for the network transaction id that charge gives it.
 */
export async function chargeSavedCard(deps: AppDeps, auth: AuthContext, body: MitChargeBody): Promise<RouteResult> {
  requireMitClaim(auth);
  const intent = await paymentIntentData(deps.mongo).findByRef(auth.tenantId, body.payment_intent_secret);
  if (!intent) throw notFound('payment_intent', body.payment_intent_secret, 'payment_intent_secret');
  const card = await paymentMethodData(deps.mongo).findAny(auth.tenantId, body.payment_method_uuid);
  if (!card) throw notFound('payment_method', body.payment_method_uuid, 'payment_method_uuid');
  // An agreement keeps its type, a repeat of the charge that made it included.
  // A claim without an id yet is checked when this charge takes its turn under the agreement (below).
  const agreement = recorded(await agreementData(deps.mongo).byScope(auth.tenantId, card._id, body.agreement_id));
  sameAgreementType(agreement, body.agreement_id, body.agreement_type);
  // The same charge repeated after it paid the intent answers its first result, whatever became of the card.
  const scope = agreementScope(auth.tenantId, card._id, body.agreement_id);
  const agreementRef = agreementIdFor(auth.region, scope);
  const paid = paidBy(intent, card._id, agreementRef);
  if (paid) return answer({ code: 'ok', transaction_uuid: paid.transaction });
  if (intent.customer && card.customer !== intent.customer)
    throw invalidRequest('payment_method_customer_mismatch', `This card is not saved to the payment intent's customer (${intent.customer})`, 'payment_method_uuid');
  // Another intent of its checkout intent has paid: charging this one would capture, then void, the card.
  await checkoutStillOpen(deps, intent);
  // A billing session's intent is the customer's to pay on its page, with the card it saves (and its checks
  // before the charge): charged off-session it could be refunded at completion, as the session's page no longer does.
  if (savesCardForItsSession(intent))
    throw invalidRequest('parameter_invalid', "This payment intent is a checkout session's or a billing portal's: the customer pays it on the session's page", 'payment_intent_secret');
  const checked = await mitChargeInputFor(deps.mongo, auth.tenantId, auth.region, card, body.agreement_id, body.agreement_type, deps.config.TEMPORAL_TASK_QUEUE, agreement);
  const turnOf: TurnRequest = {
    tenantId: auth.tenantId,
    region: auth.region,
    paymentMethod: card._id,
    agreementId: body.agreement_id,
    agreementType: body.agreement_type,
    paymentIntent: intent._id,
    updateDeadlineMs: deps.config.WORKFLOW_UPDATE_DEADLINE_MS,
  };
  const turn = await agreementTurn(deps.mongo, turnOf);
  const input: MitChargeInput = { ...checked, agreement: { ...checked.agreement, networkTransactionId: turn.agreement.network_transaction_id } };
  const handle = deps.temporal.workflow.getHandle(intent._id);
  let result: MitChargeResult;
  try {
    result = await runUpdate(
      deps,
      () => handle.executeUpdate(mitChargeUpdate, { args: [input] }),
      () => answeredAfterClose(deps, intent, input),
    );
  } catch (err) {
    // Refused, or failed before the gateway: no id will come. Without an answer (503) the charge may still be
    // made: the claim stands until it is stale.
    if (turn.held && err instanceof DomainError && err.kind !== 'unavailable') await settleClaim(deps.mongo, turnOf, turn.held, 'over');
    throw err;
  }
  if (turn.held) {
    const pending = result.code === 'PROCESSING' || result.code === 'REQUIRES_ACTION';
    await settleClaim(deps.mongo, turnOf, turn.held, pending ? { pendingTransaction: result.transaction_uuid } : 'over');
  }
  return answer(result);
}

/** An agreement that has its network transaction id; a first charge's claim (none yet) is not one. */
const recorded = (a: AgreementRecord | null): AgreementRecord | null => (a?.network_transaction_id ? a : null);

/** The refusal of a detached card (`param` names it), whoever found it detached: this check or the charge step. */
const detachedCard = (param: string) => invalidRequest('payment_method_detached', 'This card was detached from its customer and can no longer be charged', param);

/** Refuses a card that can no longer be charged off-session: detached, or without a reusable token (NO_GATEWAY_TOKENS). */
export function assertChargeable(card: SavedPaymentMethodRecord, param: string): void {
  if (card.detached_at) throw detachedCard(param);
  // Cards saved before reusable tokens (no card details) hold a charge id, which no gateway can charge again.
  if (!card.gateway_token || card.brand === undefined)
    throw invalidRequest('NO_GATEWAY_TOKENS', 'The card has no gateway token from a prior successful customer-present payment; it cannot be charged', param);
}

/**
 * What the intent's workflow needs to charge `card` under the merchant's agreement, or the refusal: a detached
 * card (or a deleted customer's), a card without a reusable token (NO_GATEWAY_TOKENS), an agreement of another
 * type. POST /cards/mit and the subscriptions' renewals (activities/billing.ts) charge through this one check.
 */
export async function mitChargeInputFor(
  mongo: Mongo,
  tenantId: string,
  region: string,
  card: SavedPaymentMethodRecord,
  agreementId: string,
  agreementType: AgreementType,
  paymentsQueue: string,
  /** The agreement's record as the caller read it already (null: none yet); read here when not given. */
  known?: AgreementRecord | null,
): Promise<MitChargeInput> {
  assertChargeable(card, 'payment_method_uuid');
  // Deleting a customer detaches its cards; one deleted before that was so is refused here all the same.
  if (card.customer && (await customerData(mongo).isDeleted(tenantId, card.customer)))
    throw invalidRequest('payment_method_detached', "This card's customer was deleted; the card can no longer be charged", 'payment_method_uuid');
  const agreement = known !== undefined ? known : await agreementData(mongo).byScope(tenantId, card._id, agreementId);
  sameAgreementType(agreement, agreementId, agreementType);
  return {
    paymentMethod: card._id,
    connector: card.connector,
    gatewayQueue: gatewayTaskQueue(paymentsQueue, card.gateway),
    agreement: {
      id: agreement?._id ?? agreementIdFor(region, agreementScope(tenantId, card._id, agreementId)),
      agreementId,
      type: agreementType,
      networkTransactionId: agreement?.network_transaction_id ?? null,
    },
  };
}

/** Refuses an agreement's charge under another type than its first charge's. */
function sameAgreementType(agreement: { agreement_type: AgreementType } | null, agreementId: string, agreementType: AgreementType): void {
  if (agreement && agreement.agreement_type !== agreementType) throw agreementTypeMismatch(agreementId, agreement.agreement_type);
}

/** The intent's workflow has closed: the same charge that paid it is answered again; anything else is a 409. */
async function answeredAfterClose(deps: AppDeps, intent: PaymentIntentRecord, input: MitChargeInput): Promise<MitChargeResult> {
  const now = await paymentIntentData(deps.mongo).find(intent.tenant_id, intent._id);
  const paid = now && paidBy(now, input.paymentMethod, input.agreement.id);
  if (paid) return { code: 'ok', transaction_uuid: paid.transaction };
  return Promise.reject(conflict('payment_intent_unexpected_state', notPendingMessage(now?.status ?? intent.status)));
}

/** The transaction of this card and agreement that paid the intent, as its record says. */
function paidBy(intent: PaymentIntentRecord, paymentMethod: string, agreement: string): TransactionRecord | undefined {
  if (intent.status !== 'success') return undefined;
  return intent.transactions?.find((t) => t.status === 'succeeded' && t.payment_method === paymentMethod && t.agreement === agreement);
}

/**
 * Declines answered as other errors: the failures that were not the card's (domain/payment-intent.ts: the intent
 * moved on under the charge, 409, or the connector was down, 503), and a card detached while its charge waited.
 */
const NOT_A_DECLINE: Record<(typeof MIT_FAILURES_NOT_THE_CARDS)[number] | 'payment_method_detached', () => DomainError> = {
  payment_intent_canceled: () => conflict('payment_intent_unexpected_state', 'The payment intent was canceled while the card was being charged'),
  superseded: () => conflict('attempt_in_progress', 'Another payment attempt replaced this charge'),
  connector_unavailable: () => new DomainError('unavailable', 'connector_unavailable', "The card's connector is unavailable; retry later", undefined, 5),
  // Detached while the charge waited for the worker: refused as the API's own check refuses it.
  payment_method_detached: () => detachedCard('payment_method_uuid'),
};

function answer(result: MitChargeResult): RouteResult {
  switch (result.code) {
    case 'ok':
    case 'REQUIRES_ACTION':
      return { status: 200, body: result };
    case 'PROCESSING':
      return { status: 202, body: result };
    case 'declined': {
      const notTheCard = (NOT_A_DECLINE as Record<string, (() => DomainError) | undefined>)[result.failure_code];
      if (notTheCard) throw notTheCard();
      // Another payment of the older checkout intent succeeded first: this charge was given back and the intent
      // ended (`canceled_checkout_completed`), as the attempts endpoint answers it, not a decline of a pending intent.
      if (result.failure_code === 'checkout_intent_completed')
        throw conflict('checkout_intent_completed', 'Another payment of this checkout intent succeeded first: this charge was given back (its capture voided) and the payment intent canceled');
      const extra = { transaction_uuid: result.transaction_uuid };
      if (ISSUER_DECLINES.has(result.failure_code))
        throw paymentFailed('card_declined', `The card was declined (${result.failure_code}); the payment intent stays pending`, { ...extra, decline_code: result.failure_code });
      throw paymentFailed(result.failure_code, `The charge failed (${result.failure_code}); the payment intent stays pending`, extra);
    }
  }
}

/** A merchant-initiated charge in its public shape. */
export function transactionView(intent: PaymentIntentRecord, t: TransactionRecord): TransactionView {
  return {
    transaction: t.transaction,
    object: 'transaction',
    kind: t.kind,
    payment_intent: intent._id,
    status: t.status,
    amount: intent.amount,
    currency: intent.currency,
    payment_method: t.payment_method,
    agreement: { agreement: t.agreement, agreement_id: t.agreement_id, agreement_type: t.agreement_type },
    connector: t.connector,
    failure_code: t.failure_code,
    next_action: t.next_action,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

export async function getTransaction(deps: AppDeps, tenantId: string, id: string): Promise<TransactionView> {
  const intent = await paymentIntentData(deps.mongo).byMitTransaction(tenantId, id);
  const t = intent?.transactions?.find((x) => x.transaction === id);
  if (!intent || !t) throw notFound('transaction', id, 'transaction');
  return transactionView(intent, t);
}
