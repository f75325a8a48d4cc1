import { randomBytes } from 'node:crypto';
import { base62 } from '../../platform/ids';

/** A request's id: the client's own `Request-Id` when it is a plain token, else a new one. */
export function requestIdOf(incoming: string): string {
  return /^[\w-]{8,64}$/.test(incoming) ? incoming : newRequestId();
}

export function newRequestId(): string {
  return `req_${base62(randomBytes(12))}`;
}
