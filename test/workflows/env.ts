import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../../platform/search-attributes';
import { writeHistory } from './recorded-histories';

const TEST_SERVER = path.join(__dirname, '..', '..', '.tools', 'bin', 'temporal-test-server');

const SA_TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Datetime: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  Text: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Double: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * The time-skipping test server with our custom search attributes registered: it rejects unregistered
 * ones (the workflow task fails and the test hangs), so registration comes before any worker runs.
 */
export async function createWorkflowTestEnv(): Promise<TestWorkflowEnvironment> {
  // Workers log every state change at INFO; tests only want warnings. Once per test file process.
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    /* already installed in this process */
  }
  let env: TestWorkflowEnvironment;
  try {
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });
  } catch (err) {
    throw new Error(`time-skipping test server at ${TEST_SERVER} did not start (run 'bash scripts/provision.sh'): ${String(err)}`);
  }
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, SA_TYPES[type]!])),
  });
  return env;
}

/** The bundle test/workflows/global-setup.ts built once for this run. */
export function getWorkflowBundle(): { code: string } {
  const file = process.env.PAYORCH_WORKFLOW_BUNDLE;
  if (!file) throw new Error('PAYORCH_WORKFLOW_BUNDLE is not set: run workflow tests through jest');
  return { code: readFileSync(file, 'utf8') };
}

/**
 * Registers Jest hooks that give each test file (or, with `perTest`, each test) its own test server.
 * Returns a getter: the environment exists only once the hooks have run.
 */
export function useWorkflowTestEnv(opts: { perTest?: boolean } = {}): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  const [before, after] = opts.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    env = await createWorkflowTestEnv();
  }, 60_000);
  after(async () => {
    await env?.teardown();
  });
  return () => {
    if (!env) throw new Error('the workflow test environment is not up yet');
    return env;
  };
}

/**
 * With RECORD_HISTORIES=1, keeps a run's history as `histories/<file>.bin`, a fixture that
 * replay-recorded-histories.test.ts replays against later code. Does nothing otherwise.
 */
export function keepHistory(file: string, history: temporal.api.history.v1.IHistory): void {
  if (process.env.RECORD_HISTORIES !== '1') return;
  writeHistory(`${file}.bin`, history);
}

/** A record's writes, in the order they landed: each version above the one before, the first above `after` (the record's). */
export function expectRising(versions: number[], after = 0): void {
  expect(versions.map((v, i) => v > (i === 0 ? after : versions[i - 1]!))).toEqual(versions.map(() => true));
}

/** A promise a test settles when it chooses: `open(value)` resolves it, `fail(err)` rejects it. */
export function gate<T = void>(): { p: Promise<T>; open: (value: T) => void; fail: (err: unknown) => void } {
  let open!: (value: T) => void;
  let fail!: (err: unknown) => void;
  const p = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { p, open, fail };
}

/** Polls `check` every 20 ms until it holds; throws after `timeoutMs` so a broken workflow fails the test, not hangs it. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}
