import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../platform/config';
import { gatewayTaskQueue } from '../workflows/task-queues';

// The worker's configuration as plain data: from the environment (platform/config.ts) to the options of each
// Worker the process runs, one per task queue. Pure, so every combination is unit tested without a server;
// worker/main.ts adds the connection, the workflow bundle and the activities. Figures behind the defaults:
// docs/workers.md.

export type WorkerConfig = Pick<
  Config,
  | 'TEMPORAL_NAMESPACE'
  | 'TEMPORAL_TASK_QUEUE'
  | 'TEMPORAL_WEBHOOK_TASK_QUEUE'
  | 'WORKER_QUEUES'
  | 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'
  | 'WORKER_MAX_CACHED_WORKFLOWS'
  | 'WORKER_MAX_CONCURRENT_ACTIVITIES'
  | 'WORKER_WEBHOOK_MAX_CONCURRENT_ACTIVITIES'
  | 'WORKER_GATEWAY_MAX_CONCURRENT_ACTIVITIES'
  | 'WORKER_WORKFLOW_POLLERS'
  | 'WORKER_ACTIVITY_POLLERS'
  | 'GATEWAY_RATE_LIMITS'
>;

/** What main.ts completes into WorkerOptions: everything but the connection, the bundle and the activities. */
export type QueueWorkerOptions = Omit<WorkerOptions, 'connection' | 'workflowBundle' | 'workflowsPath' | 'activities'>;

export interface QueueWorker {
  kind: 'payments' | 'webhooks' | 'gateway';
  /** The gateway whose calls this queue carries (kind `gateway`). */
  gateway?: string;
  /** Whether it runs workflows (gets the bundle) or only activities. */
  runsWorkflows: boolean;
  options: QueueWorkerOptions;
}

export class WorkerConfigError extends Error {}

/**
 * One Worker per queue this process polls. `payments` brings every registered gateway's queue along: the
 * workflows it runs are what send calls there, so a deployment polling payments never strands them.
 * `gatewayNames` is the registry's list (names in the configuration must be among them).
 */
export function planWorkers(config: WorkerConfig, gatewayNames: readonly string[]): QueueWorker[] {
  for (const name of [...config.WORKER_QUEUES.gateways, ...Object.keys(config.GATEWAY_RATE_LIMITS)]) {
    if (!gatewayNames.includes(name))
      throw new WorkerConfigError(`gateway "${name}" (WORKER_QUEUES or GATEWAY_RATE_LIMITS) is not registered; registered: ${gatewayNames.join(', ')}`);
  }
  const plan: QueueWorker[] = [];
  const workflowWorker = (kind: 'payments' | 'webhooks', taskQueue: string, activitySlots: number): QueueWorker => {
    const workflowSlots = config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS;
    return {
      kind,
      runsWorkflows: true,
      options: {
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue,
        maxConcurrentWorkflowTaskExecutions: workflowSlots,
        maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
        maxConcurrentActivityTaskExecutions: activitySlots,
        workflowTaskPollerBehavior: pollerBehavior(config.WORKER_WORKFLOW_POLLERS, workflowSlots),
        activityTaskPollerBehavior: pollerBehavior(config.WORKER_ACTIVITY_POLLERS, activitySlots),
      },
    };
  };
  if (config.WORKER_QUEUES.payments) plan.push(workflowWorker('payments', config.TEMPORAL_TASK_QUEUE, config.WORKER_MAX_CONCURRENT_ACTIVITIES));
  if (config.WORKER_QUEUES.webhooks)
    plan.push(workflowWorker('webhooks', config.TEMPORAL_WEBHOOK_TASK_QUEUE, config.WORKER_WEBHOOK_MAX_CONCURRENT_ACTIVITIES));
  const gateways = config.WORKER_QUEUES.payments ? [...gatewayNames] : config.WORKER_QUEUES.gateways;
  for (const gateway of gateways) {
    const slots = config.WORKER_GATEWAY_MAX_CONCURRENT_ACTIVITIES;
    const rate = config.GATEWAY_RATE_LIMITS[gateway];
    plan.push({
      kind: 'gateway',
      gateway,
      runsWorkflows: false,
      options: {
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: gatewayTaskQueue(config.TEMPORAL_TASK_QUEUE, gateway),
        maxConcurrentActivityTaskExecutions: slots,
        activityTaskPollerBehavior: pollerBehavior(config.WORKER_ACTIVITY_POLLERS, slots),
        // Enforced by the server for the whole queue: every worker must be given the same value, or the last
        // poller's wins (they share the environment, so they are).
        ...(rate !== undefined ? { maxTaskQueueActivitiesPerSecond: rate } : {}),
      },
    });
  }
  return plan;
}

type PollerBehavior = NonNullable<WorkerOptions['activityTaskPollerBehavior']>;

/** A fixed number of polls never above the slots (the SDK refuses more), or the SDK's autoscaling. */
function pollerBehavior(pollers: number | 'auto', slots: number): PollerBehavior {
  if (pollers === 'auto') return { type: 'autoscaling' };
  return { type: 'simple-maximum', maximum: Math.min(pollers, slots) };
}

/** A line for the start log: which queue, how many slots, which limit. */
export function describePlan(plan: readonly QueueWorker[]): Array<Record<string, unknown>> {
  return plan.map(({ kind, options: o }) => ({
    kind,
    taskQueue: o.taskQueue,
    ...(o.maxConcurrentWorkflowTaskExecutions !== undefined ? { workflowSlots: o.maxConcurrentWorkflowTaskExecutions, cache: o.maxCachedWorkflows } : {}),
    activitySlots: o.maxConcurrentActivityTaskExecutions,
    ...(o.maxTaskQueueActivitiesPerSecond !== undefined ? { queueRatePerSecond: o.maxTaskQueueActivitiesPerSecond } : {}),
  }));
}
