import { spawn } from 'node:child_process';
import path from 'node:path';

// The real entry points, started with a bad PORT: they stop before touching any server, with EX_CONFIG (78)
// and a message naming the variable.

const ROOT = path.join(__dirname, '..', '..', '..');

function run(entry: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // Unreachable dependencies on purpose: if config were accepted, the process would hang or fail differently.
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'development', MONGODB_URI: 'mongodb://127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

test.each(['api/main.ts', 'worker/main.ts'])('%s with PORT=abc exits 78 naming PORT', async (entry) => {
  const r = await run(entry, { PORT: 'abc' });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/invalid configuration/);
  expect(r.stderr).toMatch(/^\s+PORT: /m);
}, 40_000);

test('worker/main.ts in production with WEBHOOK_ALLOW_PRIVATE_HOSTS=true exits 78 naming it', async () => {
  const r = await run('worker/main.ts', {
    NODE_ENV: 'production',
    ADMIN_API_TOKEN: 'a'.repeat(32),
    KEY_HASH_SECRET: 'k'.repeat(32),
    PUBLIC_BASE_URL: 'https://pay.example.com',
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
  });
  expect(r.code).toBe(78);
  expect(r.stderr).toMatch(/^\s+WEBHOOK_ALLOW_PRIVATE_HOSTS: must be false in production/m);
}, 40_000);
