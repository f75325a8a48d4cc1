// What the sandbox does with a charge, decided by the card behaviour behind the token.

import { FIXED_TOKENS, type CardBehaviour } from './cards';
import type { Delivery } from './callbacks';
import type { SandboxDeps } from './deps';
import { newId } from './ids';
import { applyOnce, fingerprint, recordByKey } from './idempotency';
import { chargeJson, type ChargeRecord } from './resources';
import type { ChargeInput } from './request-schemas';

const DECLINES: Record<'decline' | 'insufficient_funds' | 'unknown_token', { code: string; message: string }> = {
  decline: { code: 'card_declined', message: 'Your card was declined.' },
  insufficient_funds: { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  unknown_token: { code: 'invalid_token', message: 'The card token is unknown or expired.' },
};

export const AUTHENTICATION_FAILED = {
  code: 'authentication_failed',
  message: 'The cardholder failed 3D Secure authentication.',
};

export function behaviourOf(deps: SandboxDeps, token: string): CardBehaviour | 'unknown_token' {
  return FIXED_TOKENS[token] ?? deps.store.tokens.get(token)?.behaviour ?? 'unknown_token';
}

export function chargeOnce(deps: SandboxDeps, input: ChargeInput): { record: ChargeRecord; replayed: boolean } {
  const { store } = deps;
  return applyOnce(
    store,
    'charge',
    input.idempotency_key,
    fingerprint(input.token, input.amount, input.currency),
    (id) => store.charges.get(id),
    () => {
      const now = new Date();
      const behaviour = behaviourOf(deps, input.token);
      const charge: ChargeRecord = {
        id: newId('ch'),
        idempotencyKey: input.idempotency_key,
        reference: input.reference,
        createdAt: now,
        updatedAt: now,
        status: 'pending',
        token: input.token,
        behaviour,
        amount: input.amount,
        currency: input.currency,
        merchantInitiated: input.merchant_initiated ?? false,
        callbackUrl: input.callback_url,
        returnUrl: input.return_url,
      };
      switch (behaviour) {
        case 'success':
          charge.status = 'succeeded';
          break;
        case 'decline':
        case 'insufficient_funds':
        case 'unknown_token':
          charge.status = 'declined';
          charge.failureCode = DECLINES[behaviour].code;
          charge.failureMessage = DECLINES[behaviour].message;
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
          charge.status = 'succeeded';
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

/** Moves a pending or challenged charge to its final status and tells the charge's callback_url. */
export function settleCharge(
  deps: SandboxDeps,
  charge: ChargeRecord,
  outcome: { status: 'succeeded' } | { status: 'declined'; code: string; message: string },
): Delivery | undefined {
  if (charge.status !== 'pending' && charge.status !== 'requires_action') return undefined;
  charge.status = outcome.status;
  if (outcome.status === 'declined') {
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
