import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { discrepancyData, discrepancyJson } from '../../data/discrepancies';
import { conflict, invalidRequest, notFound } from '../../domain/errors';
import { DISCREPANCY_KINDS, RECONCILED_OBJECTS, windowProblem } from '../../domain/reconciliation';
import { newId } from '../../platform/ids';
import { SA } from '../../workflows/search-attributes';
import { RECONCILIATION_WORKFLOW, reconciliationStateQuery, type ReconciliationInput, type ReconciliationRunState } from '../../workflows/reconciliation/messages';
import type { AppDeps } from '../deps';
import { route, type RouteDef } from '../http/route';
import { QUERY_DEADLINE_MS, withDeadline } from '../http/workflow-calls';

// Admin API of reconciliation: start a run for a window on demand, read a run (scheduled or not), list the
// discrepancies runs opened across tenants and resolve one with who and why. The ops CLI calls these.

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin'] };

const operator = z.string().trim().min(1).max(100).meta({ description: 'Who acts (a name or an email): kept on the run or the discrepancy' });
const reason = z.string().trim().min(1).max(1000);

const runBody = z
  .object({
    from: z.iso.datetime({ offset: true }).meta({ description: 'Start of the window (inclusive), ISO 8601' }),
    to: z.iso.datetime({ offset: true }).meta({ description: 'End of the window (exclusive), ISO 8601; at most 31 days after `from`' }),
    operator: operator.optional(),
    reason: reason.optional().meta({ description: 'Why the run was asked for' }),
  })
  .strict();

const kindCounts = z.object(Object.fromEntries(DISCREPANCY_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof DISCREPANCY_KINDS)[number], z.ZodNumber>);

