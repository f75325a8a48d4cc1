import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { workflowTypes, writeHistory } from '../workflows/recorded-histories';

// With RECORD_HISTORIES=1, the integration run ends by keeping one history of every workflow type the worker
// runs, as the real stack ran it (real activities, children, Updates and signals), beside the workflow tests'
// own: `test/workflows/histories/<type>-integration-suite.bin`. replay-recorded-histories.test.ts replays them
// against later code. Record again only when a workflow changed on purpose (and behind a patch).

/** Of each type, a finished run first; then one still open (a cart's retention waits 180 days). */
const PREFERRED = ['COMPLETED', 'CONTINUED_AS_NEW', 'RUNNING'];
/** Runs looked at per type, and the longest history kept (the richest run, within reason). */
const LOOKED_AT = 100;
const MAX_EVENTS = 600;

/** `paymentIntentWorkflow` -> `payment-intent`. */
const fileStem = (type: string) => type.replace(/Workflow$/, '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export async function recordSuiteHistories(temporalAddress: string): Promise<string[]> {
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection });
  const kept: string[] = [];
  try {
    for (const type of workflowTypes()) {
      const runs: Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'status' | 'historyLength'>[] = [];
      for await (const listed of client.workflow.list({ query: `WorkflowType = '${type}'` })) {
        if (!PREFERRED.includes(listed.status.name)) continue;
        // A list answers no history length for an open run; its description does.
        const run = listed.status.name === 'RUNNING' ? await client.workflow.getHandle(listed.workflowId, listed.runId).describe() : listed;
        if (run.historyLength <= MAX_EVENTS) runs.push(run);
        if (runs.length >= LOOKED_AT) break;
      }
      const best = runs.sort((a, b) => PREFERRED.indexOf(a.status.name) - PREFERRED.indexOf(b.status.name) || b.historyLength - a.historyLength)[0];
      if (!best) throw new Error(`no run of ${type} in the integration run to record`);
      const history = await client.workflow.getHandle(best.workflowId, best.runId).fetchHistory();
      const file = `${fileStem(type)}-integration-suite.bin`;
      writeHistory(file, history);
      kept.push(`${file} (${best.status.name.toLowerCase()}, ${best.historyLength} events)`);
    }
  } finally {
    await connection.close();
  }
  return kept;
}
