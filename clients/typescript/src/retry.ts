// Retries of what the API asks to be retried: 429 (rate limited: refused before anything ran) and 503 (a
// dependency or the payment workflow did not answer in time). A 503'd request may have been carried out,
// so it is repeated only when repeating is harmless: a GET, HEAD, PUT or DELETE, or a body that carries an
// idempotency key (`idempotency_key`, `idempotencyKey`, `checkout_intent_idempotency_key`), which answers
// the first outcome instead of doing it twice. The wait is the response's Retry-After (seconds or an
// HTTP date) when it has one, else exponential backoff with jitter.

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** Backoff without Retry-After: base * 2^n with jitter, capped by maxDelayMs (defaults 500 and 8000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the 429/503 is answered (default 60 s). */
  maxRetryAfterMs?: number;
  /** Told before each wait (logging, metrics). */
  onRetry?: (info: { attempt: number; status: number; waitMs: number; request: Request }) => void;
  /** For tests: the wait, and the jitter's randomness in [0, 1). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const IDEMPOTENCY_FIELD = /(^|_)idempotency_?key$/i;

/** Retry-After as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Otherwise only an HTTP date (IMF-fixdate, e.g. `Wed, 21 Oct 2026 07:28:00 GMT`): `1.5` is not a date.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Whether the request may be sent again after a 503 without risk of doing it twice. */
export async function isSafeToRepeat(request: Request): Promise<boolean> {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return true;
  try {
    const body: unknown = JSON.parse(await request.clone().text());
    return typeof body === 'object' && body !== null && Object.entries(body).some(([k, v]) => IDEMPOTENCY_FIELD.test(k) && typeof v === 'string' && v !== '');
  } catch {
    return false;
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wraps a fetch (as openapi-fetch calls it, with a Request) in the retry policy above. */
export function retryingFetch(fetchImpl: (input: Request) => Promise<Response>, opts: RetryOptions = {}): (input: Request) => Promise<Response> {
  const { retries = 3, baseDelayMs = 500, maxDelayMs = 8000, maxRetryAfterMs = 60_000, onRetry, sleep = abortableSleep, random = Math.random } = opts;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // The original is kept unread for the next attempt (and for isSafeToRepeat); the last one may use it.
      const res = await fetchImpl(attempt < retries ? request.clone() : request);
      if (attempt >= retries || (res.status !== 429 && res.status !== 503)) return res;
      if (res.status === 503 && !(await isSafeToRepeat(request))) return res;
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
      const waitMs = parseRetryAfter(res.headers.get('retry-after')) ?? backoff / 2 + (random() * backoff) / 2;
      if (waitMs > maxRetryAfterMs) return res;
      await res.body?.cancel();
      onRetry?.({ attempt: attempt + 1, status: res.status, waitMs, request });
      await sleep(waitMs, request.signal);
    }
  };
}
