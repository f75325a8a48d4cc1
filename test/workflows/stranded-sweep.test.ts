import { Worker } from '@temporalio/worker';
import type { StrandedSweepRequest, StrandedSweepResult } from '../../activities/stranded-records';
import type { StrandedKind } from '../../domain/stranded-kinds';
import { COUPON_REDEMPTIONS_WORKFLOW, couponRedemptionsWorkflowId, redemptionCountsQuery, type CouponRedemptionsInput } from '../../workflows/coupon-redemptions/messages';
import { SA } from '../../workflows/search-attributes';
import { STRANDED_SWEEP_WORKFLOW, type StrandedSweepOutcome } from '../../workflows/stranded-sweep/messages';
import { getWorkflowBundle, keepHistory, useWorkflowTestEnv } from './env';

// The stranded-records sweep's run in the time-skipping server: kind by kind, page after page from where the
// last one ended, until a page is the last; the totals, the first ids named, and PaymentStatus. The activity's
// own work (version-0 records, Temporal's answer, the delete and the second look) runs on the real stack in
// test/integration/stranded-records.test.ts; here it is a stand-in that answers as a backlog would.

const testEnv = useWorkflowTestEnv();

const none: StrandedSweepResult = { found: 0, takenBack: [], kept: 0, unknown: 0, putBack: 0, givenBack: 0, notGivenBack: 0, next: null };
const page = (r: Partial<StrandedSweepResult>, next: string | null = null): StrandedSweepResult => ({ ...none, ...r, next: next ? { createdAt: '2026-11-27T09:00:00.000Z', id: next } : null });

let n = 0;
async function run(
  batches: Partial<Record<StrandedKind, StrandedSweepResult[]>>,
  recordAs?: string,
  /** Activities of other workflows the run needs on its task queue, and what to start there before the sweep. */
  beside: { activities?: Record<string, (...args: never[]) => Promise<unknown>>; before?: (taskQueue: string) => Promise<void>; after?: () => Promise<void> } = {},
) {
  n += 1;
  const taskQueue = `stranded-${n}-${Date.now()}`;
  const asked: StrandedSweepRequest[] = [];
  const sweepStrandedRecords = async (req: StrandedSweepRequest) => {
    const k = asked.filter((a) => a.kind === req.kind).length;
    asked.push(req);
    return batches[req.kind]?.[k] ?? none;
  };
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities: { sweepStrandedRecords, ...beside.activities } });
  return worker.runUntil(async () => {
    await beside.before?.(taskQueue);
    const handle = await testEnv().client.workflow.start(STRANDED_SWEEP_WORKFLOW, {
      workflowId: `stranded-sweep-${n}-${Date.now()}`,
      taskQueue,
      args: [{ olderThanSeconds: 300 }],
      typedSearchAttributes: [{ key: SA.PaymentStatus, value: 'running' }],
    });
    const outcome = (await handle.result()) as StrandedSweepOutcome;
    const described = await handle.describe();
    if (recordAs) keepHistory(recordAs, await handle.fetchHistory());
    await beside.after?.();
    return { outcome, asked, status: described.typedSearchAttributes.get(SA.PaymentStatus) };
  });
}

const ids = (prefix: string, k: number) => Array.from({ length: k }, (_, i) => `pi_eu_${prefix}${String(i).padStart(4, '0')}`);
const clean = { found: 0, takenBack: 0, kept: 0, unknown: 0, putBack: 0, released: 0, notGivenBack: 0, ownerClosed: 0, named: [] };

test('a backlog is swept page after page until the last, kind after kind; totals add up and the first 20 ids are named', async () => {
  const r = await run(
    {
      payment_intent: [
        page({ found: 200, takenBack: ids('a', 197), kept: 2, putBack: 1 }, 'pi_eu_a0199'),
        page({ found: 200, takenBack: ids('b', 200) }, 'pi_eu_b0199'),
        page({ found: 37, takenBack: ids('c', 35), kept: 2 }),
        page({ found: 200, takenBack: ids('d', 200) }, 'pi_eu_d0199'), // never asked: the third page was the last
      ],
      payout: [page({ found: 1, takenBack: ['5b7c3a4e-0000-4000-8000-000000000001'] })],
    },
    'stranded-sweep-backlog-taken-back',
  );
  expect(r.asked.map((a) => [a.kind, a.after?.id ?? null])).toEqual([
    ['payment_intent', null],
    ['payment_intent', 'pi_eu_a0199'],
    ['payment_intent', 'pi_eu_b0199'],
    ['payout', null],
    ['checkout', null],
    ['test_clock', null],
    ['subscription', null],
  ]);
  expect(r.asked.every((a) => a.olderThanSeconds === 300 && a.limit === 200 && a.recheckAfterMs === 30_000)).toBe(true);
  expect(r.outcome).toEqual({
    payment_intent: { ...clean, found: 437, takenBack: 432, kept: 4, putBack: 1, named: ids('a', 20) },
    payout: { ...clean, found: 1, takenBack: 1, named: ['5b7c3a4e-0000-4000-8000-000000000001'] },
    checkout: clean,
    test_clock: clean,
    subscription: clean,
  });
  expect(r.status).toBe('taken_back');
});

