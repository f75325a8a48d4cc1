import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadWorkflowBundle } from './bundle';

// `npm run build` step: writes the workflow bundle that production workers load (WORKFLOW_BUNDLE_PATH),
// so a worker starts without webpack and every worker of a release runs byte-identical workflow code.
async function main() {
  const bundle = await loadWorkflowBundle();
  const out = path.join(__dirname, '..', 'dist', 'workflow-bundle.js');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, bundle.code);
  process.stdout.write(`wrote ${out} (${bundle.code.length} bytes)\n`);
}

main().catch((err) => {
  process.stderr.write(`${err}\n`);
  process.exit(1);
});
