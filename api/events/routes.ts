import { z } from 'zod';
import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { parseIsoInstant } from '../../domain/instants';
import type { DeliveryAttemptRecord, EventRecord } from '../../platform/records';
import { canonicalWebhookUrl, webhookEndpointData } from '../../data/webhook-endpoints';
import { deliveryTemplates, idKey, inBatches, startKeyedRedelivery, startRedelivery } from './deliveries';
import type { AppDeps } from '../deps';
import { listQuerySchema } from '../http/pagination';
import { typedId } from '../http/common-schemas';
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
  data: z
    .record(z.string(), z.unknown())
    .describe(
      'Envelope events (v202607 and later): the object as the retrieve of its version answered it when the event happened. Events of the older interface: the body delivered to its `webhook_urls`, exactly (with `payload`, and `event_id` equal to `id`).',
    ),
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
  deliveries: z.array(
    z.object({
      url: z.string(),
      attempts: z.array(attemptView),
      parked: z.boolean().meta({ description: 'The delivery waits, unsent, because its endpoint is disabled: re-enabling the endpoint (admin) replays it' }),
    }),
  ),
});

/** An endpoint's URL as the merchant writes it, matched in its canonical spelling (as endpoints are told apart). */
const endpointUrl = z.string().min(1).max(2048).overwrite(canonicalWebhookUrl);
const redeliverBody = z.object({ url: endpointUrl.optional() }).strict();
const redeliverResponse = z.object({ event: z.string(), deliveries: z.array(z.string()) });

/** Replay since T: how far back, and how many events one call replays (the answer says where to go on). */
export const REPLAY_MAX_AGE_DAYS = 30;
export const REPLAY_MAX_EVENTS = 500;

const instant = z.union([z.number().int().min(0), z.string().min(1).max(40)]);
const replayBody = z
  .object({
    // Taken as written: events stored before URLs were canonical are found by the spelling they were sent to too.
    url: z.string().min(1).max(2048).describe('The endpoint: a webhook URL your events were sent to (however written: answered in its canonical form)'),
    since: instant.describe(`Replay events created at or after this instant: Unix seconds or ISO 8601, at most ${REPLAY_MAX_AGE_DAYS} days ago and at most a day ahead`),
    starting_after: typedId('evt')
      .optional()
      .describe('With `since`, from a previous answer\'s `next_starting_after`: only the events at `since` after this one (a page cut inside more events made at one instant than one call sends)'),
    origin: instant
      .optional()
      .describe(
        'With `since` = a previous answer\'s `next_since`: the `since` of the replay\'s first call (at or before `since`). Every page of one replay is keyed by it, so a page sent again starts nothing twice and another replay never meets this one\'s pages. Absent: the call begins a replay from `since`',
      ),
  })
  .strict();
const replayResponse = z.object({
  url: z.string(),
  since: z.string().describe('The instant this call replayed from (ISO 8601)'),
  deliveries: z.array(z.string()).describe('One new delivery workflow per event and endpoint, `<event>-<index>-replay-<key>`'),
  already_started: z.number().int().describe('Deliveries this same replay (url and origin) had started before: not started again'),
  has_more: z
    .boolean()
    .describe(`More than ${REPLAY_MAX_EVENTS} events matched: replay again with since = next_since and origin = the first call's since (and starting_after = next_starting_after when it is not null)`),
  next_since: z.string().nullable(),
  next_starting_after: z.string().nullable().describe('Set when the page ended inside events made at one instant: send it as starting_after with since = next_since'),
});

/**
 * One call's page of a replay: at most `max` events, and where the next call starts (`since` = next_since, an
 * instant, so every event at it is sent again then). Events made together share their instant (one workflow
 * activation), so a page that would end inside such a group ends before it: the next page sends the group
 * whole, and none of it twice. A page whose events all share one instant is cut inside it, and the next call
 * goes on after its last event (`next_starting_after`), at that instant.
 */
