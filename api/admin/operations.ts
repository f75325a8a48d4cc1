import { z } from 'zod';
import { invalidRequest, notFound } from '../../domain/errors';
import { ADMIN_CHANGES, OPERATOR_ACTIONS, type OperatorActionName, type OperatorActionRecord } from '../../platform/ops-records';
import { RUNBOOK_QUERIES, runbookQuery } from '../../platform/runbook-queries';
import { operatorActionData } from '../../data/operator-actions';
import { route, type RouteDef } from '../http/route';
import { withDeadline } from '../http/workflow-calls';
import type { OperatorHandler } from './operator-handler';
import { audited } from './operator-audit';
import { confirmPayout, forceCancelIntent, recheckAttempt, retryPayout, retryRefund } from './operator-actions';
import { enableWebhookEndpoint, redeliverWebhook } from './webhook-endpoints';

// Operators' API (docs/runbook.md): the runbook's queries run against Temporal's visibility store, and the
// operator actions, each an Update of the workflow that owns its target, audited in `operator_actions`
// before it is asked (outcome `requested`) and after it answered (`done`, `refused` with the code, `failed`).
// `npm run ops` (scripts/ops.ts) calls these routes.

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin: operator actions'] };

const HANDLERS: Record<OperatorActionName, OperatorHandler> = {
  force_cancel_intent: forceCancelIntent,
  recheck_attempt: recheckAttempt,
  retry_refund: retryRefund,
  retry_payout: retryPayout,
  confirm_payout: confirmPayout,
  redeliver_webhook: redeliverWebhook,
  enable_webhook_endpoint: enableWebhookEndpoint,
};

const text = (max: number) => z.string().trim().min(1).max(max);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A target as its owner keeps it: a uuid (a payout's, an older intent's) in lower case, as the public routes take it. */
const targetId = (description: string) =>
  text(200)
    .transform((t) => (UUID.test(t) ? t.toLowerCase() : t))
    .meta({ description });

const auditView = z.object({
  id: z.string().meta({ description: 'The audit row (`opa_...`); also the idempotency of the action in its workflow' }),
  action: z.enum([...OPERATOR_ACTIONS, ...ADMIN_CHANGES]),
  target: z.string(),
  tenant: z.string().nullable(),
  operator: z.string(),
  reason: z.string(),
  evidence: z.string().nullable(),
  outcome: z.enum(['requested', 'done', 'refused', 'unanswered', 'failed']).meta({
    description:
      '`requested` until the workflow answered (or when the process died before it did); `unanswered`: no answer in time (503): the workflow may still act on it, so look at the object before acting again',
  }),
  code: z.string().nullable().meta({ description: 'The error code of a refused or failed action' }),
  message: z.string().nullable(),
  requested_at: z.string(),
  finished_at: z.string().nullable(),
});

