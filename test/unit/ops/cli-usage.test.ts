import { spawnSync } from 'node:child_process';
import path from 'node:path';

// The ops CLI's own answers, before it reaches any API: help, and flags it does not know.
const ops = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', '..', '..', 'scripts', 'ops.ts'), ...args], { encoding: 'utf8', timeout: 30_000 });

test('--help prints the usage and exits 0', () => {
  const r = ops('--help');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^usage: npm run ops -- <command> \[args\]/);
});

test('a misspelt flag names it and prints the usage, exit 2, not a stack trace', () => {
  const r = ops('recheck', 'pi_eu_x', '--reasn', 'typo');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/Unknown option '--reasn'/);
  expect(r.stderr).toMatch(/usage: npm run ops --/);
  expect(r.stderr).not.toMatch(/\n\s+at /);
});
