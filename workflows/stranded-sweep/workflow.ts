import { proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { SA } from '../search-attributes';
import type { StrandedSweepInput, StrandedSweepOutcome } from './messages';

// One sweep of payment intents a create left at version 0 without a workflow (activities/stranded-records.ts):
// batches of BATCH until a batch finds fewer, so a backlog is cleared in one run while history stays a few
// events a batch. Spans tenants, so it carries no TenantId; `PaymentStatus` says clean or taken_back.

const BATCH = 200;
/** A backlog larger than this waits for the next run (each batch is two history events). */
const MAX_BATCHES = 50;
/** The ids the run names (its result and the UI's details line); the log names every one. */
const NAMED = 20;

const sweep = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '1m',
  retry: { initialInterval: '5s', maximumInterval: '1m', maximumAttempts: 5 },
});

export async function strandedSweepWorkflow(input: StrandedSweepInput): Promise<StrandedSweepOutcome> {
  const total: StrandedSweepOutcome = { found: 0, takenBack: 0, kept: 0, unknown: 0, named: [] };
  for (let i = 0; i < MAX_BATCHES; i++) {
    const r = await sweep.sweepStrandedIntents({ olderThanSeconds: input.olderThanSeconds, limit: BATCH });
    total.found += r.found;
    total.takenBack += r.takenBack.length;
    total.named.push(...r.takenBack.slice(0, NAMED - total.named.length));
    total.kept += r.kept;
    total.unknown += r.unknown;
    // Kept and unknown records stay at version 0, so a full batch of them would be found again: stop.
    if (r.found < BATCH || r.takenBack.length === 0) break;
  }
  upsertSearchAttributes([{ key: SA.PaymentStatus, value: total.takenBack ? 'taken_back' : 'clean' }]);
  setCurrentDetails(
    `Stranded intents older than ${input.olderThanSeconds}s: ${total.found} at version 0; ${total.takenBack} taken back (no workflow), ${total.kept} kept (workflow exists), ${total.unknown} unknown (Temporal did not answer)` +
      (total.named.length ? `\n- ${total.named.join('\n- ')}` : ''),
  );
  return total;
}
