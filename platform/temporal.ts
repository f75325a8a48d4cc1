import { readFileSync } from 'node:fs';
import { Client, Connection, WorkflowNotFoundError, type TLSConfig } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ConfigError, type Config } from './config';
import { dataConverterFor } from './data-converter';

export type TemporalConnectionConfig = Pick<
  Config,
  'TEMPORAL_ADDRESS' | 'TEMPORAL_TLS' | 'TEMPORAL_TLS_CA_PATH' | 'TEMPORAL_TLS_CERT_PATH' | 'TEMPORAL_TLS_KEY_PATH' | 'TEMPORAL_TLS_SERVER_NAME' | 'TEMPORAL_API_KEY'
>;

/**
 * Address, TLS and API key of the Temporal frontend, in the shape both the client's `Connection` and the
 * worker's `NativeConnection` take. TLS is on when asked for or implied (a CA, a client certificate, a server
 * name or an API key); certificate files are read here, once, so a wrong path stops the process at start.
 */
export function temporalConnectionOptions(config: TemporalConnectionConfig): { address: string; tls?: TLSConfig; apiKey?: string } {
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConfigError(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  };
  const wantsTls =
    config.TEMPORAL_TLS ?? Boolean(config.TEMPORAL_TLS_CA_PATH || config.TEMPORAL_TLS_CERT_PATH || config.TEMPORAL_TLS_SERVER_NAME || config.TEMPORAL_API_KEY);
  const tls: TLSConfig | undefined = wantsTls
    ? {
        ...(config.TEMPORAL_TLS_CA_PATH ? { serverRootCACertificate: read('TEMPORAL_TLS_CA_PATH', config.TEMPORAL_TLS_CA_PATH) } : {}),
        ...(config.TEMPORAL_TLS_CERT_PATH && config.TEMPORAL_TLS_KEY_PATH
          ? { clientCertPair: { crt: read('TEMPORAL_TLS_CERT_PATH', config.TEMPORAL_TLS_CERT_PATH), key: read('TEMPORAL_TLS_KEY_PATH', config.TEMPORAL_TLS_KEY_PATH) } }
          : {}),
        ...(config.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: config.TEMPORAL_TLS_SERVER_NAME } : {}),
      }
    : undefined;
  return { address: config.TEMPORAL_ADDRESS, ...(tls ? { tls } : {}), ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}) };
}

export async function connectTemporalClient(
  config: TemporalConnectionConfig & Pick<Config, 'TEMPORAL_NAMESPACE'> & Partial<Pick<Config, 'PAYLOAD_CODEC' | 'PAYLOAD_CODEC_KEYS'>>,
): Promise<Client> {
  // One connection per process, shared by every request: a connection per call costs a TLS/HTTP2 setup.
  const connection = await Connection.connect({
    ...temporalConnectionOptions(config),
    connectTimeout: '5s',
    // After an outage, come back within seconds: gRPC's default reconnect backoff grows to 120 s.
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5000 },
  });
  const dataConverter = dataConverterFor({ PAYLOAD_CODEC: config.PAYLOAD_CODEC ?? 'off', PAYLOAD_CODEC_KEYS: config.PAYLOAD_CODEC_KEYS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, ...(dataConverter ? { dataConverter } : {}) });
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

/** Whether Temporal has a workflow (running or closed) of this id: null when it did not answer within `deadlineMs`. */
export async function workflowExistence(client: Client, id: string, deadlineMs = 2000): Promise<boolean | null> {
  try {
    await client.connection.withDeadline(Date.now() + deadlineMs, () => client.workflow.getHandle(id).describe());
    return true;
  } catch (err) {
    return err instanceof WorkflowNotFoundError ? false : null;
  }
}
