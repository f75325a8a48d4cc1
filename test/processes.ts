import { readdirSync, readFileSync } from 'node:fs';

// Whether processes are still running, for tests about what a stopped or killed launcher leaves behind.
// Linux /proc: the test machines are Debian.

/** Alive and not a zombie: an orphan that exited stays a zombie until its new parent reaps it. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false; // gone between the two checks
  }
}

/**
 * Running processes whose environment holds `NAME=value`: every descendant of a launcher started with a
 * unique mark in its environment, whoever its parent is by now (spawned and forked children inherit it).
 */
export function runningWithEnv(name: string, value: string): Array<{ pid: number; command: string }> {
  const needle = `${name}=${value}`;
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle)) continue;
      if (!isRunning(pid)) continue;
      found.push({ pid, command: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/** The parent pid of a process, or null when it is gone. */
export function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The caller's own tsx helper (its esbuild service child), which lives as long as the caller does. */
export function isOwnTsxHelper(p: { pid: number; command: string }): boolean {
  return parentOf(p.pid) === process.pid && /esbuild\S* --service/.test(p.command);
}

/** Polls `check` until it holds; fails naming `what` after timeoutMs. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
