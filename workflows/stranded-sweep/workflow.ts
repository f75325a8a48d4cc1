import { getExternalWorkflowHandle, patched, proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { StrandedSweepResult } from '../../activities/stranded-records';
import { STRANDED_KINDS, type StrandedKind, type VersionZeroCursor } from '../../domain/stranded-kinds';
import { couponRedemptionsWorkflowId, releaseSignal } from '../coupon-redemptions/messages';
import { SA } from '../search-attributes';
import type { StrandedKindOutcome, StrandedSweepInput, StrandedSweepOutcome } from './messages';

// One sweep of records a create left at version 0 without a workflow (activities/stranded-records.ts), kind
// by kind, in pages of PAGE from the oldest, so records whose workflow exists (kept) never hide newer ones.
// History stays two events a page. Spans tenants, so it carries no TenantId; `PaymentStatus` says clean or
// taken_back.

const PAGE = 200;
/** Pages per kind in one run; a larger backlog waits for the next run. */
const MAX_PAGES = 50;
/** The ids a kind's outcome names (the result and the UI's details line); the worker log names every one. */
const NAMED = 20;
const RECHECK_AFTER_MS = 30_000;
/** Runs from before it swept four kinds, not subscriptions. */
const SUBSCRIPTIONS_PATCH = 'stranded-sweep-subscriptions';

const sweep = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', maximumInterval: '1m', maximumAttempts: 5 },
});

async function sweepKind(kind: StrandedKind, input: StrandedSweepInput): Promise<StrandedKindOutcome> {
  const total: StrandedKindOutcome = { found: 0, takenBack: 0, kept: 0, unknown: 0, putBack: 0, released: 0, notGivenBack: 0, ownerClosed: 0, named: [] };
  let after: VersionZeroCursor | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const r: StrandedSweepResult = await sweep.sweepStrandedRecords({ kind, olderThanSeconds: input.olderThanSeconds, limit: PAGE, after, recheckAfterMs: input.recheckAfterMs ?? RECHECK_AFTER_MS });
    total.found += r.found;
    total.takenBack += r.takenBack.length;
    total.named.push(...r.takenBack.slice(0, NAMED - total.named.length));
    total.kept += r.kept;
    total.unknown += r.unknown;
    total.putBack += r.putBack;
    // The activity gives back a subscription's coupon redemption itself (to an owner started again if it had
    // closed). Results recorded before then have no counts but name the redemptions, and their runs signalled
    // the owner (before the sweep took subscriptions, they have neither): a replay of such a run signals.
    total.released += r.givenBack ?? 0;
    total.notGivenBack += r.notGivenBack ?? 0;
    for (const given of await Promise.all((r.discounts ?? []).map((d) => releasedBy(d.coupon, d.subscription)))) {
      if (given) total.released += 1;
      else total.ownerClosed += 1;
    }
    if (!r.next) break;
    after = r.next;
  }
  return total;
}

/** Results from before the activity gave back: signals the coupon's owner; false when no owner runs (it closed: the count stays). */
async function releasedBy(coupon: string, subscription: string): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(couponRedemptionsWorkflowId(coupon)).signal(releaseSignal, { subscription });
    return true;
  } catch {
    return false;
  }
}

export async function strandedSweepWorkflow(input: StrandedSweepInput): Promise<StrandedSweepOutcome> {
  const kinds = patched(SUBSCRIPTIONS_PATCH) ? STRANDED_KINDS : STRANDED_KINDS.filter((k) => k !== 'subscription');
  const outcome = {} as StrandedSweepOutcome;
  for (const kind of kinds) outcome[kind] = await sweepKind(kind, input);
  const takenBack = kinds.some((k) => outcome[k].takenBack > 0);
  upsertSearchAttributes([{ key: SA.PaymentStatus, value: takenBack ? 'taken_back' : 'clean' }]);
  setCurrentDetails(
    [
      `Records left at version 0 for over ${input.olderThanSeconds}s:`,
      ...kinds.map((k) => {
        const o = outcome[k];
        const notGiven = [o.notGivenBack ? `${o.notGivenBack} given back already` : '', o.ownerClosed ? `${o.ownerClosed} not (the coupon's owner had closed)` : ''].filter(Boolean);
        const given = o.released + o.notGivenBack + o.ownerClosed > 0 ? `; coupon redemptions: ${[`${o.released} given back`, ...notGiven].join(', ')}` : '';
        const line = `- ${k}: ${o.found} found; ${o.takenBack} taken back (no workflow), ${o.kept} kept (workflow exists), ${o.unknown} left for the next run (Temporal did not answer, or not settled yet), ${o.putBack} put back (workflow started meanwhile)${given}`;
        return o.named.length ? `${line}\n  - ${o.named.join('\n  - ')}` : line;
      }),
    ].join('\n'),
  );
  return outcome;
}
