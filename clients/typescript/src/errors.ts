// The API's one error shape, `{ error: { type, code, message, param?, request_id } }`, as an exception.

export interface ApiErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
  request_id: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: string | undefined;
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  /** What the API answered, as parsed. */
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    const e = (body as { error?: Partial<ApiErrorBody> } | null)?.error;
    super(e?.message ? `${status} ${e.code}: ${e.message}` : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.type = e?.type;
    this.code = e?.code;
    this.param = e?.param;
    this.requestId = e?.request_id;
    this.body = body;
  }
}

/** What an openapi-fetch call answers. */
export interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The call's data, or an ApiError: `const pi = await unwrap(client.POST(...))`. */
export async function unwrap<T>(call: Promise<CallResult<T>> | CallResult<T>): Promise<T> {
  const r = await call;
  if (r.error !== undefined || !r.response.ok) throw new ApiError(r.response.status, r.error);
  return r.data as T;
}
