import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { readFileSync } from 'node:fs';

export const WORKFLOWS_PATH = require.resolve('../workflows');

/** Production loads the bundle `npm run build` wrote; dev and tests bundle the sources at start. */
export async function loadWorkflowBundle(prebuiltPath?: string): Promise<WorkflowBundleWithSourceMap> {
  if (prebuiltPath) return { code: readFileSync(prebuiltPath, 'utf8'), sourceMap: '' } as WorkflowBundleWithSourceMap;
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
}

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error, log: noop };
