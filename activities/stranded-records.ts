import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { paymentIntentData } from '../data/payment-intents';
import { webhookSecretData } from '../data/webhook-secrets';
import type { Logger } from '../platform/logger';
import type { Mongo } from '../platform/mongo';

// The stranded-records sweep's one activity. A create inserts the intent at version 0, then starts its
// workflow; when the start fails it takes the record back. A record is stranded when that take-back never
// happened: the API process stopped between the two steps, or the database refused the delete too (the
// 07:20 outage drill, docs/reliability.md). Such an intent reads as pending and never expires, because only
// its workflow expires it. The sweep finishes the take-back for any intent still at version 0 well after its
// creation whose workflow Temporal does not have. It never starts a workflow: the merchant was answered with
// an error (or no answer), and the create's side writes may already be undone.

export interface StrandedSweepRequest {
  /** Only intents created longer ago than this are looked at (STRANDED_AFTER_SECONDS). */
  olderThanSeconds: number;
  /** At most this many per run; the next run takes the rest. */
  limit: number;
}

export interface StrandedSweepResult {
  /** Version-0 intents older than the cutoff. */
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

export function createStrandedRecordActivities(deps: { mongo: Mongo; logger: Logger }) {
  const intents = paymentIntentData(deps.mongo);
  const secrets = webhookSecretData(deps.mongo);
  return {
    async sweepStrandedIntents(req: StrandedSweepRequest): Promise<StrandedSweepResult> {
      const client = Context.current().client;
      const cutoff = new Date(Date.now() - req.olderThanSeconds * 1000);
      const candidates = await intents.strandedBefore(cutoff, req.limit);
      const result: StrandedSweepResult = { found: candidates.length, takenBack: [], kept: 0, unknown: 0 };
      for (const r of candidates) {
        Context.current().heartbeat(r._id);
        const exists = await workflowExists(client, r._id);
        if (exists === null) result.unknown += 1;
        else if (exists) result.kept += 1;
        // Deleted only while still at version 0: a workflow started meanwhile keeps its record.
        else if (await intents.takeBack(r._id)) {
          const refs = new Set([...(r.webhooks ?? []), ...(r.legacy_webhooks ?? [])].flatMap((w) => (w.secretRef ? [w.secretRef] : [])));
          for (const ref of refs) await secrets.remove(ref);
          result.takenBack.push(r._id);
          deps.logger.warn({ paymentIntent: r._id, tenant: r.tenant_id, createdAt: r.created_at }, 'stranded payment intent taken back: version 0 and no workflow');
        }
      }
      return result;
    },
  };
}
