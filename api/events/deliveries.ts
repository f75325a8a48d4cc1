import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { redactUrl } from '../../domain/operator-text';
import { invalidRequest } from '../../domain/errors';
import type { EventRecord } from '../../platform/records';
import { canonicalWebhookUrl } from '../../data/webhook-endpoints';
import { SA } from '../../workflows/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../../workflows/webhook-delivery/messages';
import type { AppDeps } from '../deps';

// Starting deliveries again from the event record (which keeps the exact body, each endpoint's index and its
// secret reference): the merchant's redeliver and replay, an operator's redeliver, a re-enable's replay.
// Delivery workflow ids: `<event>-<index>` (the first), `<event>-<index>-redeliver-<ms>` (merchant),
// `<event>-<index>-replay-<key>` (replay since T, a re-enable's replay), `<event>-<index>-operator-<key>`.

/** What to send again to each endpoint at `url` (all endpoints when url is undefined), however either is written. */
export function deliveryTemplates(e: EventRecord, url: string | undefined): WebhookDeliveryInput[] {
  const targets = e.endpoints.filter((ep) => url === undefined || canonicalWebhookUrl(ep.url) === canonicalWebhookUrl(url));
  if (url !== undefined && targets.length === 0) throw invalidRequest('parameter_invalid', `'${url}' is not an endpoint of event ${e._id}`, 'url');
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

/** A short stable key for workflow ids made from a request (the same request, the same ids). */
export function idKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}

const startOptions = (deps: AppDeps, input: WebhookDeliveryInput, workflowId: string, summary: string) => ({
  workflowId,
  taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE,
  args: [{ ...input, redelivery: true } satisfies WebhookDeliveryInput] as [WebhookDeliveryInput],
  typedSearchAttributes: [
    { key: SA.TenantId, value: input.tenantId },
    { key: SA.EventType, value: input.eventType },
    { key: SA.DeliveryStatus, value: 'pending' },
    // Scheme, host and port only, as the workflow-started deliveries and the logs show it (the path may carry a secret).
    { key: SA.WebhookUrl, value: redactUrl(input.url).slice(0, 1000) },
  ],
  staticSummary: `${summary} of ${input.eventType} ${input.eventId} to ${redactUrl(input.url)}`,
});

/** A new redelivery each call (the merchant's POST /events/{event}/redeliver). */
export async function startRedelivery(deps: AppDeps, input: WebhookDeliveryInput): Promise<string> {
  // Unique and readable: when it was asked for, in ms; a same-millisecond twin takes the next number.
  const base = Date.now();
  for (let n = 0; ; n++) {
    const workflowId = `${input.eventId}-${input.endpointIndex}-redeliver-${base + n}`;
    try {
      await deps.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, startOptions(deps, input, workflowId, 'redelivery'));
      return workflowId;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError && n < 5) continue;
      throw err;
    }
  }
}

/**
 * A redelivery under a fixed id (`<event>-<index>-<kind>-<key>`), started at most once: the id is never
 * reused, so the same request retried starts nothing more. Answers the id and whether this call started it.
 */
export async function startKeyedRedelivery(
  deps: AppDeps,
  input: WebhookDeliveryInput,
  kind: 'replay' | 'operator',
  key: string,
): Promise<{ delivery: string; started: boolean }> {
  const workflowId = `${input.eventId}-${input.endpointIndex}-${kind}-${key}`;
  try {
    await deps.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      ...startOptions(deps, input, workflowId, kind === 'replay' ? 'replay' : `operator redelivery (${input.operator?.operator ?? ''})`),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return { delivery: workflowId, started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { delivery: workflowId, started: false };
    throw err;
  }
}

/** Runs `fn` over `items`, `width` at a time (starting many workflows without one round trip each in turn). */
export async function inBatches<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}
