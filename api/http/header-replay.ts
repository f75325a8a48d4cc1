import { createFingerprint } from '../../data/keyed-create';
import { replayedRequestData } from '../../data/replayed-requests';
import { DomainError, invalidRequest } from '../../domain/errors';
import type { Logger } from '../../platform/logger';
import type { Mongo } from '../../platform/mongo';
import type { ReplayedRequestRecord } from '../../platform/records';
import type { RouteResult } from './route';

// Stripe answers a POST repeated under its `Idempotency-Key` header with the first request's answer. Routes whose
// body takes a key field already take the header as that key (idempotency-header.ts); a create whose body has no
// such field (a customer, an address, a promotion code, a test clock) keeps its first answer here instead, so a
// retried create makes one object.

/** A first request still claiming its key this long after it began is taken as dead (its process crashed): far longer than any of these creates takes. */
export const ABANDONED_AFTER_MS = 60_000;
/** How long an answer is given again, as Stripe keeps keys: past it the key is free, and the record purged. */
export const KEPT_FOR_MS = 24 * 3600_000;
/** The 409's Retry-After: these creates answer in well under a second. */
const IN_PROGRESS_RETRY_AFTER_S = 1;
/** Tries at keeping an answer: the object exists, so losing its answer would let a repeat make a second. */
const COMPLETE_TRIES = 3;

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
 * the first is still running a 409 `idempotency_request_in_progress`. An error thrown or a 5xx frees the key, since
 * nothing was made that a repeat should be answered with. An answer is kept for KEPT_FOR_MS.
 */
export async function answeredOnce(deps: { mongo: Mongo; logger: Logger }, req: ReplayableRequest, run: () => Promise<RouteResult>): Promise<RouteResult> {
  const store = replayedRequestData(deps.mongo);
  const id = `${req.tenantId}:${req.key}`;
  const fingerprint = createFingerprint({ route: req.route, params: req.params, body: req.body });
  const claimOf = (at: Date): ReplayedRequestRecord => ({ _id: id, tenant_id: req.tenantId, route: req.route, fingerprint, state: 'running', started_at: at });
  const startedAt = new Date();
  const holder = await store.claim(claimOf(startedAt));
  if (holder) {
    const age = startedAt.getTime() - holder.started_at.getTime();
    const expired = age >= KEPT_FOR_MS;
    if (!expired && (holder.route !== req.route || holder.fingerprint !== fingerprint))
      throw invalidRequest(
        'idempotency_key_in_use',
        `This Idempotency-Key was used for ${holder.route === req.route ? 'this request with other parameters' : `another request (${holder.route})`}: use a new key for a new request`,
        'Idempotency-Key',
      );
    if (!expired && holder.state === 'done') return { status: holder.status!, body: JSON.parse(holder.body!), headers: { ...holder.headers, 'Idempotent-Replayed': 'true' } };
    if (!expired && age < ABANDONED_AFTER_MS) throw inProgress();
    if (!(await store.takeOver(holder, claimOf(startedAt)))) throw inProgress();
  } else await store.purgeExpired(req.tenantId, new Date(startedAt.getTime() - KEPT_FOR_MS));
  let result: RouteResult;
  try {
    result = await run();
  } catch (err) {
    await store.release(id, startedAt).catch(() => undefined);
    throw err;
  }
  if (result.status >= 500) {
    await store.release(id, startedAt);
    return result;
  }
  await keep(deps.logger, store, id, startedAt, { status: result.status, body: JSON.stringify(result.body ?? null), headers: result.headers ?? {} });
  return result;
}

/**
 * Keeps the answer. The object exists whatever happens here, so the answer goes to the client even when it
 * cannot be kept (logged): the claim then stays `running`, and a repeat past ABANDONED_AFTER_MS would make a
 * second object, which only a store down for that long allows.
 */
async function keep(logger: Logger, store: ReturnType<typeof replayedRequestData>, id: string, startedAt: Date, answer: Pick<ReplayedRequestRecord, 'status' | 'body' | 'headers'>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      if (!(await store.complete(id, startedAt, answer))) logger.warn({ key: id }, 'idempotency-key replay: the claim was taken over before its answer was kept (the first request ran past the take-over time)');
      return;
    } catch (err) {
      if (tries >= COMPLETE_TRIES) {
        logger.error({ err, key: id }, 'idempotency-key replay: the answer could not be kept; a repeat may make a second object');
        return;
      }
    }
  }
}