export function replayPage<E extends { _id: string; created_at: Date }>(
  found: readonly E[],
  max: number,
): { events: E[]; hasMore: boolean; nextSince: Date | null; nextAfter: string | null } {
  if (found.length <= max) return { events: [...found], hasMore: false, nextSince: null, nextAfter: null };
  const next = found[max]!.created_at.getTime();
  let end = max;
  while (end > 0 && found[end - 1]!.created_at.getTime() === next) end -= 1;
  if (end > 0) return { events: found.slice(0, end), hasMore: true, nextSince: new Date(next), nextAfter: null };
  // Every event of the page shares one instant: the next page goes on after the last one sent, at that instant.
  const page = found.slice(0, max);
  return { events: page, hasMore: true, nextSince: new Date(next), nextAfter: page.at(-1)!._id };
}

function instantOf(raw: number | string, param: 'since' | 'origin'): Date {
  const at = typeof raw === 'number' ? new Date(raw * 1000) : (parseIsoInstant(raw)?.at ?? null);
  if (!at || Number.isNaN(at.getTime())) throw invalidRequest('parameter_invalid', `${param} must be Unix seconds or an ISO 8601 instant`, param);
  return at;
}

function replaySince(raw: number | string, now: Date): Date {
  const at = instantOf(raw, 'since');
  if (now.getTime() - at.getTime() > REPLAY_MAX_AGE_DAYS * 86_400_000)
    throw invalidRequest('parameter_invalid', `since may be at most ${REPLAY_MAX_AGE_DAYS} days ago`, 'since');
  // A day ahead allows for a client's clock; further is a mistake (milliseconds sent as seconds read as the year
  // 58879), which replayed nothing and answered 202 as if all were well.
  if (at.getTime() - now.getTime() > 86_400_000)
    throw invalidRequest('parameter_invalid', 'since is in the future: Unix seconds (not milliseconds) or an ISO 8601 instant', 'since');
  return at;
}

/**
 * The key of a replay's delivery ids. Every page of one replay shares its origin's key (pages never overlap, so
 * an event is keyed once), and a page sent again starts nothing twice. Keyed by each page's own `since`, a new
 * replay whose page boundary fell on an earlier replay's (the same first page from S - 1 s, or a new `since`
 * equal to an old `next_since`) met that replay's ids and sent nothing. A continuation without `origin` (clients
 * before it) is keyed as it was: by since and starting_after.
 */
export function replayKey(tenantId: string, url: string, page: { since: Date; origin: Date | null; startingAfter?: string }): string {
  if (page.origin) return idKey(tenantId, url, page.origin.toISOString());
  return idKey(tenantId, url, page.since.toISOString(), ...(page.startingAfter ? [page.startingAfter] : []));
}


/**
 * An event as listed. An older-interface event's `data` is the body its URLs were delivered, as delivered: the
 * stored `data` leaves out the merchant's free `payload`, whose keys MongoDB may refuse, and the body keeps it.
 */
function view(e: EventRecord) {
  return { id: e._id, type: e.type, created_at: e.created_at.toISOString(), data: e.format === 'legacy' ? deliveredBody(e) : e.data };
}

