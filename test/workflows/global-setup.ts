import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

// The workflow bundle is built once per test run (about 1.5 s) and shared by every workflow test file.
export default async function globalSetup(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'payorch-wf-')), 'workflow-bundle.js');
  writeFileSync(file, code);
  process.env.PAYORCH_WORKFLOW_BUNDLE = file;
}
