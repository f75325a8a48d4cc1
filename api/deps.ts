import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import type { Mongo } from '../platform/mongo';
import type { ApiMetrics } from './http/metrics';
import type { GatewayRegistry } from '../gateways/registry';

/** What request handlers may use. Built once in api/main.ts (or by a test) and shared by every request. */
export interface AppDeps {
  config: Config;
  mongo: Mongo;
  temporal: Client;
  logger: Logger;
  metrics: ApiMetrics;
  gateways: GatewayRegistry;
  /** Is at least one worker polling our task queue? Used by /readyz. */
  workerPolling(): Promise<boolean>;
}

export interface AuthContext {
  tenantId: string;
  region: string;
  keyKind: 'secret' | 'publishable';
  claims: string[];
}

/** The tenant's own authority, for what the service does on its merchant's behalf (a session's customer, a worker). */
export function tenantAuth(tenantId: string, region: string): AuthContext {
  return { tenantId, region, keyKind: 'secret', claims: [] };
}
