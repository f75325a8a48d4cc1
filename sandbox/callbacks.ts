// Signed callbacks to the callback_url given on a charge, refund or payout. The signature scheme mirrors
// common gateways: `Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, so the
// receiver can check both authenticity and freshness. Delivery is best effort (a few tries); the status
// endpoints stay the source of truth for receivers that missed a callback.

import { createHmac } from 'node:crypto';
import { newId } from './ids';
import type { Scheduler } from './scheduler';

export const SIGNATURE_HEADER = 'Sandbox-Signature';

export type CallbackKind = 'charge' | 'refund' | 'payout';

export interface CallbackBody<D = unknown> {
  event_id: string; // the same on every retry, so receivers can drop duplicates
  kind: CallbackKind;
  created_at: string;
  /** The resource exactly as its status endpoint returns it (id, status, failure_code, reference, ...). */
  data: D;
}

export function signatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

export interface CallbackLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface CallbackSenderOptions {
  secret: string;
  scheduler: Scheduler;
  log: CallbackLog;
  attempts?: number;
  retryDelayMs?: number;
  attemptTimeoutMs?: number;
}

export interface Delivery {
  /** Whether the first attempt was acknowledged with a 2xx; 3DS waits for it before redirecting. */
  firstAttempt: Promise<boolean>;
  /** Whether any attempt was acknowledged. Never rejects. */
  done: Promise<boolean>;
}

export class CallbackSender {
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly inflight = new Set<AbortController>();

  constructor(private readonly opts: CallbackSenderOptions) {
    this.attempts = opts.attempts ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 1000;
    this.attemptTimeoutMs = opts.attemptTimeoutMs ?? 5000;
  }

  send(url: string, kind: CallbackKind, data: unknown): Delivery {
    const body: CallbackBody = { event_id: newId('evt'), kind, created_at: new Date().toISOString(), data };
    const rawBody = JSON.stringify(body);
    let resolveFirst!: (ok: boolean) => void;
    const firstAttempt = new Promise<boolean>((resolve) => (resolveFirst = resolve));
    const done = (async () => {
      for (let attempt = 1; attempt <= this.attempts; attempt++) {
        const ok = await this.attempt(url, rawBody, { eventId: body.event_id, kind, attempt });
        if (attempt === 1) resolveFirst(ok);
        if (ok) return true;
        if (attempt < this.attempts) {
          try {
            await this.opts.scheduler.sleep(this.retryDelayMs);
          } catch {
            return false; // sandbox closed
          }
        }
      }
      this.opts.log.warn({ url, eventId: body.event_id, kind }, 'callback given up');
      return false;
    })().catch(() => false);
    void done.then((ok) => resolveFirst(ok)); // in case the loop ended before the first attempt settled
    return { firstAttempt, done };
  }

  /** Aborts callbacks in flight; pending retries stop because the scheduler closes too. */
  close(): void {
    for (const controller of this.inflight) controller.abort();
    this.inflight.clear();
  }

  private async attempt(
    url: string,
    rawBody: string,
    meta: { eventId: string; kind: CallbackKind; attempt: number },
  ): Promise<boolean> {
    if (this.opts.scheduler.isClosed) return false;
    const controller = new AbortController();
    this.inflight.add(controller);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'payorch-gateway-sandbox',
          [SIGNATURE_HEADER]: signatureHeader(this.opts.secret, rawBody, Math.floor(Date.now() / 1000)),
        },
        body: rawBody,
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(this.attemptTimeoutMs)]),
      });
      await res.arrayBuffer().catch(() => undefined); // drain so the connection can be reused
      const ok = res.status >= 200 && res.status < 300;
      this.opts.log[ok ? 'info' : 'warn']({ url, ...meta, status: res.status }, 'callback attempt');
      return ok;
    } catch (err) {
      this.opts.log.warn({ url, ...meta, err: (err as Error).message }, 'callback attempt failed');
      return false;
    } finally {
      this.inflight.delete(controller);
    }
  }
}
