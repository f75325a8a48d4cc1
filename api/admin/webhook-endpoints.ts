import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { DomainError, conflict, invalidRequest, notFound } from '../../domain/errors';
import { webhookEndpointData, type EndpointView } from '../../data/webhook-endpoints';
import type { WebhookEndpointRecord } from '../../platform/records';
import { redeliverNowUpdate } from '../../workflows/webhook-delivery/messages';
import { deliveryTemplates, idKey, inBatches, startKeyedRedelivery } from '../events/deliveries';
import { runUpdate } from '../http/workflow-calls';
import { route, type RouteDef } from '../http/route';
import type { AppDeps } from '../deps';
import type { OperatorHandler, OperatorRequest } from './operator-handler';
import { audited } from './operator-audit';
import { tenantOr404, tenantParam } from './tenant-param';

// Admin API of a tenant's webhook endpoints (a tenant's URL: endpoints are given inline on each resource):
// their state and health, and re-enabling a disabled one, replaying what it missed. Also the operator
// actions on deliveries (`redeliver_webhook`) and endpoints (`enable_webhook_endpoint`), dispatched by
// POST /admin/operations/{action} (operations.ts), which audits them.

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin'] };

/** Most parked deliveries one re-enable replays; when more are left, enabling again (already enabled) replays the next ones. */
export const REENABLE_REPLAY_MAX = 1000;

const endpointView = z.object({
  id: z.string().meta({ description: '`whe_...`: one per tenant and URL, the same in every process' }),
  url: z.string(),
  state: z.enum(['enabled', 'disabled']),
  created_at: z.string().meta({ description: 'Its first delivery' }),
  last_success_at: z.string().nullable().meta({ description: 'Its last delivered attempt' }),
  failing_since: z
    .string()
    .nullable()
    .meta({ description: 'The first failed attempt after its last success (or last re-enable); null when its last attempt delivered. Disabled once this is WEBHOOK_DISABLE_AFTER old.' }),
  disabled_at: z.string().nullable(),
  disabled_event: z.string().nullable().meta({ description: 'The `webhook_endpoint.disabled` event of its last disable' }),
  enabled_at: z.string(),
  enabled_by: z
    .object({ operator: z.string(), reason: z.string() })
    .nullable()
    .meta({ description: 'Who turned it back on last (an enable that only replays what was still parked is in the audit trail, not here)' }),
  parked: z.number().int().meta({ description: 'Deliveries parked while it was disabled and not replayed yet' }),
});

function view(v: EndpointView): z.infer<typeof endpointView> {
  const r = v.record;
  return {
    id: r._id,
    url: r.url,
    state: r.state,
    created_at: r.created_at.toISOString(),
    last_success_at: v.lastSuccessAt?.toISOString() ?? null,
    failing_since: v.failingSince?.toISOString() ?? null,
    disabled_at: r.disabled_at?.toISOString() ?? null,
    disabled_event: r.disabled_event,
    enabled_at: r.enabled_at.toISOString(),
    enabled_by: r.enabled_by,
    parked: v.parked,
  };
}

async function endpointOr404(deps: AppDeps, tenantId: string, id: string): Promise<WebhookEndpointRecord> {
  const e = await webhookEndpointData(deps.mongo).find(tenantId, id);
  if (!e) throw notFound('webhook endpoint', id, 'endpoint');
  return e;
}

async function viewOf(deps: AppDeps, e: WebhookEndpointRecord): Promise<z.infer<typeof endpointView>> {
  const data = webhookEndpointData(deps.mongo);
  return view({ record: e, ...(await data.health(e)), parked: (await data.parked(e._id, REENABLE_REPLAY_MAX)).length });
}

/**
 * Re-enables a disabled endpoint (its health starts again from now) and, with `replayMissed`, starts a
 * redelivery of every delivery parked while it was disabled, under ids keyed by the parked delivery and the
 * disable it was parked in, so enables sent twice, at once, or through both the admin route and the operator
 * action replay each once.
 */