function deliveredBody(e: EventRecord): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(e.body);
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // Never so for a body the service built; the stored data is the next best.
  }
  return e.data;
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
      const [attempts, parkedAt] = await Promise.all([eventData(deps.mongo).deliveryAttempts(auth.tenantId, e._id), eventData(deps.mongo).parkedUrls(auth.tenantId, e._id)]);
      const parked = new Set(parkedAt.map(canonicalWebhookUrl));
      // One entry per endpoint the event was sent to, in the order of the event's endpoints.
      // One entry per receiver: an event stored before URLs were canonical may name its endpoint otherwise than its attempts.
      const urls = [...new Set([...e.endpoints.map((ep) => ep.url), ...attempts.map((a) => a.endpoint_url)].map(canonicalWebhookUrl))];
      const deliveries = urls.map((url) => ({ url, attempts: attempts.filter((a) => canonicalWebhookUrl(a.endpoint_url) === url).map(attemptRow), parked: parked.has(url) }));
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
      409: {
        description:
          'An endpoint it would go to is disabled (`webhook_endpoint_disabled`): nothing is started; an admin re-enables it, with replay_missed to send what it missed (or redeliver to the other endpoints one `url` at a time)',
      },
    },
    handler: async ({ params: p, body, auth, deps }) => {
      const e = await findEvent(deps, auth.tenantId, p.event);
      const inputs = deliveryTemplates(e, body.url);
      // As replay and the operator's redeliver: a disabled endpoint is sent nothing (its delivery would only park).
      const endpoints = webhookEndpointData(deps.mongo);
      const urls = [...new Set(inputs.map((i) => i.url))];
      const states = await Promise.all(urls.map(async (url) => ({ url, endpoint: await endpoints.byUrl(auth.tenantId, url) })));
      const off = states.filter((st) => st.endpoint?.state === 'disabled').map((st) => st.url);
      if (off.length > 0)
        throw conflict('webhook_endpoint_disabled', `The endpoint ${off.join(', ')} is disabled: deliveries to it are parked until an admin re-enables it`);
      const deliveries: string[] = [];
      for (const input of inputs) deliveries.push(await startRedelivery(deps, input));
      return { status: 202, body: { event: e._id, deliveries } };
    },
  }),
  route({
    method: 'post',
    path: '/events/replay',
    versions,
    auth: 'secret',
    summary: 'Replay every event since an instant to one endpoint',
    description:
      `Sends again, oldest first, every event created at or after \`since\` that was sent to \`url\`, each as a new delivery marked as a redelivery (same event id, body and headers, full retry schedule). ` +
      `At most ${REPLAY_MAX_EVENTS} events per call (then \`has_more\` and \`next_since\`: call again with it as \`since\` and the first call's \`since\` as \`origin\`), \`since\` at most ${REPLAY_MAX_AGE_DAYS} days ago. ` +
      'Idempotent: one replay (url and origin, the `since` it began from) sends each event once however often a call of it is repeated; a replay from another `since` sends them again.',
    tags,
    body: replayBody,
    responses: {
      202: { description: 'Replay started', schema: replayResponse },
      400: { description: '`since` is not an instant or is too far back, `origin` is not an instant at or before it, or `starting_after` is not an event of this account (`resource_missing`)' },
      409: { description: 'The endpoint is disabled (`webhook_endpoint_disabled`): an admin re-enables it, with replay_missed to send what it missed' },
    },
    handler: async ({ body, auth, deps }) => {
      const now = new Date();
      const since = replaySince(body.since, now);
      const origin = body.origin === undefined ? null : instantOf(body.origin, 'origin');
      if (origin && origin > since) throw invalidRequest('parameter_invalid', 'origin is the since a replay began from: at or before since', 'origin');
      // A cursor is an event of this tenant, as the events list takes it: an unknown one is refused, not ignored
      // (which replayed everything at and after since under a new key).
      if (body.starting_after !== undefined && !(await eventData(deps.mongo).find(auth.tenantId, body.starting_after)))
        throw invalidRequest('resource_missing', `No such event: '${body.starting_after}'`, 'starting_after');
      const url = canonicalWebhookUrl(body.url);
      const endpoints = webhookEndpointData(deps.mongo);
      const endpoint = await endpoints.byUrl(auth.tenantId, url);
      if (endpoint?.state === 'disabled')
        throw conflict('webhook_endpoint_disabled', `The endpoint ${url} is disabled: deliveries to it are parked until an admin re-enables it`);
      const found = await endpoints.eventsSince(auth.tenantId, [url, body.url], since, REPLAY_MAX_EVENTS + 1, body.starting_after);
      const { events, hasMore, nextSince, nextAfter } = replayPage(found, REPLAY_MAX_EVENTS);
      const key = replayKey(auth.tenantId, url, { since, origin, ...(body.starting_after ? { startingAfter: body.starting_after } : {}) });
      const inputs = events.flatMap((e) => deliveryTemplates(e, url));
      const started = await inBatches(inputs, 16, (input) => startKeyedRedelivery(deps, input, 'replay', key));
      return {
        status: 202,
        body: {
          url,
          since: since.toISOString(),
          deliveries: started.map((s) => s.delivery),
          already_started: started.filter((s) => !s.started).length,
          has_more: hasMore,
          next_since: nextSince?.toISOString() ?? null,
          next_starting_after: nextAfter,
        },
      };
    },
  }),
];
