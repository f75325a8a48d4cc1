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
  source: EventSource;
  /** The exact body, built from the state committed when the event happened. */
  body: string;
  /** `envelope` (v202607 events) or `legacy` (webhook_urls + webhook_secret of the older interfaces). */
  format: 'envelope' | 'legacy';
  /** Set on an on-demand redelivery. */
  redelivery?: boolean;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'failed' | 'gone';
  attempts: number;
}
