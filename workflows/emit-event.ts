import { ParentClosePolicy, startChild, uuid4 } from '@temporalio/workflow';
import type { EventRecordInput } from '../activities/store';
import { typedIdFromUuid } from '../domain/ids';
import { redactUrl } from '../domain/operator-text';
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

/** An event ready to be recorded, and the deliveries to start once it is. */
export interface PreparedEvent {
  record: EventRecordInput;
  webhookTaskQueue: string;
  deliveries: { endpoint: EndpointRef; index: number }[];
}

/** Gives the event its id and body and picks its endpoints; records and sends nothing. */
export function prepareEvent(e: EmittedEvent): PreparedEvent {
  const id = typedIdFromUuid('evt', e.region, uuid4());
  const createdAt = new Date().toISOString();
  const format = e.format ?? 'envelope';
  const body = JSON.stringify(format === 'envelope' ? { id, type: e.type, created_at: createdAt, data: e.data } : { ...e.legacyBody, event_id: id });
  const deliveries = e.endpoints
    .map((endpoint, index) => ({ endpoint, index }))
    .filter(({ endpoint }) => format === 'legacy' || endpoint.events.includes(e.type));
  return {
    record: {
      id,
      tenantId: e.tenantId,
      type: e.type,
      createdAt,
      data: e.data,
      objectId: e.objectId,
      body,
      format,
      source: e.source,
      endpoints: deliveries.map(({ endpoint, index }) => ({ url: endpoint.url, index, ...(endpoint.secretRef ? { secretRef: endpoint.secretRef } : {}) })),
    },
    webhookTaskQueue: e.webhookTaskQueue,
    deliveries,
  };
}

/**
 * Starts one delivery workflow per subscribed endpoint of a recorded event. Deliveries are children that
 * outlive their parent (ABANDON), so an intent that completes never cuts a 3-day retry schedule short.
 */
export async function startDeliveries(p: PreparedEvent): Promise<void> {
  for (const { endpoint, index } of p.deliveries) await startDelivery(p, endpoint, index);
}

/** One delivery workflow: a child that outlives its parent (ABANDON). */
function startDelivery(p: PreparedEvent, endpoint: EndpointRef, index: number) {
  const { record: r } = p;
  const input: WebhookDeliveryInput = {
    eventId: r.id,
    eventType: r.type,
    tenantId: r.tenantId,
    url: endpoint.url,
    endpointIndex: index,
    ...(endpoint.secretRef ? { secretRef: endpoint.secretRef } : {}),
    source: r.source,
    body: r.body,
    format: r.format,
  };
  return startChild(WEBHOOK_DELIVERY_WORKFLOW, {
    workflowId: `${r.id}-${index}`,
    taskQueue: p.webhookTaskQueue,
    args: [input],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: [
      { key: SA.TenantId, value: r.tenantId },
      { key: SA.EventType, value: r.type },
      { key: SA.DeliveryStatus, value: 'pending' },
      // Scheme, host and port only, as logs show it: a receiver's path and query often carry its secret, and search
      // attributes are not sealed by the payload codec.
      { key: SA.WebhookUrl, value: redactUrl(endpoint.url).slice(0, 1000) },
    ],
    staticSummary: `${r.type} ${r.id} to ${redactUrl(endpoint.url)}`,
  });
}

/**
 * Starts every delivery of these recorded events in one go: the start commands leave with the current
 * workflow task, so the caller need not wait for the children to start (one task and a round trip less
 * before an Update that emitted them can answer). The returned promise settles once all have started; the
 * caller must wait for it before its workflow ends or continues as new, since Temporal drops the start of
 * a child whose parent closed before it started, even an abandoned one.
 */
export function startDeliveriesTogether(events: PreparedEvent[]): Promise<void> {
  const starts: Promise<unknown>[] = [];
  for (const p of events) {
    for (const { endpoint, index } of p.deliveries) starts.push(startDelivery(p, endpoint, index));
  }
  return Promise.all(starts).then(() => undefined);
}

/** Records an event, then starts its deliveries. */
export async function emitEvent(e: EmittedEvent): Promise<string> {
  const p = prepareEvent(e);
  await recordWrites().recordEvent(p.record);
  await startDeliveries(p);
  return p.record.id;
}
