import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { paymentIntentData } from '../data/payment-intents';
import { payoutData } from '../data/payouts';
import { webhookSecretData } from '../data/webhook-secrets';
import type { Logger } from '../platform/logger';
import type { Mongo } from '../platform/mongo';
import type { StrandedKind } from '../domain/stranded-kinds';

// The stranded-records sweep's one activity. A create inserts its record at version 0, then starts the
// workflow that owns it (the workflow id is the record's id). A record is stranded when that start never
// happened and nothing took the record back: the API process stopped between the two steps, or, for an
// intent, the database refused the take-back too (the 07:20 outage drill, docs/reliability.md); a payout's
// create leaves its record for a resend with the same key. Such a record reads as pending for good: only its
// workflow moves it on. The sweep deletes any record of a kind still at version 0 well after its creation
// whose workflow Temporal does not have, with the webhook secrets it names. It never starts a workflow: the
// merchant was answered with an error (or no answer), and an intent's create may have undone its side writes.

export interface StrandedSweepRequest {
  kind: StrandedKind;
  /** Only records created longer ago than this are looked at (STRANDED_AFTER_SECONDS). */
  olderThanSeconds: number;
  /** At most this many per call; the next call (or run) takes the rest. */
  limit: number;
}

export interface StrandedSweepResult {
  /** Version-0 records older than the cutoff. */
  found: number;
  /** Deleted, with the webhook secrets they named. */
  takenBack: string[];
  /** Their workflow exists (its first write is still to come, for example while no worker runs): left alone. */
  kept: number;
  /** Temporal did not say (unreachable): left for the next run. */
  unknown: number;
}

/** Whether Temporal has a workflow (running or closed) of this id; null when it did not answer. */
async function workflowExists(client: Client, id: string): Promise<boolean | null> {
  try {
    await client.workflow.getHandle(id).describe();
    return true;
  } catch (err) {
    return err instanceof WorkflowNotFoundError ? false : null;
  }
}

interface Stranded {
  id: string;
  tenantId: string;
  createdAt: Date;
  secretRefs: string[];
}

export function createStrandedRecordActivities(deps: { mongo: Mongo; logger: Logger }) {
  const intents = paymentIntentData(deps.mongo);
  const payouts = payoutData(deps.mongo);
  const secrets = webhookSecretData(deps.mongo);
  const kinds: Record<StrandedKind, { candidates(cutoff: Date, limit: number): Promise<Stranded[]>; takeBack(id: string): Promise<boolean> }> = {
    payment_intent: {
      candidates: async (cutoff, limit) =>
        (await intents.strandedBefore(cutoff, limit)).map((r) => ({
          id: r._id,
          tenantId: r.tenant_id,
          createdAt: r.created_at,
          secretRefs: [...(r.webhooks ?? []), ...(r.legacy_webhooks ?? [])].flatMap((w) => (w.secretRef ? [w.secretRef] : [])),
        })),
      takeBack: (id) => intents.takeBack(id),
    },
    payout: {
      candidates: async (cutoff, limit) =>
        (await payouts.strandedBefore(cutoff, limit)).map((r) => ({ id: r._id, tenantId: r.tenant_id, createdAt: r.created_at, secretRefs: r.webhook_secret_ref ? [r.webhook_secret_ref] : [] })),
      takeBack: (id) => payouts.takeBack(id),
    },
  };
  return {
    async sweepStrandedRecords(req: StrandedSweepRequest): Promise<StrandedSweepResult> {
      const client = Context.current().client;
      const kind = kinds[req.kind];
      const candidates = await kind.candidates(new Date(Date.now() - req.olderThanSeconds * 1000), req.limit);
      const result: StrandedSweepResult = { found: candidates.length, takenBack: [], kept: 0, unknown: 0 };
      for (const r of candidates) {
        Context.current().heartbeat(r.id);
        const exists = await workflowExists(client, r.id);
        if (exists === null) result.unknown += 1;
        else if (exists) result.kept += 1;
        // Deleted only while still at version 0: a workflow started meanwhile keeps its record.
        else if (await kind.takeBack(r.id)) {
          for (const ref of new Set(r.secretRefs)) await secrets.remove(ref);
          result.takenBack.push(r.id);
          deps.logger.warn({ kind: req.kind, id: r.id, tenant: r.tenantId, createdAt: r.createdAt }, 'stranded record taken back: version 0 and no workflow');
        }
      }
      return result;
    },
  };
}
