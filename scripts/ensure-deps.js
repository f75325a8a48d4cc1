#!/usr/bin/env node
// `npm run dev` and `npm test` install dependencies themselves: `npm ci` when node_modules is missing or
// was installed from another lockfile. Plain Node so that it runs before any dependency exists.
const { createHash } = require('node:crypto');
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const lockfile = path.join(root, 'package-lock.json');
const stamp = path.join(root, 'node_modules', '.payorch-lock-sha256');
// npm writes this after every install it finishes; newer than the lockfile means an install ran from it.
const npmsOwn = path.join(root, 'node_modules', '.package-lock.json');
const want = createHash('sha256').update(fs.readFileSync(lockfile)).digest('hex');
const have = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';

// The README's `npm ci && npm run dev` installed a moment ago without writing our stamp: take its word
// rather than install a second time.
const installedSinceLockfile = () =>
  fs.existsSync(npmsOwn) && fs.statSync(npmsOwn).mtimeMs >= fs.statSync(lockfile).mtimeMs;

if (have !== want) {
  if (!installedSinceLockfile()) {
    console.error('[deps] installing from package-lock.json (npm ci)');
    execSync('npm ci --no-audit --no-fund --loglevel=error', { cwd: root, stdio: 'inherit' });
  }
  fs.writeFileSync(stamp, want + '\n');
}
