// What the sandbox does with a refund: magic amounts (minor units) pick the outcome, like test cards do.
//   ...99 -> stays pending forever; ...98 -> rejected; ...97 -> answered slowly (SLOW_REFUND_ANSWER_MS after it
//   was taken), then succeeded after the usual delay; otherwise pending, then succeeded after a delay.
// A pending refund can be canceled by its idempotency key; canceling a key the gateway has not seen yet
// leaves a canceled refund under it, so a request that arrives later changes nothing.

import type { SandboxDeps } from './deps';
import { notFound } from './http-errors';
import { newId } from './ids';
import { applyOnce, cancelByKey, fingerprint, isTombstone, recordByKey } from './idempotency';
import { refundJson, type RefundRecord } from './resources';
import type { RefundInput } from './request-schemas';

function rejection(deps: SandboxDeps, input: RefundInput): { code: string; message: string } | undefined {
  const charge = deps.store.charges.get(input.charge_id);
  if (!charge) throw notFound('charge', input.charge_id);
  if (charge.status !== 'succeeded') {
    return { code: 'charge_not_refundable', message: `Charge ${charge.id} is ${charge.status}, not succeeded.` };
  }
  if (charge.currency !== input.currency) {
    return { code: 'currency_mismatch', message: `Charge ${charge.id} is in ${charge.currency}.` };
  }
  const refundable = deps.store.refundableAmount(charge);
  if (input.amount > refundable) {
    return { code: 'amount_too_large', message: `Only ${refundable} (minor units) of charge ${charge.id} is refundable.` };
  }
  if (input.amount % 100 === 98) {
    return { code: 'refund_rejected', message: 'The gateway rejected the refund.' };
  }
  return undefined;
}

/** How long the answer to a ...97 refund takes. */
export const SLOW_REFUND_ANSWER_MS = 3000;

export function isSlowRefund(amount: number): boolean {
  return amount % 100 === 97;
}

export function refundOnce(deps: SandboxDeps, input: RefundInput): { record: RefundRecord; replayed: boolean } {
  const { store } = deps;
  const canceledEarlier = refundByKey(deps, input.idempotency_key);
  if (canceledEarlier && isTombstone(canceledEarlier)) return { record: canceledEarlier, replayed: true };
  return applyOnce(
    store,
    'refund',
    input.idempotency_key,
    fingerprint(input.charge_id, input.amount, input.currency),
    (id) => store.refunds.get(id),
    () => {
      const rejected = rejection(deps, input);
      const now = new Date();
      const refund: RefundRecord = {
        id: newId('rf'),
        idempotencyKey: input.idempotency_key,
        reference: input.reference,
        createdAt: now,
        updatedAt: now,
        status: rejected ? 'rejected' : 'pending',
        failureCode: rejected?.code,
        failureMessage: rejected?.message,
        chargeId: input.charge_id,
        amount: input.amount,
        currency: input.currency,
        callbackUrl: input.callback_url,
      };
      if (!rejected && input.amount % 100 !== 99) {
        deps.scheduler.after(
          deps.callbackDelayMs,
          () => {
            if (refund.status !== 'pending') return; // canceled meanwhile
            refund.status = 'succeeded';
            refund.updatedAt = new Date();
            void deps.callbacks.send(refund.callbackUrl, 'refund', refundJson(refund));
          },
          (err) => deps.log.error({ err, refundId: refund.id }, 'refund completion failed'),
        );
      }
      store.refunds.set(refund.id, refund);
      return refund;
    },
  );
}

export function refundByKey(deps: SandboxDeps, idempotencyKey: string): RefundRecord | undefined {
  return recordByKey(deps.store, 'refund', idempotencyKey, deps.store.refunds);
}

/**
 * Cancels the refund made under a key: a pending one is canceled (no money moves), a final one answers its
 * final state. A key never seen gets a canceled refund of 0 under it, so a late request with it is void.
 */
export function cancelRefundByKey(deps: SandboxDeps, idempotencyKey: string): RefundRecord {
  return cancelByKey(deps.store, 'refund', idempotencyKey, deps.store.refunds, (now) => ({
    id: newId('rf'),
    idempotencyKey,
    createdAt: now,
    updatedAt: now,
    status: 'canceled',
    chargeId: '',
    amount: 0,
    currency: '',
    callbackUrl: '',
  }));
}
