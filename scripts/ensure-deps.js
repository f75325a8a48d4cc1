#!/usr/bin/env node
// `npm run dev` and `npm test` install dependencies themselves: `npm ci` when node_modules is missing or
// was installed from another lockfile. Plain Node so that it runs before any dependency exists.
const { createHash } = require('node:crypto');
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'node_modules', '.payorch-lock-sha256');
const want = createHash('sha256').update(fs.readFileSync(path.join(root, 'package-lock.json'))).digest('hex');
const have = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';
if (have !== want) {
  console.error('[deps] installing from package-lock.json (npm ci)');
  execSync('npm ci --no-audit --no-fund --loglevel=error', { cwd: root, stdio: 'inherit' });
  fs.writeFileSync(stamp, want + '\n');
}
