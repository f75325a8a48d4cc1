// The launcher (`npm run dev`, startStack) leaves nothing running that it started: not after a start that
// fails (a configuration the API refuses, a port already taken), and not after being killed outright. Own
// processes on free ports; each launch carries a unique mark in its environment so that every descendant
// can be found afterwards, whoever its parent is by then.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../platform/free-port';
import { ROOT } from '../../scripts/stack';
import { eventually, isRunning, runningWithEnv } from '../processes';

jest.setTimeout(180_000);

const MARK = 'PAYORCH_LAUNCHER_TEST';
const SHORT_TOKEN = 'too-short'; // ADMIN_API_TOKEN needs 24 characters: the API and the worker exit 78

const scratches: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'payorch-launcher-'));
  scratches.push(dir);
  return dir;
};

// Whatever a failing test leaves running is killed afterwards (found by its mark), and the scratch directories go.
const marks: string[] = [];
const newMark = () => {
  const mark = randomUUID();
  marks.push(mark);
  return mark;
};
afterAll(() => {
  for (const mark of marks) for (const { pid } of runningWithEnv(MARK, mark)) process.kill(pid, 'SIGKILL');
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

/** Whether something could listen on `port` (127.0.0.1) right now. */
const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** A port held by someone else for the duration of a test. */
async function occupyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { port: (srv.address() as net.AddressInfo).port, release: () => new Promise((r) => srv.close(() => r())) };
}

/** Runs scripts/dev.ts to its end (it must end: the start fails) and returns its exit code and output. */
async function runDev(env: Record<string, string>): Promise<{ code: number | null; stderr: string; mark: string }> {
  const mark = newMark();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'dev.ts')], {
    cwd: ROOT,
    env: { ...process.env, DEV_DATA_DIR: scratch(), ...env, [MARK]: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout!.resume();
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr, mark };
}

type Launch = { pids: Record<string, number> } | { error: string; leftovers: Array<{ pid: number; command: string }> };

/** Starts test/integration/fixtures/launch-stack.ts with a fresh mark; resolves with the line it prints. */
async function launch(args: string[], env: Record<string, string> = {}): Promise<{ launcher: ChildProcess; result: Launch; mark: string; exited: Promise<number | null> }> {
  const mark = newMark();
  const launcher = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'launch-stack.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, [MARK]: mark },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', resolve));
  const result = await new Promise<Launch>((resolve, reject) => {
    let out = '';
    launcher.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as Launch);
    });
    void exited.then((code) => reject(new Error(`the launcher exited with ${code} without a word`)));
  });
  return { launcher, result, mark, exited };
}

describe('startStack, when a part fails to start', () => {
  test('the API refusing its configuration (exit 78): rejects, and stops every process it had started', async () => {
    const dir = scratch();
    const [apiPort, uiPort] = [await freePort(), await freePort()];

    const { result, mark, exited } = await launch([dir, String(uiPort), String(apiPort)], { ADMIN_API_TOKEN: SHORT_TOKEN });

    expect(result).toEqual({ error: expect.stringMatching(/exited with 78 during start/), leftovers: [] });
    // It had got as far as starting every process before the API (and the worker) refused.
    expect(readdirSync(path.join(dir, 'logs')).sort()).toEqual(['api.log', 'ferretdb.log', 'sandbox.log', 'temporal.log', 'worker.log']);
    expect(await exited).toBe(1);
    // (A stopped child's own helper, tsx's esbuild service, exits a moment after it.)
    await eventually('no process of this launch left', () => runningWithEnv(MARK, mark).length === 0, 3000);
    expect(await portFree(apiPort)).toBe(true);
    expect(await portFree(uiPort)).toBe(true);
  });

  test('the Temporal UI port already taken: rejects naming the port, and stops FerretDB started alongside', async () => {
    const dir = scratch();
    const taken = await occupyPort();
    try {
      const { result, mark, exited } = await launch([dir, String(taken.port)]);

      expect(result).toEqual({ error: expect.stringMatching(new RegExp(`Temporal dev server exited[\\s\\S]*${taken.port}`)), leftovers: [] });
      expect(readdirSync(path.join(dir, 'logs')).sort()).toEqual(['ferretdb.log', 'temporal.log']);
      expect(await exited).toBe(1);
      expect(runningWithEnv(MARK, mark)).toEqual([]);
    } finally {
      await taken.release();
    }
  });
});

