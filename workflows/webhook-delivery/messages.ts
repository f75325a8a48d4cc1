import { defineUpdate } from '@temporalio/workflow';
import type { EventSource } from '../events';

// Messages of one workflow: its input, what it carries across continue-as-new, its Updates, Signals and
// Queries. The API and tests import this module; it pulls in no Node or I/O module.

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

export interface WebhookDeliveryInput {
  eventId: string;
  eventType: string;
  tenantId: string;
  url: string;
  endpointIndex: number;
  secretRef?: string;
  /** What the event is about (`webhook_endpoint` for the service's own endpoint events). */
  source: EventSource | { kind: 'webhook_endpoint'; id: string };
  /** The exact body, built from the state committed when the event happened. */
  body: string;
  /** `envelope` (v202607 events) or `legacy` (webhook_urls + webhook_secret of the older interfaces). */
  format: 'envelope' | 'legacy';
  /** Set on an on-demand redelivery (merchant redeliver, replay since T, replay of a re-enabled endpoint, operator). */
  redelivery?: boolean;
  /** Set on an operator's redelivery of a delivery that had closed: who asked and why. */
  operator?: { operator: string; reason: string; actionId: string };
}

export interface WebhookDeliveryResult {
  /** `parked`: nothing more was sent because the endpoint is disabled; a re-enable can replay it. */
  status: 'delivered' | 'failed' | 'gone' | 'parked';
  attempts: number;
}

/** An operator's "redeliver now": who and why, and the audit row's id (the Update's id, so a retry acts once). */
export interface RedeliverNowInput {
  operator: string;
  reason: string;
  actionId: string;
}

export interface RedeliverNowAnswer {
  /** `attempted`: an attempt was made now (its outcome below); `ended`: the delivery ended meanwhile. */
  /** `pending`: not attempted within 30 s (the endpoint is at its in-flight limit); the attempt still comes. */
  outcome: 'attempted' | 'ended' | 'pending';
  delivery: string;
  attempt: number | null;
  status_code: number | null;
  attempt_outcome: 'delivered' | 'failed' | 'gone' | 'parked' | null;
  status: 'pending' | WebhookDeliveryResult['status'];
}

/**
 * Cuts the wait before the next attempt short and attempts now; answers with that attempt's outcome.
 * Refused (`update_rejected`) without an operator and a reason, and (`delivery_ended`) once the delivery ended.
 */
export const redeliverNowUpdate = defineUpdate<RedeliverNowAnswer, [RedeliverNowInput]>('redeliverNow');