async function enableEndpoint(
  deps: AppDeps,
  e: WebhookEndpointRecord,
  stamp: { operator: string; reason: string; actionId: string },
  replayMissed: boolean,
): Promise<{ endpoint: z.infer<typeof endpointView>; replayed: string[] }> {
  const data = webhookEndpointData(deps.mongo);
  const enabled = await data.enable(e, { operator: stamp.operator, reason: stamp.reason });
  // Already enabled is refused unless deliveries are still parked (more than one replay's worth, or a replay cut
  // short by a crash). A delivery parked just after this enable takes its park back and goes on by itself.
  const parked = replayMissed ? await data.parked(e._id, REENABLE_REPLAY_MAX) : [];
  if (!enabled && parked.length === 0) throw conflict('webhook_endpoint_not_disabled', `The endpoint ${e._id} is not disabled`);
  const replayed: string[] = [];
  if (replayMissed) {
    const events = new Map((await data.eventsByIds(e.tenant_id, [...new Set(parked.map((p) => p.event_id))])).map((ev) => [ev._id, ev]));
    await inBatches(parked, 16, async (p) => {
      const ev = events.get(p.event_id);
      const input = ev ? deliveryTemplates(ev, undefined).find((t) => t.endpointIndex === p.endpoint_index) : undefined;
      if (!input) return;
      // Keyed by the parked delivery and the disable it was parked in, whoever enables (the admin route, the
      // operator action, both at once, a retry): each is replayed once per disable.
      const { delivery } = await startKeyedRedelivery(deps, { ...input, operator: stamp }, 'replay', idKey(p._id, String(e.disable_count), 'enable'));
      await data.markReplayed(p._id, delivery);
      replayed.push(delivery);
    });
  }
  return { endpoint: await viewOf(deps, enabled ?? (await data.byId(e._id)) ?? e), replayed };
}

const text = (max: number) => z.string().trim().min(1).max(max);

export const webhookEndpointRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'get',
    path: '/admin/tenants/:tenant/webhook-endpoints',
    summary: "A tenant's webhook endpoints (each URL its deliveries went to) with state and health",
    params: tenantParam,
    responses: {
      200: { description: 'Oldest first, at most 500', schema: z.object({ data: z.array(endpointView) }) },
      404: { description: 'Unknown tenant' },
    },
    handler: async ({ params, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      return { status: 200, body: { data: (await webhookEndpointData(deps.mongo).list(t._id)).map(view) } };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/webhook-endpoints/:endpoint/enable',
    summary: 'Re-enable a disabled webhook endpoint, replaying what it missed',
    description:
      'Its health starts again from now. With `replay_missed` (default true), every delivery parked while it was disabled is sent again as a new delivery ' +
      `(at most ${REENABLE_REPLAY_MAX}; for older events use POST /events/replay). The operator and reason are kept on the endpoint and in each replayed delivery. ` +
      'An endpoint already enabled with deliveries still parked (an enable without replay, or more than one call replays) has them replayed; it keeps the `enabled_at` and `enabled_by` of the enable that turned it on, and this enable is in the audit trail.',
    params: tenantParam.extend({ endpoint: z.string().max(100) }),
    body: z
      .object({
        operator: text(100).meta({ description: 'Who re-enables it' }),
        reason: text(500).meta({ description: 'Why' }),
        replay_missed: z.boolean().default(true).meta({ description: 'Send again what was parked while it was disabled' }),
      })
      .strict(),
    responses: {
      200: { description: 'Enabled; `replayed` lists the new deliveries', schema: z.object({ endpoint: endpointView, replayed: z.array(z.string()) }) },
      404: { description: 'Unknown tenant or endpoint' },
      409: { description: 'The endpoint is not disabled, and has nothing parked or replay_missed is false (`webhook_endpoint_not_disabled`)' },
    },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const e = await endpointOr404(deps, t._id, params.endpoint);
      // The operator action `enable_webhook_endpoint`, audited as it is: one row in operator_actions.
      const done = await audited(deps, 'enable_webhook_endpoint', { target: e._id, operator: body.operator, reason: body.reason, replay_missed: body.replay_missed }, enableWebhookEndpoint);
      return { status: 200, body: done.result as Awaited<ReturnType<typeof enableEndpoint>> };
    },
  }),
];

