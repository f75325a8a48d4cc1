import { olderProgress } from '../../domain/older-progress';
import type { OlderIntentRow, OlderIntentView } from '../../domain/older-views';
import type { PaymentIntentRecord } from '../../platform/records';
import type { AppDeps } from '../deps';
import { intentPageUrl } from '../hosted/client-secret';

// An intent as the older interface shows it, from its stored record (the workflow writes the progress
// fields; records written before it had them read as their status implies).

export function olderIntentView(r: PaymentIntentRecord, deps: AppDeps): OlderIntentView {
  const progress =
    r.sub_status !== undefined
      ? { sub_status: r.sub_status as OlderIntentView['sub_status'], step_number: r.step_number ?? 1, last_reason: r.last_reason ?? '' }
      : olderProgress({
          status: r.status,
          attemptPhase: null,
          lastFailureCode: r.last_failure_code ?? null,
          stepReached: r.status === 'success' ? 4 : 1,
          cancellationReason: r.cancellation_reason ?? null,
        });
  return {
    payment_intent: r.uuid!,
    payment_intent_secret: r.payment_intent_secret!,
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    ...progress,
    gateway: r.gateway ?? null,
    human_friendly_payment_intent_secret: r.human_friendly_payment_intent_secret ?? null,
    payment_intent_timeout_seconds: r.timeout_seconds,
    final_success_url: r.final_success_url ?? null,
    final_failure_url: r.final_failure_url ?? null,
    initial_data: { payment_intent_id: r._id },
    payment_intent_date: r.created_at.toISOString(),
    feature_flag: r.feature_flag ?? null,
    tenant: { logo: null, favicon: null },
    tenant_initial_user_data: {
      phone_number: r.contact?.phone_number ?? null,
      email: r.contact?.email ?? null,
      payment_intent_channel: r.checkout_intent ? 'checkout_intent' : 'api',
      redirect_to: intentPageUrl(r._id, deps.config),
    },
    lg: r.lg ?? null,
    x_token_id: null,
    transaction_id: r.status === 'success' ? (r.transaction_id ?? null) : null,
    checkout_intent: r.checkout_intent ?? null,
    line_items: r.line_items ?? [],
  };
}

/**
 * The retrieve as a publishable key sees it: publishable keys live in web pages, so whoever holds one and an
 * intent's id must not learn the customer's contact details, nor the client secret in `redirect_to` (it opens
 * the hosted page, and through it the checkout or portal session the intent belongs to). A client secret's
 * holder has the page already.
 */
export function publishableView(v: OlderIntentView): OlderIntentView {
  return { ...v, tenant_initial_user_data: { ...v.tenant_initial_user_data, phone_number: null, email: null, redirect_to: null } };
}

/** A row of the older list: the retrieve's fields and the list-only ones. */
export function olderIntentRow(r: PaymentIntentRecord, deps: AppDeps): OlderIntentRow {
  return {
    ...olderIntentView(r, deps),
    checkout_intent_idempotency_key: r.idempotency_key,
    idempotency_key: r.idempotency_key,
    phone_number: r.contact?.phone_number ?? null,
    amount_paid_by_customer: r.amount_paid ?? 0,
    gateway_transaction_id: r.gateway_charge_id ?? null,
    gateway_transaction_human_readable: r.gateway_charge_id ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
