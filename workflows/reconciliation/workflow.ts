import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { proxyActivities, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { RECONCILED_OBJECTS, scheduledWindow, zeroCounts, type ReconciledObject } from '../../domain/reconciliation';
import { SA } from '../search-attributes';
import { reconciliationStateQuery, type ReconciliationInput, type ReconciliationRunState, type ReconciliationRunStatus } from './messages';

// One reconciliation run: captures, refunds and payouts of a window compared with the gateway's settlement
// report, one activity per object type. The activities stream both sides and write each discrepancy as they
// find it; history keeps only counts and a few ids (a handful of events whatever the window holds).
// Runs span tenants, so the run carries no TenantId: `PaymentStatus` says running/clean/discrepancies/failed.

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '2m',
  retry: { initialInterval: '5s', maximumInterval: '5m', maximumAttempts: 12 },
});

/** Set by Temporal on workflows a Schedule starts: the nominal time of the action. */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

export async function reconciliationWorkflow(input: ReconciliationInput): Promise<ReconciliationRunState> {
  const info = workflowInfo();
  const scheduledAt = info.typedSearchAttributes.get(SCHEDULED_START)?.getTime() ?? info.runStartTime.getTime();
  const window = input.trigger === 'manual' ? { from: input.from, to: input.to } : scheduledWindow(scheduledAt, input.windowSeconds);
  const state: ReconciliationRunState = {
    runId: info.workflowId,
    trigger: input.trigger,
    operator: input.trigger === 'manual' ? input.operator : null,
    window,
    status: 'running',
    objects: [],
    opened: zeroCounts(),
    alreadyOpen: 0,
    startedAt: new Date(info.runStartTime.getTime()).toISOString(),
    finishedAt: null,
    error: null,
  };
  setHandler(reconciliationStateQuery, () => state);

  const total = () => Object.values(state.opened).reduce((a, b) => a + b, 0);
  const describe = (doing: ReconciledObject | null) => {
    const head = `Reconciliation of ${window.from} – ${window.to} (${input.trigger}${state.operator ? ` by ${state.operator}` : ''}): ${state.status}`;
    const lines = state.objects.map((o) => {
      const opened = Object.entries(o.opened).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ') || 'none new';
      const rechecks = o.rechecked || o.awaitingRecheck ? `; ${o.rechecked ?? 0} re-checked, ${o.awaitingRecheck ?? 0} awaiting a settled side` : '';
      return `- ${o.object}: ${o.ledgerRows} ours, ${o.reportRows} in the report, ${o.matched} paired; opened ${opened}${o.alreadyOpen ? `; ${o.alreadyOpen} already open` : ''}${rechecks}`;
    });
    if (doing) lines.push(`- ${doing}: comparing…`);
    if (state.error) lines.push(`Failed: ${state.error}`);
    setCurrentDetails([head, ...lines].join('\n'));
  };
  const setStatus = (status: ReconciliationRunStatus) => {
    state.status = status;
    upsertSearchAttributes([{ key: SA.PaymentStatus, value: status }]);
  };

  setStatus('running');
  try {
    for (const object of RECONCILED_OBJECTS) {
      describe(object);
      const r = await acts.reconcileObject({ runId: info.workflowId, region: input.region, from: window.from, to: window.to, object, graceSeconds: input.graceSeconds });
      state.objects.push(r);
      for (const [kind, n] of Object.entries(r.opened) as [keyof typeof state.opened, number][]) state.opened[kind] += n;
      state.alreadyOpen += r.alreadyOpen;
    }
  } catch (err) {
    state.error = rootMessage(err);
    state.finishedAt = new Date().toISOString();
    setStatus('failed');
    describe(null);
    throw err;
  }
  state.finishedAt = new Date().toISOString();
  setStatus(total() > 0 ? 'discrepancies' : 'clean');
  describe(null);
  return state;
}

/** The innermost cause's message: an ActivityFailure says only "Activity task failed". */
function rootMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}
