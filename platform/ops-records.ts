// Shapes of the operations records: what operators did (the audit trail). Discrepancies found by
// reconciliation live beside them.

/** The operator actions an admin can take; each is an Update of the workflow that owns the target. */
export const OPERATOR_ACTIONS = [
  'force_cancel_intent',
  'recheck_attempt',
  'retry_refund',
  'retry_payout',
  'confirm_payout',
  'redeliver_webhook',
  'enable_webhook_endpoint',
] as const;
export type OperatorActionName = (typeof OPERATOR_ACTIONS)[number];
/**
 * Admin changes that touch no workflow but are audited beside the actions: who gave a tenant a key (one with
 * `cards.mit` charges saved cards) and who took one away. Written before the change, finished after it.
 */
export const ADMIN_CHANGES = ['create_tenant', 'issue_api_key', 'revoke_api_key'] as const;
export type AuditedActionName = OperatorActionName | (typeof ADMIN_CHANGES)[number];

/** Who acted and why: carried into the workflow's Update and kept in the audit collection. */
export interface OperatorStamp {
  operator: string;
  reason: string;
  /** What proves a manual decision (a bank reference, a ticket): required to mark a payout confirmed. */
  evidence?: string;
}

/** What every operator Update takes: the stamp, and the audit row's id (the same action retried acts once). */
export interface OperatorUpdateInput extends OperatorStamp {
  actionId: string;
}

export interface OperatorActionRecord {
  _id: string; // opa_<region>_...
  action: AuditedActionName;
  /** The id the action was taken on: `pi_`, `re_`, a payout uuid, a delivery's workflow id, an API key's id. */
  target: string;
  tenant_id: string | null;
  operator: string;
  reason: string;
  evidence: string | null;
  requested_at: Date;
  /**
   * `requested` until the owning workflow answered; `done` or `refused` (with its code) after. `unanswered`:
   * no answer in time (503); Temporal keeps the Update, so the action may still happen: look at the object.
   */
  outcome: 'requested' | 'done' | 'refused' | 'unanswered' | 'failed';
  code: string | null;
  message: string | null;
  finished_at: Date | null;
}

/**
 * A refund, payout or capture one side still had undecided (pending) when its window was reconciled: later runs
 * read both sides of it again until both are final (or `recheck_until` passes) and compare them then. Without
 * it, a row pending at its window's run was never compared again: the report stamps a refund or payout at its
 * creation, so no later window holds it.
 */
export interface ReconciliationRecheckRecord {
  _id: string; // <object>:<match key>
  /** The gateway whose report is read again (reconciliation reads one gateway's report per run). */
  gateway: string;
  object_type: 'capture' | 'refund' | 'payout';
  /** Our id (a pi_, re_, payout uuid, or an intent's void key) and the key it pairs with a report entry by. */
  our_id: string;
  match_key: string;
  tenant_id: string;
  /** The window whose run found it undecided: the report is read there again (with the margin). */
  window_from: Date;
  window_to: Date;
  /**
   * Past it, a row our side has settled is compared as it stands (the gateway's side still pending) and
   * dropped. Ours still pending is read on: its workflow settles it by its SLA or timeout.
   */
  recheck_until: Date;
  /** The run that compared it for good (it is dropped by the next run); absent while it waits. */
  done_by?: string;
  created_at: Date;
}

/**
 * A mismatch reconciliation found between our ledger and a gateway's settlement report
 * (domain/reconciliation.ts). Unique by `discrepancy_key`: a re-run of the same window adds nothing.
 */
export interface DiscrepancyRecord {
  _id: string; // dsc_<region>_...
  /** `<object>:<our id or gateway:<gateway id>>:<kind>` (domain/reconciliation.ts discrepancyKey). */
  discrepancy_key: string;
  kind: 'missing_at_gateway' | 'missing_in_ledger' | 'amount_mismatch' | 'status_mismatch';
  object_type: 'capture' | 'refund' | 'payout';
  /** pi_ (capture), re_, payout uuid; null for an entry we have no record of. */
  our_id: string | null;
  gateway: string;
  gateway_id: string | null;
  /** Our id as the gateway reported it (the reference we sent), when it names one. */
  reference: string | null;
  /** null when nothing of ours names the entry (a phantom with an unknown reference). */
  tenant_id: string | null;
  ours: { amount: number; currency: string; status: string } | null;
  theirs: { amount: number; currency: string; status: string } | null;
  /** The reconciliation run (its workflow id) that found it, and the window it covered. */
  run_id: string;
  window: { from: Date; to: Date };
  status: 'open' | 'resolved';
  /** The event recorded for it (tenant-scoped), null without a tenant. */
  event_id: string | null;
  resolution: { operator: string; reason: string; at: Date } | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A record the stranded-records sweep took back (deleted at version 0, its workflow absent), held here until the
 * sweep looked again and either put it back or freed what it held: so a sweep that dies between the delete and
 * that second look loses nothing (its retry, or the next run, finishes it).
 */
export interface StrandedTakenBackRecord {
  _id: string; // `${kind}:${record id}:${its created_at in Unix ms}`
  kind: string;
  /** The record as it was when deleted. */
  record: Record<string, unknown> & { _id: string };
  taken_at: Date;
}
