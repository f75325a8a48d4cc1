import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { DomainError } from '../../domain/errors';
import type { Config } from '../../platform/config';
import { parseKey } from '../../platform/keys';
import { bearerToken } from './auth';
import type { RouteDef } from './route';

// Per-key token buckets, in this process's memory. A bucket holds up to `burst` tokens and refills at
// `perSec`; a request takes one token from every bucket that applies to it, or takes none and is refused.
// Every key has buckets of its own and a check is a few map operations with no await, so one tenant's
// burst costs another tenant nothing. Per process: behind N API processes a key gets up to N times the rate.
// Not shared through MongoDB: the local server loses concurrent updates of one document, and a round trip
// per request would cost more than the requests it protects.

/** Which limit a bucket follows: every request by a key, card submissions by a publishable key, client secrets. */
export type LimitKind = 'secret' | 'publishable' | 'attempts' | 'client_secret';
export interface BucketRule {
  /** Tokens refilled per second; 0 turns the limit off. */
  perSec: number;
  burst: number;
}
export interface Bucket {
  tokens: number;
  at: number;
}
export type Verdict = { ok: true } | { ok: false; kind: LimitKind; retryAfterMs: number };

// Refills add fractions of a token; without slack 0.1 * 10 could fall just short of 1.
const EPSILON = 1e-9;

/** The bucket refilled up to `now` (a new one is full). Pure. */
export function refill(bucket: Bucket | undefined, rule: BucketRule, now: number): Bucket {
  if (!bucket) return { tokens: rule.burst, at: now };
  const elapsed = Math.max(0, now - bucket.at); // a clock stepped back refills nothing
  return { tokens: Math.min(rule.burst, bucket.tokens + (elapsed * rule.perSec) / 1000), at: Math.max(now, bucket.at) };
}

/** Milliseconds until the bucket holds a whole token; 0 when it does. Pure. */
export function msUntilToken(bucket: Bucket, rule: BucketRule): number {
  if (bucket.tokens + EPSILON >= 1) return 0;
  return Math.ceil(((1 - bucket.tokens) * 1000) / rule.perSec);
}

export class RateLimiter {
  // Least recently used first (an entry is re-inserted on use), so the oldest go when the map is full: a
  // bucket unused that long has usually refilled, and forgetting a full bucket changes nothing.
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly rules: Record<LimitKind, BucketRule>,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** One token from each of these buckets, or none from any: a refused request spends nothing. */
  take(keys: readonly { kind: LimitKind; id: string }[]): Verdict {
    const now = this.now();
    const live = keys.filter((k) => this.rules[k.kind].perSec > 0).map((k) => ({ ...k, name: `${k.kind}:${k.id}`, rule: this.rules[k.kind] }));
    const filled = live.map((k) => refill(this.buckets.get(k.name), k.rule, now));
    let refusal: Verdict = { ok: true };
    live.forEach((k, i) => {
      const wait = msUntilToken(filled[i]!, k.rule);
      if (wait > 0 && (refusal.ok || wait > refusal.retryAfterMs)) refusal = { ok: false, kind: k.kind, retryAfterMs: wait };
    });
    live.forEach((k, i) => this.store(k.name, refusal.ok ? { tokens: filled[i]!.tokens - 1, at: filled[i]!.at } : filled[i]!));
    return refusal;
  }

  get size(): number {
    return this.buckets.size;
  }

  private store(name: string, bucket: Bucket): void {
    this.buckets.delete(name);
    this.buckets.set(name, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
  }
}

export function rateLimitRules(config: Pick<Config, Extract<keyof Config, `RATE_LIMIT_${string}`>>): Record<LimitKind, BucketRule> {
  return {
    secret: { perSec: config.RATE_LIMIT_SECRET_PER_SEC, burst: config.RATE_LIMIT_SECRET_BURST },
    publishable: { perSec: config.RATE_LIMIT_PUBLISHABLE_PER_SEC, burst: config.RATE_LIMIT_PUBLISHABLE_BURST },
    attempts: { perSec: config.RATE_LIMIT_ATTEMPTS_PER_SEC, burst: config.RATE_LIMIT_ATTEMPTS_BURST },
    client_secret: { perSec: config.RATE_LIMIT_CLIENT_SECRET_PER_SEC, burst: config.RATE_LIMIT_CLIENT_SECRET_BURST },
  };
}

/**
 * The buckets a bearer token spends from, named by a hash of the whole token (a secret is never kept, and
 * nobody can drain a bucket without holding its token). Checked before authentication, so a flood is
 * refused before any MongoDB read; a token that is not a key or client secret is left to authentication,
 * which refuses it without I/O.
 */
export function bucketsFor(token: string, cardEntry: boolean): { kind: LimitKind; id: string }[] {
  const id = () => createHash('sha256').update(token).digest('base64url');
  if (token.startsWith('pics_')) return [{ kind: 'client_secret', id: id() }];
  const key = parseKey(token);
  if (!key) return [];
  if (key.kind === 'secret') return [{ kind: 'secret', id: id() }];
  return cardEntry ? [{ kind: 'publishable', id: id() }, { kind: 'attempts', id: id() }] : [{ kind: 'publishable', id: id() }];
}

const MESSAGES: Record<LimitKind, (seconds: number) => string> = {
  secret: (s) => `Too many requests with this API key; retry in ${s} s`,
  publishable: (s) => `Too many requests with this publishable key; retry in ${s} s`,
  attempts: (s) => `Too many payment attempts with this publishable key; retry in ${s} s`,
  // Shown to the customer by the hosted page.
  client_secret: (s) => `Too many payment attempts for this payment. Please wait ${s} seconds and try again.`,
};

/** Spends the request's tokens, or refuses it: 429 `rate_limited` with Retry-After in whole seconds. */
export function enforceRateLimit(ctx: Context, limiter: RateLimiter, def: Pick<RouteDef, 'auth' | 'cardEntry'>): void {
  if (def.auth === 'admin') return;
  const token = bearerToken(ctx);
  if (!token) return;
  const verdict = limiter.take(bucketsFor(token, def.cardEntry === true));
  if (verdict.ok) return;
  const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
  throw new DomainError('rate_limited', 'rate_limited', MESSAGES[verdict.kind](seconds), undefined, seconds);
}
