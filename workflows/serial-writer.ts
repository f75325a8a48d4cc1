/**
 * A workflow's writes of its own MongoDB record: one at a time, each with a higher version, so the read
 * model never moves backwards, even on a server that does not make concurrent updates of one document
 * atomic. The patch is built when the write is asked for, from the state at that moment.
 */
export function serialWriter<P extends { version: number }>(startVersion: number, save: (patch: P) => Promise<unknown>) {
  let version = startVersion;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    /** `saveWith`: this write goes through another activity (one that writes more beside the record). */
    write(patch: Omit<P, 'version'>, saveWith: (patch: P) => Promise<unknown> = save): Promise<unknown> {
      version += 1;
      const versioned = { ...patch, version } as P;
      chain = chain.then(() => saveWith(versioned));
      return chain;
    },
    /** Resolves when every write asked for so far is done. */
    flushed: (): Promise<unknown> => chain,
    version: (): number => version,
  };
}
