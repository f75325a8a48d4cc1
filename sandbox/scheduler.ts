// Owns every timer and wait the sandbox starts, so close() can stop them all: delayed completions, callback
// retries, injected latency and requests that are meant never to be answered.

export class SandboxClosedError extends Error {
  constructor() {
    super('sandbox is closed');
    this.name = 'SandboxClosedError';
  }
}

export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly wakers = new Set<(closed: boolean) => void>();
  private closed = false;

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs fn after ms; errors are handed to onError so a background job never crashes the process. */
  after(ms: number, fn: () => void | Promise<void>, onError: (err: unknown) => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      Promise.resolve()
        .then(fn)
        .catch(onError);
    }, ms);
    // Background work alone should not keep a process (or a test runner) alive.
    timer.unref();
    this.timers.add(timer);
  }

  /** Resolves after ms; rejects with SandboxClosedError if the sandbox closes first. */
  sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.reject(new SandboxClosedError());
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const wake = (closed: boolean) => {
        clearTimeout(timer);
        this.timers.delete(timer);
        this.wakers.delete(wake);
        if (closed) reject(new SandboxClosedError());
        else resolve();
      };
      const timer = setTimeout(() => wake(false), ms);
      this.timers.add(timer);
      this.wakers.add(wake);
    });
  }

  /** Waits until `signal` aborts or the sandbox closes; used for requests that never get an answer. */
  hang(signal: AbortSignal): Promise<void> {
    if (this.closed || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.wakers.delete(wake);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => wake();
      signal.addEventListener('abort', onAbort);
      this.wakers.add(wake);
    });
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const wake of [...this.wakers]) wake(true);
    this.wakers.clear();
  }
}