test('a full page of records whose workflow exists does not hide the stranded ones after it', async () => {
  const r = await run({
    payment_intent: [page({ found: 200, kept: 150, unknown: 50 }, 'pi_eu_k0199'), page({ found: 3, takenBack: ids('x', 3) })],
  });
  expect(r.asked.map((a) => [a.kind, a.after?.id ?? null])).toEqual([
    ['payment_intent', null],
    ['payment_intent', 'pi_eu_k0199'],
    ['payout', null],
    ['checkout', null],
    ['test_clock', null],
    ['subscription', null],
  ]);
  expect(r.outcome).toEqual({ payment_intent: { ...clean, found: 203, takenBack: 3, kept: 150, unknown: 50, named: ids('x', 3) }, payout: clean, checkout: clean, test_clock: clean, subscription: clean });
  expect(r.status).toBe('taken_back');
});

test('nothing stranded: clean', async () => {
  const r = await run({ payment_intent: [page({ found: 2, kept: 2 })] });
  expect(r.outcome).toEqual({ payment_intent: { ...clean, found: 2, kept: 2 }, payout: clean, checkout: clean, test_clock: clean, subscription: clean });
  expect(r.status).toBe('clean');
});

test('results recorded before the activity gave back name the redemptions: signalled to the coupon’s owner if it runs; a closed owner’s count stays', async () => {
  const coupon = `coupon_eu_sweep${Date.now()}`;
  const writes: { version: number; timesRedeemed: number }[] = [];
  const saveCouponRedemptions = async (w: { version: number; timesRedeemed: number }) => void writes.push({ version: w.version, timesRedeemed: w.timesRedeemed });
  const owner = () => testEnv().client.workflow.getHandle(couponRedemptionsWorkflowId(coupon));
  const r = await run(
    {
      subscription: [
        page({
          found: 3,
          takenBack: ['sub_eu_stranded1', 'sub_eu_stranded2', 'sub_eu_plain'],
          discounts: [
            { subscription: 'sub_eu_stranded1', coupon },
            { subscription: 'sub_eu_stranded2', coupon: 'coupon_eu_closedowner' },
          ],
        }),
      ],
    },
    'stranded-sweep-subscription-redemption-given-back',
    {
      activities: { saveCouponRedemptions, savePromotionCodeRedemptions: async () => undefined },
      // The coupon's owner runs, remembering two subscriptions it counted (one of them stranded).
      before: async (taskQueue) => {
        const input: CouponRedemptionsInput = {
          tenantId: 'ten_sweep',
          couponId: coupon,
          carried: { coupon: { timesRedeemed: 2, version: 7, deletedAt: null }, codes: [], redemptions: [['sub_eu_kept', null], ['sub_eu_stranded1', null]] },
        };
        await testEnv().client.workflow.start(COUPON_REDEMPTIONS_WORKFLOW, { workflowId: couponRedemptionsWorkflowId(coupon), taskQueue, args: [input] });
      },
      // While the worker still runs: the owner counts one now, and has written it to the coupon's record.
      after: async () => {
        expect(await owner().query(redemptionCountsQuery)).toMatchObject({ coupon: { timesRedeemed: 1 }, subscriptions: 1 });
        for (let i = 0; i < 100 && writes.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
        expect(writes).toEqual([{ version: expect.any(Number), timesRedeemed: 1 }]);
        expect(writes[0]!.version).toBeGreaterThan(7);
        await owner().terminate('test done').catch(() => undefined); // it may have closed idle by now (time skips)
      },
    },
  );
  expect(r.outcome.subscription).toEqual({ ...clean, found: 3, takenBack: 3, released: 1, ownerClosed: 1, named: ['sub_eu_stranded1', 'sub_eu_stranded2', 'sub_eu_plain'] });
});

test('the coupon redemptions the activity gave back are added up page by page', async () => {
  const r = await run(
    {
      subscription: [
        page({ found: 200, takenBack: ['sub_eu_s1', 'sub_eu_s2'], kept: 198, givenBack: 1, notGivenBack: 1 }, 'sub_eu_k0199'),
        page({ found: 2, takenBack: ['sub_eu_s3', 'sub_eu_plain'], givenBack: 1 }),
      ],
    },
    'stranded-sweep-redemptions-given-back-by-the-activity',
  );
  expect(r.outcome.subscription).toEqual({ ...clean, found: 202, takenBack: 4, kept: 198, released: 2, notGivenBack: 1, named: ['sub_eu_s1', 'sub_eu_s2', 'sub_eu_s3', 'sub_eu_plain'] });
  expect(r.status).toBe('taken_back');
});
