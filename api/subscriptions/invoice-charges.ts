import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DomainError } from '../../domain/errors';
import { serviceIntentKey } from '../../domain/intent-keys';
import type { InvoiceCharge, InvoiceChargeResult } from '../../domain/billing/invoice-charge';
import { paymentIntentData } from '../../data/payment-intents';
import { paymentMethodData } from '../../data/payment-methods';
import { cancelUpdate, mitChargeUpdate, type MitChargeResult } from '../../workflows/payment-intent/messages';
import { mitChargeInputFor } from '../cards-mit/service';
import { insertAndStart, newIntentRecord } from '../payment-intents/service';
import { tenantAuth, type AppDeps } from '../deps';
import { addCustomerCredit, drawCustomerCredit } from '../credit-notes/balance';
import { retryingUntaken } from '../http/workflow-calls';

// An invoice's charge, made with the API's own intent and charge code so it is exactly what a merchant's
// POST /v202607/payment-intents and POST /cards/mit would make: the invoice's intent (owned by the
// subscription's workflow, which hears when it ends) and a merchant-initiated charge of the saved card under
// the agreement (type RECURRING, agreement id = the subscription id). The worker builds this and hands it to
// the billing activities, which run it with the worker's Temporal client.

export type InvoiceChargeDeps = Omit<AppDeps, 'temporal'>;

export function createInvoiceCharges(base: InvoiceChargeDeps) {
  const withClient = (temporal: Client): AppDeps => ({ ...base, temporal });

  async function invoiceIntent(deps: AppDeps, req: InvoiceCharge, connector: string): Promise<string> {
    const auth = tenantAuth(req.tenantId, req.region);
    const record = await newIntentRecord(deps, auth, {
      amount: req.amount,
      currency: req.currency,
      customer: req.customer,
      metadata: { subscription: req.subscription, invoice: req.invoice },
      webhooks: [],
      return_url: null,
      pin: null,
      connectors: [connector],
      timeout_seconds: req.intentTimeoutSeconds,
      // One intent per invoice and replacement: a retried activity finds the one it made.
      idempotency_key: serviceIntentKey.ofInvoice(req.invoice, req.attempt),
      api_version: 'v202607',
      owner: req.subscription,
    });
    const made = await insertAndStart(deps, auth, record, { webhooks: [], customer: null });
    return made.record._id;
  }

  return {
    async charge(temporal: Client, req: InvoiceCharge): Promise<InvoiceChargeResult> {
      const deps = withClient(temporal);
      const failed = (paymentIntent: string, code: string): InvoiceChargeResult => ({ paymentIntent, outcome: 'failed', failureCode: code, nextActionUrl: null });
      const succeeded = (paymentIntent: string): InvoiceChargeResult => ({ paymentIntent, outcome: 'succeeded', failureCode: null, nextActionUrl: null });
      const intents = paymentIntentData(deps.mongo);
      let intent = req.paymentIntent ? await intents.find(req.tenantId, req.paymentIntent) : null;
      if (intent?.status === 'success') return succeeded(intent._id);
      const card = await paymentMethodData(deps.mongo).findAny(req.tenantId, req.paymentMethod);
      if (!card) return failed(intent?._id ?? '', 'payment_method_missing');
      if (!intent || intent.status !== 'pending') {
        const id = await invoiceIntent(deps, req, card.connector);
        intent = await intents.find(req.tenantId, id);
        if (!intent) throw new Error(`the intent ${id} of invoice ${req.invoice} is not readable`);
        // Found by its key: a retry whose first try paid it (and the card may be gone since) answers that payment.
        if (intent.status === 'success') return succeeded(intent._id);
      }
      let result: MitChargeResult;
      try {
        // Named by the invoice's attempt: a retry of this activity, however late, is answered with the first
        // charge's result instead of charging the card again.
        const input = { ...(await mitChargeInputFor(deps.mongo, req.tenantId, req.region, card, req.subscription, 'RECURRING', deps.config.TEMPORAL_TASK_QUEUE)), chargeKey: serviceIntentKey.ofInvoice(req.invoice, req.attempt) };
        // Sent again if the server answers UnprocessedUpdate (nothing applied), as the API does: not a failed charge.
        const handle = temporal.workflow.getHandle(intent._id);
        result = await retryingUntaken(() => handle.executeUpdate(mitChargeUpdate, { args: [input] }));
      } catch (err) {
        // The card cannot be charged (detached, no token), or the intent refused the charge: a failed attempt.
        if (err instanceof DomainError) return failed(intent._id, err.code);
        if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) return failed(intent._id, err.cause.type ?? 'charge_refused');
        throw err;
      }
      switch (result.code) {
        case 'ok':
          return succeeded(intent._id);
        case 'REQUIRES_ACTION':
          return { paymentIntent: intent._id, outcome: 'requires_action', failureCode: 'authentication_required', nextActionUrl: result.next_action.url };
        case 'PROCESSING':
          return { paymentIntent: intent._id, outcome: 'processing', failureCode: null, nextActionUrl: null };
        case 'declined':
          return failed(intent._id, result.failure_code);
      }
    },

    /**
     * Cancels an invoice's intent and answers how it stands: `canceled`, `success` (it was paid meanwhile: the
     * invoice is paid, not void), or `pending` (it refused: a charge is on the wire or being reconciled).
     */
    async cancelIntent(temporal: Client, tenantId: string, paymentIntent: string): Promise<'canceled' | 'success' | 'pending'> {
      try {
        const handle = temporal.workflow.getHandle(paymentIntent);
        await retryingUntaken(() => handle.executeUpdate(cancelUpdate, { args: [] }));
        return 'canceled';
      } catch (err) {
        if (!(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError)) throw err;
        const now = await paymentIntentData(base.mongo).find(tenantId, paymentIntent);
        return now?.status ?? 'canceled';
      }
    },

    drawCredit: (temporal: Client, req: { tenantId: string; customer: string; currency: string; key: string; max: number }): Promise<number> =>
      drawCustomerCredit(withClient(temporal), req),

    async addCredit(temporal: Client, req: { tenantId: string; customer: string; currency: string; key: string; amount: number }): Promise<void> {
      await addCustomerCredit(withClient(temporal), req);
    },
  };
}

export type InvoiceCharges = ReturnType<typeof createInvoiceCharges>;
