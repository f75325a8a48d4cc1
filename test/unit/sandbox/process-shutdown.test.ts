// The sandbox as a process, run the way launchers run it (`--import tsx`, stdout and stderr piped): it stops
// within 5 s of SIGTERM with a never-answered charge and a keep-alive connection open, and when the launcher
// that started it dies (even by SIGKILL) it neither lives on as an orphan nor ignores SIGTERM.

import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../../platform/free-port';
import { eventually, isRunning } from '../../processes';

jest.setTimeout(30_000);

const ROOT = path.join(__dirname, '..', '..', '..');
const ENTRY = path.join(ROOT, 'sandbox', 'main.ts');
/** What the issue asks; the sandbox itself takes well under a second. */
const STOP_WITHIN_MS = 5000;

const children: ChildProcess[] = [];
const agents: http.Agent[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.destroy();
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const pid of pids.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
});

function sandboxEnv(port: number): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: 'development', SANDBOX_PORT: String(port), SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'info' };
}

/** Milliseconds until `pid` is no longer running; fails past STOP_WITHIN_MS. */
async function msUntilGone(pid: number): Promise<number> {
  const started = Date.now();
  await eventually(`process ${pid} was expected to exit`, () => !isRunning(pid), STOP_WITHIN_MS);
  return Date.now() - started;
}

async function getJson(port: number, pathAndQuery: string): Promise<{ status: number; body: { count?: number } }> {
  const res = await fetch(`http://127.0.0.1:${port}${pathAndQuery}`, { signal: AbortSignal.timeout(1000) });
  return { status: res.status, body: await res.json() };
}

const up = (port: number) => getJson(port, '/healthz').then((r) => r.status === 200, () => false);

/**
 * A tok_timeout charge: the sandbox records it and never answers. Resolves once the sandbox holds it; `ended`
 * settles when the connection is closed under the client (the only way such a request ends).
 */
async function hungCharge(port: number): Promise<{ ended: Promise<string> }> {
  const key = `hang_${port}`;
  const body = JSON.stringify({
    idempotency_key: key,
    token: 'tok_timeout',
    amount: 1000,
    currency: 'EUR',
    callback_url: 'http://127.0.0.1:9/callbacks',
    return_url: 'http://127.0.0.1:9/return',
  });
  const ended = new Promise<string>((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/charges', agent: false, headers: { 'content-type': 'application/json' } });
    req.on('response', (res) => resolve(`answered ${res.statusCode}`));
    req.on('error', (err) => resolve(`connection closed (${(err as NodeJS.ErrnoException).code ?? err.message})`));
    req.end(body);
  });
  await eventually('the sandbox was expected to record the tok_timeout charge', async () => (await getJson(port, `/v1/effects?idempotency_key=${key}`)).body.count === 1, 10_000);
  return { ended };
}

/** A keep-alive connection left open and idle after one request. Resolves `closed` when the server drops it. */
async function keepAliveConnection(port: number): Promise<{ closed: Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  let closed!: Promise<void>;
  await new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('socket', (socket) => (closed = new Promise((r) => socket.once('close', () => r()))));
    req.on('error', reject);
  });
  return { closed };
}

/**
 * A launcher process (like `npm run dev`) that starts the sandbox with its output piped to itself, forked with
 * an IPC channel or spawned without one, and prints the sandbox's pid. Killing it leaves the sandbox orphaned
 * with stdout and stderr pipes nobody reads.
 */
async function launchThroughParent(port: number, ipc: boolean): Promise<{ launcher: ChildProcess; sandboxPid: number }> {
  const code = `
    const { fork, spawn } = require('node:child_process');
    const [entry, ipc] = process.argv.slice(1);
    const child = ipc === 'ipc'
      ? fork(entry, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
      : spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    process.stdout.write(child.pid + '\\n');
  `;
  const launcher = spawn(process.execPath, ['-e', code, ENTRY, ipc ? 'ipc' : 'plain'], { cwd: ROOT, env: sandboxEnv(port), stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(launcher);
  const sandboxPid = await new Promise<number>((resolve, reject) => {
    launcher.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    launcher.once('exit', (c) => reject(new Error(`launcher exited with ${c}`)));
  });
  pids.push(sandboxPid);
  await eventually('the sandbox was expected to listen', () => up(port), 20_000);
  return { launcher, sandboxPid };
}

async function killLauncher(launcher: ChildProcess): Promise<void> {
  const exited = new Promise((r) => launcher.once('exit', r));
  launcher.kill('SIGKILL');
  await exited;
}

test('stops within 5 s of SIGTERM while a tok_timeout charge hangs and a keep-alive connection is open', async () => {
  const port = await freePort();
  const sandbox = spawn(process.execPath, ['--import', 'tsx', ENTRY], { cwd: ROOT, env: sandboxEnv(port), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  children.push(sandbox);
  sandbox.stdout!.resume();
  sandbox.stderr!.resume();
  const exit = new Promise<{ code: number | null; signal: string | null }>((r) => sandbox.once('exit', (code, signal) => r({ code, signal })));
  await eventually('the sandbox was expected to listen', () => up(port), 20_000);
  const charge = await hungCharge(port);
  const idle = await keepAliveConnection(port);

  sandbox.kill('SIGTERM');
  await msUntilGone(sandbox.pid!);

  expect(await exit).toEqual({ code: 0, signal: null }); // a clean exit, not a crash
  expect(await charge.ended).toMatch(/^connection closed/); // dropped unanswered, as a gateway that never answers
  await idle.closed;
});

test('stops by itself within 5 s when the launcher that forked it is killed (SIGKILL)', async () => {
  const port = await freePort();
  const { launcher, sandboxPid } = await launchThroughParent(port, true);
  const charge = await hungCharge(port); // its shutdown has lines to log, into pipes nobody reads any more

  await killLauncher(launcher);
  await msUntilGone(sandboxPid);

  expect(await charge.ended).toMatch(/^connection closed/);
  expect(await up(port)).toBe(false);
});

test('stops within 5 s of SIGTERM when its launcher is gone and nobody reads its output', async () => {
  const port = await freePort();
  const { launcher, sandboxPid } = await launchThroughParent(port, false); // no IPC channel to notice the launcher by
  const charge = await hungCharge(port);
  await keepAliveConnection(port);
  await killLauncher(launcher);
  expect(isRunning(sandboxPid)).toBe(true); // an orphan now: only a signal stops it

  process.kill(sandboxPid, 'SIGTERM');
  await msUntilGone(sandboxPid);

  expect(await charge.ended).toMatch(/^connection closed/);
});
