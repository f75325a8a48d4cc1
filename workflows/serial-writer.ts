import { workflowInfo } from '@temporalio/workflow';

/**
 * A workflow's writes of its own MongoDB record: one at a time, each with a higher version, so the read
 * model never moves backwards, even on a server that does not make concurrent updates of one document
 * atomic. The patch is built when the write is asked for, from the state at that moment.
 *
 * `floor`: the least version the next write may take (by default historyFloor(startVersion)). A workflow task
 * whose worker died after its local activities wrote, but before the task completed, is run again, and may
 * then see more (an Update that arrived meanwhile): numbered from the same counter, its writes would reuse the
 * dead attempt's versions and be refused as stale. A floor that grows with the history (every retried task
 * adds events) numbers them above.
 */
export function serialWriter<P extends { version: number }>(
  startVersion: number,
  save: (patch: P) => Promise<unknown>,
  floor: () => number = historyFloor(startVersion),
) {
  let version = startVersion;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    /** `saveWith`: this write goes through another activity (one that writes more beside the record). */
    write(patch: Omit<P, 'version'>, saveWith: (patch: P) => Promise<unknown> = save): Promise<unknown> {
      version = Math.max(version + 1, floor());
      const versioned = { ...patch, version } as P;
      chain = chain.then(() => saveWith(versioned));
      return chain;
    },
    /** Resolves when every write asked for so far is done. */
    flushed: (): Promise<unknown> => chain,
    version: (): number => version,
  };
}

/**
 * The floor every workflow gives its writer: `base` (the version its run started from) plus 1,000 per event of
 * history. A retried task's history holds the failed attempt's events, and no task makes 1,000 writes, so it
 * numbers above every write the dead attempt made. Deterministic on replay; only a workflow may call it.
 */
export const historyFloor = (base: number) => (): number => base + workflowInfo().historyLength * 1000;