const runView = z.object({
  run: z.string().meta({ description: 'The run id: its workflow id (`rec_...` on demand, `reconciliation-daily-<time>` from the Schedule)' }),
  trigger: z.enum(['schedule', 'manual']),
  operator: z.string().nullable(),
  window: z.object({ from: z.string(), to: z.string() }),
  status: z.enum(['running', 'clean', 'discrepancies', 'failed']).meta({ description: '`clean`: no new discrepancy; `discrepancies`: the run opened at least one' }),
  objects: z
    .array(
      z.object({
        object: z.enum(RECONCILED_OBJECTS),
        ledger_rows: z.number().int().meta({ description: 'Our rows in the window' }),
        report_rows: z.number().int().meta({ description: "The gateway report's entries read (the window and its margin)" }),
        matched: z.number().int().meta({ description: 'Pairs of our row and a report entry found and compared, also those whose two sides were stamped further apart than the margin' }),
        opened: kindCounts,
        already_open: z.number().int().meta({ description: 'Findings an earlier run had already opened (not opened again)' }),
        rechecked: z.number().int().meta({ description: 'Rows of earlier windows that had a pending side at their run, compared again: both sides final, or as they stood when their recheck ran out (0 in runs made before rechecks)' }),
        awaiting_recheck: z
          .number()
          .int()
          .meta({ description: 'Rows with a side still pending (of this window or earlier ones), left for a later run; one only the gateway calls pending is compared as it stands 7 days after its window' }),
        sample: z.array(z.string()).meta({ description: 'The first discrepancies opened (ids)' }),
      }),
    )
    .meta({ description: 'One entry per object type done: capture, refund, payout' }),
  opened: kindCounts,
  already_open: z.number().int(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
});

const side = z.object({ amount: z.number().int(), currency: z.string(), status: z.string() }).nullable();

const discrepancyView = z.object({
  id: z.string(),
  object: z.literal('discrepancy'),
  kind: z.enum(DISCREPANCY_KINDS),
  object_type: z.enum(RECONCILED_OBJECTS),
  our_id: z.string().nullable().meta({ description: '`pi_` (capture), `re_`, or a payout uuid; null for an entry we have no record of' }),
  gateway: z.string(),
  gateway_id: z.string().nullable(),
  reference: z.string().nullable().meta({ description: 'Our id as the gateway reported it, when it names one' }),
  tenant: z.string().nullable().meta({ description: 'null when nothing of ours names the entry' }),
  ours: side.meta({ description: 'Amount, currency and status as our ledger has them (null: missing_in_ledger)' }),
  gateway_side: side.meta({ description: "As the gateway's settlement report has them (null: missing_at_gateway)" }),
  run_id: z.string(),
  window: z.object({ from: z.string(), to: z.string() }),
  status: z.enum(['open', 'resolved']),
  event: z.string().nullable().meta({ description: 'The `discrepancy.opened` event of the tenant (null without a tenant)' }),
  resolution: z.object({ operator: z.string(), reason: z.string(), resolved_at: z.string() }).nullable(),
  created_at: z.string(),
});

const runParams = z.object({ run: z.string().min(1).max(200) }).strict();
const discrepancyParams = z.object({ discrepancy: z.string().startsWith('dsc_').max(100) }).strict();

function runJson(s: ReconciliationRunState): z.infer<typeof runView> {
  return {
    run: s.runId,
    trigger: s.trigger,
    operator: s.operator,
    window: s.window,
    status: s.status,
    objects: s.objects.map((o) => ({ object: o.object, ledger_rows: o.ledgerRows, report_rows: o.reportRows, matched: o.matched, opened: o.opened, already_open: o.alreadyOpen, rechecked: o.rechecked ?? 0, awaiting_recheck: o.awaitingRecheck ?? 0, sample: o.sample.map((x) => x.id) })),
    opened: s.opened,
    already_open: s.alreadyOpen,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
    error: s.error,
  };
}

async function readRun(deps: AppDeps, runId: string): Promise<ReconciliationRunState> {
  const handle = deps.temporal.workflow.getHandle(runId);
  try {
    const described = await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.describe());
    if (described.type !== RECONCILIATION_WORKFLOW) throw notFound('reconciliation run', runId, 'run');
    // A finished run answers from its result without a worker; a running or failed one from its query.
    if (described.status.name === 'COMPLETED') return (await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.result())) as ReconciliationRunState;
    return await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.query(reconciliationStateQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw notFound('reconciliation run', runId, 'run');
    throw err;
  }
}

