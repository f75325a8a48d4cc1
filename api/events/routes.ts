import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import { invalidRequest, notFound } from '../../domain/errors';
import type { DeliveryAttemptRecord, EventRecord } from '../../platform/records';
import { SA } from '../../workflows/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../../workflows/webhook-delivery/messages';
import type { AppDeps } from '../deps';
import { listQuerySchema } from '../http/pagination';
import { eventData } from '../../data/events';
import { route, type RouteDef } from '../http/route';

// The merchant's view of its events and of every delivery attempt, and on-demand redelivery. Tenant-scoped:
// another tenant's event reads exactly like an unknown id.

const tags = ['Events'];
const versions = ['v202607'] as const;
const params = z.object({ event: z.string() }).strict();

const eventView = z.object({
  id: z.string(),
  type: z
    .string()
    .describe(
      '`<object>.<event>`. Events of v202607 webhooks carry a type from the closed list WebhookEventType; events of the older interface (payouts, returns, older refunds and intents) carry that interface\'s own types.',
    ),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});

const attemptView = z.object({
  delivery: z.string().describe('The delivery workflow id'),
  attempt: z.number().int(),
  attempted_at: z.string(),
  url: z.string(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  outcome: z.enum(['delivered', 'failed', 'gone']),
});

const eventWithDeliveries = eventView.extend({
  deliveries: z.array(z.object({ url: z.string(), attempts: z.array(attemptView) })),
});

const redeliverBody = z.object({ url: z.string().min(1).max(2048).optional() }).strict();
const redeliverResponse = z.object({ event: z.string(), deliveries: z.array(z.string()) });


function view(e: EventRecord) {
  return { id: e._id, type: e.type, created_at: e.created_at.toISOString(), data: e.data };
}

function attemptRow(a: DeliveryAttemptRecord) {
  return {
    delivery: a.delivery_id,
    attempt: a.attempt,
    attempted_at: a.attempted_at.toISOString(),
    url: a.endpoint_url,
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    error: a.error,
    outcome: a.outcome,
  };
}

async function findEvent(deps: AppDeps, tenantId: string, id: string): Promise<EventRecord> {
  const e = await eventData(deps.mongo).find(tenantId, id);
  if (!e) throw notFound('event', id, 'event');
  return e;
}

/** What to send again to each endpoint at `url` (all endpoints when url is undefined). */
function deliveryTemplates(e: EventRecord, url: string | undefined): WebhookDeliveryInput[] {
  const targets = e.endpoints.filter((ep) => url === undefined || ep.url === url);
  if (url !== undefined && targets.length === 0) throw invalidRequest('parameter_invalid', `'${url}' is not an endpoint of event ${e._id}`, 'url');

  // The event record keeps the exact body and each endpoint's index and secret reference.
  return targets.map((t) => ({
    eventId: e._id,
    eventType: e.type,
    tenantId: e.tenant_id,
    url: t.url,
    endpointIndex: t.index,
    ...(t.secret_ref ? { secretRef: t.secret_ref } : {}),
    source: e.source,
    body: e.body,
    format: e.format,
  }));
}

async function startRedelivery(deps: AppDeps, input: WebhookDeliveryInput): Promise<string> {
  // Unique and readable: when it was asked for, in ms; a same-millisecond twin takes the next number.
  const base = Date.now();
  for (let n = 0; ; n++) {
    const workflowId = `${input.eventId}-${input.endpointIndex}-redeliver-${base + n}`;
    try {
      await deps.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        workflowId,
        taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
        args: [{ ...input, redelivery: true } satisfies WebhookDeliveryInput],
        typedSearchAttributes: [
          { key: SA.TenantId, value: input.tenantId },
          { key: SA.EventType, value: input.eventType },
          { key: SA.DeliveryStatus, value: 'pending' },
          { key: SA.WebhookUrl, value: input.url.slice(0, 1000) },
        ],
        staticSummary: `redelivery of ${input.eventType} ${input.eventId} to ${input.url}`,
      });
      return workflowId;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError && n < 5) continue;
      throw err;
    }
  }
}

export const eventRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/events',
    versions,
    auth: 'secret',
    summary: 'List events, newest first',
    tags,
    query: listQuerySchema('evt', { type: z.string().min(1).max(100).optional().describe('Only events of this type, e.g. `payment.success`') }),
    responses: {
      200: { description: 'A page', schema: z.object({ data: z.array(eventView), has_more: z.boolean() }) },
      400: { description: 'Invalid parameter, or a cursor that is not an event of this account' },
    },
    handler: async ({ query, auth, deps }) => {
      const { type, ...page } = query;
      const { data, has_more } = await eventData(deps.mongo).list(auth.tenantId, { type }, page);
      return { status: 200, body: { data: data.map(view), has_more } };
    },
  }),
  route({
    method: 'get',
    path: '/events/:event',
    versions,
    auth: 'secret',
    summary: 'Retrieve an event with every delivery attempt per endpoint',
    tags,
    params,
    responses: { 200: { description: 'The event', schema: eventWithDeliveries }, 404: { description: 'Unknown event' } },
    handler: async ({ params: p, auth, deps }) => {
      const e = await findEvent(deps, auth.tenantId, p.event);
      const attempts = await eventData(deps.mongo).deliveryAttempts(auth.tenantId, e._id);
      // One entry per endpoint the event was sent to, in the order of the event's endpoints.
      const urls = [...new Set([...e.endpoints.map((ep) => ep.url), ...attempts.map((a) => a.endpoint_url)])];
      const deliveries = urls.map((url) => ({ url, attempts: attempts.filter((a) => a.endpoint_url === url).map(attemptRow) }));
      return { status: 200, body: { ...view(e), deliveries } };
    },
  }),
  route({
    method: 'post',
    path: '/events/:event/redeliver',
    versions,
    auth: 'secret',
    summary: 'Send an event again, to one of its endpoints or to all of them',
    tags,
    params,
    body: redeliverBody,
    responses: {
      202: { description: 'Redelivery started: one new delivery workflow per endpoint', schema: redeliverResponse },
      400: { description: '`url` is not an endpoint of this event' },
      404: { description: 'Unknown event' },
      409: { description: 'The event cannot be redelivered (its delivery record is gone)' },
    },
    handler: async ({ params: p, body, auth, deps }) => {
      const e = await findEvent(deps, auth.tenantId, p.event);
      const inputs = deliveryTemplates(e, body.url);
      const deliveries: string[] = [];
      for (const input of inputs) deliveries.push(await startRedelivery(deps, input));
      return { status: 202, body: { event: e._id, deliveries } };
    },
  }),
];
