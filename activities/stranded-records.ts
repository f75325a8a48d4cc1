import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { checkoutData } from '../data/checkouts';
import { paymentIntentData } from '../data/payment-intents';
import { payoutData } from '../data/payouts';
import { subscriptionData } from '../data/subscriptions';
import { testClockData } from '../data/test-clocks';
import type { versionZeroRecords } from '../data/versioned-writes';
import { secretsRecordOf, webhookSecretData } from '../data/webhook-secrets';
import { strandedTakenBackData } from '../data/stranded-taken-back';
import type { CountedDiscount, StrandedKind, VersionZeroCursor } from '../domain/stranded-kinds';
import type { Logger } from '../platform/logger';
import type { Mongo } from '../platform/mongo';
import type { SubscriptionRecord, TestClockRecord } from '../platform/billing-records';
import type { CheckoutRecord, PaymentIntentRecord, PayoutRecord } from '../platform/records';
import { workflowExistence } from '../platform/temporal';

// The stranded-records sweep's one activity. A create inserts its record at version 0, then starts the
// workflow that owns it (the workflow id is the record's id). A record is stranded when that start never
// happened and nothing took the record back: the API process stopped between the two steps, the database
// refused the take-back too (an intent in the 07:20 outage drill, docs/reliability.md), or the create could
// not tell whether its start happened; a payout's create leaves its record for a resend with the same key.
// Such a record reads as pending for good: only its workflow moves it on. The sweep deletes any record still
// at version 0 well after its creation whose workflow Temporal does not have. It never starts a workflow:
// the merchant was answered with an error (or no answer), and an intent's create may have undone its side
// writes.
//
// A resend with the record's key that read it just before the delete starts its workflow just after: so the
// sweep looks again `recheckAfterMs` later (past any start's deadline) and puts back every record whose
// workflow now exists (or that Temporal does not answer for). Only then are its webhook secrets removed, and a
// subscription's coupon redemption given back (through the coupon's owner, which the API's code starts again
// if it closed). Between the delete and that second look the record is held in `stranded_taken_back`, so a
// sweep that dies in between (a worker killed in the 30 s wait) loses neither the record nor what it held.

/** What the worker hands over: the API's give-back of a counted redemption (api/coupons/redeem.ts), run with the worker's client. */
export interface RedemptionGiveBackPort {
  /** True when the coupon's owner gave it back; false when it had already (or the coupon is gone). */
  giveBack(temporal: Client, d: CountedDiscount): Promise<boolean>;
}

export interface StrandedSweepRequest {
  kind: StrandedKind;
  /** Only records created longer ago than this are looked at (STRANDED_AFTER_SECONDS). */
  olderThanSeconds: number;
  /** At most this many per call. */
  limit: number;
  /** Where the previous call's page ended (null: from the oldest). */
  after: VersionZeroCursor | null;
  /** How long after its deletes the sweep looks again for workflows started meanwhile. */
  recheckAfterMs: number;
}

export interface StrandedSweepResult {
  /** Version-0 records older than the cutoff on this page. */
  found: number;
  /** Deleted, with the webhook secrets they named (including any a sweep that died had deleted and this one finished). */
  takenBack: string[];
  /** Their workflow exists (its first write is still to come, for example while no worker runs): left alone. */
  kept: number;
  /** Left for the next run: Temporal did not say (unreachable), or a held record could not be settled yet. */
  unknown: number;
  /** Deleted, then put back: their workflow had started meanwhile (a resend with their key). */
  putBack: number;
  /** Coupon redemptions of subscriptions taken back that the coupon's owner gave back (started again if it had closed). */
  givenBack: number;
  /** ... and those given back already (a sweep that died had, or the create), or whose coupon is gone. */
  notGivenBack: number;
  /**
   * Only in results recorded before this activity gave redemptions back itself (which lack `givenBack` and
   * `notGivenBack`): the redemptions, for the sweep's workflow to signal the coupon's owner.
   */
  discounts?: { subscription: string; coupon: string }[];
  /** Where this page ended; null when it was the last. */
  next: VersionZeroCursor | null;
}