function auditOf(r: OperatorActionRecord): z.infer<typeof auditView> {
  return {
    id: r._id,
    action: r.action,
    target: r.target,
    tenant: r.tenant_id,
    operator: r.operator,
    reason: r.reason,
    evidence: r.evidence,
    outcome: r.outcome,
    code: r.code,
    message: r.message,
    requested_at: r.requested_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

/** How long a runbook query may take before the API answers 503. */
const VISIBILITY_DEADLINE_MS = 10_000;
const MAX_LISTED = 100;

export const operationsRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'post',
    path: '/admin/operations/:action',
    summary: 'Take an operator action on a payment intent, refund, payout or webhook delivery',
    description:
      "Each action is an Update of the workflow that owns the target, carrying the operator's name and reason (kept in the workflow's history and summary) and audited in `operator_actions`. " +
      '`force_cancel_intent` (`pi_`): cancels a pending intent, or refunds all that is left of a paid one. `recheck_attempt` (`pi_`): asks the gateway now about an attempt waiting on it. ' +
      '`retry_refund` (`re_`) and `retry_payout` (payout uuid): retry the current step now (ask the gateway, or ask it again to cancel past the SLA or window). ' +
      '`confirm_payout` (payout uuid, `evidence` required): marks a payout `success` on proof the gateway cannot give. `redeliver_webhook` (a delivery workflow id): attempts the delivery now. `enable_webhook_endpoint` (`whe_...`): re-enables a disabled endpoint and replays the deliveries it parked (`replay_missed: false`: without replaying).',
    params: z.object({ action: z.enum(OPERATOR_ACTIONS) }),
    body: z
      .object({
        target: targetId('The id acted on: `pi_...`, `re_...`, a payout uuid (any case), a delivery workflow id'),
        operator: text(100).meta({ description: 'Who acts (a name or an e-mail): kept in the workflow and the audit' }),
        reason: text(500).meta({ description: 'Why: kept in the workflow and the audit' }),
        evidence: text(1000).optional().meta({ description: 'What proves a manual decision (required by `confirm_payout`): a bank reference, a ticket' }),
        replay_missed: z
          .boolean()
          .optional()
          .meta({ description: '`enable_webhook_endpoint` only: send again what was parked while it was disabled (default true, as the admin route)' }),
      })
      .strict(),
    responses: {
      200: {
        description: 'The owning workflow did it; `result` is its answer',
        schema: z.object({ action_id: z.string(), action: z.enum(OPERATOR_ACTIONS), target: z.string(), outcome: z.literal('done'), result: z.record(z.string(), z.unknown()) }),
      },
      400: { description: 'A missing or invalid parameter (`confirm_payout` without `evidence`)' },
      404: { description: 'No such target' },
      409: { description: 'The workflow refused: the object is in a state the action does not apply to (`code` says which)' },
    },
    handler: async ({ params, body, deps }) => {
      // Refused before the audit, as any invalid parameter: an option another action would silently ignore.
      if (params.action !== 'enable_webhook_endpoint' && body.replay_missed !== undefined)
        throw invalidRequest('parameter_invalid', `replay_missed applies to enable_webhook_endpoint only, not ${params.action}`, 'replay_missed');
      return { status: 200, body: await audited(deps, params.action, body, HANDLERS[params.action]) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/operations',
    summary: 'The audit trail of operator actions on one target (an API key\'s id too: who issued or revoked it), newest first',
    query: z.object({ target: targetId('The id acted on') }).strict(),
    responses: { 200: { description: 'Up to 200 actions', schema: z.object({ data: z.array(auditView) }) } },
    handler: async ({ query, deps }) => ({ status: 200, body: { data: (await operatorActionData(deps.mongo).ofTarget(query.target)).map(auditOf) } }),
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/runbook',
    summary: "The runbook's Temporal UI queries, with the time filled in for now",
    responses: {
      200: {
        description: 'Every query',
        schema: z.object({ data: z.array(z.object({ name: z.string(), title: z.string(), action: z.string(), query: z.string() })) }),
      },
    },
    handler: async () => {
      const now = new Date();
      return { status: 200, body: { data: RUNBOOK_QUERIES.map((q) => ({ name: q.name, title: q.title, action: q.action, query: q.query(now) })) } };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/runbook/:query',
    summary: 'The workflows one runbook query finds now, or as of another time (at most 100)',
    params: z.object({ query: z.string().max(100) }),
    query: z
      .object({ at: z.iso.datetime({ offset: true }).optional().meta({ description: 'Run the query as of this time instead of now (ISO 8601): "what will be past its deadline tomorrow"' }) })
      .strict(),
    responses: {
      200: {
        description: 'The query as run, and what it found',
        schema: z.object({
          name: z.string(),
          query: z.string(),
          data: z.array(z.object({ workflow_id: z.string(), run_id: z.string(), type: z.string(), status: z.string(), start_time: z.string() })),
          has_more: z.boolean(),
        }),
      },
      404: { description: 'No runbook query has this name' },
    },
    handler: async ({ params, query: qs, deps }) => {
      const q = runbookQuery(params.query);
      if (!q) throw notFound('runbook query', params.query, 'query');
      const query = q.query(qs.at ? new Date(qs.at) : new Date());
      const found = await withDeadline(deps.temporal, VISIBILITY_DEADLINE_MS, async () => {
        const rows: Array<{ workflow_id: string; run_id: string; type: string; status: string; start_time: string }> = [];
        for await (const w of deps.temporal.workflow.list({ query, pageSize: MAX_LISTED + 1 })) {
          rows.push({ workflow_id: w.workflowId, run_id: w.runId, type: w.type, status: w.status.name, start_time: w.startTime.toISOString() });
          if (rows.length > MAX_LISTED) break;
        }
        return rows;
      });
      return { status: 200, body: { name: q.name, query, data: found.slice(0, MAX_LISTED), has_more: found.length > MAX_LISTED } };
    },
  }),
];
