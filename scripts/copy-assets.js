#!/usr/bin/env node
// Part of `npm run build`: files next to the sources that tsc does not emit (hosted-page JS/CSS/SVG) go to
// the same relative place under dist/, so code that finds them from __dirname works compiled too.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
let copied = 0;
function walk(rel) {
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    if (entry.isDirectory()) walk(child);
    else if (!/\.(ts|map)$/.test(entry.name)) {
      fs.mkdirSync(path.join(root, 'dist', rel), { recursive: true });
      fs.copyFileSync(path.join(root, child), path.join(root, 'dist', child));
      copied += 1;
    }
  }
}
for (const dir of ['api', 'worker', 'sandbox', 'workflows', 'activities', 'domain', 'platform']) if (fs.existsSync(path.join(root, dir))) walk(dir);
console.log(`copied ${copied} asset files to dist/`);