describe('npm run dev (scripts/dev.ts), when it cannot start', () => {
  test('the Temporal UI port already taken: exits 1 naming the port and what to do, and leaves nothing running', async () => {
    const taken = await occupyPort();
    try {
      const dev = await runDev({ PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(taken.port) });

      expect(dev.code).toBe(1);
      expect(dev.stderr).toContain(`npm run dev could not start: port ${taken.port} (Temporal UI, TEMPORAL_UI_PORT) is already in use`);
      expect(dev.stderr).toContain('Is another `npm run dev` still running?');
      expect(runningWithEnv(MARK, dev.mark)).toEqual([]);
    } finally {
      await taken.release();
    }
  });

  test('an ADMIN_API_TOKEN the API would refuse: exits 1 naming the variable, and leaves nothing running', async () => {
    const dev = await runDev({ PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()), ADMIN_API_TOKEN: SHORT_TOKEN });

    expect(dev.code).toBe(1);
    expect(dev.stderr).toMatch(/npm run dev could not start: invalid configuration:\s+ADMIN_API_TOKEN: must be at least 24 characters/);
    expect(runningWithEnv(MARK, dev.mark)).toEqual([]);
  });

  test('a gateway the registry does not know (GATEWAY_RATE_LIMITS): exits 1 naming it before starting anything', async () => {
    const dataDir = scratch();
    const dev = await runDev({ PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()), DEV_DATA_DIR: dataDir, GATEWAY_RATE_LIMITS: 'stripe=5' });

    expect(dev.code).toBe(1);
    expect(dev.stderr).toMatch(/npm run dev could not start: gateway "stripe" \(WORKER_QUEUES or GATEWAY_RATE_LIMITS\) is not registered/);
    expect(readdirSync(dataDir)).not.toContain('logs'); // nothing was started, so nothing logged
    expect(runningWithEnv(MARK, dev.mark)).toEqual([]);
  });
});

test('a launcher killed outright (SIGKILL) after a full start: every process it started exits by itself', async () => {
  const uiPort = await freePort();
  const { launcher, result, mark } = await launch([scratch(), String(uiPort)]);
  if (!('pids' in result)) throw new Error(`the stack did not start: ${result.error}`);
  const { pids } = result;
  expect(Object.keys(pids).sort()).toEqual(['api', 'ferretdb', 'sandbox', 'temporal', 'worker']);

  launcher.kill('SIGKILL');

  // The TypeScript processes notice their IPC channel closing; the servers get the parent-death signal.
  // Generous: the worker drains and Temporal shuts down in its own time; this is not a speed figure.
  const stillRunning = () => Object.entries(pids).filter(([, pid]) => isRunning(pid)).map(([name]) => name);
  await eventually('every process of the killed launcher was expected to exit', () => stillRunning().length === 0, 60_000).catch(() => undefined);
  expect(stillRunning()).toEqual([]);
  expect(runningWithEnv(MARK, mark)).toEqual([]);
  expect(await portFree(uiPort)).toBe(true);
});

test('`npm run dev` stopped by SIGTERM sent to npm (a supervisor, `timeout`): the launcher hears it and nothing is left running', async () => {
  const mark = newMark();
  const [port, uiPort, sandboxPort] = [await freePort(), await freePort(), await freePort()];
  const npm = spawn('npm', ['run', '--silent', 'dev'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), TEMPORAL_UI_PORT: String(uiPort), SANDBOX_PORT: String(sandboxPort), DEV_DATA_DIR: scratch(), [MARK]: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  npm.stderr!.resume();
  await new Promise<void>((resolve, reject) => {
    let out = '';
    npm.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ctrl-C stops everything')) resolve();
    });
    npm.once('exit', (code) => reject(new Error(`npm run dev exited with ${code} before its banner`)));
  });
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

  npm.kill('SIGTERM'); // npm passes it on to its script's shell, which (exec) is the launcher itself
  await eventually('every process of `npm run dev` was expected to exit', () => runningWithEnv(MARK, mark).length === 0, 60_000).catch(() => undefined);
  expect(runningWithEnv(MARK, mark)).toEqual([]);
  expect(await portFree(port)).toBe(true);
});
