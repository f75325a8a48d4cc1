import { WithStartWorkflowOperation } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { CouponOwnerWrite, PromotionCodeOwnerWrite } from '../../activities/coupon-redemptions';
import {
  COUPON_REDEMPTIONS_WORKFLOW,
  couponRedemptionsWorkflowId,
  deleteCouponUpdate,
  redeemUpdate,
  redemptionCountsQuery,
  releaseUpdate,
  updatePromotionCodeUpdate,
  type CodeLimits,
  type CountedRedemption,
  type CouponRedemptionsInput,
  type RedeemRequest,
  type RedeemResult,
} from '../../workflows/coupon-redemptions/messages';
import { expectRising, getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// A coupon's redemption owner in virtual time, with fake activities that keep the records as MongoDB would
// (each write applied only over an older version): concurrent redemptions of the last uses, the same
// subscription twice, a release, limits in time by the request's `at`, the merchant's changes, the counts
// across continue-as-new, and a close after an idle period with a restart from the records.

const testEnv = useWorkflowTestEnv({ perTest: true });

const TENANT = 'ten_eu_t';
const HOUR = 3_600_000;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Stored {
  version: number;
  times_redeemed: number;
  active?: boolean;
  metadata?: Record<string, string>;
  deleted_at?: number | null;
}

/** The records as the fake activities leave them, and every write asked for, in order. */
function fakes(opts: { slowWrites?: boolean } = {}) {
  const records = new Map<string, Stored>();
  const writes: { id: string; version: number; timesRedeemed: number; applied: boolean }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const apply = async (id: string, version: number, fields: Omit<Stored, 'version'>) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (opts.slowWrites) await pause(3 + (version % 3) * 4); // later writes are not always slower
    const current = records.get(id) ?? { version: 0, times_redeemed: 0 };
    const applied = current.version < version;
    if (applied) records.set(id, { ...current, ...fields, version });
    writes.push({ id, version, timesRedeemed: fields.times_redeemed, applied });
    inFlight -= 1;
    return applied ? ('applied' as const) : ('stale' as const);
  };
  const activities = {
    saveCouponRedemptions: (w: CouponOwnerWrite) => apply(w.couponId, w.version, { times_redeemed: w.timesRedeemed, ...(w.deletedAt !== null ? { deleted_at: w.deletedAt } : {}) }),
    savePromotionCodeRedemptions: (w: PromotionCodeOwnerWrite) =>
      apply(w.promotionCodeId, w.version, { times_redeemed: w.timesRedeemed, active: w.active, ...(w.metadata ? { metadata: w.metadata } : {}) }),
  };
  return { records, writes, activities, maxInFlight: () => maxInFlight };
}

let n = 0;
async function withWorker<T>(f: ReturnType<typeof fakes>, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  n += 1;
  const taskQueue = `coupons-${n}`;
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: f.activities });
  return worker.runUntil(() => fn(taskQueue));
}

/** A coupon's limits and what its records say, as the API reads them before asking the owner. */
interface Coupon {
  id: string;
  maxRedemptions: number | null;
  redeemBy: number | null;
  idleCloseMs?: number;
}

/** A redemption as the API asks for it: Update-with-Start of the coupon's owner, with what the records say. */
function redeem(
  taskQueue: string,
  f: ReturnType<typeof fakes>,
  coupon: Coupon,
  subscription: string,
  opts: { at?: number; code?: { id: string } & Omit<CodeLimits, 'timesRedeemedOnRecord' | 'versionOnRecord'> } = {},
): Promise<RedeemResult> {
  const onRecord = f.records.get(coupon.id) ?? { version: 0, times_redeemed: 0 };
  const codeRecord = opts.code ? (f.records.get(opts.code.id) ?? { version: 0, times_redeemed: 0 }) : null;
  const req: RedeemRequest = {
    subscription,
    promotionCode: opts.code?.id ?? null,
    at: opts.at ?? Date.parse('2026-07-10T10:00:00Z'),
    couponLimits: { maxRedemptions: coupon.maxRedemptions, redeemBy: coupon.redeemBy },
    codeLimits:
      opts.code && codeRecord
        ? { maxRedemptions: opts.code.maxRedemptions, expiresAt: opts.code.expiresAt, active: opts.code.active, timesRedeemedOnRecord: codeRecord.times_redeemed, versionOnRecord: codeRecord.version }
        : null,
    couponTimesRedeemedOnRecord: onRecord.times_redeemed,
    couponVersionOnRecord: onRecord.version,
  };
  return testEnv().client.workflow.executeUpdateWithStart(redeemUpdate, { args: [req], startWorkflowOperation: ownerStart(taskQueue, coupon) });
}

