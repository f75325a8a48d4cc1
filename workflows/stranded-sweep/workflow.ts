import { proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { STRANDED_KINDS, type StrandedKind } from '../../domain/stranded-kinds';
import { SA } from '../search-attributes';
import type { StrandedKindOutcome, StrandedSweepInput, StrandedSweepOutcome } from './messages';

// One sweep of records a create left at version 0 without a workflow (activities/stranded-records.ts), kind
// by kind: batches of BATCH until one finds fewer or takes nothing back, so a backlog clears in one run while
// history stays two events a batch. Spans tenants, so it carries no TenantId; `PaymentStatus` says clean or
// taken_back.

const BATCH = 200;
/** Batches per kind in one run; a larger backlog waits for the next run. */
const MAX_BATCHES = 50;
/** The ids a kind's outcome names (the result and the UI's details line); the worker log names every one. */
const NAMED = 20;

const sweep = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', maximumInterval: '1m', maximumAttempts: 5 },
});

async function sweepKind(kind: StrandedKind, olderThanSeconds: number): Promise<StrandedKindOutcome> {
  const total: StrandedKindOutcome = { found: 0, takenBack: 0, kept: 0, unknown: 0, named: [] };
  for (let i = 0; i < MAX_BATCHES; i++) {
    const r = await sweep.sweepStrandedRecords({ kind, olderThanSeconds, limit: BATCH });
    total.found += r.found;
    total.takenBack += r.takenBack.length;
    total.named.push(...r.takenBack.slice(0, NAMED - total.named.length));
    total.kept += r.kept;
    total.unknown += r.unknown;
    // Kept and unknown records stay at version 0, so a full batch of only them would be found again: stop.
    if (r.found < BATCH || r.takenBack.length === 0) break;
  }
  return total;
}

export async function strandedSweepWorkflow(input: StrandedSweepInput): Promise<StrandedSweepOutcome> {
  const outcome = {} as StrandedSweepOutcome;
  for (const kind of STRANDED_KINDS) outcome[kind] = await sweepKind(kind, input.olderThanSeconds);
  const takenBack = STRANDED_KINDS.some((k) => outcome[k].takenBack > 0);
  upsertSearchAttributes([{ key: SA.PaymentStatus, value: takenBack ? 'taken_back' : 'clean' }]);
  setCurrentDetails(
    [
      `Records left at version 0 for over ${input.olderThanSeconds}s:`,
      ...STRANDED_KINDS.map((k) => {
        const o = outcome[k];
        const line = `- ${k}: ${o.found} found; ${o.takenBack} taken back (no workflow), ${o.kept} kept (workflow exists), ${o.unknown} unknown (Temporal did not answer)`;
        return o.named.length ? `${line}\n  - ${o.named.join('\n  - ')}` : line;
      }),
    ].join('\n'),
  );
  return outcome;
}
