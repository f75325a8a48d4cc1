import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { PAYOUT_LIKE_WORKFLOW, payoutLikeActivities } from './fixtures/versioning/activities';
import { useWorkflowTestEnv } from './env';

// docs/versioning.md, executed: histories of a workflow's older code replay against a changed workflow
// when the change is behind patched() (and later deprecatePatch), and fail with a nondeterminism error when
// it is not. Each version is bundled from test/workflows/fixtures/versioning/; v1 and v2 runs are recorded on
// the time-skipping server (the hour's wait is skipped), and with RECORD_HISTORIES=1 also kept beside the
// fixtures, whose stored copies are replayed as well: a history recorded from code that no longer exists.

const testEnv = useWorkflowTestEnv();
const FIXTURES = path.join(__dirname, 'fixtures', 'versioning');
type Version = 'v1' | 'v2' | 'v2-unpatched' | 'v3' | 'v1-gateway-queue';
type History = temporal.api.history.v1.History;

const bundles = new Map<Version, { code: string }>();
async function bundle(version: Version): Promise<{ code: string }> {
  let b = bundles.get(version);
  if (!b) {
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(FIXTURES, `${version}.ts`),
      logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
    });
    bundles.set(version, (b = { code }));
  }
  return b;
}

/** Runs the fixture workflow to its end under one version's code and returns its history. */
async function record(version: Version, amount: number): Promise<History> {
  const env = testEnv();
  const taskQueue = `versioning-${version}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await bundle(version), activities: payoutLikeActivities });
  const history = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(PAYOUT_LIKE_WORKFLOW, { workflowId: `versioning-${version}-${Date.now()}`, taskQueue, args: [amount] });
    expect(await handle.result()).toBe(`tr_res_${amount}`);
    return handle.fetchHistory();
  });
  const h = temporal.api.history.v1.History.fromObject(history as object);
  if (process.env.RECORD_HISTORIES === '1') writeFileSync(path.join(FIXTURES, `${version}-history.bin`), temporal.api.history.v1.History.encode(h).finish());
  return h;
}

/** The run recorded now, and the copy stored by an earlier RECORD_HISTORIES=1 run (when there is one). */
const histories = new Map<'v1' | 'v2', History[]>();
beforeAll(async () => {
  for (const [version, amount] of [['v1', 500], ['v2', 700]] as const) {
    const stored = path.join(FIXTURES, `${version}-history.bin`);
    const kept = existsSync(stored) ? [temporal.api.history.v1.History.decode(readFileSync(stored))] : [];
    histories.set(version, [await record(version, amount), ...kept]);
  }
}, 120_000);

const replay = async (version: Version, history: History) => Worker.runReplayHistory({ workflowBundle: await bundle(version) }, history, `replay-on-${version}`);
const markers = (h: History) => (h.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
const activityTypes = (h: History) => (h.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));

test('the fixtures are what the story says: v1 runs have no patch marker and no screening, v2 runs have both', () => {
  for (const h of histories.get('v1')!) expect([markers(h), activityTypes(h)]).toEqual([0, ['reserve', 'transfer']]);
  for (const h of histories.get('v2')!) expect([markers(h), activityTypes(h)]).toEqual([1, ['reserve', 'screen', 'transfer']]);
});

test('a v1 history replays against v2, whose new step is behind patched()', async () => {
  for (const h of histories.get('v1')!) await replay('v2', h);
});

test('a v1 history fails against the same step added without a patch: a nondeterminism error', async () => {
  for (const h of histories.get('v1')!) {
    await expect(replay('v2-unpatched', h)).rejects.toThrow(DeterminismViolationError);
    await expect(replay('v2-unpatched', h)).rejects.toThrow(/nondeterminism/i);
  }
});

test('after v1 runs are gone: a v2 history replays against v3 (deprecatePatch, the step unconditional); a v1 history would not', async () => {
  for (const h of histories.get('v2')!) await replay('v3', h);
  for (const h of histories.get('v1')!) await expect(replay('v3', h)).rejects.toThrow(DeterminismViolationError);
});

test('moving an activity to another task queue (a per-gateway queue) is not a command change: a v1 history replays', async () => {
  for (const h of histories.get('v1')!) await replay('v1-gateway-queue', h);
});

test('each version replays its own history (the harness itself is sound)', async () => {
  for (const h of histories.get('v1')!) await replay('v1', h);
  for (const h of histories.get('v2')!) await replay('v2', h);
});
