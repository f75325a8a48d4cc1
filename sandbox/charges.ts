// What the sandbox does with a charge, decided by the card behind the token and by whether the customer is
// present: a customer-present charge may save the card (setup_future_usage) and get a reusable token
// (pmt_...); a merchant-initiated charge takes such a token, and its outcome follows the saved card's
// behaviour off-session. Charges under an agreement must carry the network transaction id of its first
// charge, as card networks expect.

import { fixedTokenCard, FIXED_TOKENS, type CardBehaviour, type CardDetails } from './cards';
import type { Delivery } from './callbacks';
import type { SandboxDeps } from './deps';
import { newId } from './ids';
import { applyOnce, fingerprint, recordByKey } from './idempotency';
import { chargeJson, type ChargeRecord } from './resources';
import type { ChargeInput } from './request-schemas';

interface Failure {
  code: string;
  message: string;
}

const DECLINES = {
  card_declined: { code: 'card_declined', message: 'Your card was declined.' },
  insufficient_funds: { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  invalid_token: { code: 'invalid_token', message: 'The card token is unknown or expired.' },
  payment_method_not_reusable: {
    code: 'payment_method_not_reusable',
    message: 'A merchant-initiated charge needs a reusable token (pmt_...) issued by a charge with setup_future_usage.',
  },
  network_transaction_id_missing: {
    code: 'network_transaction_id_missing',
    message: "The agreement already has a charge: send the network_transaction_id of its first charge.",
  },
  network_transaction_id_mismatch: {
    code: 'network_transaction_id_mismatch',
    message: "The network_transaction_id is not the one of the agreement's first charge.",
  },
} satisfies Record<string, Failure>;

export const AUTHENTICATION_FAILED = {
  code: 'authentication_failed',
  message: 'The cardholder failed 3D Secure authentication.',
};

/** The card behind a token: a fixed token, a minted one (tok_) or a reusable one (pmt_). */
export interface TokenCard {
  behaviour: CardBehaviour;
  card: CardDetails;
  reusable: boolean;
}

export function cardOf(deps: SandboxDeps, token: string): TokenCard | undefined {
  const fixed = FIXED_TOKENS[token];
  if (fixed) return { behaviour: fixed, card: fixedTokenCard(token)!, reusable: false };
  const minted = deps.store.tokens.get(token);
  if (minted) return { behaviour: minted.behaviour, card: detailsOf(minted), reusable: false };
  const saved = deps.store.reusableTokens.get(token);
  if (saved) return { behaviour: saved.behaviour, card: detailsOf(saved), reusable: true };
  return undefined;
}

function detailsOf(t: CardDetails): CardDetails {
  return { brand: t.brand, last4: t.last4, expMonth: t.expMonth, expYear: t.expYear };
}

/** What the gateway does with a charge request. */
export type ChargePlan =
  | { kind: 'decline'; failure: Failure }
  | { kind: 'success' | 'three_ds' | 'async' | 'timeout' | 'capture_no_answer' | 'late_arrival' };

/** Customer present: the saved-card behaviours matter only off-session. */
function presentPlan(behaviour: CardBehaviour): ChargePlan {
  switch (behaviour) {
    case 'decline':
      return { kind: 'decline', failure: DECLINES.card_declined };
    case 'insufficient_funds':
      return { kind: 'decline', failure: DECLINES.insufficient_funds };
    case 'success':
    case 'sca_on_mit':
    case 'no_token':
    case 'mit_declines':
      return { kind: 'success' };
    case 'three_ds':
    case 'async':
    case 'timeout':
    case 'capture_no_answer':
    case 'late_arrival':
      return { kind: behaviour };
  }
}

/** Merchant-initiated (customer absent), by the saved card's behaviour. */
function offSessionPlan(behaviour: CardBehaviour): ChargePlan {
  switch (behaviour) {
    case 'sca_on_mit':
      return { kind: 'three_ds' }; // the issuer demands authentication anyway
    case 'mit_declines':
      return { kind: 'decline', failure: DECLINES.insufficient_funds };
    case 'three_ds':
      return { kind: 'success' }; // authenticated when saved; off-session charges are exempt
    default:
      return presentPlan(behaviour);
  }
}

/** Decides a charge from the current state (tokens, agreements) without changing anything. */
export function planCharge(deps: SandboxDeps, input: ChargeInput): { plan: ChargePlan; source: TokenCard | undefined } {
  const source = cardOf(deps, input.token);
  if (!source) return { plan: { kind: 'decline', failure: DECLINES.invalid_token }, source };
  if (input.merchant_initiated !== true) return { plan: presentPlan(source.behaviour), source };
  if (!source.reusable) return { plan: { kind: 'decline', failure: DECLINES.payment_method_not_reusable }, source };
  if (input.agreement) {
    const recorded = deps.store.agreements.get(input.agreement.reference)?.networkTransactionId;
    const sent = input.agreement.network_transaction_id;
    if (recorded !== undefined && sent === undefined) {
      return { plan: { kind: 'decline', failure: DECLINES.network_transaction_id_missing }, source };
    }
    if (recorded !== undefined && sent !== recorded) {
      return { plan: { kind: 'decline', failure: DECLINES.network_transaction_id_mismatch }, source };
    }
  }
  return { plan: offSessionPlan(source.behaviour), source };
}

const NEVER_ANSWERED_PLANS: ReadonlySet<ChargePlan['kind']> = new Set(['timeout', 'capture_no_answer', 'late_arrival']);

export function chargeOnce(deps: SandboxDeps, input: ChargeInput): { record: ChargeRecord; replayed: boolean } {
  const { store } = deps;
  const { agreement } = input;
  return applyOnce(
    store,
    'charge',
    input.idempotency_key,
    fingerprint(
      input.token,
      input.amount,
      input.currency,
      input.merchant_initiated ?? false,
      input.setup_future_usage,
      agreement?.reference,
      agreement?.type,
      agreement?.network_transaction_id,
    ),
    (id) => store.charges.get(id),
    () => {
      const now = new Date();
      const { plan, source } = planCharge(deps, input);
      const charge: ChargeRecord = {
        id: newId('ch'),
        idempotencyKey: input.idempotency_key,
        reference: input.reference,
        createdAt: now,
        updatedAt: now,
        status: 'pending',
        token: input.token,
        behaviour: source?.behaviour ?? 'unknown_token',
        amount: input.amount,
        currency: input.currency,
        merchantInitiated: input.merchant_initiated ?? false,
        callbackUrl: input.callback_url,
        returnUrl: input.return_url,
        neverAnswered: NEVER_ANSWERED_PLANS.has(plan.kind),
        card: source?.card ?? null,
        setupFutureUsage: input.setup_future_usage === 'off_session',
        ...(agreement
          ? {
              agreement: {
                reference: agreement.reference,
                type: agreement.type,
                ...(agreement.network_transaction_id ? { networkTransactionId: agreement.network_transaction_id } : {}),
              },
            }
          : {}),
      };
      switch (plan.kind) {
        case 'success':
          succeed(deps, charge);
          break;
        case 'decline':
          charge.status = 'declined';
          charge.failureCode = plan.failure.code;
          charge.failureMessage = plan.failure.message;
          break;
        case 'three_ds':
          charge.status = 'requires_action';
          charge.challengeUrl = `${deps.publicUrl}/3ds/${charge.id}`;
          break;
        case 'async':
          deps.scheduler.after(
            deps.callbackDelayMs,
            () => void settleCharge(deps, charge, { status: 'succeeded' }),
            (err) => deps.log.error({ err, chargeId: charge.id }, 'async charge completion failed'),
          );
          break;
        case 'capture_no_answer':
        case 'late_arrival':
          // Captured at once; the route never answers (see gateway-routes.ts). For late_arrival this record
          // is made only once the delayed request "arrives".
          succeed(deps, charge);
          break;
        case 'timeout':
          // Recorded (the gateway took the request) but never answered nor completed: the caller only ever
          // sees its own timeout, and a retry with the same key must not create a second charge.
          break;
      }
      store.charges.set(charge.id, charge);
      return charge;
    },
  );
}

/**
 * Marks a charge succeeded: it gets its network transaction id, its reusable token when it asked to save the
 * card, and it becomes the first charge of its agreement when the agreement has none yet.
 */
function succeed(deps: SandboxDeps, charge: ChargeRecord): void {
  const { store } = deps;
  charge.status = 'succeeded';
  charge.networkTransactionId = newId('ntx');
  if (charge.setupFutureUsage) charge.paymentMethodToken = issueReusableToken(deps, charge);
  if (charge.agreement && !store.agreements.has(charge.agreement.reference)) {
    store.agreements.set(charge.agreement.reference, {
      reference: charge.agreement.reference,
      type: charge.agreement.type,
      networkTransactionId: charge.networkTransactionId,
      firstChargeId: charge.id,
      createdAt: new Date(),
    });
  }
}

/** The reusable token for a charge that saves its card; null when the card allows none (`no_token`). */
function issueReusableToken(deps: SandboxDeps, charge: ChargeRecord): string | null {
  const { store } = deps;
  if (!charge.card || charge.behaviour === 'unknown_token' || charge.behaviour === 'no_token') return null;
  if (store.reusableTokens.has(charge.token)) return charge.token; // charged with a saved card: already reusable
  const id = newId('pmt');
  store.reusableTokens.set(id, { id, behaviour: charge.behaviour, ...charge.card, createdAt: new Date(), chargeId: charge.id });
  return id;
}

/** Moves a pending or challenged charge to its final status and tells the charge's callback_url. */
export function settleCharge(
  deps: SandboxDeps,
  charge: ChargeRecord,
  outcome: { status: 'succeeded' } | { status: 'declined'; code: string; message: string },
): Delivery | undefined {
  if (charge.status !== 'pending' && charge.status !== 'requires_action') return undefined;
  if (outcome.status === 'succeeded') {
    succeed(deps, charge);
  } else {
    charge.status = 'declined';
    charge.failureCode = outcome.code;
    charge.failureMessage = outcome.message;
  }
  charge.updatedAt = new Date();
  return deps.callbacks.send(charge.callbackUrl, 'charge', chargeJson(charge));
}

/** How long a `tok_late_arrival` request takes to "reach" the gateway after it was sent. */
export function lateArrivalDelayMs(deps: SandboxDeps): number {
  return deps.callbackDelayMs * 15; // past a caller's two timed-out tries, so its question by key finds nothing
}

/** The charge made under an idempotency key, if the gateway has one: how a caller that lost the answer asks. */
export function chargeByKey(deps: SandboxDeps, idempotencyKey: string): ChargeRecord | undefined {
  return recordByKey(deps.store, 'charge', idempotencyKey, deps.store.charges);
}

/**
 * `tok_late_arrival`: the request is applied only after a delay, as if the network held it, and then the
 * capture is announced by callback (as gateways announce captures). Until then a query by key finds nothing.
 */
export function chargeLater(deps: SandboxDeps, input: ChargeInput): void {
  deps.scheduler.after(
    lateArrivalDelayMs(deps),
    () => {
      const { record, replayed } = chargeOnce(deps, input);
      if (!replayed) void deps.callbacks.send(record.callbackUrl, 'charge', chargeJson(record));
    },
    (err) => deps.log.error({ err, key: input.idempotency_key }, 'late-arrival charge failed'),
  );
}
