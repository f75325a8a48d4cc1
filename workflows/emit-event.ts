import { ParentClosePolicy, startChild, uuid4 } from '@temporalio/workflow';
import { typedIdFromUuid } from '../domain/ids';
import { SA } from './search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from './webhook-delivery/messages';
import type { EndpointRef, EventSource } from './events';
import { recordWrites } from './record-writes';

export interface EmittedEvent {
  webhookTaskQueue: string;
  tenantId: string;
  region: string;
  type: string;
  objectId: string;
  source: EventSource;
  /** The object as its retrieve endpoint returns it, at the moment of the event. */
  data: Record<string, unknown>;
  endpoints: EndpointRef[];
  /** `legacy` bodies are built by the caller; the envelope is built here. */
  format?: 'envelope' | 'legacy';
  legacyBody?: Record<string, unknown>;
}

/**
 * Records an event and starts one delivery workflow per subscribed endpoint. Deliveries are children that
 * outlive their parent (ABANDON), so an intent that completes never cuts a 3-day retry schedule short.
 */
export async function emitEvent(e: EmittedEvent): Promise<string> {
  const id = typedIdFromUuid('evt', e.region, uuid4());
  const createdAt = new Date().toISOString();
  const format = e.format ?? 'envelope';
  const body = JSON.stringify(format === 'envelope' ? { id, type: e.type, created_at: createdAt, data: e.data } : { ...e.legacyBody, event_id: id });
  const targets = e.endpoints
    .map((endpoint, index) => ({ endpoint, index }))
    .filter(({ endpoint }) => format === 'legacy' || endpoint.events.includes(e.type));
  await recordWrites().recordEvent({
    id,
    tenantId: e.tenantId,
    type: e.type,
    createdAt,
    data: e.data,
    objectId: e.objectId,
    body,
    format,
    source: e.source,
    endpoints: targets.map(({ endpoint, index }) => ({ url: endpoint.url, index, ...(endpoint.secretRef ? { secretRef: endpoint.secretRef } : {}) })),
  });
  for (const { endpoint, index } of targets) {
    const input: WebhookDeliveryInput = {
      eventId: id,
      eventType: e.type,
      tenantId: e.tenantId,
      url: endpoint.url,
      endpointIndex: index,
      ...(endpoint.secretRef ? { secretRef: endpoint.secretRef } : {}),
      source: e.source,
      body,
      format,
    };
    await startChild(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId: `${id}-${index}`,
      taskQueue: e.webhookTaskQueue,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [
        { key: SA.TenantId, value: e.tenantId },
        { key: SA.EventType, value: e.type },
        { key: SA.DeliveryStatus, value: 'pending' },
        { key: SA.WebhookUrl, value: endpoint.url.slice(0, 1000) },
      ],
      staticSummary: `${e.type} ${id} to ${endpoint.url}`,
    });
  }
  return id;
}
