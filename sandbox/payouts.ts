// Payouts and payout recipients. Magic bank account numbers pick the payout outcome:
//   000111111116 rejected (invalid account)   000222222227 technical failure
//   000333333338 accepted, never completes     000444444449 accepted, completes after a delay
//   000555555551 taken and completed at once, but the HTTP answer is lost (the request is never answered)
//   anything else (and mobile money) completes at once.
// A pending payout can be canceled by its idempotency key; canceling a key the gateway has not seen yet
// leaves a canceled payout under it, so a request that arrives later moves no money (as refunds do).

import type { SandboxDeps } from './deps';
import { notFound } from './http-errors';
import { newId } from './ids';
import { applyOnce, cancelByKey, fingerprint, isTombstone, recordByKey } from './idempotency';
import { payoutJson, type PayoutRecord, type RecipientRecord } from './resources';
import type { PayoutInput, RecipientInput } from './request-schemas';

export const PAYOUT_ACCOUNTS = {
  rejected: '000111111116',
  technicalFailure: '000222222227',
  neverCompletes: '000333333338',
  completesLater: '000444444449',
  answerLost: '000555555551',
} as const;

/** Taken and executed, but its answer never reaches the caller (see gateway-routes.ts), on any retry too. */
export function isAnswerLost(payout: PayoutRecord): boolean {
  return payout.bankAccountNumber === PAYOUT_ACCOUNTS.answerLost;
}

export function recipientOnce(deps: SandboxDeps, input: RecipientInput): { record: RecipientRecord; replayed: boolean } {
  const { store } = deps;
  return applyOnce(
    store,
    'recipient',
    input.idempotency_key,
    fingerprint(input.recipient_type, input.bank_account_number, input.bank_code, input.mobile_money_number),
    (id) => store.recipients.get(id),
    () => {
      const now = new Date();
      const recipient: RecipientRecord = {
        id: newId('rcp'),
        idempotencyKey: input.idempotency_key,
        createdAt: now,
        updatedAt: now,
        status: 'registered',
        recipientType: input.recipient_type,
        bankAccountNumber: input.bank_account_number,
        bankAccountName: input.bank_account_name,
        bankCode: input.bank_code,
        mobileMoneyNumber: input.mobile_money_number,
        mobileMoneyProvider: input.mobile_money_provider,
        name: input.name,
      };
      // The gateway checks the number's format at registration; whether the account exists is only known
      // when money moves, so the magic accounts above register fine and fail at payout time.
      if (input.bank_account_number !== undefined && !/^\d{6,20}$/.test(input.bank_account_number)) {
        recipient.status = 'rejected';
        recipient.failureCode = 'invalid_account_number';
        recipient.failureMessage = 'A bank account number is 6 to 20 digits.';
      } else if (input.mobile_money_number !== undefined && !/^\+?\d{7,15}$/.test(input.mobile_money_number)) {
        recipient.status = 'rejected';
        recipient.failureCode = 'invalid_mobile_number';
        recipient.failureMessage = 'A mobile money number is 7 to 15 digits, optionally with a leading +.';
      }
      store.recipients.set(recipient.id, recipient);
      return recipient;
    },
  );
}

export function payoutOnce(deps: SandboxDeps, input: PayoutInput): { record: PayoutRecord; replayed: boolean } {
  const { store } = deps;
  const canceledEarlier = payoutByKey(deps, input.idempotency_key);
  if (canceledEarlier && isTombstone(canceledEarlier)) return { record: canceledEarlier, replayed: true };
  return applyOnce(
    store,
    'payout',
    input.idempotency_key,
    fingerprint(
      input.amount,
      input.currency,
      input.recipient_id,
      input.bank_account_number,
      input.mobile_money_number,
      input.mobile_money_provider,
    ),
    (id) => store.payouts.get(id),
    () => {
      const recipient = input.recipient_id === undefined ? undefined : store.recipients.get(input.recipient_id);
      if (input.recipient_id !== undefined && !recipient) throw notFound('recipient', input.recipient_id);
      const now = new Date();
      const payout: PayoutRecord = {
        id: newId('po'),
        idempotencyKey: input.idempotency_key,
        reference: input.reference,
        createdAt: now,
        updatedAt: now,
        status: 'succeeded',
        amount: input.amount,
        currency: input.currency,
        recipientId: input.recipient_id,
        bankAccountNumber: input.bank_account_number ?? recipient?.bankAccountNumber,
        mobileMoneyNumber: input.mobile_money_number ?? recipient?.mobileMoneyNumber,
        mobileMoneyProvider: input.mobile_money_provider ?? recipient?.mobileMoneyProvider,
        narration: input.narration,
        callbackUrl: input.callback_url,
      };
      if (recipient && recipient.status !== 'registered') {
        payout.status = 'rejected';
        payout.failureCode = 'recipient_not_registered';
        payout.failureMessage = `Recipient ${recipient.id} was rejected at registration.`;
      } else {
        switch (payout.bankAccountNumber) {
          case PAYOUT_ACCOUNTS.rejected:
            payout.status = 'rejected';
            payout.failureCode = 'invalid_account';
            payout.failureMessage = 'The bank account does not exist or cannot receive funds.';
            break;
          case PAYOUT_ACCOUNTS.technicalFailure:
            payout.status = 'failed';
            payout.failureCode = 'processing_error';
            payout.failureMessage = 'The bank transfer failed with a technical error.';
            break;
          case PAYOUT_ACCOUNTS.neverCompletes:
            payout.status = 'pending';
            break;
          case PAYOUT_ACCOUNTS.completesLater:
            payout.status = 'pending';
            deps.scheduler.after(
              deps.callbackDelayMs,
              () => {
                if (payout.status !== 'pending') return; // canceled meanwhile: no money moves
                payout.status = 'succeeded';
                payout.updatedAt = new Date();
                void deps.callbacks.send(payout.callbackUrl, 'payout', payoutJson(payout));
              },
              (err) => deps.log.error({ err, payoutId: payout.id }, 'payout completion failed'),
            );
            break;
        }
      }
      store.payouts.set(payout.id, payout);
      return payout;
    },
  );
}

export function payoutByKey(deps: SandboxDeps, idempotencyKey: string): PayoutRecord | undefined {
  return recordByKey(deps.store, 'payout', idempotencyKey, deps.store.payouts);
}

/**
 * Cancels the payout made under a key: a pending one is canceled (no money moves), a final one answers its
 * final state. A key never seen gets a canceled payout of 0 under it, so a late request with it is void.
 */
export function cancelPayoutByKey(deps: SandboxDeps, idempotencyKey: string): PayoutRecord {
  return cancelByKey(deps.store, 'payout', idempotencyKey, deps.store.payouts, (now) => ({
    id: newId('po'),
    idempotencyKey,
    createdAt: now,
    updatedAt: now,
    status: 'canceled',
    amount: 0,
    currency: '',
    callbackUrl: '',
  }));
}