export const reconciliationRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'post',
    path: '/admin/reconciliation/runs',
    summary: "Start a reconciliation run for a window: captures, refunds and payouts against the gateway's settlement report",
    description:
      'The same run the `reconciliation-daily` Schedule starts each day, for the window given. It answers at once (202) with the run id; read the run to follow it. Each mismatch opens one discrepancy (unique per object and kind: a re-run of a window opens nothing twice) and records a `discrepancy.opened` event for its tenant.',
    body: runBody,
    responses: {
      202: { description: 'Started', schema: runView },
      400: { description: 'A window that is empty, longer than 31 days or in the future' },
    },
    handler: async ({ body, deps }) => {
      const problem = windowProblem(body, Date.now());
      if (problem) throw invalidRequest('parameter_invalid', `Invalid window: ${problem}`, problem.startsWith('from') ? 'from' : 'to');
      const window = { from: new Date(body.from).toISOString(), to: new Date(body.to).toISOString() };
      const runId = newId('rec', deps.config.DEFAULT_REGION);
      const input: ReconciliationInput = {
        trigger: 'manual',
        ...window,
        operator: body.operator ?? null,
        reason: body.reason ?? null,
        region: deps.config.DEFAULT_REGION,
        graceSeconds: deps.config.RECONCILIATION_GRACE_SECONDS,
      };
      try {
        await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () =>
          deps.temporal.workflow.start(RECONCILIATION_WORKFLOW, {
            workflowId: runId,
            taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
            args: [input],
            typedSearchAttributes: [{ key: SA.PaymentStatus, value: 'running' }],
            staticSummary: `Reconciliation of ${window.from} – ${window.to}${body.operator ? ` asked by ${body.operator}` : ''}`,
          }),
        );
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      const started: ReconciliationRunState = {
        runId,
        trigger: 'manual',
        operator: input.operator,
        window,
        status: 'running',
        objects: [],
        opened: { missing_at_gateway: 0, missing_in_ledger: 0, amount_mismatch: 0, status_mismatch: 0 },
        alreadyOpen: 0,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        error: null,
      };
      return { status: 202, body: runJson(started), headers: { Location: `/admin/reconciliation/runs/${runId}` } };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/reconciliation/runs/:run',
    summary: 'Read a reconciliation run (on demand or scheduled): its window, status and what it found per object type',
    params: runParams,
    responses: { 200: { description: 'The run', schema: runView }, 404: { description: 'No reconciliation run has this id' } },
    handler: async ({ params, deps }) => ({ status: 200, body: runJson(await readRun(deps, params.run)) }),
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/reconciliation/discrepancies',
    summary: 'List discrepancies across tenants, newest first',
    query: z
      .object({
        tenant: z.string().startsWith('ten_').max(100).optional(),
        status: z.enum(['open', 'resolved']).optional(),
        kind: z.enum(DISCREPANCY_KINDS).optional(),
        run: z.string().min(1).max(200).optional().meta({ description: 'Only those a run opened' }),
        limit: z.coerce.number().int().min(1).max(100).default(25),
        starting_after: z.string().startsWith('dsc_').max(100).optional().meta({ description: 'The last id of the previous page' }),
      })
      .strict(),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(discrepancyView), has_more: z.boolean() }) }, 400: { description: 'Invalid filter or cursor' } },
    handler: async ({ query, deps }) => {
      const { limit, starting_after, tenant, status, kind, run } = query;
      const page = await discrepancyData(deps.mongo).list({ tenant_id: tenant, status, kind, run_id: run }, { limit, ...(starting_after ? { starting_after } : {}) });
      return { status: 200, body: { data: page.data.map(discrepancyJson), has_more: page.has_more } };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/reconciliation/discrepancies/:discrepancy',
    summary: 'Read a discrepancy',
    params: discrepancyParams,
    responses: { 200: { description: 'The discrepancy', schema: discrepancyView }, 404: { description: 'Unknown discrepancy' } },
    handler: async ({ params, deps }) => {
      const d = await discrepancyData(deps.mongo).find(params.discrepancy);
      if (!d) throw notFound('discrepancy', params.discrepancy, 'discrepancy');
      return { status: 200, body: discrepancyJson(d) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/reconciliation/discrepancies/:discrepancy/resolve',
    summary: 'Resolve a discrepancy, saying who and why',
    description: 'Once: a resolved discrepancy stays resolved, and later runs finding the same mismatch do not open it again.',
    params: discrepancyParams,
    body: z.object({ operator, reason: reason.meta({ description: 'What was found and done (a ticket, a bank reference)' }) }).strict(),
    responses: {
      200: { description: 'Resolved', schema: discrepancyView },
      404: { description: 'Unknown discrepancy' },
      409: { description: 'Already resolved (`discrepancy_already_resolved`)' },
    },
    handler: async ({ params, body, deps }) => {
      const done = await discrepancyData(deps.mongo).resolve(params.discrepancy, body);
      if (!done) throw notFound('discrepancy', params.discrepancy, 'discrepancy');
      if (!done.changed) throw conflict('discrepancy_already_resolved', `Discrepancy ${params.discrepancy} was already resolved by ${done.record.resolution?.operator ?? 'an operator'}`);
      deps.logger.info({ discrepancy: params.discrepancy, operator: body.operator, reason: body.reason }, 'reconciliation: discrepancy resolved');
      return { status: 200, body: discrepancyJson(done.record) };
    },
  }),
];
