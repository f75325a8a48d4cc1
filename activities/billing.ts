import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { Mongo } from '../platform/mongo';
import type { InvoiceSnapshot, SubscriptionSnapshot } from '../domain/billing/snapshots';
import type { InvoiceCharge, InvoiceChargeResult } from '../domain/billing/invoice-charge';
import { subscriptionRecords } from '../data/subscriptions';
import { balanceId, creditNoteData, creditOfNote, customerBalanceData } from '../data/credit-notes';

// The subscription workflow's I/O: its records and its invoices' (it is their only writer), and an invoice's
// charge, made by the API's charge code (api/subscriptions/invoice-charges.ts, handed over by the worker) with
// the worker's Temporal client.

/** What the worker hands over: the invoice charge of the API layer, run with a Temporal client. */
export interface InvoiceChargePort {
  charge(temporal: Client, req: InvoiceCharge): Promise<InvoiceChargeResult>;
  cancelIntent(temporal: Client, tenantId: string, paymentIntent: string): Promise<'canceled' | 'success' | 'pending'>;
  /** The customer's credit balance, through its workflow. */
  drawCredit(temporal: Client, req: CreditDraw): Promise<number>;
  addCredit(temporal: Client, req: CreditDraw & { amount: number }): Promise<void>;
}

/** A billing page's paid intent finished on the session's side (api/checkout-sessions/payment-completions.ts). */
export interface SessionPaymentPort {
  paid(temporal: Client, req: { tenantId: string; owner: string; paymentIntent: string }): Promise<'finished' | 'gone'>;
}

export interface CreditDraw {
  tenantId: string;
  customer: string;
  currency: string;
  /** The invoice (or credit note): a repeated change with the same key changes nothing. */
  key: string;
  max: number;
}

export function createBillingActivities(deps: { mongo: Mongo; invoiceCharges?: InvoiceChargePort; sessionPayments?: SessionPaymentPort }) {
  const records = subscriptionRecords(deps.mongo);
  const port = (): InvoiceChargePort => {
    if (!deps.invoiceCharges) throw ApplicationFailure.nonRetryable('this worker was built without invoice charges', 'misconfigured');
    return deps.invoiceCharges;
  };
  return {
    async saveSubscription(p: { id: string; version: number; snapshot: SubscriptionSnapshot }): Promise<void> {
      await records.saveSubscription(p.id, p.version, p.snapshot);
    },

    /** Inserts the invoice at its first write and updates it at later ones; a late or repeated write is stale. */
    async saveInvoice(p: { version: number; snapshot: InvoiceSnapshot }): Promise<void> {
      await records.saveInvoice(p.version, p.snapshot);
    },

    chargeInvoice: (req: InvoiceCharge): Promise<InvoiceChargeResult> => port().charge(Context.current().client, req),

    /** A checkout session's or portal card check's intent succeeded: the session's side is finished (idempotent). */
    completeSessionPayment: (req: { tenantId: string; owner: string; paymentIntent: string }): Promise<'finished' | 'gone'> => {
      if (!deps.sessionPayments) throw ApplicationFailure.nonRetryable('this worker was built without session payments', 'misconfigured');
      return deps.sessionPayments.paid(Context.current().client, req);
    },

    /** An invoice's intent canceled (the invoice is voided, or its subscription ended): how the intent stands. */
    cancelInvoiceIntent: (p: { tenantId: string; paymentIntent: string }): Promise<'canceled' | 'success' | 'pending'> =>
      port().cancelIntent(Context.current().client, p.tenantId, p.paymentIntent),

    /** Credit the customer's balance offers an invoice (taken from it): 0 without asking anyone when there is none. */
    drawCustomerCredit: (req: CreditDraw): Promise<number> => port().drawCredit(Context.current().client, req),
    creditCustomer: (req: CreditDraw & { amount: number }): Promise<void> => port().addCredit(Context.current().client, req),

    /**
     * A credit note whose amount its intent admitted: issued (with the refund that returns it to the card, or
     * its credit to the customer's balance), then that credit added, keyed by the note's id. The intent's
     * workflow runs it, so a note admitted is finished though the API request that asked died (both steps are
     * what that request does too, and each is done once whoever comes first). `missing`: no such note.
     */
    async issueCreditNote(p: { tenantId: string; creditNote: string; refund: string | null; creditToBalance: number }): Promise<'issued' | 'missing'> {
      const issued = await creditNoteData(deps.mongo).issue(p.creditNote, { refund: p.refund, credit_to_balance: p.creditToBalance });
      if (!issued) return 'missing';
      const credit = creditOfNote(issued);
      if (credit) await port().addCredit(Context.current().client, { ...credit, max: credit.amount });
      return 'issued';
    },

    /** The balance's figures, and the change that made them kept by its key first (a run after an idle close reads it). */
    async saveCustomerBalance(p: { tenantId: string; customer: string; currency: string; credit: number; version: number; change?: { key: string; amount: number } }): Promise<void> {
      const balances = customerBalanceData(deps.mongo);
      if (p.change) await balances.keepChange(p.tenantId, p.customer, p.currency, p.change.key, p.change.amount);
      await balances.save({ _id: balanceId(p.customer, p.currency), tenant_id: p.tenantId, customer: p.customer, currency: p.currency, credit: p.credit, version: p.version });
    },

    /** What a change with this key did to the balance, when it was applied (by any run); null when never. */
    customerBalanceChange: (p: { tenantId: string; customer: string; currency: string; key: string }): Promise<number | null> =>
      customerBalanceData(deps.mongo).change(p.tenantId, p.customer, p.currency, p.key),
  };
}
