import { MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError } from 'mongodb';
import { ServiceError } from '@temporalio/client';

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Failures that mean "Temporal or MongoDB is down", answered 503 rather than 500. */
export function isDependencyDown(err: unknown, depth = 0): boolean {
  // A server that dies mid-request surfaces as a bare socket error on a pooled connection, which the
  // driver passes through unwrapped; look through causes for one.
  if (depth < 4 && err instanceof Error && err.cause !== undefined && isDependencyDown(err.cause, depth + 1)) return true;
  if (SOCKET_CODES.has(String((err as { code?: unknown })?.code))) return true;
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (err instanceof MongoNotConnectedError || err instanceof MongoTopologyClosedError) return true;
  if (err instanceof ServiceError) {
    const code = (err.cause as { code?: number } | undefined)?.code;
    // gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4)
    return code === 14 || code === 4 || /UNAVAILABLE|DEADLINE_EXCEEDED|connect/i.test(err.message);
  }
  return (err as { code?: unknown })?.code === 14;
}
