import { allHandlersFinished, condition, continueAsNew, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import { historyIsLong } from '../history';
import {
  deleteCouponUpdate,
  IDLE_CLOSE_MS,
  redeemUpdate,
  redemptionCountsQuery,
  releaseSignal,
  releaseUpdate,
  updatePromotionCodeUpdate,
  type CouponRedemptionsInput,
  type RedeemRequest,
  type ReleaseRequest,
} from './messages';
import { RedemptionState, type Dirty } from './state';
import { historyFloor } from '../serial-writer';

/** Runs from before an owner gave back a release vouched `counted` that it did not remember. */
const COUNTED_RELEASE_PATCH = 'coupon-release-counted';

const store = proxyActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '200ms', maximumInterval: '10s' } });

/**
 * The one owner of a coupon's redemptions (and of its promotion codes'): concurrent subscriptions redeeming
 * the last use are decided here, one Update at a time, before any await (never a read-then-write in
 * MongoDB). It writes the coupon's and its codes' records after every change, one write at a time, each
 * above the record's last version; an Update answers once its writes are done, so what it counted is what a
 * read sees. It continues as new when its history grows, and closes after an idle hour with its writes done.
 */
export async function couponRedemptionsWorkflow(input: CouponRedemptionsInput): Promise<void> {
  const s = new RedemptionState(input.carried);
  /** Every write asked for so far, in order (one writer: never two at once). */
  let writes: Promise<unknown> = Promise.resolve();
  /** Messages handled: the idle close waits for an hour in which this did not move. */
  let handled = 0;

  /**
   * Each record's floor (workflows/serial-writer.ts, historyFloor), from the version it had when this run first
   * wrote it: a task retried after its worker died writes above the dead attempt's versions.
   */
  const bases = new Map<string, number>();
  const floorOf = (key: string, current: number): number => {
    if (!bases.has(key)) bases.set(key, current);
    return historyFloor(bases.get(key)!)();
  };

  /** Asks for the writes a change needs, each patch built now, from the state now. */
  const write = (dirty: Dirty | null, metadata?: Record<string, string>): void => {
    if (!dirty) return;
    if (dirty.coupon && s.coupon) {
      const w = {
        tenantId: input.tenantId,
        couponId: input.couponId,
        version: s.nextCouponVersion(floorOf('coupon', s.coupon.version)),
        timesRedeemed: s.coupon.timesRedeemed,
        deletedAt: s.coupon.deletedAt,
        ...(dirty.givenBack !== undefined ? { givenBack: dirty.givenBack } : {}),
        ...(dirty.counted !== undefined ? { counted: dirty.counted } : {}),
      };
      writes = writes.then(() => store.saveCouponRedemptions(w));
    }
    const code = dirty.code !== null ? s.codes.get(dirty.code) : undefined;
    if (dirty.code !== null && code) {
      const w = {
        tenantId: input.tenantId,
        promotionCodeId: dirty.code,
        version: s.nextCodeVersion(dirty.code, floorOf(`code:${dirty.code}`, code.version)),
        timesRedeemed: code.timesRedeemed,
        active: code.active,
        ...(metadata !== undefined ? { metadata } : {}),
      };
      writes = writes.then(() => store.savePromotionCodeRedemptions(w));
    }
  };

  setHandler(
    redeemUpdate,
    async (req) => {
      handled += 1;
      const { result, dirty } = s.redeem(req); // the check and the count, before any await
      write(dirty);
      if (result.ok) await writes;
      return result;
    },
    { validator: validRedeem },
  );
  const release = async ({ subscription, counted }: ReleaseRequest) => {
    handled += 1;
    // An owner from before `counted` ignored it (and did not say it heard it): its runs replay that way.
    const vouched = counted !== undefined && patched(COUNTED_RELEASE_PATCH) ? counted : undefined;
    const { result, dirty } = s.release(subscription, vouched);
    write(dirty);
    await writes;
    return result;
  };
  setHandler(releaseUpdate, release, { validator: validRelease });
  setHandler(releaseSignal, async (req) => void (await release(req)));
  setHandler(updatePromotionCodeUpdate, async (req) => {
    handled += 1;
    const { result, dirty } = s.updateCode(req);
    write(dirty, req.metadata);
    await writes;
    return result;
  });
  setHandler(deleteCouponUpdate, async (req) => {
    handled += 1;
    write(s.deleteCoupon(req).dirty);
    await writes;
    return { deleted: true as const };
  });
  setHandler(redemptionCountsQuery, () => s.counts());

  /** Nothing in flight: no Update unanswered, no write unissued (a write is an await, so check again after). */
  const drained = async () => {
    for (;;) {
      await condition(allHandlersFinished);
      const pending = writes;
      await pending;
      if (allHandlersFinished() && writes === pending) return;
    }
  };

  const idleMs = input.idleCloseMs ?? IDLE_CLOSE_MS;
  for (;;) {
    const seen = handled;
    if (await condition(historyIsLong, idleMs)) break;
    if (handled !== seen) continue; // busy in the last period: wait another
    await drained();
    // Idle for a whole period: close. A later Update-with-Start begins again from the counts on the records.
    if (handled === seen) return;
  }
  await drained();
  await continueAsNew<typeof couponRedemptionsWorkflow>({ ...input, carried: s.carry() });
}

function validRedeem(req: RedeemRequest): void {
  if (typeof req.subscription !== 'string' || req.subscription === '') throw new Error('subscription is required');
  if (!Number.isSafeInteger(req.at)) throw new Error('at must be a time in Unix ms');
  if ((req.promotionCode === null) !== (req.codeLimits === null)) throw new Error('promotionCode and codeLimits go together');
  if (!Number.isSafeInteger(req.couponTimesRedeemedOnRecord) || req.couponTimesRedeemedOnRecord < 0) throw new Error('couponTimesRedeemedOnRecord must be a count');
}

function validRelease(req: ReleaseRequest): void {
  if (typeof req.subscription !== 'string' || req.subscription === '') throw new Error('subscription is required');
  if (req.counted === undefined) return;
  const counts = [req.counted.couponOnRecord, ...(req.counted.codeOnRecord ? [req.counted.codeOnRecord] : [])];
  if (!counts.every((c) => Number.isSafeInteger(c.timesRedeemed) && c.timesRedeemed >= 0 && Number.isSafeInteger(c.version) && c.version >= 0))
    throw new Error('counted: the records\' times_redeemed and version must be counts');
}
