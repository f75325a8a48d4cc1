import { MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError } from 'mongodb';
import { ServiceError } from '@temporalio/client';

/** Failures that mean "Temporal or MongoDB is down", answered 503 rather than 500. */
export function isDependencyDown(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (err instanceof MongoNotConnectedError || err instanceof MongoTopologyClosedError) return true;
  if (err instanceof ServiceError) {
    const code = (err.cause as { code?: number } | undefined)?.code;
    // gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4)
    return code === 14 || code === 4 || /UNAVAILABLE|DEADLINE_EXCEEDED|connect/i.test(err.message);
  }
  const code = (err as { code?: unknown })?.code;
  return code === 14 || code === 'ECONNREFUSED';
}
