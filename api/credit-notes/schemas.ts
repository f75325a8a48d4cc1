import { z } from 'zod';
import { amountSchema, idempotencyKeySchema, typedId } from '../http/common-schemas';


export const creditNoteCreateBody = z
  .object({
    invoice: typedId('in').describe('A paid invoice (`in_...`)'),
    amount: amountSchema.min(1).optional().describe('In minor units; or give `lines` (then, if given, it must equal their sum)'),
    lines: z
      .array(z.object({ invoice_line: typedId('il').describe('A line of the invoice'), amount: amountSchema.min(1).describe('At most the line\'s amount after discount, with exclusive tax') }).strict())
      .min(1)
      .max(100)
      .optional(),
    reason: z.enum(['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory']).optional(),
    memo: z.string().max(500).optional(),
    refund: z.boolean().optional().describe("`true`: the money goes back to the card through a refund; `false` (default): to the customer's credit balance, which the next invoices use first"),
    idempotency_key: idempotencyKeySchema.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.amount === undefined && b.lines === undefined)
      ctx.addIssue({ code: 'invalid_type', expected: 'number', input: undefined, path: ['amount'], message: 'Invalid input: expected number, received undefined (give amount or lines)' });
  });
export type CreditNoteCreateBody = z.infer<typeof creditNoteCreateBody>;

export const creditNoteViewSchema = z
  .object({
    credit_note: z.string(),
    object: z.literal('credit_note'),
    invoice: z.string(),
    payment_intent: z.string(),
    customer: z.string(),
    subscription: z.string().nullable(),
    status: z.literal('issued'),
    currency: z.string(),
    amount: z.number().int(),
    lines: z.array(z.object({ invoice_line: z.string(), amount: z.number().int() })),
    reason: z.enum(['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory']).nullable(),
    memo: z.string().nullable(),
    refund: z.string().nullable(),
    refund_status: z
      .enum(['pending', 'success', 'canceled'])
      .nullable()
      .meta({
        description:
          "How `refund` stands (null without one). `canceled`: the gateway refused it or it was canceled at its SLA, so nothing went back to the card; the note stays issued and its amount is refundable again (another note, or a refund)",
      }),
    credit_to_balance: z.number().int(),
    created: z.number().int(),
  })
  .meta({ id: 'CreditNote', description: 'A credit note of a paid invoice: refunded to the card (`refund`) or credited to the customer\'s balance (`credit_to_balance`).' });

export const creditBalanceViewSchema = z.object({
  customer: z.string(),
  object: z.literal('credit_balance'),
  balances: z.array(z.object({ currency: z.string(), credit: z.number().int() })),
});
