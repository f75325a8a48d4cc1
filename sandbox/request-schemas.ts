// Request bodies of the gateway API. Strict objects: an unknown parameter is a 400 naming it, so a typo in
// an adapter shows up at once instead of being silently ignored.

import { z } from 'zod';

const idempotencyKey = z.string().min(1).max(255);
const amount = z.int().positive(); // minor units
/** A charge may be 0: a zero-value authorization, which checks the card and moves no money. */
const chargeAmount = z.int().nonnegative();
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code')
  .transform((c) => c.toUpperCase());
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** Our id for the effect (pi_, re_, payout uuid); echoed in callbacks so they can be routed. */
const reference = z.string().min(1).max(255);

/** Browser forms send numbers as strings; accept both. */
const integerish = z
  .union([z.number(), z.string().trim().regex(/^\d{1,4}$/, 'must be a number').transform(Number)])
  .pipe(z.int());

export const tokenRequestSchema = z.strictObject({
  number: z.string().min(1).max(40),
  exp_month: integerish,
  exp_year: integerish,
  cvc: z.string().max(8),
});

/** The agreement a merchant-initiated charge is made under, as card networks expect it. */
export const chargeAgreementSchema = z.strictObject({
  /** The merchant's agreement id: the charges of one agreement are tied together by it. */
  reference: z.string().min(1).max(255),
  type: z.enum(['RECURRING', 'INSTALLMENT', 'UNSCHEDULED']),
  /** The network_transaction_id of the agreement's first charge: required from the second charge on. */
  network_transaction_id: z.string().min(1).max(255).optional(),
});

export const chargeRequestSchema = z
  .strictObject({
    idempotency_key: idempotencyKey,
    /** A card token (tok_...), or for merchant_initiated charges a reusable token (pmt_...). */
    token: z.string().min(1).max(255),
    amount: chargeAmount,
    currency,
    callback_url: httpUrl,
    return_url: httpUrl,
    /** Customer present and the card is to be saved: a succeeded charge issues a payment_method_token. */
    setup_future_usage: z.literal('off_session').optional(),
    merchant_initiated: z.boolean().optional(),
    agreement: chargeAgreementSchema.optional(),
    reference: reference.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.agreement !== undefined && c.merchant_initiated !== true) {
      ctx.addIssue({ code: 'custom', path: ['agreement'], message: 'is only allowed with merchant_initiated: true' });
    }
    if (c.setup_future_usage !== undefined && c.merchant_initiated === true) {
      ctx.addIssue({
        code: 'custom',
        path: ['setup_future_usage'],
        message: 'is not allowed with merchant_initiated: true (the card is saved while the customer is present)',
      });
    }
  });
export type ChargeInput = z.output<typeof chargeRequestSchema>;

export const refundRequestSchema = z.strictObject({
  idempotency_key: idempotencyKey,
  charge_id: z.string().min(1).max(255),
  amount,
  currency,
  callback_url: httpUrl,
  reference: reference.optional(),
});
export type RefundInput = z.output<typeof refundRequestSchema>;

export const recipientRequestSchema = z
  .strictObject({
    idempotency_key: idempotencyKey,
    recipient_type: z.enum(['bank_account', 'mobile_money']),
    bank_account_number: z.string().min(1).max(64).optional(),
    bank_account_name: z.string().min(1).max(255).optional(),
    bank_code: z.string().min(1).max(64).optional(),
    mobile_money_number: z.string().min(1).max(64).optional(),
    mobile_money_provider: z.string().min(1).max(64).optional(),
    name: z.string().min(1).max(255).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.recipient_type === 'bank_account') {
      if (!r.bank_account_number)
        ctx.addIssue({ code: 'custom', path: ['bank_account_number'], message: 'is required for a bank_account recipient' });
      if (r.mobile_money_number)
        ctx.addIssue({ code: 'custom', path: ['mobile_money_number'], message: 'is not allowed for a bank_account recipient' });
    } else {
      if (!r.mobile_money_number)
        ctx.addIssue({ code: 'custom', path: ['mobile_money_number'], message: 'is required for a mobile_money recipient' });
      if (r.bank_account_number)
        ctx.addIssue({ code: 'custom', path: ['bank_account_number'], message: 'is not allowed for a mobile_money recipient' });
    }
  });
export type RecipientInput = z.output<typeof recipientRequestSchema>;

export const payoutRequestSchema = z
  .strictObject({
    idempotency_key: idempotencyKey,
    amount,
    currency,
    recipient_id: z.string().min(1).max(255).optional(),
    bank_account_number: z.string().min(1).max(64).optional(),
    mobile_money_number: z.string().min(1).max(64).optional(),
    /** The wallet's network (MTN, M-Pesa, ...), with an inline wallet; a registered recipient carries its own. */
    mobile_money_provider: z.string().min(1).max(64).optional(),
    narration: z.string().max(255).optional(),
    callback_url: httpUrl,
    reference: reference.optional(),
  })
  .superRefine((p, ctx) => {
    const given = [p.recipient_id, p.bank_account_number, p.mobile_money_number].filter((v) => v !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['recipient_id'],
        message: 'give exactly one of recipient_id, bank_account_number, mobile_money_number',
      });
    }
    if (p.mobile_money_provider !== undefined && p.mobile_money_number === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['mobile_money_provider'],
        message: 'is only allowed with mobile_money_number (a registered recipient carries its own)',
      });
    }
  });
export type PayoutInput = z.output<typeof payoutRequestSchema>;

export const byKeyQuerySchema = z.strictObject({ idempotency_key: idempotencyKey });

/** POST /v1/refunds/cancel and /v1/payouts/cancel. */
export const cancelByKeySchema = z.strictObject({ idempotency_key: idempotencyKey });

export const effectsQuerySchema = z.strictObject({
  idempotency_key: z.string().min(1).optional(),
  kind: z.enum(['charge', 'refund', 'payout', 'recipient']).optional(),
});

export const threeDsFormSchema = z.object({ action: z.enum(['complete', 'fail']) });
