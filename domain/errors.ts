// Domain errors say what went wrong in the domain's words; api/http/error-handler.ts alone maps them to HTTP.

export type ErrorKind =
  | 'invalid_request'
  /** The payment was tried and failed (a card decline): 402. */
  | 'payment_failed'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'conflict'
  | 'unavailable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'method_not_allowed'
  | 'rate_limited';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly param?: string,
    /** When the client may try again (429, 503); the error handler sends it as Retry-After. */
    readonly retryAfterSeconds?: number,
    /** Fields the error object carries beside the shape's own (a decline's `decline_code`, its `transaction_uuid`). */
    readonly extra?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalidRequest = (code: string, message: string, param?: string) =>
  new DomainError('invalid_request', code, message, param);

export const notFound = (what: string, id: string, param?: string) =>
  new DomainError('not_found', 'resource_missing', `No such ${what}: '${id}'`, param);

export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);

export const unauthenticated = (message: string) => new DomainError('authentication', 'invalid_api_key', message);

export const forbidden = (code: string, message: string) => new DomainError('permission', code, message);

export const unavailable = (dependency: string) =>
  new DomainError('unavailable', 'service_unavailable', `A dependency of the service (${dependency}) is unavailable; retry later`);

/** A charge was made and failed: 402 `card_declined` (with the issuer's `decline_code`), or the failure's own code. */
export const paymentFailed = (code: string, message: string, extra: Record<string, string>) =>
  new DomainError('payment_failed', code, message, undefined, undefined, extra);
