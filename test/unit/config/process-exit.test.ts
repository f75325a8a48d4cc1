import { spawn } from 'node:child_process';
import path from 'node:path';
import { configSchema } from '../../../platform/config';
import { sandboxEnvSchema } from '../../../sandbox/config';

// The real entry points: a wrong or missing value stops them before touching any server, with EX_CONFIG (78)
// and a message naming the variable. No NODE_ENV means production.

const ROOT = path.join(__dirname, '..', '..', '..');

/** This shell's environment without anything our processes read (Jest itself sets NODE_ENV=test). */
function bareEnv(): Record<string, string> {
  const ours = new Set([...Object.keys(configSchema.shape), ...Object.keys(sandboxEnvSchema.shape)]);
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !ours.has(e[0])));
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Unreachable dependencies on purpose: if config were accepted, the process would hang or fail differently.
 * `until` ends the process (SIGKILL) once its output matches, for entries that are expected to start.
 */
function run(entry: string, env: Record<string, string>, until?: RegExp): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: ROOT,
      env: { ...bareEnv(), MONGODB_URI: 'mongodb://127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const check = () => {
      if (until && until.test(stdout)) child.kill('SIGKILL');
    };
    child.stdout.on('data', (c: Buffer) => ((stdout += c.toString()), check()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const DEV = { NODE_ENV: 'development' };

test.each(['api/main.ts', 'worker/main.ts'])('%s with PORT=abc exits 78 naming PORT', async (entry) => {
  const r = await run(entry, { ...DEV, PORT: 'abc' });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/invalid configuration/);
  expect(r.stderr).toMatch(/^\s+PORT: /m);
}, 40_000);

test.each(['api/main.ts', 'worker/main.ts'])('%s with a TLS file it cannot read exits 78 naming the variable, before any connection', async (entry) => {
  const r = await run(entry, { ...DEV, TEMPORAL_TLS_CA_PATH: '/nonexistent/ca.pem' });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/invalid configuration:\s+TEMPORAL_TLS_CA_PATH: cannot read \/nonexistent\/ca.pem \(ENOENT\)/);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}, 40_000);

test('worker/main.ts in production with WEBHOOK_ALLOW_PRIVATE_HOSTS=true exits 78 naming it', async () => {
  const r = await run('worker/main.ts', {
    NODE_ENV: 'production',
    ADMIN_API_TOKEN: 'a'.repeat(32),
    KEY_HASH_SECRET: 'k'.repeat(32),
    PUBLIC_BASE_URL: 'https://pay.example.com',
    SANDBOX_CALLBACK_SECRET: 's'.repeat(32),
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
  });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/^\s+WEBHOOK_ALLOW_PRIVATE_HOSTS: must be false in production/m);
}, 40_000);

test.each(['api/main.ts', 'worker/main.ts'])('%s with no NODE_ENV and no secrets is production: exits 78 naming each missing one', async (entry) => {
  const r = await run(entry, {});
  expect(r.code).toBe(78);
  for (const name of ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL', 'SANDBOX_CALLBACK_SECRET'])
    expect(r.stderr).toMatch(new RegExp(`^\\s+${name}: is required in production`, 'm'));
}, 40_000);

test('api/main.ts in production with the dev sandbox callback secret exits 78 naming it', async () => {
  const r = await run('api/main.ts', {
    NODE_ENV: 'production',
    ADMIN_API_TOKEN: 'a'.repeat(32),
    KEY_HASH_SECRET: 'k'.repeat(32),
    PUBLIC_BASE_URL: 'https://pay.example.com',
    SANDBOX_CALLBACK_SECRET: 'sandbox-dev-callback-secret',
  });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/^\s+SANDBOX_CALLBACK_SECRET: must not be the development default in production$/m);
}, 40_000);

test('sandbox/main.ts with no NODE_ENV and no callback secret exits 78 naming it', async () => {
  const r = await run('sandbox/main.ts', { SANDBOX_PORT: '0' });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/^\s+SANDBOX_CALLBACK_SECRET: is required in production/m);
}, 40_000);

test('sandbox/main.ts with NODE_ENV=development and nothing else starts on its defaults', async () => {
  const r = await run('sandbox/main.ts', { ...DEV, SANDBOX_PORT: '0' }, /gateway sandbox listening/);
  expect(r.stderr).not.toMatch(/invalid/);
  expect(r.stdout).toMatch(/gateway sandbox listening/);
}, 40_000);

test('api/main.ts with NODE_ENV=development and no secrets passes configuration (and fails only on the unreachable MongoDB)', async () => {
  const r = await run('api/main.ts', DEV);
  expect(r.stderr).not.toMatch(/invalid configuration/);
  expect(r.stderr).toMatch(/api failed to start: MongoServerSelectionError/);
  expect(r.code).toBe(1);
}, 40_000);
