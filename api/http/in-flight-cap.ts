import type { Context, Next } from 'koa';
import { DomainError } from '../../domain/errors';

/** Probes answer whatever the load: an orchestrator must see a busy process as alive, and read its metrics. */
const UNCAPPED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Load shedding: past `max` requests in flight in this process, a new one is answered 503 `overloaded` at
 * once, before its body is read or anything is done. Without it, requests sent faster than the database
 * answers queue up in memory until they time out; a client told early can back off and resend with its
 * idempotency key. 0 turns the cap off (the count is still kept for the metrics).
 */
export function inFlightCap(max: number, metrics?: { inFlight: (n: number) => void; shed: () => void }) {
  let inFlight = 0;
  const count = (delta: number) => {
    inFlight += delta;
    metrics?.inFlight(inFlight);
  };
  return async (ctx: Context, next: Next): Promise<void> => {
    if (UNCAPPED.has(ctx.path)) return next();
    if (max > 0 && inFlight >= max) {
      metrics?.shed();
      throw new DomainError('unavailable', 'overloaded', 'The service has as many requests in flight as it takes; nothing was done, retry shortly', undefined, 1);
    }
    count(1);
    try {
      await next();
    } finally {
      count(-1);
    }
  };
}
