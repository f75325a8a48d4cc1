import type { OlderRefundRow } from './older-refund-views';

// The older interface's refund (unprefixed `/refunds`, its webhooks) as its workflow moves it: its
// sub-status, its row and its webhook body. Plain code without zod, for the workflow bundle (see
// older-progress.ts); the row's zod schema is in older-refund-views.ts.
//
// How the refund workflow's state reads as the older sub-status (the record's `sub_status`, written by the
// workflow; documented in the OpenAPI document too):
//
// | refund workflow state                                                        | status   | sub_status                        |
// |------------------------------------------------------------------------------|----------|-----------------------------------|
// | admitted; the gateway has not answered the refund request yet               | pending  | pending_created                   |
// | the gateway has the refund (it answered the request, or has it by our key)  | pending  | pending_promise                   |
// | the gateway executed it (also when it said so after the SLA: late_outcome)  | success  | success                           |
// | the gateway rejected it, or canceled it on its own, before the SLA          | canceled | canceled_rejected                 |
// | canceled at its SLA; the gateway never acknowledged the refund before it    | canceled | canceled_timeout_potential_ghost  |
// | canceled at its SLA; the gateway had acknowledged it but it never settled   | canceled | canceled_timeout_e2e_manual       |
//
// "Acknowledged" means the gateway answered the refund request, or a question about it by our idempotency
// key found it, before the SLA passed (an answer to the cancel at the SLA does not count). A potential ghost
// is a refund the gateway may have taken without telling us: the cancel at the SLA voids one it has not
// executed, and one it executed anyway stands as `success` with `late_outcome`. A `canceled_timeout_*`
// refund reads canceled from the SLA on; its amount stays reserved on the payment's balance until the
// gateway confirms the cancel (README, "How the refundable balance stays exact").

export const OLDER_REFUND_SUB_STATUSES = [
  'pending_created',
  'pending_promise',
  'success',
  'canceled_rejected',
  'canceled_timeout_potential_ghost',
  'canceled_timeout_e2e_manual',
] as const;
export type OlderRefundSubStatus = (typeof OLDER_REFUND_SUB_STATUSES)[number];

/** The failure code of a refund canceled at its SLA (workflows/refund/state.ts). */
export const SLA_TIMEOUT = 'sla_timeout';

interface OlderRefundProgressInput {
  status: 'pending' | 'success' | 'canceled';
  /** The gateway acknowledged the refund before its SLA passed. */
  acknowledged: boolean;
  failureCode: string | null;
}

/** The sub-status of a refund's state (the table above). */
export function olderRefundSubStatus(p: OlderRefundProgressInput): OlderRefundSubStatus {
  if (p.status === 'success') return 'success';
  if (p.status === 'pending') return p.acknowledged ? 'pending_promise' : 'pending_created';
  if (p.failureCode !== SLA_TIMEOUT) return 'canceled_rejected';
  return p.acknowledged ? 'canceled_timeout_e2e_manual' : 'canceled_timeout_potential_ghost';
}

/** The base status of a sub-status: its prefix (pending_created is pending). */
export function olderRefundStatusOf(sub: OlderRefundSubStatus): 'pending' | 'success' | 'canceled' {
  return sub === 'success' ? 'success' : sub.startsWith('pending') ? 'pending' : 'canceled';
}

/**
 * The sub-status of a stored refund: the one its workflow wrote, unless the record has none of its status
 * (refunds from before the older interface, or whose status a worker of older code moved on since). Then
 * it is what the record still says: a pending one with a gateway reference is with the gateway; one
 * canceled at its SLA reads as needing a manual look, since whether the gateway had it is not recorded.
 */
export function subStatusOfRecord(r: {
  status: 'pending' | 'success' | 'canceled';
  sub_status?: string;
  failure_code: string | null;
  gateway_transaction_id: string | null;
}): OlderRefundSubStatus {
  const written = OLDER_REFUND_SUB_STATUSES.find((s) => s === r.sub_status);
  if (written && olderRefundStatusOf(written) === r.status) return written;
  return olderRefundSubStatus({ status: r.status, acknowledged: r.status !== 'pending' || r.gateway_transaction_id !== null, failureCode: r.failure_code });
}

/** What a refund's row shows that its workflow does not own: fixed when its record was inserted. */
export interface OlderRefundFacts {
  /** The integer id (`refunds` sequence). */
  id: number;
  uuid: string;
  /** The gateway of the connector that took the payment. */
  gateway: string | null;
  /** The refunded payment's integer transaction_id. */
  transaction_id: number | null;
  /** The refunded intent's UUID. */
  payment_intent: string | null;
}


/**
 * A row from the facts and the state of the moment (what the workflow and the record both know). Its status
 * is the sub-status's prefix; succeeded_at is null unless it succeeded, and then the time given, or else
 * updated_at (a successful refund's record was last written by its success).
 */
export function olderRefundRowOf(
  facts: OlderRefundFacts,
  s: {
    amount: number;
    currency: string;
    sub_status: OlderRefundSubStatus;
    idempotency_key: string | null;
    gateway_transaction_id: string | null;
    created_at: string;
    updated_at: string;
    succeeded_at?: string | null;
  },
): OlderRefundRow {
  return {
    id: facts.id,
    uuid: facts.uuid,
    amount: s.amount,
    currency: s.currency,
    status: olderRefundStatusOf(s.sub_status),
    sub_status: s.sub_status,
    checkout_intent_idempotency_key: s.idempotency_key,
    gateway_transaction_id: s.gateway_transaction_id,
    gateway_transaction_human_readable: s.gateway_transaction_id,
    gateway: facts.gateway,
    transaction_id: facts.transaction_id,
    payment_intent: facts.payment_intent,
    created_at: s.created_at,
    updated_at: s.updated_at,
    succeeded_at: s.sub_status === 'success' ? (s.succeeded_at ?? s.updated_at) : null,
  };
}

/** The event name of an older refund webhook: `refund.<sub_status>`. */
export const olderRefundEvent = (sub: OlderRefundSubStatus): string => `refund.${sub}`;

/**
 * The body every `webhook_urls` entry of an older refund receives on each sub-status change: the refund as
 * GET /refunds lists it, `webhook_type: 'refund'` and the event's name (the delivery adds `event_id`).
 */
export function olderRefundWebhookBody(row: OlderRefundRow, event: string): Record<string, unknown> {
  return { webhook_type: 'refund', event, ...row };
}
