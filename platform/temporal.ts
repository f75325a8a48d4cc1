import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Config } from './config';

export async function connectTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): Promise<Client> {
  // One connection per process, shared by every request: a connection per call costs a TLS/HTTP2 setup.
  const connection = await Connection.connect({
    address: config.TEMPORAL_ADDRESS,
    connectTimeout: '5s',
    // After an outage, come back within seconds: gRPC's default reconnect backoff grows to 120 s.
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5000 },
  });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

/**
 * True when a worker has polled the task queue recently. A live worker re-polls at least once a minute
 * (long polls end after 60 s); Temporal keeps a dead one in the list for minutes, so age matters.
 */
export async function hasPollers(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  const res = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const since = Date.now() - POLLER_FRESH_MS;
  return (res.pollers ?? []).some((p) => {
    const t = p.lastAccessTime;
    const ms = t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
    return ms >= since;
  });
}

export const POLLER_FRESH_MS = 75_000;

/** Merchant-facing calls answer within this, or fail as "dependency unavailable" (the client retries otherwise for ~20 s). */
export const START_DEADLINE_MS = 5000;