/** Held copies that may fail to settle in one call before the call leaves the rest for later. */
const MAX_FAILED_SETTLES = 5;

type Swept = { _id: string; version: number; created_at: Date; tenant_id: string };
interface Kind<T extends Swept> {
  records: ReturnType<typeof versionZeroRecords<T>>;
  /** The webhook secrets records only this record names (written by its own create). */
  secretsOf(r: T): string[];
  /** The redemption this record's create counted, if any. */
  discountOf?(r: T): CountedDiscount | null;
}
const kind = <T extends Swept>(k: Kind<T>) => k as unknown as Kind<Swept>;

/**
 * `whs_...#<index>`: the record of secrets, then the endpoint's place in it. An intent's older-interface
 * `legacy_webhooks` may be a checkout intent's, shared by all its intents: those stay.
 */
const ownSecrets = (r: { webhooks?: { secretRef?: string }[] }): string[] => [...new Set((r.webhooks ?? []).flatMap((w) => (w.secretRef ? [secretsRecordOf(w.secretRef)] : [])))];

export function createStrandedRecordActivities(deps: { mongo: Mongo; logger: Logger; redemptionGiveBack?: RedemptionGiveBackPort }) {
  const secrets = webhookSecretData(deps.mongo);
  const held = strandedTakenBackData(deps.mongo);
  const redemptions = (): RedemptionGiveBackPort => {
    if (!deps.redemptionGiveBack) throw ApplicationFailure.nonRetryable('this worker was built without the redemption give-back', 'misconfigured');
    return deps.redemptionGiveBack;
  };
  const kinds: Record<StrandedKind, Kind<Swept>> = {
    payment_intent: kind<PaymentIntentRecord>({ records: paymentIntentData(deps.mongo), secretsOf: ownSecrets }),
    payout: kind<PayoutRecord>({ records: payoutData(deps.mongo), secretsOf: (r) => (r.webhook_secret_ref ? [r.webhook_secret_ref] : []) }),
    // A stranded checkout holds its cart's one open checkout (`open_scope`): every later checkout of the cart
    // answered 409 `checkout_in_progress` until the sweep frees it.
    checkout: kind<CheckoutRecord>({ records: checkoutData(deps.mongo), secretsOf: () => [] }),
    test_clock: kind<TestClockRecord>({ records: testClockData(deps.mongo), secretsOf: () => [] }),
    subscription: kind<SubscriptionRecord>({
      records: subscriptionData(deps.mongo),
      secretsOf: ownSecrets,
      discountOf: (r) => {
        const d = r.snapshot.discount;
        return d ? { tenantId: r.tenant_id, subscription: r._id, coupon: d.coupon, promotionCode: d.promotionCode ?? null } : null;
      },
    }),
  };
  /**
   * A held copy, a recheck's time after its delete: put back if its workflow exists now (or Temporal does not
   * say); else its webhook secrets are removed and its coupon redemption given back (`givenBack`: null when it
   * had none, or another record stands under its id), and the copy let go.
   */
  async function settle(ctx: Context, kindName: StrandedKind, h: { _id: string; record: Swept }): Promise<'kept' | 'put_back' | 'deleted_now' | { givenBack: boolean | null }> {
    const { records, secretsOf, discountOf } = kinds[kindName];
    const r = h.record;
    if ((await workflowExistence(ctx.client, r._id)) !== false) {
      // Never deleted (its workflow took it over before the delete): nothing to put back.
      if (await records.standing(r._id)) {
        await held.drop(h._id);
        return 'kept';
      }
      await records.putBack(r);
      await held.drop(h._id);
      deps.logger.warn({ kind: kindName, id: r._id, tenant: r.tenant_id }, 'stranded record put back: its workflow started while the sweep deleted it');
      return 'put_back';
    }
    // A copy whose delete never happened (a sweep died between the two): deleted now, settled a recheck later.
    const standing = await records.takeBack(r._id, r.created_at);
    if (standing) {
      await held.hold(kindName, standing);
      return 'deleted_now';
    }
    for (const id of secretsOf(r)) await secrets.remove(id);
    // Another record under the same id (a resend with the same key made it again, not yet started) holds the
    // redemption now: the owner counts one per subscription id, so it is not given back.
    const discount = discountOf?.(r);
    const givenBack = discount && !(await records.standing(r._id)) ? await redemptions().giveBack(ctx.client, discount) : null;
    await held.drop(h._id);
    deps.logger.warn({ kind: kindName, id: r._id, tenant: r.tenant_id, createdAt: r.created_at }, 'stranded record taken back: version 0 and no workflow');
    return { givenBack };
  }

  return {
    async sweepStrandedRecords(req: StrandedSweepRequest): Promise<StrandedSweepResult> {
      const ctx = Context.current();
      const { records } = kinds[req.kind];
      const page = await records.strandedBefore(new Date(Date.now() - req.olderThanSeconds * 1000), req.limit, req.after);
      const last = page.at(-1);
      const result: StrandedSweepResult = {
        found: page.length,
        takenBack: [],
        kept: 0,
        unknown: 0,
        putBack: 0,
        givenBack: 0,
        notGivenBack: 0,
        next: page.length === req.limit && last ? { createdAt: last.created_at.toISOString(), id: last._id } : null,
      };
      let deleted = 0;
      for (const r of page) {
        ctx.heartbeat(r._id);
        const exists = await workflowExistence(ctx.client, r._id);
        if (exists === null) result.unknown += 1;
        else if (exists) result.kept += 1;
        else {
          // Held before the delete: from here on, dying loses nothing (the next call finishes what this one began).
          await held.hold(req.kind, r);
          const gone = await records.takeBack(r._id, r.created_at);
          if (gone) {
            await held.hold(req.kind, gone); // as deleted, should it have changed since the page was read
            deleted += 1;
          }
          // Else its workflow took it over, its create took it back, or another sweep deleted it meanwhile: the
          // copy stays for the recheck, which puts back nothing that stands and frees only what is gone.
        }
      }
      if (deleted > 0) await waitHeartbeating(ctx, req.recheckAfterMs);
      // Everything held for a recheck's time or longer: this call's, and any a sweep that died left behind.
      let failed = 0;
      for (const h of await held.heldSince(req.kind, new Date(Date.now() - req.recheckAfterMs), 2 * req.limit)) {
        const r = h.record as Swept;
        ctx.heartbeat(r._id);
        try {
          const settled = await settle(ctx, req.kind, { _id: h._id, record: r });
          if (settled === 'kept') result.kept += 1;
          else if (settled === 'put_back') result.putBack += 1;
          else if (settled === 'deleted_now') result.unknown += 1;
          else {
            result.takenBack.push(r._id);
            if (settled.givenBack === true) result.givenBack += 1;
            else if (settled.givenBack === false) result.notGivenBack += 1;
          }
        } catch (err) {
          if (err instanceof ApplicationFailure && err.nonRetryable) throw err; // a misconfigured worker fails the sweep loudly
          // One copy that fails (its coupon's owner unreachable, say) goes to the back for a later call; the rest go on.
          result.unknown += 1;
          await held.postpone(h._id).catch(() => undefined);
          deps.logger.warn({ kind: req.kind, id: r._id, tenant: r.tenant_id, err }, 'stranded record held: could not settle it yet');
          // Many failing in one call (the database or Temporal in trouble): the rest wait for a later call.
          if (++failed >= MAX_FAILED_SETTLES) break;
        }
      }
      return result;
    },
  };
}

async function waitHeartbeating(ctx: Context, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    ctx.heartbeat();
    await ctx.sleep(Math.min(5000, until - Date.now()));
  }
}
