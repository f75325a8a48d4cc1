import { createFingerprint } from '../../data/keyed-create';
import { replayedRequestData } from '../../data/replayed-requests';
import { DomainError, invalidRequest } from '../../domain/errors';
import type { Mongo } from '../../platform/mongo';
import type { RouteResult } from './route';

// Stripe answers a POST repeated under its `Idempotency-Key` header with the first request's answer. Routes whose
// body takes a key field already take the header as that key (idempotency-header.ts); a create whose body has no
// such field (a customer, an address, a promotion code, a test clock) keeps its first answer here instead, so a
// retried create makes one object.

/** A first request still claiming its key this long after it began is taken as dead (its process crashed): far longer than any of these creates takes. */
export const ABANDONED_AFTER_MS = 60_000;
/** The 409's Retry-After: these creates answer in well under a second. */
const IN_PROGRESS_RETRY_AFTER_S = 1;

const inProgress = () =>
  new DomainError(
    'conflict',
    'idempotency_request_in_progress',
    'The first request with this Idempotency-Key is still being answered: retry shortly to get its answer',
    'Idempotency-Key',
    IN_PROGRESS_RETRY_AFTER_S,
  );

export interface ReplayableRequest {
  tenantId: string;
  key: string;
  /** `POST /v202607/customers`, as requested. */
  route: string;
  params: unknown;
  body: unknown;
}

/**
 * Runs the create once per key: a repeat with the same route and parameters gets the first answer again, with
 * `Idempotent-Replayed: true`; other parameters under the key are a 400 `idempotency_key_in_use`; a repeat while
 * the first is still running a 409 `idempotency_request_in_progress`. Only answers below 500 are kept: an error
 * thrown or a 5xx frees the key, since nothing was made that a repeat should be answered with.
 */
export async function answeredOnce(mongo: Mongo, req: ReplayableRequest, run: () => Promise<RouteResult>): Promise<RouteResult> {
  const store = replayedRequestData(mongo);
  const id = `${req.tenantId}:${req.key}`;
  const fingerprint = createFingerprint({ route: req.route, params: req.params, body: req.body });
  let startedAt = new Date();
  const holder = await store.claim({ _id: id, tenant_id: req.tenantId, route: req.route, fingerprint, state: 'running', started_at: startedAt });
  if (holder) {
    if (holder.route !== req.route || holder.fingerprint !== fingerprint)
      throw invalidRequest(
        'idempotency_key_in_use',
        `This Idempotency-Key was used for ${holder.route === req.route ? 'this request with other parameters' : `another request (${holder.route})`}: use a new key for a new request`,
        'Idempotency-Key',
      );
    if (holder.state === 'done') return { status: holder.status!, body: JSON.parse(holder.body!), headers: { ...holder.headers, 'Idempotent-Replayed': 'true' } };
    const now = new Date();
    if (now.getTime() - holder.started_at.getTime() < ABANDONED_AFTER_MS || !(await store.takeOver(id, holder.started_at, now))) throw inProgress();
    startedAt = now;
  }
  let result: RouteResult;
  try {
    result = await run();
  } catch (err) {
    await store.release(id, startedAt).catch(() => undefined);
    throw err;
  }
  if (result.status >= 500) await store.release(id, startedAt);
  else await store.complete(id, startedAt, { status: result.status, body: JSON.stringify(result.body ?? null), headers: result.headers ?? {} });
  return result;
}
