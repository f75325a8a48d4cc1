import { MongoError, MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError } from 'mongodb';
import { ServiceError } from '@temporalio/client';

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * MongoDB server errors that mean "not now" rather than "wrong": the replica set is between primaries, the
 * server is shutting down or timed out. The driver retries a retryable write once; past that the request
 * is answered 503, to be sent again with its idempotency key.
 */
const TRANSIENT_MONGO_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * FerretDB on SQLite (the dev and test stack) takes one writer at a time; a write that waits past SQLite's
 * busy timeout fails with this text inside an `InternalError`. Nothing was written: the database is busy,
 * not broken.
 */
const BUSY_TEXT = /\bSQLITE_BUSY\b|database is locked/;

function isTransientServerError(err: unknown): boolean {
  if (!(err instanceof MongoError)) return false;
  if (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('TransientTransactionError')) return true;
  if (typeof err.code === 'number' && TRANSIENT_MONGO_CODES.has(err.code)) return true;
  return BUSY_TEXT.test(err.message);
}

/** Failures that mean "Temporal or MongoDB is down or busy", answered 503 rather than 500. */
export function isDependencyDown(err: unknown, depth = 0): boolean {
  // A server that dies mid-request surfaces as a bare socket error on a pooled connection, which the
  // driver passes through unwrapped; look through causes for one.
  if (depth < 4 && err instanceof Error && err.cause !== undefined && isDependencyDown(err.cause, depth + 1)) return true;
  if (SOCKET_CODES.has(String((err as { code?: unknown })?.code))) return true;
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (err instanceof MongoNotConnectedError || err instanceof MongoTopologyClosedError) return true;
  if (isTransientServerError(err)) return true;
  if (err instanceof ServiceError) {
    const code = (err.cause as { code?: number } | undefined)?.code;
    // gRPC UNAVAILABLE (14), DEADLINE_EXCEEDED (4) and RESOURCE_EXHAUSTED (8: the namespace's rate limit, or the
    // server's own; the client retried it for a while before it gave up)
    return code === 14 || code === 4 || code === 8 || /UNAVAILABLE|DEADLINE_EXCEEDED|RESOURCE_EXHAUSTED|connect/i.test(err.message);
  }
  return (err as { code?: unknown })?.code === 14;
}
