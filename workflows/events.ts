// What every workflow that emits events shares: where an event comes from, and an endpoint as workflows see it.

export type EventSource = { kind: 'payment_intent' | 'refund' | 'payout' | 'return' | 'subscription' | 'invoice'; id: string };

/**
 * A webhook endpoint as workflows see it. Its secret stays in MongoDB (collection `webhook_secrets`),
 * out of workflow history: `secretRef` is `<webhook_secrets _id>#<index>`, resolved at send time.
 */
export interface EndpointRef {
  url: string;
  events: string[];
  secretRef?: string;
}