/** The coupon owner's start, as the API sends it with an Update (Update-with-Start: an owner that runs is used). */
function ownerStart(taskQueue: string, coupon: Coupon) {
  const input: CouponRedemptionsInput = { tenantId: TENANT, couponId: coupon.id, ...(coupon.idleCloseMs ? { idleCloseMs: coupon.idleCloseMs } : {}) };
  return new WithStartWorkflowOperation(COUPON_REDEMPTIONS_WORKFLOW, {
    workflowId: couponRedemptionsWorkflowId(coupon.id),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

const owner = (couponId: string) => testEnv().client.workflow.getHandle(couponRedemptionsWorkflowId(couponId));
const countsOf = (couponId: string) => owner(couponId).query(redemptionCountsQuery);
const terminate = (couponId: string) => owner(couponId).terminate('test done').catch(() => undefined);

describe('a coupon redemption owner', () => {
  test('12 concurrent subscriptions for the last 3 uses: exactly 3 are counted, written in order by one writer', async () => {
    const f = fakes({ slowWrites: true });
    const coupon: Coupon = { id: 'coupon_eu_last3', maxRedemptions: 3, redeemBy: null };
    await withWorker(f, async (q) => {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => redeem(q, f, coupon, `sub_eu_c${i}`)));
      const ok = answers.filter((a) => a.ok);
      expect(ok).toHaveLength(3);
      expect(ok.map((a) => (a as { couponTimesRedeemed: number }).couponTimesRedeemed).sort()).toEqual([1, 2, 3]);
      for (const a of answers.filter((x) => !x.ok)) expect(a).toEqual({ ok: false, code: 'coupon_max_redemptions', message: expect.stringContaining('3 times') });
      // Each Update answered once its write was done: the record says 3 already.
      expect(f.records.get(coupon.id)).toEqual({ version: f.writes.at(-1)!.version, times_redeemed: 3 });
      expect(f.writes.map((w) => [w.timesRedeemed, w.applied])).toEqual([
        [1, true],
        [2, true],
        [3, true],
      ]);
      expectRising(f.writes.map((w) => w.version));
      expect(f.maxInFlight()).toBe(1);
      expect(await countsOf(coupon.id)).toEqual({ coupon: { timesRedeemed: 3, deleted: false }, codes: {}, subscriptions: 3 });
      await terminate(coupon.id);
    });
  });

  test('a promotion code has limits of its own, and its uses count on the coupon too', async () => {
    const f = fakes();
    const coupon: Coupon = { id: 'coupon_eu_codes', maxRedemptions: null, redeemBy: null };
    const code = { id: 'promo_eu_summer', maxRedemptions: 2, expiresAt: null, active: true };
    await withWorker(f, async (q) => {
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => redeem(q, f, coupon, `sub_eu_p${i}`, { code })));
      expect(answers.filter((a) => a.ok)).toHaveLength(2);
      for (const a of answers.filter((x) => !x.ok)) expect(a).toMatchObject({ ok: false, code: 'promotion_code_max_redemptions' });
      // The coupon itself is still redeemable.
      expect(await redeem(q, f, coupon, 'sub_eu_direct')).toEqual({ ok: true, couponTimesRedeemed: 3, promotionCodeTimesRedeemed: null });
      expect(f.records.get(code.id)).toMatchObject({ times_redeemed: 2, active: true });
      expect(f.records.get(coupon.id)).toMatchObject({ times_redeemed: 3 });
      await terminate(coupon.id);
    });
  });

  test('the same subscription twice is counted once; a release gives the use back, once', async () => {
    const f = fakes();
    const coupon: Coupon = { id: 'coupon_eu_twice', maxRedemptions: 2, redeemBy: null };
    const code = { id: 'promo_eu_twice', maxRedemptions: null, expiresAt: null, active: true };
    await withWorker(f, async (q) => {
      expect(await redeem(q, f, coupon, 'sub_eu_a', { code })).toEqual({ ok: true, couponTimesRedeemed: 1, promotionCodeTimesRedeemed: 1 });
      const again = await Promise.all([redeem(q, f, coupon, 'sub_eu_a', { code }), redeem(q, f, coupon, 'sub_eu_a'), redeem(q, f, coupon, 'sub_eu_a', { code })]);
      for (const a of again) expect(a).toEqual({ ok: true, couponTimesRedeemed: 1, promotionCodeTimesRedeemed: 1 });
      expect(await redeem(q, f, coupon, 'sub_eu_b')).toEqual({ ok: true, couponTimesRedeemed: 2, promotionCodeTimesRedeemed: null });
      expect(await redeem(q, f, coupon, 'sub_eu_c')).toMatchObject({ ok: false, code: 'coupon_max_redemptions' });

      // sub_eu_a could not be started: its use (on the coupon and on its code) is given back, once.
      expect(await owner(coupon.id).executeUpdate(releaseUpdate, { args: [{ subscription: 'sub_eu_a' }] })).toEqual({ released: true, couponTimesRedeemed: 1 });
      expect(await owner(coupon.id).executeUpdate(releaseUpdate, { args: [{ subscription: 'sub_eu_a' }] })).toEqual({ released: false, couponTimesRedeemed: 1 });
      expect(await owner(coupon.id).executeUpdate(releaseUpdate, { args: [{ subscription: 'sub_eu_never' }] })).toEqual({ released: false, couponTimesRedeemed: 1 });
      expect(f.records.get(coupon.id)).toMatchObject({ times_redeemed: 1 });
      expect(f.records.get(code.id)).toMatchObject({ times_redeemed: 0 });
      // The use is free again: another subscription takes it.
      expect(await redeem(q, f, coupon, 'sub_eu_c')).toEqual({ ok: true, couponTimesRedeemed: 2, promotionCodeTimesRedeemed: null });
      expect(await countsOf(coupon.id)).toEqual({ coupon: { timesRedeemed: 2, deleted: false }, codes: { [code.id]: { timesRedeemed: 0, active: true } }, subscriptions: 2 });
      await terminate(coupon.id);
    });
  });

  test('limits in time are judged by the request\'s `at`; the merchant\'s deactivation and deletion count at once', async () => {
    const f = fakes();
    const redeemBy = Date.parse('2026-08-01T00:00:00Z');
    const coupon: Coupon = { id: 'coupon_eu_time', maxRedemptions: null, redeemBy };
    const code = { id: 'promo_eu_time', maxRedemptions: null, expiresAt: Date.parse('2026-07-15T00:00:00Z'), active: true };
    await withWorker(f, async (q) => {
      expect(await redeem(q, f, coupon, 'sub_eu_t1', { at: redeemBy - 1 })).toMatchObject({ ok: true });
      expect(await redeem(q, f, coupon, 'sub_eu_t2', { at: redeemBy })).toMatchObject({ ok: false, code: 'coupon_expired' });
      expect(await redeem(q, f, coupon, 'sub_eu_t3', { at: code.expiresAt - 1, code })).toMatchObject({ ok: true, promotionCodeTimesRedeemed: 1 });
      expect(await redeem(q, f, coupon, 'sub_eu_t4', { at: code.expiresAt, code })).toMatchObject({ ok: false, code: 'promotion_code_expired' });
      expect(await redeem(q, f, coupon, 'sub_eu_t5', { code: { ...code, id: 'promo_eu_off', active: false } })).toMatchObject({ ok: false, code: 'promotion_code_inactive' });

      // Deactivated through the owner: refused even for a caller that read the record before the change.
      const onRecord = { active: true, timesRedeemed: 1, version: f.records.get(code.id)!.version };
      expect(await owner(coupon.id).executeUpdate(updatePromotionCodeUpdate, { args: [{ promotionCode: code.id, active: false, metadata: { note: 'paused' }, onRecord }] })).toEqual({
        active: false,
        timesRedeemed: 1,
      });
      expect(f.records.get(code.id)).toMatchObject({ active: false, times_redeemed: 1, metadata: { note: 'paused' } });
      expect(await redeem(q, f, coupon, 'sub_eu_t6', { at: code.expiresAt - 1, code })).toMatchObject({ ok: false, code: 'promotion_code_inactive' });

      // Deleted: no redemption after, and the record is marked.
      const at = Date.parse('2026-07-12T00:00:00Z');
      await owner(coupon.id).executeUpdate(deleteCouponUpdate, { args: [{ at, onRecord: { timesRedeemed: 2, version: f.records.get(coupon.id)!.version } }] });
      expect(f.records.get(coupon.id)).toMatchObject({ times_redeemed: 2, deleted_at: at });
      expect(await redeem(q, f, coupon, 'sub_eu_t7')).toMatchObject({ ok: false, code: 'resource_missing' });
      // One who had it keeps it (asked again: ok, not counted).
      expect(await redeem(q, f, coupon, 'sub_eu_t1')).toEqual({ ok: true, couponTimesRedeemed: 2, promotionCodeTimesRedeemed: null });
      await terminate(coupon.id);
    });
  });

  test('the counts, the subscriptions counted and the record versions carry across continue-as-new', async () => {
    const f = fakes();
    const coupon: Coupon = { id: 'coupon_eu_long', maxRedemptions: 10, redeemBy: null };
    const code = { id: 'promo_eu_long', maxRedemptions: 5, expiresAt: null, active: true };
    await withWorker(f, async (q) => {
      for (let i = 0; i < 3; i++) expect(await redeem(q, f, coupon, `sub_eu_l${i}`, { code })).toMatchObject({ ok: true });
      const firstRun = (await owner(coupon.id).describe()).runId;
      // Grow the run's history past its bound with redemptions that change nothing (the same subscriptions again).
      let batches = 0;
      while ((await owner(coupon.id).describe()).runId === firstRun) {
        if (++batches > 150) throw new Error('the run never continued as new');
        await Promise.all(Array.from({ length: 20 }, (_, i) => redeem(q, f, coupon, `sub_eu_l${i % 3}`, { code })));
      }
      expect(await countsOf(coupon.id)).toEqual({ coupon: { timesRedeemed: 3, deleted: false }, codes: { [code.id]: { timesRedeemed: 3, active: true } }, subscriptions: 3 });
      // The new run knows who was counted, counts on from 3, and writes above the versions written before.
      expect(await redeem(q, f, coupon, 'sub_eu_l0', { code })).toEqual({ ok: true, couponTimesRedeemed: 3, promotionCodeTimesRedeemed: 3 });
      expect(await redeem(q, f, coupon, 'sub_eu_l3', { code })).toEqual({ ok: true, couponTimesRedeemed: 4, promotionCodeTimesRedeemed: 4 });
      expect(await owner(coupon.id).executeUpdate(releaseUpdate, { args: [{ subscription: 'sub_eu_l1' }] })).toEqual({ released: true, couponTimesRedeemed: 3 });
      expect(f.records.get(coupon.id)).toMatchObject({ times_redeemed: 3 });
      expect(f.records.get(code.id)).toMatchObject({ times_redeemed: 3 });
      // Each record's writes rise across the runs, and every one was applied.
      for (const id of [coupon.id, code.id]) expectRising(f.writes.filter((w) => w.id === id).map((w) => w.version));
      expect(f.writes.every((w) => w.applied)).toBe(true);
      await terminate(coupon.id);
    });
  }, 120_000);

  test('closes after an idle period with its writes done; a later start counts on from the records', async () => {
    const f = fakes();
    const coupon: Coupon = { id: 'coupon_eu_idle', maxRedemptions: 3, redeemBy: null, idleCloseMs: HOUR };
    await withWorker(f, async (q) => {
      expect(await redeem(q, f, coupon, 'sub_eu_i1')).toMatchObject({ ok: true, couponTimesRedeemed: 1 });
      expect(await redeem(q, f, coupon, 'sub_eu_i2')).toMatchObject({ ok: true, couponTimesRedeemed: 2 });
      const firstRun = (await owner(coupon.id).describe()).runId;
      await testEnv().sleep(3 * HOUR);
      expect((await owner(coupon.id).describe()).status.name).toBe('COMPLETED');
      const closedAt = f.records.get(coupon.id)!;
      expect(closedAt).toEqual({ version: expect.any(Number), times_redeemed: 2 });
      keepHistory('coupon-redemptions-two-then-idle-close', await owner(coupon.id).fetchHistory());

      // Started again from the record: one use left, and its write goes above the record's version.
      const answers = await Promise.all([redeem(q, f, coupon, 'sub_eu_i3'), redeem(q, f, coupon, 'sub_eu_i4')]);
      expect(answers.filter((a) => a.ok)).toEqual([{ ok: true, couponTimesRedeemed: 3, promotionCodeTimesRedeemed: null }]);
      expect((await owner(coupon.id).describe()).runId).not.toBe(firstRun);
      expect(f.records.get(coupon.id)).toEqual({ version: expect.any(Number), times_redeemed: 3 });
      expect(f.records.get(coupon.id)!.version).toBeGreaterThan(closedAt.version);
      await terminate(coupon.id);
    });
  });

  test('an owner started again after an idle close gives back a redemption its caller vouches was counted, once; one it remembers ignores the figures', async () => {
    const f = fakes();
    const coupon: Coupon = { id: 'coupon_eu_vouched', maxRedemptions: 2, redeemBy: null, idleCloseMs: HOUR };
    const code = { id: 'promo_eu_vouched', maxRedemptions: 5, expiresAt: null, active: true };
    /** A release as the stranded-records sweep sends it: Update-with-Start, with what the records say now. */
    const giveBack = (q: string, subscription: string, promotionCode: string | null) => {
      const onRecord = f.records.get(coupon.id)!;
      const codeRecord = promotionCode ? f.records.get(promotionCode)! : null;
      const counted: CountedRedemption = {
        promotionCode,
        couponOnRecord: { timesRedeemed: onRecord.times_redeemed, version: onRecord.version },
        codeOnRecord: codeRecord ? { timesRedeemed: codeRecord.times_redeemed, version: codeRecord.version, active: codeRecord.active ?? true } : null,
      };
      return testEnv().client.workflow.executeUpdateWithStart(releaseUpdate, { args: [{ subscription, counted }], startWorkflowOperation: ownerStart(q, coupon) });
    };
    await withWorker(f, async (q) => {
      expect(await redeem(q, f, coupon, 'sub_eu_v1', { code })).toMatchObject({ ok: true, couponTimesRedeemed: 1, promotionCodeTimesRedeemed: 1 });
      expect(await redeem(q, f, coupon, 'sub_eu_v2')).toMatchObject({ ok: true, couponTimesRedeemed: 2 });
      // Remembered: given back as counted, whatever figures come with it.
      expect(await giveBack(q, 'sub_eu_v2', null)).toEqual({ released: true, couponTimesRedeemed: 1, countedHeard: true });
      expect(await giveBack(q, 'sub_eu_v2', null)).toEqual({ released: false, couponTimesRedeemed: 1, countedHeard: true });
      await testEnv().sleep(3 * HOUR);
      expect((await owner(coupon.id).describe()).status.name).toBe('COMPLETED');
      const closedAt = { coupon: f.records.get(coupon.id)!, code: f.records.get(code.id)! };
      expect(closedAt.coupon.times_redeemed).toBe(1);

      // A new run remembers nothing of sub_eu_v1; vouched, it gives it back from the records, on the code too.
      expect(await giveBack(q, 'sub_eu_v1', code.id)).toEqual({ released: true, couponTimesRedeemed: 0, countedHeard: true });
      expect(await giveBack(q, 'sub_eu_v1', code.id)).toEqual({ released: false, couponTimesRedeemed: 0, countedHeard: true });
      // Not vouched, an unknown subscription gives nothing back.
      expect(await owner(coupon.id).executeUpdate(releaseUpdate, { args: [{ subscription: 'sub_eu_never' }] })).toEqual({ released: false, couponTimesRedeemed: 0 });
      expect(f.records.get(coupon.id)).toEqual({ version: expect.any(Number), times_redeemed: 0 });
      expect(f.records.get(code.id)).toMatchObject({ times_redeemed: 0, active: true });
      expect(f.records.get(coupon.id)!.version).toBeGreaterThan(closedAt.coupon.version);
      expect(f.records.get(code.id)!.version).toBeGreaterThan(closedAt.code.version);
      // Both uses are free again.
      expect(await redeem(q, f, coupon, 'sub_eu_v3')).toMatchObject({ ok: true, couponTimesRedeemed: 1 });
      expect(await redeem(q, f, coupon, 'sub_eu_v4')).toMatchObject({ ok: true, couponTimesRedeemed: 2 });
      keepHistory('coupon-redemptions-vouched-give-back-after-idle-close', await owner(coupon.id).fetchHistory());
      await terminate(coupon.id);
    });
  });

  test('the count in memory wins over a stale count on record', async () => {
    const f = fakes();
    const coupon: Coupon = { id: 'coupon_eu_stale', maxRedemptions: 2, redeemBy: null };
    await withWorker(f, async (q) => {
      expect(await redeem(q, f, coupon, 'sub_eu_s1')).toMatchObject({ ok: true, couponTimesRedeemed: 1 });
      f.records.set(coupon.id, { version: 0, times_redeemed: 0 }); // a caller that read the record long ago
      expect(await redeem(q, f, coupon, 'sub_eu_s2')).toMatchObject({ ok: true, couponTimesRedeemed: 2 });
      expect(await redeem(q, f, coupon, 'sub_eu_s3')).toMatchObject({ ok: false, code: 'coupon_max_redemptions' });
      await terminate(coupon.id);
    });
  });
});
