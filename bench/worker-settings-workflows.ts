import { proxyActivities } from '@temporalio/workflow';

// Bench-only workflow for bench/worker-settings.ts: schedules `n` activities at once on one task queue (a
// gateway queue), so the queue's dispatch rate, not the workflow, bounds how fast they run.

interface ProbeActivities {
  probe(i: number): Promise<number>;
}

export async function rateProbeWorkflow(n: number, taskQueue: string): Promise<number[]> {
  const acts = proxyActivities<ProbeActivities>({ startToCloseTimeout: '1 minute', taskQueue });
  return Promise.all(Array.from({ length: n }, (_, i) => acts.probe(i)));
}
