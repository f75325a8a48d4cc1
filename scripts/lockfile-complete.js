#!/usr/bin/env node
// The registry reachable here serves only some platforms' native packages (@swc/core-darwin-*, ... are 404),
// so `npm install` leaves them out of package-lock.json and `npm ci` then calls the lockfile out of sync.
// This records each missing platform package as an optional entry with its os/cpu/libc, exactly what npm
// writes where it can see the package, so `npm ci` skips them on other platforms. Run after `npm install`.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const pkgs = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os && !cpu) return null;
  const out = {};
  if (os) out.os = [os];
  if (cpu) out.cpu = [cpu];
  if (parts.includes('musl') || parts.includes('musleabihf')) out.libc = ['musl'];
  else if (parts.includes('gnu') || parts.includes('gnueabihf')) out.libc = ['glibc'];
  return out;
}

let added = 0;
for (const [where, entry] of Object.entries(pkgs)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = where === '' ? 'node_modules' : `${where}/node_modules`;
    if (pkgs[`${base}/${dep}`] || pkgs[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    pkgs[`node_modules/${dep}`] = {
      version: range.replace(/^[\^~=]/, ''),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`lockfile-complete: recorded ${added} platform packages the registry does not serve here`);