/** What a delivery workflow id looks like, loosely: `<event>-<digits>` and anything after (a 400 below). */
const DELIVERY_ID_SHAPE = /^evt_[a-z]{2,8}_[0-9A-Za-z]{8,64}-\d{1,4}(?:-[0-9A-Za-z-]{1,80})?$/;
/**
 * The ids deliveries are started under, exactly: `<event>-<endpoint index>` (no leading zero: the first
 * delivery to endpoint 1 is `-1`, never `-0001`), or with one of the suffixes api/events/deliveries.ts gives a
 * redelivery: `-redeliver-<ms>`, `-replay-<key>`, `-operator-<key>`. Nothing else ever named a delivery.
 */
const DELIVERY_ID = /^(evt_[a-z]{2,8}_[0-9A-Za-z]{8,64})-(0|[1-9]\d{0,3})(-(?:redeliver-[1-9]\d{0,15}|(?:replay|operator)-[0-9a-f]{16}))?$/;

/**
 * Operator action `redeliver_webhook`, target a delivery's workflow id (`evt_..-<index>[-...]`): a running
 * delivery gets the Update `redeliverNow` (the wait before its next attempt ends; the answer is that
 * attempt's outcome); a delivery that has closed is sent again as a new delivery
 * `<event>-<index>-operator-<key of the action>` carrying the operator's stamp. An id that never named a
 * delivery is a 404 (refused in the audit), never sent as if it had ended: the event's first delivery to
 * each of its endpoints always existed; a redelivery's id only if Temporal still knows it or it left an
 * attempt or a park. Ids are taken as given (`-0001` is not `-1`).
 */
export const redeliverWebhook: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  if (!DELIVERY_ID_SHAPE.test(req.target)) throw invalidRequest('parameter_invalid', 'target must be a delivery workflow id: <event id>-<endpoint index>[-...]', 'target');
  const m = DELIVERY_ID.exec(req.target);
  const data = webhookEndpointData(deps.mongo);
  const event = m ? await data.eventById(m[1]!) : null;
  const input = m && event ? deliveryTemplates(event, undefined).find((t) => t.endpointIndex === Number(m[2])) : undefined;
  if (!m || !event || !input) throw notFound('webhook delivery', req.target, 'target');
  /** A redelivery's id that Temporal does not know (or no longer) names one only if it left a trace. */
  const everExisted = async (): Promise<boolean> => {
    if (!m[3]) return true;
    try {
      await deps.temporal.workflow.getHandle(req.target).describe();
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      return data.deliveryRecorded(event._id, req.target);
    }
  };
  const stamp = { operator: req.operator, reason: req.reason, actionId: req.actionId };
  const startNew = async () => {
    if (!(await everExisted())) throw notFound('webhook delivery', req.target, 'target');
    const endpoint = await webhookEndpointData(deps.mongo).byUrl(event.tenant_id, input.url);
    if (endpoint?.state === 'disabled')
      throw conflict('webhook_endpoint_disabled', `The endpoint ${input.url} is disabled: re-enable it (enable_webhook_endpoint) to send it what it missed`);
    const { delivery, started } = await startKeyedRedelivery(deps, { ...input, operator: stamp }, 'operator', idKey(req.actionId));
    return { outcome: 'redelivery_started', delivery, started, replaces: req.target };
  };
  try {
    const answer = await runUpdate<Record<string, unknown>>(
      deps,
      () => deps.temporal.workflow.getHandle(req.target).executeUpdate(redeliverNowUpdate, { args: [stamp], updateId: req.actionId })
          .then((a): Record<string, unknown> => ({ ...a })),
      startNew,
    );
    return { tenantId: event.tenant_id, result: { ...answer } };
  } catch (err) {
    // Ended between the look and the Update: sent again as a new delivery, as a closed one is.
    if (err instanceof DomainError && err.code === 'delivery_ended') return { tenantId: event.tenant_id, result: await startNew() };
    throw err;
  }
};

/**
 * Operator action `enable_webhook_endpoint`, target an endpoint id (`whe_...`): re-enables it and replays what it
 * parked, unless the request's `replayMissed` is false.
 */
export const enableWebhookEndpoint: OperatorHandler = async (deps: AppDeps, req: OperatorRequest): ReturnType<OperatorHandler> => {
  const e = await webhookEndpointData(deps.mongo).byId(req.target);
  if (!e) throw notFound('webhook endpoint', req.target, 'target');
  const result = await enableEndpoint(deps, e, { operator: req.operator, reason: req.reason, actionId: req.actionId }, req.replayMissed ?? true);
  return { tenantId: e.tenant_id, result };
};
